"""Money: `Decimal` amounts with at most two places, never a float, never unbounded.

Every domain keeps amounts as `Decimal` quantized to cents. Tools accept an
amount only when quantizing it to cents loses nothing, so `"12.50"` and
`"12.5"` are the same amount and `"12.505"` is refused, never rounded.

`Money` is the argument type for amounts an agent sends. It is bounded so that
no input can make later `Decimal` arithmetic raise (`InvalidOperation` at the
context's 28 digits of precision): a finite number or a plain decimal string of
ASCII digits, at most `MAX_AMOUNT` in magnitude, at most two places, never a
boolean. `25`, `25.0`, `"25"` and `"25.00"` are all `Decimal("25.00")`.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Annotated, Any

from pydantic import BeforeValidator, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema as cs

__all__ = ["AMOUNT_PATTERN", "CENT", "MAX_AMOUNT", "Money", "parse_amount", "to_cents"]

CENT = Decimal("0.01")
"""The smallest unit of money, and the exponent every stored amount has."""

MAX_AMOUNT = Decimal("1000000000000.00")
"""The largest magnitude an agent may send (one trillion): sums of many such stay far inside 28 digits."""

AMOUNT_PATTERN = r"^-?[0-9]{1,13}(\.[0-9]{1,2})?$"
"""What an amount written as text looks like: ASCII digits, an optional sign, at most two places."""

_AMOUNT_TEXT = re.compile(r"-?[0-9]+(?:\.[0-9]+)?", re.ASCII)
# Longer text than this cannot be a bounded amount; refusing it first keeps Decimal() off huge inputs.
_MAX_TEXT = 40


def to_cents(amount: Decimal) -> Decimal | None:
    """Returns `amount` written with exactly two places, or None if it has more.

    Args:
        amount: A finite amount.

    Returns:
        The same value quantized to cents (`Decimal("12.5")` -> `Decimal("12.50")`),
        or None when that would drop digits (`Decimal("12.505")`) or `amount` is NaN.

    Raises:
        decimal.InvalidOperation: `amount` is infinite or a signalling NaN, or has more
            digits than the decimal context's precision.
    """
    cents = amount.quantize(CENT)
    return cents if cents == amount else None


def parse_amount(value: object) -> Decimal:
    """Returns `value` as an amount in cents, or raises `ValueError` saying what is wrong.

    Args:
        value: A JSON number (int or float), a `Decimal`, or a decimal string such as `"12.50"`.

    Returns:
        The amount quantized to cents.

    Raises:
        ValueError: `value` is a boolean, not a number or decimal string, not finite, written with
            other than ASCII digits, larger than `MAX_AMOUNT` in magnitude, or has more than two places.
    """
    # bool is an int subclass: `true` must never be the amount 1.
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal | str):
        raise ValueError("an amount must be a number or a decimal string such as '12.50'")
    if isinstance(value, str):
        text = value.strip()
        # Decimal() reads any Unicode digit ("٣٠" is 30) and exponents: only plain ASCII decimals pass.
        if len(text) > _MAX_TEXT or not _AMOUNT_TEXT.fullmatch(text):
            raise ValueError("an amount written as text must be ASCII digits with an optional '.', such as '12.50'")
        amount = Decimal(text)
    elif isinstance(value, int):
        if abs(value) > MAX_AMOUNT:  # compared as ints: never builds a huge Decimal
            raise ValueError(f"an amount must be at most {MAX_AMOUNT} in magnitude")
        amount = Decimal(value)
    else:
        amount = Decimal(repr(value)) if isinstance(value, float) else value
        if not amount.is_finite():
            raise ValueError("an amount must be a finite number")
    if abs(amount) > MAX_AMOUNT:
        raise ValueError(f"an amount must be at most {MAX_AMOUNT} in magnitude")
    # Within MAX_AMOUNT the quantized value has at most 15 digits: quantize cannot raise.
    cents = amount.quantize(CENT)
    if cents != amount:
        raise ValueError("an amount must have at most two decimal places")
    return cents


class _AmountSchema:
    """Writes the amount's bounds into its JSON schema (pydantic's plain Decimal schema has none)."""

    def __get_pydantic_json_schema__(self, schema: cs.CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        json_schema = handler(schema)
        for branch in json_schema.get("anyOf", [json_schema]):
            if branch.get("type") == "number":
                if "maximum" not in branch and "exclusiveMaximum" not in branch:
                    branch["maximum"] = float(MAX_AMOUNT)
                if "minimum" not in branch and "exclusiveMinimum" not in branch:
                    branch["minimum"] = -float(MAX_AMOUNT)
            elif branch.get("type") == "string":
                branch["pattern"] = AMOUNT_PATTERN
        return json_schema


def _before(value: Any) -> Decimal:
    return parse_amount(value)


Money = Annotated[Decimal, BeforeValidator(_before), _AmountSchema()]
"""An amount argument: finite, ASCII digits, at most two places, |x| <= `MAX_AMOUNT`, never a bool."""
