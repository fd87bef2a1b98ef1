"""Money amounts: two places, never rounded, never a float."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, Field, ValidationError

from saas_sim.core.money import AMOUNT_PATTERN, CENT, MAX_AMOUNT, Money, parse_amount, to_cents


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


class _Priced(BaseModel):
    amount: Money = Field(gt=0)


@pytest.mark.parametrize(("raw", "cents"), [("25", "25.00"), ("25.00", "25.00"), (25, "25.00"), (25.0, "25.00"),
                                            (Decimal("25.5"), "25.50"), (" 7.1 ", "7.10"), (0.1, "0.10"),
                                            (10**12, "1000000000000.00")])
def test_money_reads_numbers_and_plain_decimal_text_as_the_same_cents(raw: object, cents: str) -> None:
    assert str(_Priced(amount=raw).amount) == cents


@pytest.mark.parametrize("raw", [
    True, False, "\u0663\u0660", "\uff13\uff10", "\U0001d7d1\U0001d7ce",  # Arabic-Indic, full-width, math digits
    "1e26", "1E+2", "0x10", "12,50", "+5", "NaN", "Infinity", "", "12.505",
    1e26, 10**13, -(10**30), float("nan"), float("inf"), Decimal("sNaN"), Decimal("Infinity"), Decimal("1e25"),
    "9" * 60, None, [1], {"a": 1},
])
def test_money_refuses_bools_unicode_digits_exponents_huge_and_non_finite_amounts(raw: object) -> None:
    # Bugs: "٣٠" was read as 30, True as 1, and 1e26 raised decimal.InvalidOperation in to_cents.
    with pytest.raises(ValidationError):
        _Priced(amount=raw)


@given(st.one_of(st.decimals(), st.floats(), st.integers(), st.text(max_size=30)))
def test_money_never_raises_anything_but_a_validation_error(raw: object) -> None:
    try:
        amount = _Priced(amount=raw).amount
    except ValidationError:
        return
    assert abs(amount) <= MAX_AMOUNT
    assert amount.as_tuple().exponent == -2


def test_money_states_its_bounds_in_the_json_schema() -> None:
    schema = _Priced.model_json_schema()["properties"]["amount"]
    text = next(b for b in schema["anyOf"] if b["type"] == "string")
    number = next(b for b in schema["anyOf"] if b["type"] == "number")
    assert text["pattern"] == AMOUNT_PATTERN
    assert number["exclusiveMinimum"] == 0
    assert number["maximum"] == float(MAX_AMOUNT)


def test_parse_amount_gives_the_same_decimal_for_every_spelling() -> None:
    assert parse_amount("25") == parse_amount(25) == parse_amount("25.00") == Decimal("25.00")
