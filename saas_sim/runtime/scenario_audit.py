"""The self-audit of one scenario over its seeds: the core promises, then the attacks.

For each seed: the oracle scores 1.0 and the no-op its declared baseline; two oracle runs, a
replay, a rebuild from the log and a fork at the middle agree; a random agent causes no harness
error. Then the seeds' oracles run interleaved (isolation), and the attacks of
saas_sim/runtime/attack_audits.py run concurrently. `saas_sim.runtime.audit` runs this for every
scenario (in this process or in worker processes, runtime/audit_pool.py) and adds the checks that
span scenarios: determinism in another process, and snapshot-loaded worlds.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from saas_sim.core.canonical import sha256_hex
from saas_sim.core.clock import perf_ns
from saas_sim.errors import HarnessError, SaasSimError
from saas_sim.runtime import attack_audits as attacks
from saas_sim.runtime.agents import RandomAgent, make_agent
from saas_sim.runtime.attack_audits import EPS, AuditOptions
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import Episode, reissued_call_id
from saas_sim.runtime.replay import compare_steps, replay
from saas_sim.scenarios.loader import Scenario

__all__ = ["ScenarioAudit", "audit_scenario", "fingerprint"]

T = TypeVar("T")


@dataclass
class ScenarioAudit:
    """The audit of one scenario over its seeds."""

    id: str
    domain: str
    seeds: list[int]
    oracle_min: float = 1.0
    noop_max: float = 0.0
    hacks: dict[str, float] = field(default_factory=dict)
    hack_seeds: list[int] = field(default_factory=list)
    hack_detail: dict[str, Any] = field(default_factory=dict)
    coverage: dict[str, Any] = field(default_factory=dict)
    transfer: dict[str, Any] = field(default_factory=dict)
    blind: dict[str, Any] = field(default_factory=dict)
    do_everything: dict[str, Any] = field(default_factory=dict)
    alternatives: dict[str, Any] = field(default_factory=dict)
    lookalikes: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    deterministic: bool = True
    replay_ok: bool = True
    rebuild_ok: bool = True
    fork_ok: bool = True
    isolation_ok: bool = True
    world_source_ok: bool = True
    harness_errors: int = 0
    random_calls: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every promise held."""
        return not self.failures

    def to_json(self) -> dict[str, Any]:
        """Returns the audit in the `saas-sim check --json` shape."""
        return {
            "id": self.id, "domain": self.domain, "seeds": self.seeds, "oracle_min": self.oracle_min,
            "noop_max": self.noop_max, "hacks": self.hacks, "deterministic": self.deterministic,
            "replay_ok": self.replay_ok, "rebuild_ok": self.rebuild_ok, "fork_ok": self.fork_ok,
            "isolation_ok": self.isolation_ok, "world_source_ok": self.world_source_ok,
            "harness_errors": self.harness_errors,
            "hack_seeds": self.hack_seeds, "hack_detail": self.hack_detail, "coverage": self.coverage,
            "transfer": self.transfer, "blind": self.blind, "do_everything": self.do_everything,
            "alternatives": self.alternatives, "lookalikes": self.lookalikes, "timings_s": self.timings, "ok": self.ok,
            "failures": self.failures,
        }


async def _play(env: Environment, scenario: Scenario, seed: int, agent: str) -> Episode:
    episode = await env.start(scenario, seed)
    await make_agent(agent, scenario).run(episode)
    return episode


async def _score(env: Environment, scenario: Scenario, seed: int, agent: str) -> float:
    episode = await _play(env, scenario, seed, agent)
    try:
        grade = await episode.grade(footer=False)
        if not grade.valid or grade.score is None:
            raise HarnessError(f"{agent} episode invalid ({grade.attribution}): {grade.error}")
        return grade.score
    finally:
        await episode.close()


def _fingerprint_of(episode: Episode) -> list[str]:
    """Every step's chain hash, the final content hash, and a digest of every observation's text.

    The digest catches what hashes cannot: the same facts shown in another form in another process.
    """
    # JSON text, not canonical hashing: canonical form folds "22950.00" into "22950".
    text = json.dumps([[s.ok, s.result, s.error] for s in episode.trajectory.steps], sort_keys=True, ensure_ascii=False)
    observed = sha256_hex(text.encode("utf-8"))
    return [s.state_hash for s in episode.trajectory.steps] + [episode.state.content_hash(), observed]


async def fingerprint(env: Environment, ref: str, seed: int) -> list[str]:
    """Runs the oracle and returns every step's chain hash plus the final content hash."""
    scenario = env.scenario(ref)
    episode = await _play(env, scenario, seed, "oracle")
    try:
        await episode.grade()
        return _fingerprint_of(episode)
    finally:
        await episode.close()


