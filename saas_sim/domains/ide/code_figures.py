"""The figures a module of the company's code states: what a reply or a note may quote from it as true.

A cross-app task's checks judge every amount the agent's texts state against the true ones. The code the
agent reads is part of the task's world, so its figures are true too: a rule's cap ("up to a maximum of
25.00 USD"), a tier's per-seat price, an enterprise seat price, and its rates as percents ("8.25"). Setups
that read a module bind them (`figures`, a list of dollar strings) for the truth checks' `also_true`.

Only the module's text decides them (its namespace, evaluated in-process like `gen_reference` does), so
an edit an agent makes later moves nothing. A name says what a constant holds: `*_CENTS` is money in
cents, `*_BP` a rate in basis points, and `TIERS` pairs a seat limit with a price in cents per seat;
other constants (days, counts, limits) are no money and add nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["code_figures", "dollars"]


def dollars(cents: int) -> str:
    """Cents as a plain decimal amount: `123456` -> `"1234.56"` (negative amounts keep their sign)."""
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"


def _ints(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _tier_cents(value: Any) -> Iterable[int]:
    """The prices of a `TIERS` table: (limit, cents) pairs."""
    if isinstance(value, tuple | list):
        for pair in value:
            if isinstance(pair, tuple | list) and len(pair) == 2 and all(_ints(v) for v in pair):
                yield pair[1]


def code_figures(ns: Mapping[str, Any], *extra_cents: int) -> list[str]:
    """The money figures and rates module namespace `ns` states, and `extra_cents`, as sorted unique strings.

    Money (`*_CENTS` constants, `TIERS` prices, `extra_cents`) in dollars (`"25.00"`); rates (`*_BP`) as
    percents (`"8.25"`, which is also how a reply writes them).
    """
    cents = [v for k, v in ns.items() if k.isupper() and k.endswith("_CENTS") and _ints(v)]
    cents += list(_tier_cents(ns.get("TIERS")))
    cents += [c for c in extra_cents if _ints(c)]
    rates = [v for k, v in ns.items() if k.isupper() and k.endswith("_BP") and _ints(v)]
    return sorted({dollars(c) for c in cents} | {dollars(r) for r in rates}, key=lambda s: (float(s), s))
