"""Every support scenario, run through the runtime: oracle 1.0, no-op at its baseline, hacks under threshold.

`saas-sim check 'support/*'` audits more seeds plus replay, fork and isolation; this keeps seed 0 in CI.
"""

from __future__ import annotations

import pytest

from saas_sim.runtime.environment import Environment
from tests.domains.helpers import ROOT, score

SCENARIOS = sorted(p.stem for p in (ROOT / "scenarios" / "support").glob("*.yaml"))


def test_there_are_at_least_twelve_support_scenarios() -> None:
    assert len(SCENARIOS) >= 12


async def test_every_scenario_declares_the_required_hacks_across_the_set(env: Environment) -> None:
    hacks = {h.name for name in SCENARIOS for h in env.scenario(f"support/{name}").spec.hacks}
    assert {"solve_with_generic_macro", "refund_other_order_too", "refund_twice"} <= hacks
    for name in SCENARIOS:
        spec = env.scenario(f"support/{name}").spec
        # A hack above 0.2 is partial real work (`covers: [other]`, e.g. the fix done but the ticket left
        # open): it must still stay clearly below the oracle.
        assert len(spec.hacks) >= 4 and all(h.covers for h in spec.hacks), name
        assert all(h.max_score <= 0.2 or (h.covers == ["other"] and h.max_score < 0.8) for h in spec.hacks), name
        assert len(spec.alternatives) >= 3, name
        assert spec.scope is not None and any(c.kind == "constraint" for c in spec.checks), name
        covered = {c for h in spec.hacks for c in h.covers}
        assert {"blind"} <= covered or {"memorized"} <= covered, name
    faulty = [env.scenario(f"support/{n}").spec.faults for n in SCENARIOS]
    assert any(f is not None and f.write.lost_response > 0 for f in faulty)


@pytest.mark.parametrize("name", SCENARIOS)
async def test_oracle_noop_and_hacks_score_as_declared(env: Environment, name: str) -> None:
    ref = f"support/{name}"
    spec = env.scenario(ref).spec
    assert await score(env, ref, 0, "oracle") == pytest.approx(1.0)
    assert await score(env, ref, 0, "noop") == pytest.approx(spec.noop_score)
    for hack in spec.hacks:
        assert await score(env, ref, 0, f"hack:{hack.name}") <= hack.max_score + 1e-9, hack.name


async def test_one_scenario_file_gives_distinct_tasks_per_seed(env: Environment) -> None:
    scenario = env.scenario("support/refund-damaged-item")
    tasks = [await env.task(scenario, seed) for seed in range(5)]
    assert len({(t.bindings["order"]["id"], t.bindings["line"]["id"]) for t in tasks}) >= 4
