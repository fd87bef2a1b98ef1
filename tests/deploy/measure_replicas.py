"""Tool calls per second through HAProxy with 1, 2 and 3 replicas (issue 13 section 5's scaling figures).

    SAAS_SIM_TEST_PG_URL=postgresql+asyncpg://postgres@127.0.0.1:5432/test \\
        .venv/bin/python -m tests.deploy.measure_replicas --replicas 1 2 3 --runs 3 --sessions 64 --duration 10

A measurement, not a test: heavy load belongs here. For each replica count it starts the replicas and HAProxy
exactly as tests/deploy/test_replicas.py does (a fresh PostgreSQL schema, `--durable-reads`), then drives the
load balancer with `saas-sim bench http --url` (oracle traffic of every CRM and support scenario, seed 0: start,
calls with call_ids, grade, delete; IDE excluded, its test runs would dominate): one untimed warm-up
invocation (each replica loads its worlds, tasks and language models once), then `--runs` measured windows.
The bench's lean client runs in its own process on the same machine; `--server-pid` gives it every
replica's pid, so its server CPU and RSS figures sum over the replicas.

Prints one JSON document: per replica count, the bench's median figures and each run's calls/s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.conftest import PG_ENV, drop_schema, with_option
from tests.deploy.cluster import running_cluster, saas_sim_bin

SCENARIOS = "crm/*,support/*"


def bench_http(url: str, pids: list[int], *, sessions: int, duration_s: float, runs: int, ramp_s: float) -> Any:
    """Runs `saas-sim bench http --url` against `url` and returns its JSON report."""
    command = [str(saas_sim_bin()), "bench", "http", "--url", url, "--sessions", str(sessions),
               "--duration", f"{duration_s:g}", "--runs", str(runs), "--ramp", f"{ramp_s:g}",
               "--scenarios", SCENARIOS, "--seeds", "1", "--json"]
    for pid in pids:
        command += ["--server-pid", str(pid)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"bench http failed ({done.returncode}): {done.stderr[-2000:]}")
    sys.stderr.write(done.stderr)
    return json.loads(done.stdout)


async def measure(count: int, *, runs: int, sessions: int, duration_s: float, base_url: str) -> dict[str, Any]:
    """Starts `count` replicas behind HAProxy on a fresh schema, warms them up, and measures `runs` windows."""
    schema = f"t_{secrets.token_hex(8)}"
    url = with_option(base_url, "schema", schema)
    try:
        with tempfile.TemporaryDirectory(prefix="saas-sim-replicas-") as tmp:
            async with running_cluster(Path(tmp), url, count, idle_ttl_s=120) as cluster:
                pids = [r.proc.pid for r in cluster.replicas]
                bench_http(cluster.url, pids, sessions=sessions, duration_s=duration_s, runs=1, ramp_s=5)
                report = bench_http(cluster.url, pids, sessions=sessions, duration_s=duration_s, runs=runs,
                                    ramp_s=5)
    finally:
        await drop_schema(schema)
    return {"replicas": count, "median": report.get("median"),
            "calls_per_s_runs": [r.get("calls_per_s") for r in report.get("runs", [])]}


async def main(argv: list[str] | None = None) -> None:
    """Parses the options, measures each replica count, prints the JSON report."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--replicas", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=64)
    parser.add_argument("--duration", type=float, default=10.0)
    args = parser.parse_args(argv)
    base_url = os.environ.get(PG_ENV, "").strip()
    if not base_url:
        parser.error(f"set {PG_ENV} to a PostgreSQL URL (postgresql+asyncpg://...)")
    report = [await measure(n, runs=args.runs, sessions=args.sessions, duration_s=args.duration, base_url=base_url)
              for n in args.replicas]
    print(json.dumps({"sessions": args.sessions, "duration_s": args.duration, "cpus": os.cpu_count(),
                      "results": report}, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
