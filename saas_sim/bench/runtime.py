"""`saas-sim bench runtime`: reset, READ and WRITE call latency, write bursts, memory, on one scenario.

The headline figures (sustained open-loop writes, CPU per call, grading, whole episodes,
search) are `saas-sim bench` (`bench/suite.py`); this subcommand keeps the older, narrower
probes, named for what they measure. Numbers are p50 and p99 of repeated measurements in one
run. `reset_p50_us_10x_world` repeats the reset on the same profile with every count
multiplied by ten, to show reset cost is flat.

Writes are the first oracle WRITE of the scenario, made once per fresh episode, on a durable
(synchronous=FULL) SQLite file:

* `write_first_p50_us`: one fresh episode at a time (each waits for its own commit);
* `write_burst_calls_per_s_1000_episodes` (and `_runs`): 1,000 episodes each fire their one
  write at the same instant (a closed burst): the saturated throughput of group commit over
  one burst, not a sustained rate; `write_burst_p99_us_1000_episodes`: the burst's p99, which is
  throughput-bound (the last caller waits for everyone before it);
* `write_paced_p50_us_1000_episodes` / `_p99_us_`: the same 1,000 single writes started evenly
  at `offered_rate` (2,500/s: 0.4 s of load), three times. A short paced burst, not the sustained
  open-loop load of `saas-sim bench`.

Each write figure is taken with the default garbage collector (unsuffixed), then again after
`gc.freeze()` at warm-up (`..._gc_frozen`), the recipe the README gives long-running servers.

`effects_loop_lag_*_ms` is how late a 5 ms ticker wakes while 100 real subprocess effects run
at once (saas_sim/bench/effect_lag.py). `world_build_s` is the time to build the scenario's
world from its profile and seed from scratch, and `world_build_s_crm_enterprise` the same for
the large `crm-enterprise` profile (6,000 contacts); each is the median of three.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import statistics
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from saas_sim.bench.effect_lag import measure_effect_lag
from saas_sim.core.clock import perf_ns
from saas_sim.core.tools import ToolKind
from saas_sim.errors import ScenarioError
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.world import WorldProfile, build_world
from saas_sim.scenarios.loader import Scenario
from saas_sim.scenarios.model import Limits, Step
from saas_sim.scenarios.templating import render

__all__ = ["ENTERPRISE_PROFILE", "run_runtime_bench", "world_build_seconds"]

ENTERPRISE_PROFILE = "crm-enterprise"


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _first_step(env: Environment, scenario: Scenario, kind: ToolKind, bindings: dict[str, Any]) -> Step:
    """Returns the oracle's first step of `kind` whose arguments need only the task's bindings."""
    kit = env.toolkit(scenario)
    for step in scenario.spec.oracle:
        if kit.allowed[step.tool].kind is not kind:
            continue
        try:
            render(step.args, bindings)
        except ScenarioError:
            continue
        return step
    raise ScenarioError(f"{scenario.ref}: the oracle has no {kind.value} step usable for timing")


def world_build_seconds(env: Environment, profile: WorldProfile, repeats: int = 3) -> list[float]:
    """Builds the world of `profile` (seed 0) from scratch `repeats` times; returns each build's seconds."""
    times: list[float] = []
    for _ in range(repeats):
        t0 = perf_ns()
        build_world(profile, 0, env.domains)
        times.append((perf_ns() - t0) / 1e9)
    return times


async def reset_times_us(env: Environment, scenario: Scenario, n: int) -> list[float]:
    """Times `n` resets (`env.start`) of a scenario whose world and task are built, in microseconds."""
    return await _resets(env, scenario, n)


async def _resets(env: Environment, scenario: Scenario, n: int) -> list[float]:
    await env.task(scenario, 0)  # build the world and the task once
    times: list[float] = []
    for _ in range(n):
        t0 = perf_ns()
        await env.start(scenario, 0)
        times.append((perf_ns() - t0) / 1000)
    return times


async def _burst_writes(live: list[Any], tool: str, args: Any) -> tuple[float, list[float]]:
    """Fires one write per episode at once; returns (calls per second, latencies in µs)."""
    latencies: list[float] = []

    async def one(episode: Any) -> None:
        t0 = perf_ns()
        result = await episode.call(tool, args, "w")
        latencies.append((perf_ns() - t0) / 1000)
        if not result.ok:
            raise RuntimeError(f"benchmark write failed: {result.error}")

    t0 = perf_ns()
    await asyncio.gather(*(one(e) for e in live))
    return len(live) / ((perf_ns() - t0) / 1e9), latencies


