"""Money amounts: two places, never rounded, never a float."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

import pytest
from hypothesis import given
from hypothesis import strategies as st

from saas_sim.core.money import CENT, to_cents


def test_a_cent_is_one_hundredth() -> None:
    assert Decimal("1.00") == 100 * CENT
    assert CENT.as_tuple().exponent == -2


@pytest.mark.parametrize(("raw", "cents"), [("12.5", "12.50"), ("12.50", "12.50"), ("7", "7.00"), ("0", "0.00"),
                                            ("-3.1", "-3.10"), ("12.500", "12.50"), ("1E+2", "100.00")])
def test_amounts_with_at_most_two_places_are_written_with_exactly_two(raw: str, cents: str) -> None:
    result = to_cents(Decimal(raw))
    assert result is not None
    assert str(result) == cents
    assert result == Decimal(raw)


@pytest.mark.parametrize("raw", ["12.505", "0.001", "-0.129", "NaN"])
def test_amounts_with_more_places_are_refused_not_rounded(raw: str) -> None:
    assert to_cents(Decimal(raw)) is None


@pytest.mark.parametrize("raw", ["Infinity", "-Infinity", "sNaN"])
def test_infinite_amounts_raise(raw: str) -> None:
    with pytest.raises(InvalidOperation):
        to_cents(Decimal(raw))


@given(st.integers(min_value=-10**12, max_value=10**12))
def test_every_whole_number_of_cents_survives(n: int) -> None:
    amount = Decimal(n) / 100
    assert to_cents(amount) == amount
    assert to_cents(amount + Decimal("0.001")) is None
