"""Figures that follow from true ones over a stated count."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from saas_sim.core.figures import MAX_COUNT, follows_from

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
