"""The departed-champion setup: which of two same-named records is the successor is seed-drawn."""

from __future__ import annotations

import random

from saas_sim.core.domain import SetupContext
from saas_sim.core.ids import IdFactory
from saas_sim.core.state import State
from saas_sim.domains.crm import setups_champion
from saas_sim.domains.crm.state import CONTACTS, PROJECTION
from tests.domains.crm.conftest import EPOCH


def test_the_successor_is_neither_always_the_lower_id_nor_always_the_older_record(world: State) -> None:
    lower_id = older = 0
    for seed in range(40):
        ctx = SetupContext(state=world, params={}, rng=random.Random(seed), now=EPOCH,
                           ids=IdFactory(world.counters()))
        setup = setups_champion.departed_champion(ctx)
        state, b = PROJECTION.fold(world, setup.events), setup.bindings
        successor = state.get(CONTACTS, b["successor"]["id"])
        namesake = state.get(CONTACTS, b["namesake"]["id"])
        assert successor is not None and namesake is not None
        assert (successor.first_name, successor.last_name, successor.account_id) == (
            namesake.first_name, namesake.last_name, namesake.account_id)
        # A successor added lately has a title of their own; the auto-reply names it.
        assert successor.title != namesake.title or successor.title is None
        lower_id += successor.id < namesake.id
        older += successor.created_at < namesake.created_at
    assert 8 <= lower_id <= 32 and 8 <= older <= 32
