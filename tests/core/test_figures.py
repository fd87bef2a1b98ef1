"""Figures that follow from true ones over a stated count."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from saas_sim.core.figures import MAX_COUNT, Count, Figure, follows_from, spread, unit_stated

D = Decimal


def test_a_rate_of_a_true_total_and_a_total_of_a_true_rate_follow() -> None:
    assert follows_from(D("90.00"), {D("1350.00")}, [15])  # per month over 15 months
    assert follows_from(D("12070.00"), {D("85.00")}, [142])  # 142 seats at 85.00
    assert follows_from(D("1350.00"), {D("1350.00")}, [])


def test_other_figures_and_ids_as_counts_do_not() -> None:
    assert not follows_from(D("91.00"), {D("1350.00")}, [15])
    assert not follows_from(D("90.00"), {D("1350.00")}, [14, 16])
    assert not follows_from(D("100483.00"), {D("1.00")}, [100483])  # an order number multiplies nothing
    assert not follows_from(D("675.00"), {D("1350.00")}, [1])


@given(st.integers(1, 10**9), st.integers(2, MAX_COUNT))
def test_every_exact_rate_follows_from_its_total(cents: int, count: int) -> None:
    total = D(cents * count).scaleb(-2)
    assert follows_from(D(cents).scaleb(-2), {total}, [count])


_TOTAL = Figure(D("31185.00"), frozenset())
_SEAT_MONTH = Figure(D("41.25"), frozenset({"seat", "month"}))
_COUNTS = [Count(D(42), "seat"), Count(D(18), "month")]


def test_a_derived_figure_carries_the_unit_of_its_derivation() -> None:
    assert follows_from(D("1732.50"), {_TOTAL}, _COUNTS, frozenset({"month"}))  # the total over 18 months
    assert follows_from(D("742.50"), {_TOTAL}, _COUNTS, frozenset({"seat"}))  # the total over 42 seats
    assert follows_from(D("1732.50"), {_SEAT_MONTH}, _COUNTS, frozenset({"month"}))  # 42 seats at 41.25
    assert follows_from(D("20790.00"), {_TOTAL}, _COUNTS, frozenset({"year"}))  # twelve months at 1,732.50
    assert follows_from(D("742.50"), {_TOTAL}, _COUNTS)  # the text says no unit: any derivation


def test_a_figure_stated_in_another_unit_than_its_derivation_is_not_true() -> None:
    assert not follows_from(D("742.50"), {_TOTAL}, _COUNTS, frozenset({"month"}))
    assert not follows_from(D("31185.00"), {_TOTAL}, _COUNTS, frozenset({"month"}))
    assert not follows_from(D("41.25"), {_SEAT_MONTH}, _COUNTS, frozenset({"month"}))
    assert not follows_from(D("1732.50"), {_TOTAL}, _COUNTS, frozenset({"seat"}))
    assert not follows_from(D("1732.50"), {Figure(D("41.25"), frozenset({"seat"}))}, [Count(D(42), "seat")],
                            frozenset({"seat"}))  # a per-seat figure times the seats is no longer per seat
    assert not follows_from(D("5.00"), {Figure(D("5000.00"))}, [Count(D(1000), "ref")])  # a reference counts nothing


@pytest.mark.parametrize(("before", "after", "per"), [
    ("", " per month over 18 months", {"month"}),
    ("", "/seat/month", {"seat", "month"}),
    ("", " per user per month", {"seat", "month"}),
    ("", " a year", {"year"}),
    ("", " monthly", {"month"}),
    ("", " in total", set()),
    ("the monthly price of ", "", {"month"}),
    ("per-seat fee: ", "", {"seat"}),
    ("the annual plan total of ", "", None),
    ("Quote ", " for 42 seats", None),
])
def test_unit_stated_reads_the_unit_beside_a_figure(before: str, after: str, per: set[str] | None) -> None:
    assert unit_stated(before, after) == (None if per is None else frozenset(per))


def test_spread_lists_the_items_of_a_list_bound_value_in_place() -> None:
    assert spread(["1.00", ["2.00", ("3.00",)], "4.00"]) == ["1.00", "2.00", "3.00", "4.00"]
    assert spread(()) == []


def test_a_typed_total_over_two_counts_is_true_in_the_unit_that_lands_on() -> None:
    total = Figure(D("31185.00"), frozenset())
    seat_month = frozenset({"seat", "month"})
    assert follows_from(D("41.25"), {total}, _COUNTS, seat_month)  # 31,185.00 / 42 seats / 18 months
    assert follows_from(D("31185.00"), {_SEAT_MONTH}, _COUNTS, frozenset())  # 41.25 x 42 x 18, in total
    assert follows_from(D("13.89"), {Figure(D("10000.00"), frozenset())},
                        [Count(D(40), "seat"), Count(D(18), "month")], seat_month)  # rounded to the cent


def test_two_steps_in_a_wrong_unit_or_untyped_derive_nothing() -> None:
    total = Figure(D("31185.00"), frozenset())
    assert not follows_from(D("41.25"), {total}, _COUNTS, frozenset({"month"}))  # a seat-month figure "per month"
    assert not follows_from(D("41.25"), {total}, _COUNTS, frozenset({"seat"}))
    assert not follows_from(D("41.25"), {total}, _COUNTS)  # no unit stated: one step only
    assert not follows_from(D("41.25"), {D("31185.00")}, [42, 18], frozenset({"seat", "month"}))  # untyped
    assert not follows_from(D("41.25"), {total}, [Count(D(42), "seat"), Count(D(18), "ref")],
                            frozenset({"seat", "month"}))
    assert not follows_from(D("41.26"), {total}, _COUNTS, frozenset({"seat", "month"}))


def test_a_count_of_one_moves_the_unit_in_two_typed_steps() -> None:
    one_seat = [Count(D(1), "seat"), Count(D(20), "month")]
    assert follows_from(D("80.00"), {Figure(D("1600.00"), frozenset())}, one_seat, frozenset({"seat", "month"}))
    assert not follows_from(D("1600.00"), {Figure(D("1600.00"), frozenset())}, one_seat, frozenset({"seat"}))
