"""Tool calls per second through HAProxy with 1, 2 and 3 replicas (issue 13 section 5's scaling figures).

    SAAS_SIM_TEST_PG_URL=postgresql+asyncpg://postgres@127.0.0.1:5432/test \\
        .venv/bin/python -m tests.deploy.measure_replicas --replicas 1 2 3 --runs 3 --sessions 64 --duration 10

A measurement, not a test: heavy load belongs here. For each replica count it starts the replicas and HAProxy
exactly as tests/deploy/test_replicas.py does (a fresh PostgreSQL schema, `--durable-reads`), plays one
untimed warm-up run (each replica loads its worlds, tasks and language models once), then `--runs` timed
runs. A session replays oracle episodes (start, every oracle call with a call_id, grade, delete) of every CRM
and support scenario (seed 0; IDE excluded: its test runs would dominate) for `--duration` seconds.

Prints one JSON document: per replica count, each run's calls/s (acknowledged tool calls), requests/s, client
retries, and the medians. The load generator (httpx, one connection per session) runs on the same machine,
and its CPU share is reported (`client_cpu_share`: client CPU seconds per wall second), since on a small
machine it competes with the replicas.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from saas_sim.core.clock import cpu_ns, perf_ns
from saas_sim.runtime.environment import Environment
from tests.conftest import PG_ENV, drop_schema, with_option
from tests.deploy.cluster import running_cluster
from tests.deploy.traffic import Plan, Traffic, oracle_plan


async def plans_for(env: Environment) -> list[Plan]:
    """Every CRM and support scenario's oracle calls (seed 0), without extra reads."""
    refs = [s.ref for s in env.scenarios("crm/*") + env.scenarios("support/*")]
    return [await oracle_plan(env, ref, 0, echo_reads=0) for ref in refs]


async def measure(count: int, *, runs: int, sessions: int, duration_s: float, base_url: str) -> dict[str, Any]:
    """Starts `count` replicas behind HAProxy on a fresh schema and measures `runs` timed runs."""
    schema = f"t_{secrets.token_hex(8)}"
    url = with_option(base_url, "schema", schema)
    results: list[dict[str, Any]] = []
    try:
        with tempfile.TemporaryDirectory(prefix="saas-sim-replicas-") as tmp:
            async with Environment(url) as env:
                plans: list[Plan] = []

                async def prepare() -> None:
                    plans.extend(await plans_for(env))

                async with running_cluster(Path(tmp), url, count, prepare=prepare, idle_ttl_s=120) as cluster:
                    warm = Traffic(cluster.url, plans, sessions=sessions, duration_s=duration_s, delete=True)
                    await warm.run()
                    for _ in range(runs):
                        traffic = Traffic(cluster.url, plans, sessions=sessions, duration_s=duration_s, delete=True)
                        cpu0, wall0 = cpu_ns(), perf_ns()
                        await traffic.run()
                        client_cpu = (cpu_ns() - cpu0) / max(1, perf_ns() - wall0)
                        assert traffic.app_errors == [], traffic.app_errors
                        results.append({"calls_per_s": round(traffic.calls_per_s, 1),
                                        "requests_per_s": round(traffic.requests_per_s, 1),
                                        "calls": len(traffic.acks), "episodes": len(traffic.runs),
                                        "elapsed_s": round(traffic.elapsed_s, 2),
                                        "client_cpu_share": round(client_cpu, 2),
                                        "retried": dict(traffic.retried)})
                        print(f"{count} replica(s): {results[-1]}", file=sys.stderr)
    finally:
        await drop_schema(schema)
    return {"replicas": count, "runs": results,
            "calls_per_s_median": statistics.median(r["calls_per_s"] for r in results),
            "requests_per_s_median": statistics.median(r["requests_per_s"] for r in results)}


async def main(argv: list[str] | None = None) -> None:
    """Parses the options, measures each replica count, prints the JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
