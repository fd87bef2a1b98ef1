"""Difficulty knobs of the support setups: the default is today's episode, a harder value really adds records."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.ids import IdFactory
from saas_sim.domains.support import events as ev
from saas_sim.domains.support import setups_order_records, setups_orders, setups_queue
from saas_sim.domains.support.state import CUSTOMERS, ORDERS
from saas_sim.errors import ScenarioError
from tests.domains.support.conftest import support_world

SetupFn = Callable[[SetupContext], Setup]

# Every support setup with a `namesakes` knob, with the params of one scenario that uses it.
NAMESAKE_SETUPS: list[tuple[SetupFn, dict[str, Any]]] = [
    (setups_orders.refund_damaged, {"language": "en", "partial": True}),
    (setups_orders.refund_damaged, {"language": "en", "missing_order": True, "alt_email": True, "partial": True}),
    (setups_orders.refund_damaged, {"language": "en", "approval": True}),
    (setups_orders.refund_damaged, {"language": "non_en", "partial": True}),
    (setups_orders.refund_damaged, {"language": "en", "reopened": True, "partial": True}),
    (setups_orders.deny_refund, {"language": "en"}),
    (setups_orders.refund_and_replace, {}),
    (setups_order_records.rest_after_earlier_fix, {}),
    (setups_order_records.quoted_order_not_theirs, {}),
    (setups_order_records.parcel_in_transit, {"missing_order_rate": 0.5}),
    (setups_queue.duplicates, {}),
    (setups_queue.howto_question, {}),
    (setups_queue.threat, {}),
    (setups_queue.vip_ticket, {}),
]
IDS = [f"{fn.__name__}-{i}" for i, (fn, _) in enumerate(NAMESAKE_SETUPS)]


def _run(fn: SetupFn, params: Mapping[str, Any], seed: int) -> Setup:
    world = support_world(0)
    ctx = SetupContext(state=world.state, params=params, rng=random.Random(seed), now=world.profile.epoch,
                       ids=IdFactory(world.state.counters()))
    return fn(ctx)


@pytest.mark.parametrize(("fn", "params"), NAMESAKE_SETUPS, ids=IDS)
@pytest.mark.parametrize("seed", [0, 1])
def test_zero_namesakes_is_the_episode_without_the_param(fn: SetupFn, params: dict[str, Any], seed: int) -> None:
    today = _run(fn, params, seed)
    knob = _run(fn, {**params, "namesakes": 0}, seed)
    assert knob.bindings == today.bindings
    assert knob.events == today.events


@pytest.mark.parametrize(("fn", "params"), NAMESAKE_SETUPS, ids=IDS)
def test_namesakes_stage_other_people_with_the_name_and_the_same_items(fn: SetupFn, params: dict[str, Any]) -> None:
    today = _run(fn, params, 3)
    hard = _run(fn, {**params, "namesakes": 3}, 3)
    assert hard.bindings == today.bindings
    assert hard.events[: len(today.events)] == today.events
    extra = hard.events[len(today.events):]
    people = [e.customer for e in extra if isinstance(e, ev.CustomerCreated)]
    orders = [e.order for e in extra if isinstance(e, ev.OrderPlaced)]
    assert len(people) == len(orders) == 3
    state = support_world(0).state
    target = state.get(CUSTOMERS, today.bindings["customer"]["id"])
    assert target is not None
    assert {p.name for p in people} == {target.name}
    assert len({p.email for p in people} | {target.email}) == 4  # different people, not aliases
    assert len({p.phone for p in people} | {target.phone}) == 4
    numbers = {o.number for o in state.table(ORDERS)}
    assert not numbers & {o.number for o in orders}
    assert len({o.number for o in orders}) == 3
    assert {o.customer_id for o in orders} == {p.id for p in people}
    assert all(o.placed_at < support_world(0).profile.epoch for o in orders)


def test_negative_namesakes_are_refused() -> None:
    with pytest.raises(ScenarioError, match="namesakes"):
        _run(setups_orders.deny_refund, {"namesakes": -1}, 0)


def test_min_queue_at_its_default_is_the_episode_without_the_param() -> None:
    for seed in range(3):
        assert _run(setups_queue.triage_queue, {"min_queue": 6}, seed) == _run(setups_queue.triage_queue, {}, seed)


def test_a_larger_min_queue_picks_a_queue_of_at_least_that_many_tickets() -> None:
    sizes = [_run(setups_queue.triage_queue, {"min_queue": 10}, seed).bindings["queue_size"] for seed in range(4)]
    assert min(sizes) >= 10
    defaults = [_run(setups_queue.triage_queue, {}, seed).bindings["queue_size"] for seed in range(4)]
    assert defaults != sizes
