"""The HTTP load driver: N sessions, one keep-alive connection each, replaying oracle episodes.

Each session loops, until the window closes: POST /episodes (include_tools false), every
recorded oracle call of its (scenario, seed) with its call_id, POST /grade, DELETE. Sessions
start on different plans and step through them, so every moment mixes scenarios. All
connections are opened before the clock starts (a failed connect is still an error, of kind
`connect_*`), then every session starts at once.

The window opens after `ramp_s` seconds of uncounted load (sessions are then spread over their
episodes' routes). Only requests that complete inside the window count, for throughput and for
latency; `think_s` idles each session after every answer, as an agent's turn does. A
session stops at its first request boundary after the window and its unfinished episode is
deleted afterwards, off the clock. Errors are counted by kind: `http_<status>` (an unexpected
status), `connection_reset`, `connection_refused`, `connection_error`, `timeout`, `protocol`
and `wrong_grade` (a grade that differs from the in-process oracle's). After an error the
session drops that episode (deleted afterwards) and starts the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import resource
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from saas_sim.bench.http_client import Connection, HttpProtocolError, Response
from saas_sim.bench.http_plan import OraclePlan
from saas_sim.bench.http_server import ProcStats
from saas_sim.bench.stats import pct
from saas_sim.core.clock import perf_ns

__all__ = ["KINDS", "DriveResult", "drive", "error_kind", "warm_up"]

KINDS = ("start", "call", "grade", "delete")
"""The route kinds latencies are reported for."""

RSS_SAMPLE_S = 0.5
"""How often server memory is sampled during a run."""


@dataclass
class DriveResult:
    """What one run measured: latencies by route kind (µs), request counts, errors, server figures."""

    sessions: int
    duration_s: float
    latency_us: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    grade_ide_us: list[float] = field(default_factory=list)
    episodes: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    server: dict[str, Any] = field(default_factory=dict)
    client_cpu_s: float = 0.0

    def figures(self) -> dict[str, Any]:
        """The run's flat figures: rates, per-kind p50/p95/p99 in ms, errors, server CPU and RSS."""
        calls = len(self.latency_us["call"])
        requests = _answered(self)
        out: dict[str, Any] = {
            "sessions": self.sessions, "duration_s": self.duration_s,
            "calls_per_s": round(calls / self.duration_s, 1),
            "requests_per_s": round(requests / self.duration_s, 1),
            "episodes_per_s": round(self.episodes / self.duration_s, 1),
            "tool_calls": calls, "requests": requests, "episodes": self.episodes,
            "errors_total": sum(self.errors.values()),
            "client_cpu_pct": round(100 * self.client_cpu_s / self.duration_s, 1),
        }
        every = [v for values in self.latency_us.values() for v in values]
        for kind, values in [*self.latency_us.items(), ("all", every),
                             *([("grade_ide", self.grade_ide_us)] if self.grade_ide_us else [])]:
            for q, name in ((0.5, "p50"), (0.95, "p95"), (0.99, "p99")):
                out[f"{kind}_{name}_ms"] = round(pct(values, q) / 1000, 3)
        for kind, count in sorted(self.errors.items()):
            out[f"errors.{kind}"] = count
        out.update(self.server)
        return out


def error_kind(exc: BaseException) -> str:
    """The error kind a failed request counts as."""
    if isinstance(exc, TimeoutError):
        return "timeout"
    if isinstance(exc, ConnectionRefusedError):
        return "connection_refused"
    if isinstance(exc, ConnectionResetError | BrokenPipeError | asyncio.IncompleteReadError):
        return "connection_reset"
    if isinstance(exc, HttpProtocolError):
        return "protocol"
    return "connection_error"


class _EpisodeFailedError(Exception):
    """Raised inside a session when its current episode cannot go on (the error is already counted)."""


