"""The self-audit behind `saas-sim check`: every scenario, several seeds, every promise.

For each scenario and seed it checks that the oracle scores 1.0, the no-op
scores its declared baseline, that determinism (in-process and in a separate
process with another `PYTHONHASHSEED`), replay, rebuild, fork and isolation
hold, and that a random agent causes no harness error.

Then it attacks the verifier (saas_sim/runtime/attack_audits.py): declared
hacks on 20 seeds, cross-seed transfer of the oracle's writes, a blind search
with the grade as feedback, a do-everything agent, the alternative correct
solutions, and the declared hacks' coverage (saas_sim/runtime/hack_coverage.py).
Last, every oracle runs on a freshly built world and on one loaded from a
snapshot, and the two trajectories must be byte-identical.
Scenarios are audited concurrently (`jobs` at a time); within one, the attacks
run concurrently too, so the store's writer batches their appends. One scenario's
audit is saas_sim/runtime/scenario_audit.py; `processes` > 1 shares them out over
worker processes (saas_sim/runtime/audit_pool.py).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from saas_sim.errors import HarnessError, SaasSimError
from saas_sim.runtime.attack_audits import AuditOptions
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.scenario_audit import ScenarioAudit, audit_scenario, fingerprint
from saas_sim.runtime.world_source import WorldSources
from saas_sim.scenarios.loader import Scenario

__all__ = ["AuditOptions", "ScenarioAudit", "audit", "fingerprint_main"]


async def _subprocess_fingerprints(env: Environment, items: list[tuple[str, int]], hashseed: str) -> dict[str, Any]:
    """The oracle's fingerprints of `items` from another process with another `PYTHONHASHSEED`.

    It depends only on the scenarios, seeds and code, so `audit` starts it with the scenarios' audits and
    reads it after them: the other process works beside this one instead of after it.
    """
    config = env.config | {"items": items}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "saas_sim.runtime.audit", stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # Same import path as this process (plug-in domains included), another hash seed.
        env={**os.environ, "PYTHONHASHSEED": hashseed, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
    )
    try:
        async with asyncio.timeout(1800):
            out, errs = await proc.communicate(json.dumps(config).encode("utf-8"))
    except BaseException:  # a timeout or a cancelled audit: the process must not outlive it
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        raise
    if proc.returncode != 0:
        raise HarnessError(f"fingerprint subprocess failed: {errs.decode('utf-8', 'replace')[-2000:]}")
    return dict(json.loads(out.decode("utf-8")))


async def audit(
    env: Environment, scenarios: Sequence[Scenario], seeds: Sequence[int],
    progress: Callable[[str], None] | None = None, options: AuditOptions | None = None, *, jobs: int = 4,
    processes: int = 1,
) -> list[ScenarioAudit]:
    """Audits scenarios over seeds. Never raises for a scenario's failure: it is reported.

    Args:
        env: The environment (one store; worlds and tasks are cached across scenarios).
        scenarios: What to audit; the results come back in this order.
        seeds: The audited seeds (the core audits, do-everything, alternatives; the blind search
            takes the first `options.blind_seeds`).
        progress: Called with a short message as work starts (once per seed and once per
            scenario's attacks).
        options: How hard the attacks try; defaults to issue 9's counts.
        jobs: How many scenarios are audited at once.
        processes: With more than 1, the scenarios' audits run in that many worker processes
            (runtime/audit_pool.py), `jobs` at a time over all of them; the cross-process and
            snapshot comparisons stay in this one. The verdicts do not depend on it.
    """
    say = progress or (lambda _m: None)
    opts = options or AuditOptions()
    gate = asyncio.Semaphore(max(1, jobs))

    async def one(scenario: Scenario) -> tuple[ScenarioAudit, dict[int, list[str]]]:
        async with gate:
            return await audit_scenario(env, scenario, seeds, opts, say)

    # Every (scenario, seed) the core audits may fingerprint; the ones whose audit failed are not compared.
    every = sorted({(s.ref, seed) for s in scenarios for seed in seeds})
    elsewhere = asyncio.ensure_future(_subprocess_fingerprints(env, every, "12345")) if every else None
    try:
        if processes > 1:
            from saas_sim.runtime.audit_pool import audit_in_processes

            done = await audit_in_processes(env.config, scenarios, seeds, opts, say, env.world_progress,
                                            jobs=jobs, processes=processes)
        else:
            done = await asyncio.gather(*(one(s) for s in scenarios))
    except BaseException:
        if elsewhere is not None:
            elsewhere.cancel()
            await asyncio.gather(elsewhere, return_exceptions=True)
        raise
    results = [r for r, _ in done]
    hashes = {(s.ref, seed): h for s, (_, seq) in zip(scenarios, done, strict=True) for seed, h in seq.items()}
    say("determinism across processes")
    items = sorted(hashes)
    other = await elsewhere if elsewhere is not None else {}
    if items:
        for ref, seed in items:
            got = other.get(f"{ref}#{seed}")
            if got != hashes[(ref, seed)]:
                for r in results:
                    if ref.startswith(r.id + "@"):
                        r.deterministic = False
                        r.failures.append(f"seed {seed}: a process with another PYTHONHASHSEED got other hashes")
    say("observations on snapshot-loaded worlds")
    await _world_sources(env, scenarios, seeds, results)
    return results


async def _world_sources(env: Environment, scenarios: Sequence[Scenario], seeds: Sequence[int],
                         results: Sequence[ScenarioAudit]) -> None:
    """The oracle on a freshly built world and on one loaded from a SQLite snapshot: the same bytes.

    Hashes and grades cannot see a change of form ("22950.00" against "22950"), so the two graded
    trajectories are compared byte for byte (runtime/world_source.py). They run one after another:
    a trajectory records each event's position in its store, which concurrent episodes would interleave.
    """
    with tempfile.TemporaryDirectory(prefix="saas-sim-check-") as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'snapshots.db'}"
        async with WorldSources.open(env.config, url) as sources:
            for scenario, result in zip(scenarios, results, strict=True):
                for seed in seeds:
                    try:
                        diff = await sources.compare(scenario.ref, seed)
                    except SaasSimError as exc:
                        diff = f"{type(exc).__name__}: {exc}"
                    if diff is not None:
                        result.world_source_ok = False
                        result.failures.append(
                            f"seed {seed}: a world loaded from a snapshot shows other observations than a "
                            f"freshly built one: {diff}"
                        )


async def _fingerprints_from_config(config: dict[str, Any]) -> dict[str, list[str]]:
    """The fingerprints of the config's items. The items are every (scenario, seed) the audit may compare,
    asked before the audits say which oracles ran: one whose oracle fails is left out (its audit reports
    the failure; a compared item left out here is a difference), never a failure of the whole check."""
    out: dict[str, list[str]] = {}
    async with Environment.from_config(config) as env:
        for ref, seed in config["items"]:
            try:
                out[f"{ref}#{seed}"] = await fingerprint(env, ref, int(seed))
            except SaasSimError:
                continue
    return out


def fingerprint_main() -> None:
    """Entry point of the fingerprint subprocess: config JSON on stdin, hashes JSON on stdout."""
    config = json.loads(sys.stdin.read())
    print(json.dumps(asyncio.run(_fingerprints_from_config(config))))


if __name__ == "__main__":
    fingerprint_main()
