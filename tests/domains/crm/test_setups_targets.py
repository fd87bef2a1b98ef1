"""Setups stage tasks that can be judged: reachable people (a false email is judged, not refused), and
forecast windows that a superset answer cannot pass."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.ids import IdFactory
from saas_sim.core.state import State
from saas_sim.domains.crm import setups_deals, setups_people
from saas_sim.domains.crm.pipeline import is_open
from saas_sim.domains.crm.setup_helpers import reachable
from saas_sim.domains.crm.state import CONTACTS, DEALS
from tests.domains.crm.conftest import EPOCH

SEEDS = range(6)


def _setup(world: State, fn: Callable[[SetupContext], Setup], seed: int) -> Setup:
    counters = {"ct": 100000, "dl": 100000, "ld": 100000, "acc": 100000, "act": 100000}
    ctx = SetupContext(state=world, params={}, rng=random.Random(seed), now=EPOCH, ids=IdFactory(counters))
    return fn(ctx)


@pytest.mark.parametrize(("fn", "path"), [
    (setups_people.existing_person, ("person", "id")),
    (setups_people.stale_contact_email, ("contact", "id")),
    (setups_people.conflicting_lead, ("contact", "id")),
    (setups_deals.call_followup, ("contact", "id")),
    (setups_deals.won_deal, ("contact", "id")),
])
def test_the_person_a_task_is_about_can_be_emailed(
    world: State, fn: Callable[[SetupContext], Setup], path: tuple[str, str]
) -> None:
    for seed in SEEDS:
        contact_id = _setup(world, fn, seed).bindings[path[0]][path[1]]
        contact = world.get(CONTACTS, contact_id)
        assert contact is not None and reachable(contact), (fn.__name__, seed, contact_id)


def test_every_conference_person_can_be_emailed(world: State) -> None:
    for seed in SEEDS:
        for u in _setup(world, setups_people.conference_updates, seed).bindings["updates"]:
            contact = world.get(CONTACTS, u["contact_id"])
            assert contact is not None and reachable(contact)


def test_a_forecast_window_holds_at_most_half_of_the_owners_open_deals(world: State) -> None:
    for seed in SEEDS:
        b = _setup(world, setups_deals.pipeline_report, seed).bindings
        open_ids = {d.id for d in world.table(DEALS) if d.owner_id == b["owner"]["id"] and is_open(d.stage)}
        assert set(b["owner_open_ids"]) == open_ids
        assert 2 * len(b["expected_ids"]) <= len(open_ids)
