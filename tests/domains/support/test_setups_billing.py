"""The support desk's billing setups: where the duplicate charge sits among the copies of the order."""

from __future__ import annotations

import random

import pytest

from saas_sim.core.domain import SetupContext
from saas_sim.core.ids import IdFactory
from saas_sim.domains.support import events as ev
from saas_sim.domains.support import setups_billing
from tests.domains.support.conftest import support_world


@pytest.mark.parametrize("repeat_orders", [1, 2])
def test_the_duplicate_is_not_always_the_lowest_id_of_the_copies(repeat_orders: int) -> None:
    world = support_world(0)
    lowest = 0
    for seed in range(40):
        ctx = SetupContext(state=world.state, params={"repeat_orders": repeat_orders}, rng=random.Random(seed),
                           now=world.profile.epoch, ids=IdFactory(world.state.counters()))
        out = setups_billing.duplicate_charge(ctx)
        copies = [e.order for e in out.events if isinstance(e, ev.OrderPlaced)]
        assert len(copies) == repeat_orders + 1
        assert out.bindings["duplicate"]["id"] in {o.id for o in copies}
        lowest += min(o.id for o in copies) == out.bindings["duplicate"]["id"]
    # One duplicate among 1 + repeat_orders copies: the lowest id about 1 time in 2 or 3.
    assert 5 <= lowest <= 30
