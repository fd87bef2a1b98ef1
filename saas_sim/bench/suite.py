"""`saas-sim bench`: the whole benchmark, run `runs` times (default 3), each figure's min and median.

Every run opens a fresh durable SQLite store (synchronous=FULL) in a temporary folder, builds
the worlds it needs before timing anything, and measures, in this order (µs unless named):

Sustained open-loop writes (`bench.sustained`), at each offered rate R (2,500 and 5,000/s):
`crm.update_deal` calls, each setting a new next step (one durable `DealUpdated` each), arrive
every 1/R s on a fixed schedule, round robin over 1,000 live episodes (each makes a sequence of
writes), for 10 s after a 1 s warm-up, with the default garbage collector (no `gc.freeze`):

* `sustained_write_R_offered_per_s` / `_achieved_per_s`: the schedule's rate, and the measured
  calls that returned ok per second of the window (or until the last measured call returned,
  if later);
* `sustained_write_R_p50_us` / `_p99_us` / `_p999_us`: latency from each call's *scheduled*
  arrival to its return (a backlog counts, nothing is omitted);
* `sustained_write_R_errors`: measured calls that returned an error or did not finish within
  30 s of the last arrival; `_calls`, `_episodes`, `_window_s`: the load's size;
* `sustained_write_R_cpu_us_per_call`: process CPU time (all threads) from the window's start
  until every call ended / the calls that returned meanwhile;
  `_cpu_cores`: that CPU time / wall time (2.0 = both cores of this machine busy);
* `sustained_write_R_dispatch_lag_p99_us`, `_max_in_flight`: how late the dispatcher started
  calls, and the most calls in flight at once (diagnostics of saturation).

One at a time (`bench.latency`), on one episode of `crm/advance-qualified-deal` (crm-smb):

* `reset_p50_us` / `_p99_us`: `env.start` of a built task;
* `read_get_deal_p50_us` / `_p99_us` / `_cpu_us_per_call`: READ `crm.get_deal`;
* `write_single_p50_us` / `_p99_us` / `_cpu_us_per_call`: the durable `crm.update_deal` above,
  alone (each waits for its own commit);
* `search_<probe>_<profile>_p50_us` / `_p99_us`: on every world profile, each of its domains'
  search (`crm.search_contacts` by a contact's full name, `support.search_tickets` by the
  requester's e-mail, `ide.search_code` by a function's name).

Whole episodes (`bench.episodes`): each scenario's oracle, start -> calls -> `grade()`, 20 times
(IDE: 3, each with a cold sandbox report cache):

* `episode_worst_ms` (and `episode_worst_scenario`), `episode_median_ms`: the slowest and the
  median of the CRM and support scenarios' median episodes; `episode_ide_*` the same for IDE;
  `episode_ms[<id>]`, `episode_ide_ms[<id>]`: each scenario's median;
* `grade_crm_p50_us` / `_p99_us`, `grade_support_*`, `grade_ide_*`: `grade()` over those episodes;
* `episode_oracle_failures`: episodes whose grade was not a valid 1.0 (should be 0).

The event store (`bench.store`, owned by the store's benchmark): group commit and the rest of
`saas-sim bench store`'s figures (`sqlite_durable_events_per_s_group`, ...).

`--quick` shrinks every count (a 0.5 s load at 100 and 200/s over 20 episodes, one episode per
chosen scenario, a tiny store workload): a smoke run for tests, not figures to quote.
"""

from __future__ import annotations

import asyncio
import gc
import os
import platform
import sqlite3
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from saas_sim._version import __version__
from saas_sim.bench.episodes import episode_figures, time_episodes
from saas_sim.bench.latency import read_figures, reset_figures, search_figures, single_write_figures
from saas_sim.bench.probes import BENCH_SCENARIO, WRITE_PROBE, unlimited
from saas_sim.bench.stats import summarize_runs
from saas_sim.bench.store import run_store_bench
from saas_sim.bench.sustained import open_loop_writes
from saas_sim.core.clock import perf_ns, wall_ns
from saas_sim.runtime.environment import Environment

__all__ = ["FULL", "QUICK", "SuiteConfig", "run_suite"]


@dataclass(frozen=True)
class SuiteConfig:
    """The sizes of one run."""

    episodes: int = 1000
    rates: tuple[float, ...] = (2500.0, 5000.0)
    duration_s: float = 10.0
    warmup_s: float = 1.0
    drain_s: float = 30.0
    resets: int = 2000
    reads: int = 5000
    writes: int = 2000
    searches: int = 200
    episode_repeats: int = 20
    ide_repeats: int = 3
    scenarios: tuple[str, ...] | None = None
    """Scenario ids to run whole episodes of (None: every scenario)."""
    store_scale: float | None = 1.0
    """The store bench's scale (None: skip it)."""


