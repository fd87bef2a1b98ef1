"""`saas-sim bench http` and `bench soak`: short runs against real server processes (shape, never speed)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from saas_sim.bench.http_bench import HttpBenchConfig, run_http_bench
from saas_sim.bench.http_client import Connection, HttpProtocolError, _parse_head
from saas_sim.bench.http_driver import KINDS, drive, error_kind, warm_up
from saas_sim.bench.http_plan import OraclePlan, record_plans
from saas_sim.bench.http_server import ProcStats, ServerProcess
from saas_sim.bench.soak import SoakConfig, run_soak, slope_per_min
from saas_sim.cli import app

SCENARIOS = ("crm/advance-qualified-deal", "support/refund-damaged-item")
"""One CRM and one support scenario: both domains' routes, few worlds to build."""

RUN_FIGURES = (
    "sessions", "duration_s", "calls_per_s", "requests_per_s", "episodes_per_s", "tool_calls", "requests",
    "episodes", "errors_total", "client_cpu_pct", "server_cpu_s", "server_cpu_pct", "server_cpu_us_per_request",
    "server_rss_peak_mb", "server_rss_end_mb",
    *(f"{kind}_{q}_ms" for kind in (*KINDS, "all") for q in ("p50", "p95", "p99")),
)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> str:
    """One SQLite store for the module: the worlds the plans build are snapshots every server loads."""
    return f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('http-bench-store')}/bench.db"


@pytest.fixture(scope="module")
def plans(store: str) -> list[OraclePlan]:
    return asyncio.run(record_plans(SCENARIOS, [0], store=store))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, store: str) -> Iterator[ServerProcess]:
    tmp = tmp_path_factory.mktemp("http-bench-server")
    proc = ServerProcess(store, log_path=tmp / "server.log", cwd=tmp)
    asyncio.run(proc.__aenter__())
    try:
        yield proc
    finally:
        proc.stop()


def test_plans_record_every_oracle_call_with_its_call_id_and_the_in_process_grade(plans: list[OraclePlan]) -> None:
    assert [p.scenario.split("@")[0] for p in plans] == list(SCENARIOS)
    for plan in plans:
        assert plan.calls and plan.score == 1.0
        bodies = [json.loads(c.body) for c in plan.calls]
        assert all(b["call_id"] == c.call_id and b["tool"] == c.tool for b, c in zip(bodies, plan.calls, strict=True))
        assert json.loads(plan.start_body)["include_tools"] is False


async def test_drive_replays_oracle_episodes_without_errors_and_reports_every_figure(
        server: ServerProcess, plans: list[OraclePlan]) -> None:
    assert await warm_up(server.host, server.port, plans) == {}
    result = await drive(server.host, server.port, plans, sessions=3, duration_s=2.0, server_pids=[server.pid],
                         ramp_s=0.3)
    figures = result.figures()
    assert set(RUN_FIGURES) <= set(figures)
    assert figures["errors_total"] == 0, figures
    assert figures["tool_calls"] > 0 and figures["episodes"] > 0
    assert figures["server_cpu_s"] > 0 and figures["server_rss_peak_mb"] > 0
    assert figures["call_p50_ms"] <= figures["call_p95_ms"] <= figures["call_p99_ms"]


async def test_a_grade_unlike_the_in_process_one_counts_as_wrong_grade(
        server: ServerProcess, plans: list[OraclePlan]) -> None:
    tampered = [dataclasses.replace(p, score=0.5) for p in plans]
    result = await drive(server.host, server.port, tampered, sessions=2, duration_s=1.0)
    assert result.errors["wrong_grade"] > 0
    assert result.episodes == 0


async def test_run_with_url_drives_an_existing_server_and_reads_cpu_only_of_given_pids(
        server: ServerProcess, plans: list[OraclePlan]) -> None:
    config = HttpBenchConfig(sessions=2, duration_s=1.0, url=server.url, ramp_s=0.2, warm=False, runs=2)
    report = await run_http_bench(config, plans=plans)
    assert len(report["runs"]) == 2 and report["median"]["errors_total"] == 0
    assert "server_cpu_s" not in report["median"]
    with_pid = await run_http_bench(dataclasses.replace(config, server_pids=[server.pid], runs=1), plans=plans)
    assert with_pid["median"]["server_rss_end_mb"] > 0


