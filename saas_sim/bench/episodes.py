"""Whole oracle episodes per scenario, and `grade()` latency per domain, on the bench's (durable) store.

An episode is `env.start` -> every oracle call (with the scenario's own faults and the oracle's
retries) -> `episode.grade()`, timed end to end; the world and the task are built, and one
untimed episode is run, before the first timed episode (a world build, lazy imports and the
sandbox's first workers are one-offs per process, not episode costs). The grade
is timed inside the same episodes, so `grade_<domain>_p50_us` pools every graded episode of the
domain's scenarios. An episode whose grade is not a valid 1.0 is counted in
`episode_oracle_failures`: a broken oracle is a failed run, not a fast one.

IDE episodes run real sandboxed tests when graded; the sandbox's in-process report cache is
cleared before each one, so every IDE episode pays for its hidden-test run (cold), as an
agent's first attempt at a task does.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from saas_sim.bench.stats import pct
from saas_sim.core.clock import perf_ns
from saas_sim.domains.ide.sandbox import runner
from saas_sim.runtime.agents import make_agent
from saas_sim.runtime.environment import Environment
from saas_sim.scenarios.loader import Scenario

__all__ = ["EpisodeTimes", "episode_figures", "time_episodes"]


class EpisodeTimes:
    """One scenario's timed episodes: whole-episode and grade microseconds, and failures."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.total_us: list[float] = []
        self.grade_us: list[float] = []
        self.failures = 0

    @property
    def domain(self) -> str:
        """The scenario's domain (the first part of its id)."""
        return self.scenario.spec.id.split("/", 1)[0]


async def time_episodes(env: Environment, scenario: Scenario, repeats: int) -> EpisodeTimes:
    """Runs `repeats` oracle episodes of the scenario (seed 0) and times each."""
    times = EpisodeTimes(scenario)
    await env.task(scenario, 0)
    # One untimed episode first: lazy imports, a language model's first load and the sandbox's
    # workers are paid once per process, not per episode.
    warm = await env.start(scenario, 0)
    await make_agent("oracle", scenario).run(warm)
    await warm.grade()
    await warm.close()
    for _ in range(repeats):
        if times.domain == "ide":
            runner.CACHE.clear()
        t0 = perf_ns()
        episode = await env.start(scenario, 0)
        await make_agent("oracle", scenario).run(episode)
        t1 = perf_ns()
        grade = await episode.grade()
        t2 = perf_ns()
        times.total_us.append((t2 - t0) / 1000)
        times.grade_us.append((t2 - t1) / 1000)
        if not grade.valid or grade.score != 1.0:
            times.failures += 1
        await episode.close()
    return times


def episode_figures(results: Sequence[EpisodeTimes]) -> dict[str, Any]:
    """Summarizes timed scenarios.

    Returns:
        For the CRM and support scenarios together, `episode_worst_ms` (the slowest scenario's
        median episode), its `episode_worst_scenario`, `episode_median_ms` (the median of the
        per-scenario medians) and `episode_scenarios`; the same for IDE scenarios as
        `episode_ide_*`; `grade_<domain>_p50_us` / `_p99_us` over each domain's graded episodes;
        `episode_oracle_failures`; and `episode_ms[<scenario id>]`, each scenario's median.
    """
    out: dict[str, Any] = {}
    groups = {"episode": [r for r in results if r.domain != "ide"], "episode_ide": [r for r in results
                                                                                     if r.domain == "ide"]}
    for prefix, group in groups.items():
        medians = {r.scenario.spec.id: statistics.median(r.total_us) / 1000 for r in group if r.total_us}
        if not medians:
            continue
        worst = max(sorted(medians), key=lambda ref: medians[ref])
        out[f"{prefix}_worst_ms"] = round(medians[worst], 3)
        out[f"{prefix}_worst_scenario"] = worst
        out[f"{prefix}_median_ms"] = round(statistics.median(medians.values()), 3)
        out[f"{prefix}_scenarios"] = len(medians)
        for ref in sorted(medians):
            out[f"{prefix}_ms[{ref}]"] = round(medians[ref], 3)
    for domain in sorted({r.domain for r in results}):
        grades = [g for r in results if r.domain == domain for g in r.grade_us]
        out[f"grade_{domain}_p50_us"] = round(pct(grades, 0.5), 2)
        out[f"grade_{domain}_p99_us"] = round(pct(grades, 0.99), 2)
    out["episode_oracle_failures"] = sum(r.failures for r in results)
    return out
