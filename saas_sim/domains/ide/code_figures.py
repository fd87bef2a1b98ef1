"""The figures a module of the company's code states: what a reply or a note may quote from it as true.

A cross-app task's checks judge every amount the agent's texts state against the true ones. The code the
agent reads is part of the task's world, so its figures are true too: a rule's cap ("up to a maximum of
25.00 USD"), a tier's per-seat price, an enterprise seat price, and its rates as percents ("8.25"). Setups
that read a module bind them (`figures`: `{amount, per}` money and plain rates) for the truth checks'
`also_true`, each with what it is per, so a seat's monthly price is never true "per month" of the plan.

Only the module's text decides them (its namespace, evaluated in-process like `gen_reference` does), so
an edit an agent makes later moves nothing. A name says what a constant holds: `*_CENTS` is money in
cents, `*_BP` a rate in basis points, and `TIERS` pairs a seat limit with a price in cents per seat;
other constants (days, counts, limits) are no money and add nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["Figure", "code_figures", "dollars"]


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


Figure = str | dict[str, Any]
"""A bound figure: a plain amount (`"8.25"`, unit unknown) or `{amount, per}` as `core.figures.figure_of` reads it."""

_SEAT_MONTH = ["seat", "month"]


def code_figures(ns: Mapping[str, Any], *extra: tuple[int, list[str]]) -> list[Figure]:
    """The money figures and rates module namespace `ns` states, and `extra` (cents, what it is per).

    Money in dollars with what it is per: a `TIERS` price or a `*_SEAT_CENTS` constant per seat and month (the
    price list's unit), another `*_CENTS` constant a total (`[]`: a fee's cap). Rates (`*_BP`) as plain
    percents (`"8.25"`, which is also how a reply writes them), their unit unknown.
    """
    money: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {}

    def add(cents: int, per: list[str]) -> None:
        money[(dollars(cents), tuple(per))] = {"amount": dollars(cents), "per": list(per)}

    for k, v in ns.items():
        if k.isupper() and k.endswith("_CENTS") and _ints(v):
            add(v, _SEAT_MONTH if k.endswith("_SEAT_CENTS") else [])
    for cents in _tier_cents(ns.get("TIERS")):
        add(cents, _SEAT_MONTH)
    for cents, per in extra:
        if _ints(cents):
            add(cents, per)
    rates = sorted({dollars(v) for k, v in ns.items() if k.isupper() and k.endswith("_BP") and _ints(v)},
                   key=lambda s: (float(s), s))
    out: list[Figure] = [money[k] for k in sorted(money, key=lambda k: (float(k[0]), k))]
    return out + list(rates)
