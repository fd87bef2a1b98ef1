"""The declined-deals setup: two declines naming one cause each, distractors that are no decline."""

from __future__ import annotations

import random
from typing import Any

import pytest

from saas_sim.core.domain import SetupContext
from saas_sim.core.ids import IdFactory
from saas_sim.core.state import State
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm import setups_forecast
from saas_sim.domains.crm.decline_causes import causes_named, states_cause
from saas_sim.errors import ScenarioError
from tests.domains.crm.conftest import EPOCH


def _setup(world: State, seed: int, **params: Any) -> tuple[dict[str, Any], list[ev.InboundEmailReceived]]:
    ctx = SetupContext(state=world, params=params, rng=random.Random(seed), now=EPOCH,
                       ids=IdFactory({"act": 100000}))
    setup = setups_forecast.declined_deals(ctx)
    return dict(setup.bindings), [e for e in setup.events if isinstance(e, ev.InboundEmailReceived)]


def test_each_decline_names_its_own_cause_and_its_reasons_state_it(world: State) -> None:
    for seed in range(8):
        b, emails = _setup(world, seed)
        for key in ("d1", "d2"):
            d = b[key]
            body = next(e.activity.body or "" for e in emails if e.activity.contact_id == d["contact_id"])
            assert causes_named(body) == {d["cause"]}
            assert states_cause(d["reason"], d["cause"], d["competitor"])
            assert states_cause(d["reason_alt"], d["cause"], d["competitor"])
        assert b["d1"]["cause"] != b["d2"]["cause"]


def test_the_reviewed_deals_are_the_declines_and_the_distractors_with_distinct_buyers(world: State) -> None:
    b, _ = _setup(world, 3, distractors=5)
    assert sorted(b["declined_ids"] + b["kept_ids"]) == b["reviewed_ids"]
    buyers = b["declined_contact_ids"] + [k["contact_id"] for k in b["kept"]]
    assert len(set(buyers)) == len(buyers)
    assert [k["kind"] for k in b["kept"]] == ["quiet", "soft_no", "reversed", "quiet", "soft_no"]


def test_a_retraction_comes_after_its_decline(world: State) -> None:
    b, emails = _setup(world, 1)
    retracted = next(k for k in b["kept"] if k["kind"] == "reversed")
    mine = sorted((e.activity for e in emails if e.activity.contact_id == retracted["contact_id"]),
                  key=lambda a: a.occurred_at)
    assert len(mine) == 2 and "correction" in mine[1].subject


def test_depth_two_files_the_declines_on_the_person_only(world: State) -> None:
    b, emails = _setup(world, 2, depth=2)
    declines = [e.activity for e in emails if e.activity.contact_id in b["declined_contact_ids"]]
    assert declines and all(a.deal_id is None for a in declines)
    b1, emails1 = _setup(world, 2, depth=1)
    assert all(e.activity.deal_id is not None for e in emails1 if e.activity.contact_id in b1["declined_contact_ids"])


def test_out_of_range_parameters_are_a_scenario_error(world: State) -> None:
    with pytest.raises(ScenarioError):
        _setup(world, 0, depth=3)


def test_the_declines_are_not_always_the_lowest_activity_ids(world: State) -> None:
    first_is_decline = 0
    for seed in range(40):
        b, emails = _setup(world, seed)
        lowest = min(emails, key=lambda e: e.activity.id)
        first_is_decline += lowest.activity.deal_id in b["declined_ids"]
    # Two of five reviewed deals decline: the first email staged is a decline about 2 times in 5.
    assert 6 <= first_is_decline <= 28