async def _paced_writes(live: list[Any], tool: str, args: Any, rate: float) -> list[float]:
    """Starts one write per episode at evenly spaced instants (an open-loop load); returns latencies in µs."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    latencies: list[float] = []

    async def one(i: int, episode: Any) -> None:
        await asyncio.sleep(max(0.0, start + i / rate - loop.time()))
        t0 = perf_ns()
        result = await episode.call(tool, args, "w")
        latencies.append((perf_ns() - t0) / 1000)
        if not result.ok:
            raise RuntimeError(f"benchmark write failed: {result.error}")

    await asyncio.gather(*(one(i, e) for i, e in enumerate(live)))
    return latencies


async def run_runtime_bench(
    *, scenario: str, workdir: Path, episodes: int = 1000, offered_rate: float = 2500.0,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Measures the runtime on a built-in scenario; returns the figures as a flat dict."""
    say = progress or (lambda _m: None)
    out: dict[str, Any] = {"runtime_scenario": scenario}
    db = workdir / "runtime-bench.db"
    async with Environment(f"sqlite+aiosqlite:///{db}", durable=True) as env:
        base = env.scenario(scenario)
        # Timing loops make thousands of calls: lift the scenario's step and time limits.
        sc = dataclasses.replace(base, spec=base.spec.model_copy(
            update={"limits": Limits(max_steps=10_000, sim_time_s=1e9)}))
        say(f"reset ({sc.spec.world})")
        resets = await _resets(env, sc, 2000)
        out["reset_p50_us"] = round(_pct(resets, 0.5), 2)
        out["reset_p99_us"] = round(_pct(resets, 0.99), 2)
        big = dataclasses.replace(sc, profile=sc.profile.scaled(10))
        say("reset on a 10x world")
        resets10 = await _resets(env, big, 2000)
        out["reset_p50_us_10x_world"] = round(_pct(resets10, 0.5), 2)
        say(f"world build ({sc.profile.name})")
        out["world_build_s"] = round(statistics.median(world_build_seconds(env, sc.profile)), 3)
        if ENTERPRISE_PROFILE in env.profiles:
            say(f"world build ({ENTERPRISE_PROFILE})")
            builds = world_build_seconds(env, env.profiles[ENTERPRISE_PROFILE])
            out[f"world_build_s_{ENTERPRISE_PROFILE.replace('-', '_')}"] = round(statistics.median(builds), 3)
        task = await env.task(sc, 0)
        state = task.world.state
        out["world_entities"] = sum(len(state.raw_table(t)) for t in state.table_names())
        read_step = _first_step(env, sc, ToolKind.READ, task.bindings)
        write_step = _first_step(env, sc, ToolKind.WRITE, task.bindings)
        out["read_tool"], out["write_tool"] = read_step.tool, write_step.tool
        say("read calls")
        ep = await env.start(sc, 0)
        args = render(read_step.args, ep.task.bindings)
        reads: list[float] = []
        for i in range(3000):
            t0 = perf_ns()
            await ep.call(read_step.tool, args, f"r{i}")
            reads.append((perf_ns() - t0) / 1000)
        out["read_call_p50_us"] = round(_pct(reads, 0.5), 2)
        say("write calls, one episode at a time")
        writes: list[float] = []
        for _ in range(300):
            ep = await env.start(sc, 0)
            wargs = render(write_step.args, ep.task.bindings)
            t0 = perf_ns()
            await ep.call(write_step.tool, wargs, "w")
            writes.append((perf_ns() - t0) / 1000)
        out["write_first_p50_us"] = round(_pct(writes, 0.5), 2)
        wargs = render(write_step.args, (await env.start(sc, 0)).task.bindings)
        out["write_paced_offered_per_s"] = offered_rate
        for frozen in (False, True):
            suffix = "_gc_frozen" if frozen else ""
            if frozen:
                # The deployment recipe: after warm-up (imports, worlds), move the long-lived heap out of
                # the collector's way, so gen-2 collections stop rescanning immutable worlds on every pass.
                gc.collect()
                gc.freeze()
            try:
                say(f"one-write burst across {episodes} episodes (durable SQLite, group commit){suffix}")
                rates: list[float] = []
                burst: list[float] = []
                for _ in range(3):
                    live = [await env.start(sc, 0) for _ in range(episodes)]
                    rate, lat = await _burst_writes(live, write_step.tool, wargs)
                    rates.append(rate)
                    burst += lat
                    del live
                say(f"one write per episode, paced at {offered_rate:g}/s, {episodes} episodes{suffix}")
                paced: list[float] = []
                for _ in range(3):
                    live = [await env.start(sc, 0) for _ in range(episodes)]
                    paced += await _paced_writes(live, write_step.tool, wargs, offered_rate)
                    del live
            finally:
                gc.unfreeze()
            out[f"write_burst_calls_per_s_1000_episodes{suffix}"] = round(statistics.median(rates), 1)
            out[f"write_burst_calls_per_s_1000_episodes{suffix}_runs"] = ",".join(f"{r:.0f}" for r in rates)
            out[f"write_burst_p99_us_1000_episodes{suffix}"] = round(_pct(burst, 0.99), 2)
            out[f"write_paced_p50_us_1000_episodes{suffix}"] = round(_pct(paced, 0.5), 2)
            out[f"write_paced_p99_us_1000_episodes{suffix}"] = round(_pct(paced, 0.99), 2)
        say("memory per fresh episode")
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        held = [await env.start(sc, 0) for _ in range(200)]
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
        out["episode_kb"] = round(grown / len(held) / 1024, 2)
        out["write_burst_episodes"] = episodes
        out["stdev_reset_us"] = round(statistics.pstdev(resets), 2)
    say("event-loop lag under 100 concurrent subprocess effects")
    out.update(await measure_effect_lag(100))
    return out