FULL = SuiteConfig()
QUICK = SuiteConfig(
    episodes=20, rates=(100.0, 200.0), duration_s=0.5, warmup_s=0.1, drain_s=20.0, resets=50, reads=50,
    writes=30, searches=5, episode_repeats=1, ide_repeats=1,
    scenarios=(BENCH_SCENARIO, "support/refund-damaged-item", "ide/fix-reported-bug"), store_scale=0.02,
)

_STORE_META = ("python_version", "python_implementation", "sqlite_version", "aiosqlite_version", "platform",
               "cpu_count", "scale", "gc_enabled")

Progress = Callable[[str], None]


def _now_iso() -> str:
    return datetime.fromtimestamp(wall_ns() / 1e9, UTC).isoformat(timespec="seconds")


def _load() -> float:
    return round(os.getloadavg()[0], 2)


async def _sustained(env: Environment, config: SuiteConfig, rate: float) -> dict[str, Any]:
    scenario = unlimited(env.scenario(BENCH_SCENARIO))
    episodes = [await env.start(scenario, 0, faults=None) for _ in range(config.episodes)]
    gc.collect()  # start each load from a clean heap; the collector then runs as it always does
    figures = await open_loop_writes(episodes, WRITE_PROBE, rate=rate, duration_s=config.duration_s,
                                     warmup_s=config.warmup_s, drain_s=config.drain_s,
                                     prefix=f"sustained_write_{rate:g}")
    del episodes
    gc.collect()
    return figures


async def run_once(config: SuiteConfig, workdir: Path, say: Progress, pg_url: str | None = None) -> dict[str, Any]:
    """One run of every figure (see the module docstring), as a flat dict."""
    out: dict[str, Any] = {"load_1m_start": _load()}
    t0 = perf_ns()
    if config.store_scale is not None:
        say("store: group commit, fold, snapshots")
        out.update(await run_store_bench(pg_url=pg_url, workdir=workdir / "store", scale=config.store_scale))
    # Timing loops need the scenario limits lifted, and an environment caches a task per scenario id:
    # the probes get an environment (and store) of their own, so whole episodes run with real limits.
    async with Environment(f"sqlite+aiosqlite:///{workdir / 'probes.db'}", durable=True) as env:
        bench = unlimited(env.scenario(BENCH_SCENARIO))
        say("reset, READ and single-episode durable WRITE")
        out.update(await reset_figures(env, bench, config.resets))
        out.update(await read_figures(env, bench, config.reads))
        out.update(await single_write_figures(env, bench, config.writes))
        for rate in config.rates:
            say(f"open-loop writes: {rate:g}/s offered for {config.duration_s:g} s over {config.episodes} episodes")
            out.update(await _sustained(env, config, rate))
        say("search on every world profile")
        out.update(await search_figures(env, config.searches))
    async with Environment(f"sqlite+aiosqlite:///{workdir / 'episodes.db'}", durable=True) as env:
        scenarios = ([env.scenario(s) for s in config.scenarios] if config.scenarios is not None
                     else env.scenarios("*"))
        results = []
        for scenario in scenarios:
            ide = scenario.spec.id.startswith("ide/")
            say(f"episodes: {scenario.spec.id}")
            results.append(await time_episodes(env, scenario, config.ide_repeats if ide else config.episode_repeats))
        out.update(episode_figures(results))
    out["run_s"] = round((perf_ns() - t0) / 1e9, 1)
    out["load_1m_end"] = _load()
    return out


async def run_suite(
    *, runs: int = 3, quick: bool = False, workdir: Path, pg_url: str | None = None, progress: Progress | None = None,
) -> dict[str, Any]:
    """Runs the bench `runs` times; returns `{"meta", "figures", "labels"}`.

    `figures[name]` is `{"min", "median", "runs"}` over the runs; `labels[name]` holds the
    non-numeric values of each run (the worst scenario's id, versions); `meta` the machine,
    the date, the config and the 1-minute load average at the start.
    """
    if runs < 1:
        raise ValueError(f"runs must be >= 1, got {runs}")
    say = progress or (lambda _m: None)
    config = QUICK if quick else FULL
    meta: dict[str, Any] = {
        "date": _now_iso(), "saas_sim_version": __version__, "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version, "platform": f"{platform.system()}-{platform.machine()}",
        "cpu_count": os.cpu_count() or 0, "load_1m_at_start": _load(), "runs": runs, "quick": quick,
        "gc": "default (enabled, not frozen)" if gc.isenabled() else "disabled", "config": asdict(config),
    }
    per_run: list[dict[str, Any]] = []
    for i in range(runs):
        say(f"run {i + 1} of {runs}")
        run_dir = workdir / f"run{i}"
        run_dir.mkdir(parents=True, exist_ok=True)
        figures = await run_once(config, run_dir, say, pg_url)
        for key in _STORE_META:
            if key in figures:
                meta.setdefault(f"store_{key}", figures.pop(key))
        per_run.append(figures)
        await asyncio.sleep(0)
    figures, labels = summarize_runs(per_run)
    return {"meta": meta, "figures": figures, "labels": labels}
