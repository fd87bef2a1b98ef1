"""World builds report their parts to an optional callback (the CLI's progress bar); the runtime prints nothing."""

from __future__ import annotations

import pytest

from saas_sim.runtime.environment import Environment
from saas_sim.runtime.world import build_world


async def test_a_world_build_names_each_domain_then_the_indexes_and_a_cached_world_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    said: list[str] = []
    async with Environment("sqlite+aiosqlite:///:memory:", world_progress=said.append) as env:
        scenario = env.scenario("crm/advance-qualified-deal")
        await env.task(scenario, 0)
        name = scenario.profile.name
        parts = ["snapshot", *scenario.profile.domains, "indexes"]
        assert said == [f"world {name} seed 0: {part}" for part in parts]
        said.clear()
        await env.task(scenario, 0)
        assert said == []
    assert capsys.readouterr() == ("", "")


async def test_the_callback_leaves_the_world_hash_unchanged() -> None:
    async with Environment("sqlite+aiosqlite:///:memory:") as env:
        profile = env.scenario("support/refund-damaged-item").profile
        said: list[str] = []
        assert build_world(profile, 2, env.domains, said.append).world_hash == \
            build_world(profile, 2, env.domains).world_hash
        assert said
