"""Worlds leave the cyclic collector's view once built, unless the environment says not to."""

from __future__ import annotations

import gc

import pytest

from saas_sim.runtime.heap import SERVER_GC_THRESHOLDS, set_gc_thresholds
from tests.runtime.conftest import notes_env

SCENARIO = "notes/archive-and-follow-up"


async def test_building_a_world_moves_the_heap_out_of_the_collectors_view() -> None:
    gc.unfreeze()
    async with notes_env() as env:
        await env.start(SCENARIO, 0)
        frozen = gc.get_freeze_count()
        world = next(iter(env._worlds.values()))
        assert frozen > 0
        state_tables = world.state._tables
        assert gc.is_tracked(state_tables)
        # The world is in the permanent generation: no collection scans it any more.
        assert all(o is not state_tables for o in gc.get_objects())
    gc.unfreeze()


async def test_freeze_worlds_false_leaves_the_collector_alone() -> None:
    gc.unfreeze()
    async with notes_env(freeze_worlds=False) as env:
        await env.start(SCENARIO, 0)
        assert gc.get_freeze_count() == 0


def test_set_gc_thresholds_sets_all_three_and_refuses_zero() -> None:
    before = gc.get_threshold()
    try:
        set_gc_thresholds(SERVER_GC_THRESHOLDS)
        assert gc.get_threshold() == SERVER_GC_THRESHOLDS
        with pytest.raises(ValueError, match="at least 1"):
            set_gc_thresholds((0, 10, 10))  # 0 would turn the collector off
        assert gc.get_threshold() == SERVER_GC_THRESHOLDS
    finally:
        gc.set_threshold(*before)
