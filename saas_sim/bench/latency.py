"""One-at-a-time latencies: reset, READ, a durable WRITE on one episode, and search on every world profile.

Each figure times calls made one after another on one episode (nothing else in flight), from
the call to its return, and reports p50 and p99 in microseconds. The CPU figures are the
process's CPU time over the loop divided by its calls (`core.clock.cpu_ns`).
"""

from __future__ import annotations

from typing import Any

from saas_sim.bench.probes import READ_PROBE, SEARCH_PROBES, WRITE_PROBE, CallProbe, on_profile, unlimited
from saas_sim.bench.stats import latency_figures
from saas_sim.core.clock import cpu_ns, perf_ns
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import Episode
from saas_sim.scenarios.loader import Scenario

__all__ = ["read_figures", "reset_figures", "search_figures", "single_write_figures", "time_calls"]


async def time_calls(episode: Episode, tool: str, args: list[dict[str, Any]]) -> tuple[list[float], float]:
    """Makes one call per argument set, in order; returns (latencies in µs, CPU µs per call).

    Raises:
        RuntimeError: A call returned an error (the figure would time the error path).
    """
    times: list[float] = []
    cpu0 = cpu_ns()
    for i, a in enumerate(args):
        t0 = perf_ns()
        result = await episode.call(tool, a, f"bench-{i}")
        times.append((perf_ns() - t0) / 1000)
        if not result.ok:
            raise RuntimeError(f"bench call {tool} failed: {result.error}")
    return times, (cpu_ns() - cpu0) / 1000 / max(1, len(args))


async def reset_figures(env: Environment, scenario: Scenario, n: int) -> dict[str, Any]:
    """`reset_p50_us`, `reset_p99_us`: `env.start` of a task whose world and task are built.

    The probes' scenarios must come through `probes.unlimited` every time: an environment caches
    one task per scenario id and world, with the limits of the first scenario object it saw.
    """
    await env.task(scenario, 0)
    times: list[float] = []
    for _ in range(n):
        t0 = perf_ns()
        await env.start(scenario, 0, faults=None)
        times.append((perf_ns() - t0) / 1000)
    return latency_figures("reset", times)


async def read_figures(env: Environment, scenario: Scenario, n: int) -> dict[str, Any]:
    """`read_get_deal_p50_us`, `_p99_us`, `_cpu_us_per_call`: `crm.get_deal`, n times on one episode."""
    episode = await env.start(scenario, 0, faults=None)
    args = READ_PROBE.render(episode)
    times, cpu = await time_calls(episode, READ_PROBE.tool, [args] * n)
    return {**latency_figures(READ_PROBE.name, times), f"{READ_PROBE.name}_cpu_us_per_call": round(cpu, 2)}


async def single_write_figures(env: Environment, scenario: Scenario, n: int) -> dict[str, Any]:
    """`write_single_p50_us`, `_p99_us`, `_cpu_us_per_call`: n durable `crm.update_deal` calls on one episode."""
    episode = await env.start(scenario, 0, faults=None)
    args = [WRITE_PROBE.args(episode, k) for k in range(n)]
    times, cpu = await time_calls(episode, WRITE_PROBE.tool, args)
    return {**latency_figures("write_single", times), "write_single_cpu_us_per_call": round(cpu, 2)}


def _profile_key(name: str) -> str:
    return name.replace("-", "_")


async def search_figures(env: Environment, n: int, profiles: list[str] | None = None) -> dict[str, Any]:
    """`search_<probe>_<profile>_p50_us` / `_p99_us` for every profile and every domain it holds.

    Args:
        env: The environment.
        n: Searches per (profile, domain).
        profiles: The profiles (default: every loaded one, sorted by name).
    """
    out: dict[str, Any] = {}
    for name in profiles if profiles is not None else sorted(env.profiles):
        profile = env.profiles[name]
        for domain in sorted(profile.domains):
            probe: CallProbe | None = SEARCH_PROBES.get(domain)
            if probe is None:
                continue
            scenario = unlimited(on_profile(env.scenario(probe.scenario), profile))
            episode = await env.start(scenario, 0, faults=None)
            times, _ = await time_calls(episode, probe.tool, [probe.render(episode)] * n)
            out.update(latency_figures(f"search_{probe.name}_{_profile_key(name)}", times))
    return out
