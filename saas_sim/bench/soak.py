"""`saas-sim bench soak`: a server with an idle TTL under create/close churn and abandoned sessions.

    report = await run_soak(SoakConfig(duration_s=600, rate=20, ttl_s=30))

The soak comes first, on the warmed server: episodes arrive open-loop at `rate` per second,
each on a fresh connection (connection churn too), each replaying a recorded oracle episode.
Every `abandon_every`-th is abandoned after its first call (never graded, never deleted: only
the TTL can free it); the others are graded and deleted. Every `sample_s` seconds the server's
RSS and its live-episode count are sampled. The curve is reported with the least-squares slope
of its last half (MB per minute); the run is `flat` when that half grows less than `flat_mb`.

Then memory per live idle episode: three batches of K episodes are started and left idle. The
first absorbs heap freed earlier; the second's RSS delta over K is `idle_episode_kb` (target
<= 64 KB); the third replays its calls before idling (`idle_used_episode_kb`, as an abandoned
session). They are then deleted. This comes last because thousands of idle episodes grow the
heap, and a leak smaller than the heap they leave free would not show in the soak's RSS.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from saas_sim.bench.http_client import Connection, HttpProtocolError
from saas_sim.bench.http_driver import error_kind, warm_up
from saas_sim.bench.http_plan import OraclePlan, record_plans
from saas_sim.bench.http_server import ProcStats, ServerProcess, raise_nofile
from saas_sim.core.clock import perf_ns

__all__ = ["SoakConfig", "run_soak", "slope_per_min"]


@dataclass
class SoakConfig:
    """What `saas-sim bench soak` runs (see the command's options)."""

    duration_s: float = 600.0
    rate: float = 20.0
    ttl_s: float = 30.0
    abandon_every: int = 4
    sample_s: float = 5.0
    idle_episodes: int = 1000
    flat_mb: float = 8.0
    store: str | None = None
    server_options: Sequence[str] = ()
    scenarios: Sequence[str] = ("*",)
    seeds: int = 1


def slope_per_min(points: Sequence[tuple[float, float]]) -> float:
    """The least-squares slope of (seconds, value) points, per minute (0.0 for fewer than 2 points)."""
    if len(points) < 2:
        return 0.0
    n = len(points)
    mx = sum(t for t, _ in points) / n
    my = sum(v for _, v in points) / n
    var = sum((t - mx) ** 2 for t, _ in points)
    if var == 0:
        return 0.0
    return 60.0 * sum((t - mx) * (v - my) for t, v in points) / var


async def _health_episodes(host: str, port: int) -> int | None:
    # A fresh connection per sample: samples are further apart than the server's keep-alive timeout.
    conn = Connection(host, port)
    try:
        with contextlib.suppress(OSError, HttpProtocolError, ValueError, KeyError):
            resp = await conn.request("GET", "/health")
            return int(resp.json()["episodes"])
        return None
    finally:
        conn.close()


async def _idle_memory(host: str, port: int, stats: ProcStats, plans: Sequence[OraclePlan], k: int,
                       errors: Counter[str]) -> dict[str, Any]:
    """Starts three batches of `k` episodes and leaves them idle, reads the RSS deltas, deletes them all.

    The first batch absorbs heap the warm-up freed (its delta understates; reported as
    `idle_first_batch_kb`). The second batch is fresh episodes (`idle_episode_kb`); the third
    replays each plan's calls first and is then left idle, as an abandoned session is
    (`idle_used_episode_kb`).
    """
    width = min(16, k)
    conns = [Connection(host, port) for _ in range(width)]
    ids: list[str] = []

    async def request(i: int, method: str, path: str, body: bytes | None, expect: int) -> bytes | None:
        try:
            resp = await conns[i].request(method, path, body)
        except (OSError, HttpProtocolError) as exc:
            errors[f"idle_{error_kind(exc)}"] += 1
            return None
        if resp.status != expect:
            errors[f"idle_http_{resp.status}"] += 1
            return None
        return resp.body

    async def start(i: int, offset: int, used: bool) -> None:
        for n in range(i, k, width):
            plan = plans[(offset + n) % len(plans)]
            body = await request(i, "POST", "/episodes", plan.start_body, 201)
            if body is None:
                continue
            episode_id = str(json.loads(body)["episode_id"])
            ids.append(episode_id)
            for call in plan.calls if used else ():
                await request(i, "POST", f"/episodes/{episode_id}/calls", call.body, 200)

    rss = [stats.memory_kb()[0]]
    counts = [0]
    for batch in range(3):
        await asyncio.gather(*(start(i, batch * k, batch == 2) for i in range(width)))
        rss.append(stats.memory_kb()[0])
        counts.append(len(ids))

    async def delete(i: int) -> None:
        for episode_id in ids[i::width]:
            with contextlib.suppress(OSError, HttpProtocolError):
                await conns[i].request("DELETE", f"/episodes/{episode_id}")

    await asyncio.gather(*(delete(i) for i in range(width)))
    for conn in conns:
        conn.close()

    def per_episode(batch: int) -> float:
        return round((rss[batch + 1] - rss[batch]) / max(1, counts[batch + 1] - counts[batch]), 1)

    return {"idle_episodes": len(ids), "idle_rss_before_mb": round(rss[0] / 1024, 1),
            "idle_rss_after_mb": round(rss[-1] / 1024, 1), "idle_first_batch_kb": per_episode(0),
            "idle_episode_kb": per_episode(1), "idle_used_episode_kb": per_episode(2)}


async def _arrival(host: str, port: int, plan: OraclePlan, abandon: bool, errors: Counter[str],
                   done: Counter[str]) -> None:
    """One session: a fresh connection, one episode, then either graded and deleted or abandoned."""
    conn = Connection(host, port)
    try:
        resp = await conn.request("POST", "/episodes", plan.start_body)
        if resp.status != 201:
            errors[f"http_{resp.status}"] += 1
            return
        base = f"/episodes/{resp.json()['episode_id']}"
        for call in plan.calls[:1] if abandon else plan.calls:
            resp = await conn.request("POST", base + "/calls", call.body)
            if resp.status != 200:
                errors[f"http_{resp.status}"] += 1
                return
        if abandon:
            done["abandoned"] += 1
            return
        graded = await conn.request("POST", base + "/grade")
        if graded.status != 200:
            errors[f"http_{graded.status}"] += 1
            return
        if graded.json().get("score") != plan.score:
            errors["wrong_grade"] += 1
        resp = await conn.request("DELETE", base)
        if resp.status != 204:
            errors[f"http_{resp.status}"] += 1
            return
        done["closed"] += 1
    except (OSError, HttpProtocolError) as exc:
        errors[error_kind(exc)] += 1
    finally:
        conn.close()


async def _soak(host: str, port: int, stats: ProcStats, plans: Sequence[OraclePlan], config: SoakConfig,
                errors: Counter[str], progress: Callable[[str], None]) -> dict[str, Any]:
    done: Counter[str] = Counter()
    tasks: set[asyncio.Task[None]] = set()
    curve: list[dict[str, Any]] = []
    t0 = perf_ns()
    end = t0 + int(config.duration_s * 1e9)
    next_sample = t0
    arrivals = 0
    while (now := perf_ns()) < end:
        if now >= next_sample:
            rss = stats.memory_kb()[0]
            live = await _health_episodes(host, port)
            point = {"t_s": round((now - t0) / 1e9, 1), "rss_mb": round(rss / 1024, 1), "live_episodes": live}
            curve.append(point)
            progress(f"soak t={point['t_s']} s: rss {point['rss_mb']} MB, live {live}, in flight {len(tasks)}")
            next_sample += int(config.sample_s * 1e9)
        # Open loop: arrivals are due at fixed instants, whatever the server's answers take.
        due = int((perf_ns() - t0) / 1e9 * config.rate) + 1
        while arrivals < due:
            plan = plans[arrivals % len(plans)]
            abandon = config.abandon_every > 0 and arrivals % config.abandon_every == config.abandon_every - 1
            task = asyncio.create_task(_arrival(host, port, plan, abandon, errors, done))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            arrivals += 1
        await asyncio.sleep(min(1.0 / config.rate, 0.05))  # pacing of the open-loop arrivals
    if tasks:
        await asyncio.gather(*tasks)
    rss = stats.memory_kb()[0]
    curve.append({"t_s": round((perf_ns() - t0) / 1e9, 1), "rss_mb": round(rss / 1024, 1),
                  "live_episodes": await _health_episodes(host, port)})
    half = [(p["t_s"], p["rss_mb"]) for p in curve if p["t_s"] >= config.duration_s / 2]
    slope = slope_per_min(half)
    half_span_min = (half[-1][0] - half[0][0]) / 60 if len(half) > 1 else 0.0
    return {"arrivals": arrivals, "closed": done["closed"], "abandoned": done["abandoned"],
            "curve": curve, "rss_start_mb": curve[0]["rss_mb"], "rss_end_mb": curve[-1]["rss_mb"],
            "rss_peak_mb": max(p["rss_mb"] for p in curve),
            "last_half_slope_mb_per_min": round(slope, 3),
            "flat": abs(slope * half_span_min) < config.flat_mb}


async def run_soak(config: SoakConfig, progress: Callable[[str], None] = lambda _: None,
                   plans: Sequence[OraclePlan] | None = None) -> dict[str, Any]:
    """Runs the idle-memory measurement and the soak on a server this process starts.

    Returns:
        `{"config", "idle", "soak", "errors", "server"}` (see the module docstring).
    """
    if plans is None:
        plans = await record_plans(config.scenarios, range(config.seeds))
        progress(f"recorded {len(plans)} oracle episodes")
    raise_nofile(4096)
    errors: Counter[str] = Counter()
    report: dict[str, Any] = {"config": {"duration_s": config.duration_s, "rate": config.rate, "ttl_s": config.ttl_s,
                                         "abandon_every": config.abandon_every, "sample_s": config.sample_s,
                                         "idle_episodes": config.idle_episodes,
                                         "server_options": list(config.server_options)}}
    with tempfile.TemporaryDirectory(prefix="saas-sim-bench-soak-") as tmp:
        store = config.store or f"sqlite+aiosqlite:///{tmp}/soak.db"
        options = ["--idle-ttl", f"{config.ttl_s:g}", *config.server_options]
        async with ServerProcess(store, options, log_path=Path(tmp) / "server.log", cwd=Path(tmp)) as server:
            stats = ProcStats(server.pid)
            warm = await warm_up(server.host, server.port, plans)
            errors.update({f"warm_up_{k}": v for k, v in warm.items()})
            progress(f"warm: rss {stats.memory_kb()[0] / 1024:.1f} MB")
            # The soak first: thousands of idle episodes would grow the heap, and a leak smaller than
            # the heap they leave free would not show in RSS for a long time.
            report["soak"] = await _soak(server.host, server.port, stats, plans, config, errors, progress)
            if config.idle_episodes:
                report["idle"] = await _idle_memory(server.host, server.port, stats, plans, config.idle_episodes,
                                                    errors)
                progress(f"idle episodes: {report['idle']['idle_episode_kb']} KB each")
            rss, hwm = stats.memory_kb()
            report["server"] = {"rss_end_mb": round(rss / 1024, 1), "rss_hwm_mb": round(hwm / 1024, 1),
                                "cpu_s": round(stats.cpu_s(), 1)}
    report["errors"] = dict(errors)
    report["errors_total"] = sum(errors.values())
    return report