class _Session:
    """One simulated trainer worker: one connection, one episode at a time."""

    def __init__(self, index: int, conn: Connection, plans: Sequence[OraclePlan], result: DriveResult,
                 deadline_ns: list[int], leftovers: list[str], window_start_ns: list[int] | None = None,
                 think_s: float = 0.0) -> None:
        self.index = index
        self.think_s = think_s
        self.window_start_ns = window_start_ns or [0]
        self.conn = conn
        self.plans = plans
        self.result = result
        self.deadline_ns = deadline_ns
        self.leftovers = leftovers

    def _closed(self) -> bool:
        return perf_ns() >= self.deadline_ns[0]

    async def _send(self, kind: str, method: str, path: str, body: bytes | None, expect: int,
                    ide: bool = False) -> Response:
        t0 = perf_ns()
        try:
            resp = await self.conn.request(method, path, body)
        except (OSError, HttpProtocolError, asyncio.IncompleteReadError) as exc:
            if perf_ns() <= self.deadline_ns[0]:
                self.result.errors[error_kind(exc)] += 1
            raise _EpisodeFailedError from exc
        t1 = perf_ns()
        inside = self.window_start_ns[0] <= t1 <= self.deadline_ns[0]
        if resp.status != expect:
            if inside:
                self.result.errors[f"http_{resp.status}"] += 1
            raise _EpisodeFailedError
        if inside:
            (self.result.grade_ide_us if ide else self.result.latency_us[kind]).append((t1 - t0) / 1000)
        if self.think_s:
            # An agent's turn (an LLM generating) between two requests: the connection sits idle.
            await asyncio.sleep(self.think_s)
        return resp

    async def run(self) -> None:
        """Plays episodes until the window closes."""
        n = self.index
        while not self._closed():
            await self.play(self.plans[n % len(self.plans)])
            n += 1

    async def play(self, plan: OraclePlan) -> None:
        """Plays one episode; one cut short (by an error or the window) is left for cleanup."""
        episode_id: str | None = None
        try:
            created = await self._send("start", "POST", "/episodes", plan.start_body, 201)
            episode_id = str(created.json()["episode_id"])
            base = f"/episodes/{episode_id}"
            for call in plan.calls:
                if self._closed():
                    raise _EpisodeFailedError
                await self._send("call", "POST", base + "/calls", call.body, 200)
            if self._closed():
                raise _EpisodeFailedError
            graded = await self._send("grade", "POST", base + "/grade", None, 200, ide=plan.domain == "ide")
            if graded.json().get("score") != plan.score:
                if perf_ns() <= self.deadline_ns[0]:
                    self.result.errors["wrong_grade"] += 1
                raise _EpisodeFailedError
            if self._closed():
                raise _EpisodeFailedError
            await self._send("delete", "DELETE", base, None, 204)
            episode_id = None
            if not self._closed():
                self.result.episodes += 1
        except _EpisodeFailedError:
            if episode_id is not None:
                self.leftovers.append(episode_id)


async def _sample_servers(stats: Sequence[ProcStats], peaks: dict[int, int], stop: asyncio.Event) -> None:
    while not stop.is_set():
        for s in stats:
            with contextlib.suppress(OSError):
                peaks[s.pid] = max(peaks.get(s.pid, 0), s.memory_kb()[0])
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), RSS_SAMPLE_S)


async def _connect_all(conns: Sequence[Connection], errors: Counter[str]) -> None:
    async def one(conn: Connection) -> None:
        try:
            await conn.connect()
        except (OSError, TimeoutError) as exc:
            errors[f"connect_{error_kind(exc)}"] += 1  # the session retries on its first request

    await asyncio.gather(*(one(c) for c in conns))


