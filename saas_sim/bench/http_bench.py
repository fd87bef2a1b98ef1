"""`saas-sim bench http`: one server, driven from this separate process, with oracle traffic.

    report = await run_http_bench(HttpBenchConfig(sessions=512, duration_s=20))

Order of work: record the oracle plans in-process (off the clock); raise RLIMIT_NOFILE for the
sessions' sockets (inherited by a server this process starts); start `saas-sim serve` on a
SQLite file in a temporary folder unless a URL is given; play every plan once (warm-up: the
server builds its worlds and a wrong grade shows before any figure does); then `runs` measured
windows (each after `ramp_s` of uncounted load, so sessions are spread over their episodes'
routes), each figure's median over them. The client runs on uvloop when it is installed, so
the load generator stays a small share of the 2 cores.
"""

from __future__ import annotations

import asyncio
import platform
import statistics
import tempfile
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from saas_sim.bench.http_driver import drive, warm_up
from saas_sim.bench.http_plan import OraclePlan, record_plans
from saas_sim.bench.http_server import ProcStats, ServerProcess, raise_nofile
from saas_sim.core.clock import perf_ns

__all__ = ["HttpBenchConfig", "median_figures", "run_http_bench", "run_sync"]

T = TypeVar("T")

FD_HEADROOM = 256
"""File descriptors beyond one per session: the store, logs, the event loop's own."""


@dataclass
class HttpBenchConfig:
    """What `saas-sim bench http` runs (see the command's options)."""

    sessions: int = 64
    duration_s: float = 10.0
    runs: int = 1
    url: str | None = None
    store: str | None = None
    server_options: Sequence[str] = ()
    server_pids: Sequence[int] = ()
    scenarios: Sequence[str] = ("*",)
    seeds: int = 2
    include_ide: bool = False
    timeout_s: float = 30.0
    ramp_s: float = 5.0
    think_s: float = 0.0
    warm: bool = True
    extra: dict[str, Any] = field(default_factory=dict)


def median_figures(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Each numeric figure's median over the runs (a figure missing from a run counts as 0)."""
    keys = sorted({k for r in runs for k in r})
    out: dict[str, Any] = {}
    for key in keys:
        values = [r.get(key, 0) for r in runs]
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            out[key] = statistics.median(values)
        else:
            out[key] = values[0]
    return out


async def run_http_bench(config: HttpBenchConfig, progress: Callable[[str], None] = lambda _: None,
                         plans: Sequence[OraclePlan] | None = None) -> dict[str, Any]:
    """Runs the HTTP bench.

    Args:
        config: What to run.
        progress: Receives a line per stage (to stderr, from the CLI).
        plans: Pre-recorded plans (tests reuse them); recorded from `config` when None.

    Returns:
        `{"config", "median", "runs", "plans", "warm_up_errors", "server"}`: `median` holds
        every figure's median over the runs (see `DriveResult.figures`).
    """
    if plans is None:
        t0 = perf_ns()
        plans = await record_plans(config.scenarios, range(config.seeds), include_ide=config.include_ide)
        progress(f"recorded {len(plans)} oracle episodes in {(perf_ns() - t0) / 1e9:.1f} s")
    nofile = raise_nofile(config.sessions + FD_HEADROOM)
    report: dict[str, Any] = {
        "config": {"sessions": config.sessions, "duration_s": config.duration_s, "ramp_s": config.ramp_s,
                   "think_s": config.think_s,
                   "runs": config.runs,
                   "url": config.url, "server_options": list(config.server_options),
                   "include_ide": config.include_ide, "seeds": config.seeds, "python": platform.python_version(),
                   "client_nofile": nofile, **config.extra},
        "plans": {"episodes": len(plans), "scenarios": len({p.scenario for p in plans}),
                  "tool_calls_per_episode": round(sum(len(p.calls) for p in plans) / len(plans), 2)},
    }
    if config.url is not None:
        parts = urlsplit(config.url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        report.update(await _measure(config, host, port, list(config.server_pids), plans, progress))
        return report
    with tempfile.TemporaryDirectory(prefix="saas-sim-bench-http-") as tmp:
        store = config.store or f"sqlite+aiosqlite:///{tmp}/bench.db"
        server = ServerProcess(store, config.server_options, log_path=Path(tmp) / "server.log", cwd=Path(tmp))
        progress(f"starting saas-sim serve {' '.join(config.server_options)} on {server.url}")
        async with server:
            report["config"]["server_nofile"] = ProcStats(server.pid).open_files_limit()
            try:
                report.update(await _measure(config, server.host, server.port, [server.pid, *config.server_pids],
                                             plans, progress))
            finally:
                report["server_log_tail"] = server.log_tail(5)
    return report


async def _measure(config: HttpBenchConfig, host: str, port: int, pids: list[int], plans: Sequence[OraclePlan],
                   progress: Callable[[str], None]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if config.warm:
        t0 = perf_ns()
        errors = await warm_up(host, port, plans)
        out["warm_up_errors"] = dict(errors)
        progress(f"warm-up: every plan once in {(perf_ns() - t0) / 1e9:.1f} s, errors {dict(errors) or 0}")
    runs = []
    for i in range(config.runs):
        progress(f"run {i + 1}/{config.runs}: {config.sessions} sessions for {config.duration_s:g} s")
        result = await drive(host, port, plans, sessions=config.sessions, duration_s=config.duration_s,
                             server_pids=pids, timeout_s=config.timeout_s, ramp_s=config.ramp_s, think_s=config.think_s)
        figures = result.figures()
        runs.append(figures)
        progress(f"run {i + 1}/{config.runs}: {figures['calls_per_s']} calls/s, call p99 "
                 f"{figures['call_p99_ms']} ms, errors {figures['errors_total']}")
    out["runs"] = runs
    out["median"] = median_figures(runs)
    return out


def run_sync(main: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Runs `main()` on uvloop when it is installed (a lighter load generator), else on asyncio's loop."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main())
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main())
