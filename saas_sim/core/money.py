"""Money: `Decimal` amounts with at most two places, never a float.

Every domain keeps amounts as `Decimal` quantized to cents. Tools accept an
amount only when quantizing it to cents loses nothing, so `"12.50"` and
`"12.5"` are the same amount and `"12.505"` is refused, never rounded.
"""

from __future__ import annotations

from decimal import Decimal

__all__ = ["CENT", "to_cents"]

CENT = Decimal("0.01")
"""The smallest unit of money, and the exponent every stored amount has."""


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
