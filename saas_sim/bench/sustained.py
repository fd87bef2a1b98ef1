"""Open-loop write load: durable WRITE calls arriving on a fixed schedule across many live episodes.

Arrival `j` is scheduled at `t0 + j / rate`, whatever the earlier calls are doing (an open
loop: the schedule never waits for completions), and goes to episode `j % len(episodes)`, so
each episode makes a sequence of writes (its k-th write is the probe's k-th arguments).
Latency runs from the *scheduled* arrival to the call's return: a dispatcher that falls
behind, or a call queued behind its episode's previous one, shows up in the latency instead
of being left out (no coordinated omission).

The first `warmup_s` of arrivals are not measured; the next `duration_s` are. Achieved rate
is the measured calls that returned ok, divided by the longer of the measured window and the
time from its start to the last measured completion, so it never exceeds the offered rate and
a backlog that drains after the window lowers it. A call that returns an error, or is still
running `drain_s` after the last arrival (it is then cancelled), is counted in `errors`; an
exception from a call (a harness bug) is raised after the run, never swallowed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from saas_sim.bench.stats import latency_figures, pct
from saas_sim.core.clock import cpu_ns, perf_ns
from saas_sim.runtime.episode import Episode

__all__ = ["WriteProbe", "open_loop_writes"]


@dataclass(frozen=True)
class WriteProbe:
    """A WRITE that an episode can repeat: the tool, and the arguments of its k-th call.

    Attributes:
        tool: The tool's name.
        args: `(episode, k) -> arguments`; each k must change the state (a new event), so every
            call is a real durable write, not a no-op.
    """

    tool: str
    args: Callable[[Episode, int], dict[str, Any]]


@dataclass
class _Meter:
    """Whether the CPU meter runs, and the calls (warm-up stragglers too) that returned meanwhile."""

    running: bool = False
    returned: int = 0


@dataclass
class _Tally:
    latencies_us: list[float]
    dispatch_lag_us: list[float]
    ok: int = 0
    errors: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    last_done_ns: int = 0


async def open_loop_writes(
    episodes: Sequence[Episode], probe: WriteProbe, *, rate: float, duration_s: float,
    warmup_s: float = 1.0, drain_s: float = 30.0, prefix: str = "sustained_write",
) -> dict[str, Any]:
    """Runs the open-loop load and returns its figures, each key starting with `prefix`.

    Figures: `_offered_per_s`, `_achieved_per_s`, `_calls` (measured), `_errors`, `_p50_us`,
    `_p99_us`, `_p999_us` (scheduled arrival to return), `_cpu_us_per_call` (process CPU from
    the first measured arrival until every call ended / the calls that returned meanwhile,
    warm-up stragglers included), `_cpu_cores` (that CPU / the span's wall time),
    `_dispatch_lag_p99_us` (how late the dispatcher started calls), `_max_in_flight`,
    `_episodes`, `_window_s`.
    """
    if rate <= 0 or duration_s <= 0 or not episodes:
        raise ValueError("open_loop_writes needs a positive rate and duration and at least one episode")
    n_warm = round(rate * warmup_s)
    n_meas = max(1, round(rate * duration_s))
    total = n_warm + n_meas
    counts = [0] * len(episodes)
    measured = _Tally([], [])
    warm = _Tally([], [])
    failures: list[BaseException] = []
    meter = _Meter()

    async def one(j: int, due_ns: int, episode: Episode, k: int) -> None:
        tally = measured if j >= n_warm else warm
        tally.dispatch_lag_us.append((perf_ns() - due_ns) / 1000)
        tally.in_flight += 1
        tally.max_in_flight = max(tally.max_in_flight, tally.in_flight)
        try:
            result = await episode.call(probe.tool, probe.args(episode, k), f"bench-w{k}")
        except asyncio.CancelledError:
            tally.errors += 1  # still running at the drain deadline: a failed call, not a hidden one
            raise
        except Exception as exc:
            tally.errors += 1
            failures.append(exc)
            return
        finally:
            tally.in_flight -= 1
        done = perf_ns()
        if meter.running:
            meter.returned += 1
        tally.latencies_us.append((done - due_ns) / 1000)
        tally.last_done_ns = max(tally.last_done_ns, done)
        if result.ok:
            tally.ok += 1
        else:
            tally.errors += 1

    tasks: list[asyncio.Task[None]] = []
    start_ns = perf_ns() + 2_000_000  # a little slack so arrival 0 is not already late
    window_ns = start_ns + round(n_warm * 1e9 / rate)
    cpu_start = 0
    j = 0
    while j < total:
        now = perf_ns()
        while j < total:
            due = start_ns + round(j * 1e9 / rate)
            if due > now:
                break
            if j == n_warm:
                cpu_start = cpu_ns()
                meter.running = True
            i = j % len(episodes)
            tasks.append(asyncio.create_task(one(j, due, episodes[i], counts[i])))
            counts[i] += 1
            j += 1
        if j < total:
            await asyncio.sleep(max(0.0, (start_ns + round(j * 1e9 / rate) - perf_ns()) / 1e9))
    _, pending = await asyncio.wait(tasks, timeout=drain_s) if tasks else (set(), set())
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
    cpu_end = cpu_ns()
    if failures:
        raise failures[0]
    span_ns = max(round(n_meas * 1e9 / rate), (measured.last_done_ns or perf_ns()) - window_ns)
    out: dict[str, Any] = {
        f"{prefix}_offered_per_s": round(rate, 1),
        f"{prefix}_achieved_per_s": round(measured.ok / (span_ns / 1e9), 1),
        f"{prefix}_calls": n_meas,
        f"{prefix}_errors": measured.errors,
        f"{prefix}_episodes": len(episodes),
        f"{prefix}_window_s": round(duration_s, 3),
        f"{prefix}_cpu_us_per_call": round((cpu_end - cpu_start) / 1000 / max(1, meter.returned), 2),
        f"{prefix}_cpu_cores": round((cpu_end - cpu_start) / span_ns, 3),
        f"{prefix}_dispatch_lag_p99_us": round(pct(measured.dispatch_lag_us, 0.99), 2),
        f"{prefix}_max_in_flight": measured.max_in_flight,
    }
    out.update(latency_figures(prefix, measured.latencies_us, tail=True))
    return out