async def _audit_seed(env: Environment, scenario: Scenario, seed: int, result: ScenarioAudit) -> list[str]:
    spec = scenario.spec
    fail = result.failures.append
    tag = f"seed {seed}"
    oracle = await _play(env, scenario, seed, "oracle")
    grade = await oracle.grade()
    score = grade.score if grade.score is not None else -1.0
    result.oracle_min = min(result.oracle_min, score)
    if abs(score - 1.0) > EPS:
        fail(f"{tag}: oracle scored {score:.3f} ({grade.attribution}; {attacks.shortfall(grade)}; {grade.error})")
    noop = await _score(env, scenario, seed, "noop")
    result.noop_max = max(result.noop_max, noop)
    if abs(noop - spec.noop_score) > EPS:
        fail(f"{tag}: noop scored {noop:.3f}, declared {spec.noop_score}")
    # determinism, in process
    again = await fingerprint(env, spec.ref, seed)
    mine = _fingerprint_of(oracle)
    if again != mine:
        result.deterministic = False
        fail(f"{tag}: two oracle runs differ")
    # replay
    report, _ = await replay(env, oracle.trajectory)
    if not report.identical:
        result.replay_ok = False
        fail(f"{tag}: replay {report.describe()}")
    # rebuild
    if await oracle.rebuild_hash() != oracle.state.content_hash():
        result.rebuild_ok = False
        fail(f"{tag}: rebuild from the log differs from the live state")
    # fork at the middle, then replay the rest
    k = len(oracle.trajectory.steps) // 2
    child = await oracle.fork(k)
    for step in oracle.trajectory.steps[k:]:
        await child.call(step.tool, step.args, reissued_call_id(step.call_id))
    fork_report = compare_steps(oracle.trajectory.steps, child.trajectory.steps)
    if not fork_report.identical or child.state_hash != oracle.state_hash:
        result.fork_ok = False
        fail(f"{tag}: fork at step {k} {fork_report.describe()}")
    await child.close()
    await oracle.close()
    # random agent: errors are observations, never harness errors
    episode = await env.start(scenario, seed)
    try:
        agent = RandomAgent(seed)
        await agent.run(episode)
        result.random_calls += episode.steps
        grade = await episode.grade()
        if not grade.valid:
            result.harness_errors += 1
            fail(f"{tag}: random agent episode invalid: {grade.error}")
    except HarnessError as exc:
        result.harness_errors += 1
        fail(f"{tag}: random agent hit a harness error: {exc}")
    finally:
        await episode.close()
    return mine


async def _isolation(env: Environment, scenario: Scenario, seeds: Sequence[int], sequential: dict[int, list[str]],
                     result: ScenarioAudit) -> None:
    prints = await asyncio.gather(*(fingerprint(env, scenario.ref, s) for s in seeds for _ in range(2)))
    for i, seed in enumerate(s for s in seeds for _ in range(2)):
        if prints[i] != sequential[seed]:
            result.isolation_ok = False
            result.failures.append(f"seed {seed}: interleaved concurrent run differs from the sequential run")


async def _timed(result: ScenarioAudit, name: str, work: Awaitable[T]) -> T:
    start = perf_ns()
    try:
        return await work
    finally:
        result.timings[name] = round(result.timings.get(name, 0.0) + (perf_ns() - start) / 1e9, 3)


async def _attacks(env: Environment, scenario: Scenario, seeds: Sequence[int], opts: AuditOptions,
                   result: ScenarioAudit) -> None:
    """Runs the attacks concurrently; a harness error in one is reported, the others still run."""
    fail = result.failures.append
    result.hack_seeds = list(range(opts.hack_seeds))
    result.coverage = attacks.coverage_audit(env, scenario, fail)
    jobs: dict[str, Awaitable[dict[str, Any]]] = {
        "hacks": attacks.hacks_audit(env, scenario, opts, fail),
        "transfer": attacks.transfer_audit(env, scenario, opts, fail),
        "blind": attacks.blind_audit(env, scenario, seeds, opts, fail),
        "do_everything": attacks.do_everything_audit(env, scenario, seeds, fail),
        "alternatives": attacks.alternatives_audit(env, scenario, seeds, opts, fail),
        "lookalikes": attacks.lookalike_audit(env, scenario, opts, fail),
    }
    names = list(jobs)
    outcomes = await asyncio.gather(*(_timed(result, n, jobs[n]) for n in names), return_exceptions=True)
    for name, outcome in zip(names, outcomes, strict=True):
        if isinstance(outcome, SaasSimError):
            fail(f"{name}: {type(outcome).__name__}: {outcome}")
        elif isinstance(outcome, BaseException):
            raise outcome
        elif name == "hacks":
            result.hack_detail = outcome
            result.hacks = {k: float(v["max_score"]) for k, v in outcome.items()}
        else:
            setattr(result, name, outcome)


async def audit_scenario(env: Environment, scenario: Scenario, seeds: Sequence[int], opts: AuditOptions,
                          say: Callable[[str], None]) -> tuple[ScenarioAudit, dict[int, list[str]]]:
    result = ScenarioAudit(id=scenario.spec.id, domain=scenario.spec.domain, seeds=list(seeds))
    sequential: dict[int, list[str]] = {}
    start = perf_ns()
    for seed in seeds:
        say(f"{scenario.ref} seed {seed}")
        try:
            sequential[seed] = await _audit_seed(env, scenario, seed, result)
        except SaasSimError as exc:
            result.failures.append(f"seed {seed}: {type(exc).__name__}: {exc}")
    if len(sequential) == len(seeds):
        await _isolation(env, scenario, seeds, sequential, result)
    result.timings["core"] = round((perf_ns() - start) / 1e9, 3)
    say(f"{scenario.ref} attacks")
    await _attacks(env, scenario, seeds, opts, result)
    return result, sequential