async def test_run_starts_its_own_server_process_and_stops_it(plans: list[OraclePlan], store: str) -> None:
    notes: list[str] = []
    config = HttpBenchConfig(sessions=2, duration_s=1.0, ramp_s=0.2, store=store)
    report = await run_http_bench(config, notes.append, plans)
    assert report["warm_up_errors"] == {}
    assert report["median"]["errors_total"] == 0 and report["median"]["tool_calls"] > 0
    assert report["config"]["server_nofile"] >= 2
    assert any("starting saas-sim serve" in n for n in notes)


def test_cli_bench_http_prints_one_json_document(server: ServerProcess) -> None:
    result = CliRunner().invoke(app, [
        "bench", "http", "--url", server.url, "--server-pid", str(server.pid), "--sessions", "2",
        "--duration", "1", "--ramp", "0", "--seeds", "1", "--scenarios", SCENARIOS[0], "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["median"]["errors_total"] == 0 and report["plans"]["episodes"] == 1


async def test_soak_samples_rss_expires_abandoned_episodes_and_measures_idle_memory(
        plans: list[OraclePlan], store: str) -> None:
    config = SoakConfig(duration_s=3.0, rate=8.0, ttl_s=0.5, abandon_every=2, sample_s=0.5, idle_episodes=20,
                        store=store)
    report = await run_soak(config, plans=plans)
    assert report["errors_total"] == 0, report["errors"]
    soak = report["soak"]
    assert soak["abandoned"] > 0 and soak["closed"] > 0
    assert len(soak["curve"]) >= 3 and all(p["rss_mb"] > 0 for p in soak["curve"])
    # The TTL (0.5 s) frees abandoned episodes: by the end, far fewer are live than were abandoned.
    assert soak["curve"][-1]["live_episodes"] < soak["abandoned"]
    assert {"last_half_slope_mb_per_min", "flat", "rss_peak_mb"} <= set(soak)
    assert report["idle"]["idle_episodes"] == 60
    assert {"idle_episode_kb", "idle_used_episode_kb", "idle_first_batch_kb"} <= set(report["idle"])


def test_slope_per_min_is_the_least_squares_slope() -> None:
    assert slope_per_min([(0.0, 10.0), (30.0, 11.0), (60.0, 12.0)]) == pytest.approx(2.0)
    assert slope_per_min([(5.0, 1.0)]) == 0.0


def test_client_reads_content_length_and_refuses_chunked_answers() -> None:
    assert _parse_head(b"HTTP/1.1 201 Created\r\ncontent-length: 12\r\n\r\n") == (201, 12, False)
    assert _parse_head(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n") == (204, 0, True)
    with pytest.raises(HttpProtocolError):
        _parse_head(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
    with pytest.raises(HttpProtocolError):
        _parse_head(b"SSH-2.0-OpenSSH\r\n\r\n")


def test_error_kinds_name_resets_refusals_timeouts_and_protocol_errors() -> None:
    kinds: dict[BaseException, str] = {
        ConnectionResetError(): "connection_reset", BrokenPipeError(): "connection_reset",
        ConnectionRefusedError(): "connection_refused", TimeoutError(): "timeout",
        HttpProtocolError("x"): "protocol", OSError("x"): "connection_error",
    }
    assert {error_kind(e): k for e, k in kinds.items()} == {k: k for k in kinds.values()}


async def test_a_refused_connection_is_an_error_not_a_crash(tmp_path: Path) -> None:
    from saas_sim.bench.http_server import free_port

    conn = Connection("127.0.0.1", free_port(), timeout_s=5.0)
    with pytest.raises(ConnectionRefusedError):
        await conn.request("GET", "/health")


def test_proc_stats_read_this_process() -> None:
    import os

    stats = ProcStats(os.getpid())
    rss, hwm = stats.memory_kb()
    assert 0 < rss <= hwm and stats.cpu_s() > 0


def test_proc_stats_count_the_cpu_and_memory_of_live_descendants() -> None:
    import os
    import subprocess
    import sys

    # The child burns CPU until it has used 0.3 s of it, then waits for its stdin to close.
    code = ("import sys, time\nwhile time.process_time() < 0.3: pass\n"
            "print('ready', flush=True)\nsys.stdin.read()")
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
        stats = ProcStats(os.getpid())
        own = ProcStats(child.pid)

        assert child.pid in stats.descendants()
        assert own.cpu_s() >= 0.2
        assert stats.memory_kb()[0] > own.memory_kb()[0] > 0
        # /proc counts in clock ticks: the child's share alone is 0.3 s give or take a tick.
        assert stats.cpu_s() >= own.cpu_s() + _own_cpu_s() - 0.05
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait()


def _own_cpu_s() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
