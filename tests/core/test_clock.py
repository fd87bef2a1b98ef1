"""The virtual clock: starts at a fixed instant, moves only forward and only when told."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from saas_sim.core.clock import DEFAULT_EPOCH, SimClock, perf_ns, wall_ns
from saas_sim.errors import UsageError


def test_a_clock_starts_at_the_documented_epoch() -> None:
    assert SimClock().now() == DEFAULT_EPOCH == datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    assert SimClock().now() == SimClock().now()


def test_a_clock_holds_utc_and_rejects_a_naive_start() -> None:
    clock = SimClock(datetime(2026, 1, 1, 12, 0, tzinfo=timezone(timedelta(hours=3))))
    assert clock.now() == datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
    assert clock.now().utcoffset() == timedelta(0)
    with pytest.raises(UsageError):
        SimClock(datetime(2026, 1, 1))


def test_advance_moves_forward_by_a_timedelta_or_seconds() -> None:
    clock = SimClock()
    assert clock.advance(timedelta(minutes=5)) == DEFAULT_EPOCH + timedelta(minutes=5)
    assert clock.advance(1.5) == DEFAULT_EPOCH + timedelta(minutes=5, seconds=1.5)
    assert clock.advance(0) == clock.now()


def test_the_clock_never_goes_backwards() -> None:
    clock = SimClock()
    clock.advance(60)
    with pytest.raises(UsageError):
        clock.advance(-1)
    with pytest.raises(UsageError):
        clock.advance(timedelta(microseconds=-1))
    assert clock.advance_to(DEFAULT_EPOCH) == DEFAULT_EPOCH + timedelta(seconds=60)
    assert clock.advance_to(DEFAULT_EPOCH + timedelta(hours=1)) == DEFAULT_EPOCH + timedelta(hours=1)
    with pytest.raises(UsageError):
        clock.advance_to(datetime(2030, 1, 1))


def test_a_copy_is_independent() -> None:
    clock = SimClock()
    copy = clock.copy()
    copy.advance(10)
    assert clock.now() == DEFAULT_EPOCH and copy.now() > clock.now()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(
    st.floats(min_value=-100, max_value=10_000, allow_nan=False).map(lambda s: ("advance", s)),
    st.integers(min_value=-10**6, max_value=10**6).map(lambda s: ("to", s)),
), max_size=30))
def test_no_sequence_of_moves_ever_makes_the_clock_go_backwards(moves: list[tuple[str, float]]) -> None:
    clock = SimClock()
    last = clock.now()
    for kind, amount in moves:
        if kind == "advance":
            if timedelta(seconds=amount) < timedelta(0):  # a sub-microsecond step rounds to zero
                with pytest.raises(UsageError):
                    clock.advance(amount)
            else:
                clock.advance(amount)
        else:
            clock.advance_to(DEFAULT_EPOCH + timedelta(seconds=amount))
        assert clock.now() >= last
        last = clock.now()


def test_metric_counters_exist_and_are_monotonic_enough() -> None:
    a, b = perf_ns(), perf_ns()
    assert b >= a
    assert wall_ns() > 1_600_000_000 * 10**9
