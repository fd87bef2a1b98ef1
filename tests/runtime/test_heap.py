"""Worlds leave the cyclic collector's view once built, unless the environment says not to."""

from __future__ import annotations

import gc

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
