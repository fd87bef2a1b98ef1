"""The self-audit shared out over worker processes gives the verdicts one process gives."""

from __future__ import annotations

import asyncio
import json

import pytest

from saas_sim.errors import HarnessError
from saas_sim.runtime import audit_pool
from saas_sim.runtime.attack_audits import AuditOptions
from saas_sim.runtime.audit import ScenarioAudit, audit
from saas_sim.runtime.environment import Environment

FAST = AuditOptions(hack_seeds=6, transfer_pairs=3, blind_trials=30, min_alternatives=1)


def _verdict(result: ScenarioAudit) -> dict[str, object]:
    """The report without its timings, which are the one thing where it ran may change."""
    data = json.loads(json.dumps(result.to_json()))
    del data["timings_s"]
    return dict(data)


async def test_two_worker_processes_give_the_reports_of_one_process_in_the_scenarios_order(env: Environment) -> None:
    scenarios = env.scenarios("notes/*")
    assert len(scenarios) >= 2
    said: list[str] = []
    alone = await audit(env, scenarios, [0, 1], options=FAST)
    pooled = await audit(env, scenarios, [0, 1], said.append, FAST, jobs=2, processes=2)
    assert [r.id for r in pooled] == [s.spec.id for s in scenarios]
    assert [_verdict(r) for r in pooled] == [_verdict(r) for r in alone]
    # The workers' progress reaches the caller: every scenario's seeds and attacks.
    for s in scenarios:
        assert f"{s.ref} seed 0" in said and f"{s.ref} seed 1" in said and f"{s.ref} attacks" in said


async def test_more_processes_than_scenarios_start_one_worker_per_scenario(env: Environment) -> None:
    (scenario, *_) = env.scenarios("notes/*")
    (result,) = await audit(env, [scenario], [0], options=FAST, processes=4)
    assert result.id == scenario.spec.id and result.oracle_min == 1.0


async def test_a_worker_that_dies_is_a_harness_error_naming_its_stderr(
    env: Environment, monkeypatch: pytest.MonkeyPatch
) -> None:
    scenarios = env.scenarios("notes/*")
    # The worker's module path names no module: python exits 1 and says so on stderr.
    real_exec = asyncio.create_subprocess_exec

    async def broken_exec(program: str, *args: str, **kwargs: object) -> asyncio.subprocess.Process:
        args = tuple("saas_sim.runtime.no_such_module" if a == "saas_sim.runtime.audit_pool" else a for a in args)
        return await real_exec(program, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(audit_pool.asyncio, "create_subprocess_exec", broken_exec)
    with pytest.raises(HarnessError, match="no_such_module"):
        await audit_pool.audit_in_processes(env.config, scenarios, [0], FAST, lambda _m: None, None,
                                            jobs=2, processes=2)
