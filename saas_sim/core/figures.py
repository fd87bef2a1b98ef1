"""Figures that follow from true ones: a rate of a true total, or a total of a true rate, over a stated count.

Truth checks keep a set of true amounts (prices, totals, refunds, the code's figures) and the counts a task
states (seats, months). A reply or note that explains its arithmetic states figures in between: "90.00 USD
per month over the 15 months" of a true 1,350.00, or "142 seats at 85.00" of a true 12,070.00. Such a
figure is true when one true amount is it times a count, or it is one true amount times a count, to the
cent. Counts above `MAX_COUNT` (an invoice or order number) multiply nothing.
"""

from __future__ import annotations

from collections.abc import Collection
from decimal import Decimal

__all__ = ["MAX_COUNT", "follows_from"]

MAX_COUNT = 1000
"""The largest count a figure may be multiplied or divided by (seats, months, units; not an id)."""

_CENT = Decimal("0.01")


def follows_from(amount: Decimal, known: Collection[Decimal], counts: Collection[Decimal | int]) -> bool:
    """Whether `amount` is a known amount, or one of them divided or multiplied by one of `counts`, to the cent."""
    cents = {k.quantize(_CENT) for k in known}
    value = amount.quantize(_CENT)
    if value in cents:
        return True
    for n in {Decimal(c) for c in counts if 2 <= Decimal(c) <= MAX_COUNT and Decimal(c) == int(c)}:
        if (amount * n).quantize(_CENT) in cents or any((k * n).quantize(_CENT) == value for k in cents):
            return True
    return False
