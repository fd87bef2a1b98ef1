"""Riding out a store outage: a wall-time budget spent on deterministic exponential backoff.

A database restart, a failover or another process holding SQLite's write lock
makes the store unreachable for a while. An operation that meets such a
failure waits and retries: the delays are 0.05 s, 0.1 s, 0.2 s ... doubling up
to 1 s each, with no jitter (one writer task per store, so there is no herd to
spread). Only when the failures have lasted longer than the budget (30 s by
default, `?outage_budget_s=N` on the store URL) does the operation raise
`StoreUnavailableError`, and the episode that needed it becomes invalid.

The clock is wall time on purpose: an outage is I/O, not simulation, and
nothing here shapes an event, a result or a grade. It is read through
`saas_sim.core.clock.perf_ns`, the one sanctioned monotonic counter.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Iterator

from saas_sim.core.clock import perf_ns
from saas_sim.errors import StoreUnavailableError, UsageError

__all__ = ["DEFAULT_OUTAGE_BUDGET_S", "OutageWindow", "backoff_delays", "parse_outage_budget"]

DEFAULT_OUTAGE_BUDGET_S = 30.0
"""How long a store keeps retrying an unreachable backend before it gives up."""

FIRST_DELAY_S = 0.05
MAX_DELAY_S = 1.0

log = logging.getLogger(__name__)


def backoff_delays(first: float = FIRST_DELAY_S, cap: float = MAX_DELAY_S) -> Iterator[float]:
    """Yields the retry delays in seconds: `first`, doubling each time, never above `cap`. Endless."""
    delay = first
    while True:
        yield min(delay, cap)
        delay = min(delay * 2, cap)


def parse_outage_budget(value: object) -> float:
    """Validates an outage budget given as a number or as a URL option's string.

    Raises:
        UsageError: The value is not a finite number of seconds >= 0.
    """
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise UsageError(f"outage_budget_s must be a number of seconds, got {value!r}")
    try:
        seconds = float(value)
    except ValueError:
        raise UsageError(f"outage_budget_s must be a number of seconds, got {value!r}") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise UsageError(f"outage_budget_s must be a finite number >= 0, got {value!r}")
    return seconds


class OutageWindow:
    """The retries of one store operation: it starts at the first failure and ends past the budget.

    Args:
        budget_s: How long failures may last before the operation gives up.
        what: The operation, for messages ("PostgreSQL append").
    """

    def __init__(self, budget_s: float, what: str) -> None:
        self.budget_s = budget_s
        self.what = what
        self.attempts = 0
        self._started_ns: int | None = None
        self._delays = backoff_delays()

    def elapsed_s(self) -> float:
        """Seconds since the first failure (0 before any)."""
        return 0.0 if self._started_ns is None else (perf_ns() - self._started_ns) / 1e9

    def remaining_s(self) -> float:
        """Seconds of budget left (the whole budget before any failure)."""
        return max(0.0, self.budget_s - self.elapsed_s())

    async def retry_after(self, exc: BaseException) -> None:
        """Records a failure and waits before the next attempt.

        Raises:
            StoreUnavailableError: The failures have outlasted the budget; chained to `exc`.
        """
        if self._started_ns is None:
            self._started_ns = perf_ns()
        self.attempts += 1
        remaining = self.remaining_s()
        if remaining <= 0:
            raise StoreUnavailableError(
                f"{self.what} failed {self.attempts} times over {self.elapsed_s():.1f}s, past the outage "
                f"budget of {self.budget_s:g}s (outage_budget_s): {exc}"
            ) from exc
        # The last delay is cut to what is left, so the final attempt lands at the budget, not after it.
        delay = min(next(self._delays), remaining)
        log.warning(
            "%s failed (attempt %d, %.1fs of a %gs outage budget), retrying in %.2fs: %s",
            self.what, self.attempts, self.elapsed_s(), self.budget_s, delay, exc,
        )
        await asyncio.sleep(delay)
