"""Difficulty knobs of the CRM setups: the default is today's episode, a harder value really adds look-alikes."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.ids import IdFactory
from saas_sim.core.state import State
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm import (
    setups_champion,
    setups_deals,
    setups_leave,
    setups_optout,
    setups_people,
    setups_quotes,
)
from saas_sim.domains.crm.pipeline import is_open
from saas_sim.domains.crm.state import CONTACTS, DEALS
from saas_sim.errors import ScenarioError
from tests.domains.crm.conftest import EPOCH

SetupFn = Callable[[SetupContext], Setup]

# (setup, its knob param) for every CRM setup that got a knob here.
KNOBS: list[tuple[SetupFn, str]] = [
    (setups_deals.qualified_deal, "lookalikes"),
    (setups_deals.won_deal, "lookalikes"),
    (setups_deals.call_followup, "lookalikes"),
    (setups_deals.stalled_deal, "lookalikes"),
    (setups_deals.pipeline_report, "near_misses"),
    (setups_quotes.quote_revision, "lookalikes"),
    (setups_people.existing_person, "namesakes"),
    (setups_people.duplicate_pair, "namesakes"),
    (setups_people.campaign_audience, "namesakes"),
    (setups_people.stale_contact_email, "namesakes"),
    (setups_people.conflicting_lead, "namesakes"),
    (setups_people.conference_updates, "namesakes"),
    (setups_optout.opt_out_request, "namesakes"),
    (setups_champion.departed_champion, "namesakes"),
    (setups_leave.leave_cover, "colleague_tasks"),
]
IDS = [f"{fn.__name__}-{key}" for fn, key in KNOBS]


def _run(world: State, fn: SetupFn, params: Mapping[str, Any], seed: int) -> Setup:
    ctx = SetupContext(state=world, params=params, rng=random.Random(seed), now=EPOCH, ids=IdFactory(world.counters()))
    return fn(ctx)


@pytest.mark.parametrize(("fn", "key"), KNOBS, ids=IDS)
@pytest.mark.parametrize("seed", [0, 1])
def test_the_knob_at_zero_is_the_episode_without_the_param(world: State, fn: SetupFn, key: str, seed: int) -> None:
    today = _run(world, fn, {}, seed)
    knob = _run(world, fn, {key: 0}, seed)
    assert knob.bindings == today.bindings
    assert knob.events == today.events


@pytest.mark.parametrize(("fn", "key"), KNOBS, ids=IDS)
def test_a_harder_value_only_adds_records_after_the_episode(world: State, fn: SetupFn, key: str) -> None:
    today = _run(world, fn, {}, 2)
    hard = _run(world, fn, {key: 3}, 2)
    assert hard.bindings == today.bindings
    assert hard.events[: len(today.events)] == today.events
    assert len(hard.events) > len(today.events)


def _extra(world: State, fn: SetupFn, key: str, n: int, seed: int = 4) -> tuple[Setup, list[Any]]:
    today = _run(world, fn, {}, seed)
    hard = _run(world, fn, {key: n}, seed)
    return today, hard.events[len(today.events):]


def test_namesakes_are_other_people_with_the_exact_name_at_other_accounts(world: State) -> None:
    today, extra = _extra(world, setups_people.stale_contact_email, "namesakes", 3)
    contact = world.get(CONTACTS, today.bindings["contact"]["id"])
    assert contact is not None
    people = [e.contact for e in extra if isinstance(e, ev.ContactCreated)]
    assert len(people) == 3
    assert {(p.first_name, p.last_name) for p in people} == {(contact.first_name, contact.last_name)}
    assert contact.account_id not in {p.account_id for p in people}
    assert len({p.email for p in people} | {contact.email}) == 4
    truths = [t for e in extra if isinstance(e, ev.PersonTruthsRecorded) for t in e.truths]
    assert {t.id for t in truths} == {p.id for p in people}
    assert all(t.person_key == t.id and t.false_friend_of == contact.id for t in truths)


def test_lookalike_deals_share_the_account_stage_and_buyer_with_a_name_that_starts_alike(world: State) -> None:
    today, extra = _extra(world, setups_deals.qualified_deal, "lookalikes", 3)
    deal = world.get(DEALS, today.bindings["deal"]["id"])
    assert deal is not None
    made = [e.deal for e in extra if isinstance(e, ev.DealCreated)]
    assert len(made) == 3
    assert len({d.name for d in made}) == 3
    assert all(d.name.startswith(deal.name) and d.name != deal.name for d in made)
    assert {(d.account_id, d.stage, d.primary_contact_id) for d in made} == {
        (deal.account_id, deal.stage, deal.primary_contact_id)}
    if deal.amount is not None:
        assert all(d.amount is not None and abs(d.amount - deal.amount) <= deal.amount * 15 / 100 for d in made)


def test_near_misses_are_open_deals_of_the_owner_closing_just_after_the_window(world: State) -> None:
    today, extra = _extra(world, setups_deals.pipeline_report, "near_misses", 4)
    end = today.bindings["end"]
    made = [e.deal for e in extra if isinstance(e, ev.DealCreated)]
    assert len(made) == 4
    assert all(d.owner_id == today.bindings["owner"]["id"] and is_open(d.stage) for d in made)
    assert all(d.close_date is not None and 1 <= (d.close_date - type(d.close_date).fromisoformat(end)).days <= 7
               for d in made)


def test_colleague_tasks_fall_in_the_leave_and_belong_to_other_reps(world: State) -> None:
    today, extra = _extra(world, setups_leave.leave_cover, "colleague_tasks", 3)
    tasks = [e.task for e in extra if isinstance(e, ev.TaskCreated)]
    assert len(tasks) == 3
    assert all(t.owner_id != today.bindings["user"]["id"] for t in tasks)
    assert all(today.bindings["start"] <= t.due_at.date().isoformat() <= today.bindings["end"] for t in tasks)


def test_opt_out_namesakes_sit_in_the_persons_first_sequence(world: State) -> None:
    today, extra = _extra(world, setups_optout.opt_out_request, "namesakes", 2)
    enrolled = [e.enrollment for e in extra if isinstance(e, ev.ContactEnrolled)]
    people = {e.contact.id for e in extra if isinstance(e, ev.ContactCreated)}
    assert {e.contact_id for e in enrolled} == people and len(people) == 2
    assert {e.sequence_id for e in enrolled} == {today.bindings["sequences"]["person"]}


def test_campaign_namesakes_stay_outside_the_campaign_accounts(world: State) -> None:
    today, extra = _extra(world, setups_people.campaign_audience, "namesakes", 4)
    accounts = {e.contact.account_id for e in extra if isinstance(e, ev.ContactCreated)}
    assert len(accounts) >= 1
    assert not accounts & {today.bindings["a1"]["id"], today.bindings["a2"]["id"]}


def test_negative_counts_are_refused(world: State) -> None:
    with pytest.raises(ScenarioError, match="lookalikes"):
        _run(world, setups_deals.won_deal, {"lookalikes": -1}, 0)
