"""Time: the virtual `SimClock` and the one sanctioned wall-clock reader.

Simulation code never reads wall time. The `SimClock` starts at a fixed,
documented instant and moves only when told to. `wall_ns`, `perf_ns` and
`cpu_ns` exist for metrics (benchmarks, latency logs) and must never shape an
event, an id, a result or a grade.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from saas_sim.errors import UsageError

__all__ = ["DEFAULT_EPOCH", "SimClock", "cpu_ns", "perf_ns", "wall_ns"]

DEFAULT_EPOCH = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)
"""Monday 2026-03-02 09:00 UTC: where every world's clock starts unless its profile says otherwise."""


class SimClock:
    """A virtual clock that only moves forward, and only when told to.

    Args:
        start: The first instant; must be timezone-aware.
    """

    __slots__ = ("_now",)

    def __init__(self, start: datetime = DEFAULT_EPOCH) -> None:
        if start.tzinfo is None:
            raise UsageError("SimClock needs a timezone-aware start instant")
        self._now = start.astimezone(UTC)

    def now(self) -> datetime:
        """Returns the current simulated instant (UTC)."""
        return self._now

    def advance(self, amount: timedelta | float) -> datetime:
        """Moves the clock forward by `amount` (a timedelta or seconds) and returns the new now."""
        delta = amount if isinstance(amount, timedelta) else timedelta(seconds=amount)
        if delta < timedelta(0):
            raise UsageError(f"SimClock cannot move backwards (advance by {delta})")
        self._now = self._now + delta
        return self._now

    def advance_to(self, instant: datetime) -> datetime:
        """Moves the clock to `instant` if that is later than now; never moves it back."""
        if instant.tzinfo is None:
            raise UsageError("SimClock.advance_to needs a timezone-aware instant")
        instant = instant.astimezone(UTC)
        if instant > self._now:
            self._now = instant
        return self._now

    def copy(self) -> SimClock:
        """Returns an independent clock at the same instant (for forks)."""
        return SimClock(self._now)


def wall_ns() -> int:
    """Returns wall-clock nanoseconds since the epoch. For metrics only."""
    return time.time_ns()


def perf_ns() -> int:
    """Returns a monotonic high-resolution counter in nanoseconds. For metrics and I/O retry deadlines only."""
    return time.perf_counter_ns()


def cpu_ns() -> int:
    """Returns this process's CPU time (user + system, all threads) in nanoseconds. For metrics only.

    It is not wall time: it counts only while the process runs on a core, so CPU per call is
    `cpu_ns` spent divided by calls, whatever else the machine is doing.
    """
    return time.process_time_ns()
