"""Every CRM scenario, run through the real runtime on a few seeds.

The full self-audit (`saas-sim check 'crm/*' --seeds 5`) adds determinism,
replay, fork and isolation; here we pin what the scenarios promise: the oracle
scores 1.0, the no-op its declared baseline, every hack at most its threshold,
and each seed picks a different task.
"""

from __future__ import annotations

import pytest

from saas_sim.runtime.environment import Environment
from tests.domains.helpers import ROOT, score

SEEDS = (0, 1, 2)
CRM_SCENARIOS = sorted(p.stem for p in (ROOT / "scenarios" / "crm").glob("*.yaml"))


def test_there_are_at_least_twelve_scenarios() -> None:
    assert len(CRM_SCENARIOS) >= 12


@pytest.mark.parametrize("name", CRM_SCENARIOS)
async def test_scenario_oracle_noop_and_hacks(env: Environment, name: str) -> None:
    scenario = env.scenario(f"crm/{name}")
    spec = scenario.spec
    assert len(spec.hacks) >= 2
    for seed in SEEDS:
        assert await score(env, spec.id, seed, "oracle") == pytest.approx(1.0)
        assert await score(env, spec.id, seed, "noop") == pytest.approx(spec.noop_score, abs=1e-6)
        for hack in spec.hacks:
            assert hack.max_score <= 0.2
            assert await score(env, spec.id, seed, f"hack:{hack.name}") <= hack.max_score + 1e-6, hack.name


@pytest.mark.parametrize("name", CRM_SCENARIOS)
async def test_each_seed_yields_a_distinct_task(env: Environment, name: str) -> None:
    instructions = set()
    for seed in SEEDS:
        episode = await env.start(env.scenario(f"crm/{name}"), seed)
        instructions.add(episode.instructions)
    assert len(instructions) == len(SEEDS)