async def drive(host: str, port: int, plans: Sequence[OraclePlan], *, sessions: int, duration_s: float,
                server_pids: Sequence[int] = (), timeout_s: float = 30.0, ramp_s: float = 0.0,
                think_s: float = 0.0) -> DriveResult:
    """Runs `sessions` sessions for `duration_s` seconds against a server and measures it.

    Args:
        host: The server's host.
        port: Its port.
        plans: The recorded oracle episodes to replay.
        sessions: Concurrent sessions (one connection each).
        duration_s: The measured window.
        server_pids: Server processes to read CPU and memory of (none: not reported).
        timeout_s: A request with no complete answer by then counts as `timeout`.
        ramp_s: Seconds of load before the window opens (sessions reach their steady mix of
            routes; nothing of the ramp is counted but its errors).
        think_s: Seconds each session waits after every answer (an agent's turn); the
            connection idles meanwhile, as a trainer's does while its model generates.

    Returns:
        The run's measurements; `figures()` flattens them.
    """
    result = DriveResult(sessions=sessions, duration_s=duration_s)
    conns = [Connection(host, port, timeout_s=timeout_s) for _ in range(sessions)]
    await _connect_all(conns, result.errors)
    leftovers: list[str] = []
    deadline = [0]
    window_start = [0]
    runners = [_Session(i, conn, plans, result, deadline, leftovers, window_start, think_s)
               for i, conn in enumerate(conns)]
    stats = [ProcStats(pid) for pid in server_pids]
    peaks: dict[int, int] = {}
    stop = asyncio.Event()
    t0 = perf_ns()
    window_start[0] = t0 + int(ramp_s * 1e9)
    deadline[0] = window_start[0] + int(duration_s * 1e9)
    sessions_done = asyncio.gather(*(r.run() for r in runners))
    if ramp_s > 0:
        await asyncio.wait([sessions_done], timeout=ramp_s)
    cpu0 = [s.cpu_s() for s in stats]
    wait0 = [s.runqueue_wait_s() for s in stats]
    client0 = _own_cpu_s()
    sampler = asyncio.create_task(_sample_servers(stats, peaks, stop))
    # CPU is read when the window closes: the sessions' last answers after it are not counted.
    await asyncio.wait([sessions_done], timeout=max(0.0, (deadline[0] - perf_ns()) / 1e9))
    result.client_cpu_s = _own_cpu_s() - client0
    cpu1 = [s.cpu_s() for s in stats]
    wait1 = [s.runqueue_wait_s() for s in stats]
    stop.set()
    await sampler
    await sessions_done
    if stats:
        rss_end = [s.memory_kb()[0] for s in stats]
        result.server = {
            "server_cpu_s": round(sum(cpu1) - sum(cpu0), 2),
            "server_cpu_pct": round(100 * (sum(cpu1) - sum(cpu0)) / duration_s, 1),
            # CPU per answered request: the figure that survives a busy machine (others' load
            # slows the server's clock time, not its CPU per request).
            "server_cpu_us_per_request": round(1e6 * (sum(cpu1) - sum(cpu0)) / max(1, _answered(result)), 1),
            "server_rss_peak_mb": round(sum(peaks.get(s.pid, 0) for s in stats) / 1024, 1),
            "server_rss_end_mb": round(sum(rss_end) / 1024, 1),
        }
        waits = [b - a for a, b in zip(wait0, wait1, strict=True) if a is not None and b is not None]
        if waits:
            # Share of the window the servers' event loops were runnable but had no CPU: others' load.
            result.server["server_runqueue_wait_pct"] = round(100 * sum(waits) / (len(waits) * duration_s), 1)
    await _cleanup(conns, leftovers)
    return result


async def _cleanup(conns: Sequence[Connection], leftovers: list[str]) -> None:
    """Deletes the episodes the window cut short (off the clock), then closes every connection."""
    if leftovers:
        async def delete(conn: Connection, ids: list[str]) -> None:
            for episode_id in ids:
                with contextlib.suppress(OSError, HttpProtocolError, asyncio.IncompleteReadError):
                    await conn.request("DELETE", f"/episodes/{episode_id}")

        width = min(len(conns), 64)
        await asyncio.gather(*(delete(conns[i], leftovers[i::width]) for i in range(width)))
    for conn in conns:
        conn.close()


def _answered(result: DriveResult) -> int:
    return sum(len(v) for v in result.latency_us.values()) + len(result.grade_ide_us)


def _own_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def warm_up(host: str, port: int, plans: Sequence[OraclePlan], *, width: int = 4) -> Counter[str]:
    """Plays every plan once (untimed), so the server has built every world; returns errors by kind."""
    result = DriveResult(sessions=width, duration_s=1.0)
    leftovers: list[str] = []
    no_window = [1 << 62]

    async def play(i: int) -> None:
        conn = Connection(host, port, timeout_s=300.0)
        session = _Session(i, conn, plans, result, no_window, leftovers)
        for plan in plans[i::width]:
            await session.play(plan)
        conn.close()

    await asyncio.gather(*(play(i) for i in range(width)))
    await _cleanup([Connection(host, port)], leftovers)
    return result.errors


def dumps(data: Any) -> str:
    """JSON for the report (sorted keys)."""
    return json.dumps(data, indent=2, sort_keys=True)
