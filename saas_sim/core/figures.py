"""Figures that follow from true ones: a rate of a true total, or a total of a true rate, over a stated count.

Truth checks keep a set of true amounts (prices, totals, refunds, the code's figures) and the counts a task
states (seats, months). A reply or note that explains its arithmetic states figures in between: "90.00 USD
per month over the 15 months" of a true 1,350.00, or "142 seats at 85.00" of a true 12,070.00. Such a
figure is true when one true amount is it times a count, or it is one true amount times a count, to the
cent. Counts above `MAX_COUNT` (an invoice or order number) multiply nothing.

**Units.** A figure is only true as what it is stated as. A true amount may carry what it is per
(`Figure.per`: `{"seat", "month"}` for a seat's monthly price, `{}` for a total) and a count its unit
(`Count.unit`: "seat", "month"). Dividing by a count adds its unit to what the figure is per (a total over
15 months is per month), multiplying by one takes it away (a monthly figure times 15 months is a total);
dividing a per-seat figure by seats, or multiplying a total by months, gives nothing. When the text says
what a figure is per (`unit_stated`: "per month", "/seat", "annually", "in total"), the figure is true
only if a true amount or a derivation of that very unit gives it: a true total divided by the seats is a
seat's share, never a monthly price. A typed amount may also be taken over two counts of distinct units
when the text states the unit that lands on (a contract total over the seats and the months is the price
"per seat per month", to the cent; never "per month"). An amount or count without a unit, and a figure whose text says
none, match any unit, as before units were known.

A scenario lists its true amounts as templates; one bound to a list (the figures a setup read from the
code) contributes every item of it (`spread`), as a list-bound template in a scope rule's `on` does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from saas_sim.core.text_facts import located_amounts

__all__ = [
    "MAX_COUNT",
    "UNITS",
    "Count",
    "Figure",
    "count_of",
    "figure_of",
    "follows_from",
    "known_figures",
    "spread",
    "stated_amounts",
    "unit_stated",
]

MAX_COUNT = 1000
"""The largest count a figure may be multiplied or divided by (seats, months, units; not an id)."""

UNITS = ("day", "month", "seat", "year")
"""What a figure may be per, and what a count may count."""

_CENT = Decimal("0.01")


@dataclass(frozen=True, slots=True)
class Figure:
    """A true amount and what it is per: None when unknown, `frozenset()` for a total."""

    value: Decimal
    per: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Count:
    """A count the task states and its unit (one of `UNITS`), None when unknown; "ref" for a number that
    counts nothing (an invoice number), which derives no figure."""

    n: Decimal
    unit: str | None = None


def figure_of(raw: object, parse: Callable[[str], Decimal] = Decimal) -> Figure:
    """A `Figure` from a scenario parameter: a plain amount (unit unknown) or `{amount: x, per: [units]}`."""
    if isinstance(raw, Figure):
        return raw
    if isinstance(raw, Mapping):
        return Figure(parse(str(raw["amount"])), frozenset(raw.get("per") or ()))
    return Figure(parse(str(raw)))


def count_of(raw: object) -> Count:
    """A `Count` from a scenario parameter: a plain number (unit unknown) or `{count: n, unit: u}`."""
    if isinstance(raw, Count):
        return raw
    if isinstance(raw, Mapping):
        return Count(Decimal(str(raw["count"])), str(raw["unit"]) if raw.get("unit") is not None else None)
    return Count(Decimal(str(raw)))


def known_figures(plain: Iterable[Decimal], typed: Iterable[Figure]) -> set[Decimal | Figure]:
    """The true amounts of a check: `typed` ones as given, and `plain` ones (unit unknown) unless a typed one
    has the same value: the scenario said what that figure is per, so it is not also true per anything."""
    figures = set(typed)
    values = {f.value for f in figures}
    return {*figures, *(p for p in plain if p not in values)}


def _derived(k: Figure, c: Count, divided: bool) -> tuple[bool, frozenset[str] | None]:
    """Whether `k` divided (or multiplied) by `c` is a figure at all, and what it is per (None: unknown)."""
    if c.unit == "ref":
        return False, None
    if k.per is None or c.unit is None:
        return True, None
    if divided:
        return c.unit not in k.per, k.per | {c.unit}
    return c.unit in k.per, k.per - {c.unit}


def follows_from(
    amount: Decimal, known: Collection[Decimal | Figure], counts: Collection[Decimal | int | Count],
    stated: frozenset[str] | None = None,
) -> bool:
    """Whether `amount` is a known amount, or one of them divided or multiplied by one of `counts`, to the cent.

    Args:
        amount: The figure a text states.
        known: The true amounts (plain, unit unknown, or `Figure`s with what they are per).
        counts: The task's counts (plain, unit unknown, or `Count`s with their unit).
        stated: What the text says the figure is per (`unit_stated`), None when it says nothing.
    """
    figures = {k if isinstance(k, Figure) else Figure(k) for k in known}
    if stated is not None and "year" in stated and "month" not in stated:
        # A year is twelve months: "14,400.00 a year" of a true 1,200.00 a month, or of a 12-month total.
        monthly = (stated - {"year"}) | {"month"}
        if (amount / 12).quantize(_CENT) * 12 == amount.quantize(_CENT) and follows_from(
                (amount / 12).quantize(_CENT), figures, counts, monthly):
            return True
    value = amount.quantize(_CENT)

    def fits(per: frozenset[str] | None) -> bool:
        return stated is None or per is None or per == stated

    if any(k.value.quantize(_CENT) == value and fits(k.per) for k in figures):
        return True
    typed = {c if isinstance(c, Count) else Count(Decimal(c)) for c in counts}
    usable = sorted((c for c in typed if 2 <= c.n <= MAX_COUNT and c.n == int(c.n)), key=lambda c: (c.n, c.unit or ""))
    for c in usable:
        for k in figures:
            cents = k.value.quantize(_CENT)
            for divided, hit in ((True, (amount * c.n).quantize(_CENT) == cents),
                                 (False, (k.value * c.n).quantize(_CENT) == value)):
                ok, per = _derived(k, c, divided)
                if hit and ok and fits(per):
                    return True
    # In two typed steps a count of one counts too: it moves the unit, not the value (a one-seat plan's monthly
    # price is its price per seat per month).
    ones = sorted((c for c in typed if c.n == 1), key=lambda c: c.unit or "")
    return stated is not None and _two_steps(value, figures, ones + usable, stated)


def _two_steps(value: Decimal, figures: Collection[Figure], counts: list[Count], stated: frozenset[str]) -> bool:
    """Whether `value` is a known amount taken over two counts of distinct units, landing on the unit `stated`.

    Only typed figures and counts derive this way, and only to the unit the text states: a contract total over
    the seats and the months is the price "per seat per month" (to the cent, rounded), never "per month"; a
    seat's monthly price times the seats and the months is a total. Untyped, two steps would make too many
    figures true.
    """
    for k in figures:
        if k.per is None:
            continue
        for c1 in counts:
            for c2 in counts:
                if c1.unit in (None, "ref") or c2.unit in (None, "ref") or c1.unit >= c2.unit:
                    continue  # distinct known units, each pair once
                for d1 in (True, False):
                    for d2 in (True, False):
                        ok1, per1 = _derived(k, c1, d1)
                        if not ok1 or per1 is None:
                            continue
                        ok2, per2 = _derived(Figure(k.value, per1), c2, d2)
                        if not ok2 or per2 != stated:
                            continue
                        scale = (c1.n if not d1 else 1 / c1.n) * (c2.n if not d2 else 1 / c2.n)
                        if (k.value * scale).quantize(_CENT) == value:
                            return True
    return False


_PER = r"(?:per|a|an|each|every|/|pro|par|por|al|je|ogni|para cada)"
_UNIT_WORDS: dict[str, tuple[str, ...]] = {
    "seat": ("seat", "seats", "user", "users", "licence", "license", "licences", "licenses", "head", "agent",
             "platz", "nutzer", "lizenz", "siège", "siege", "utilisateur", "asiento", "usuario", "licencia"),
    "month": ("month", "months", "mo", "mth", "monat", "mois", "mes", "mese"),
    "year": ("year", "years", "yr", "annum", "jahr", "an", "año", "ano", "anno"),
    "day": ("day", "days", "tag", "jour", "día", "dia", "giorno"),
}
_ADVERBS: dict[str, tuple[str, ...]] = {
    "month": ("monthly", "a month", "monatlich", "mensuel", "mensuelle", "mensual", "mensile"),
    "year": ("yearly", "annually", "annual", "p.a.", "jährlich", "annuel", "anual", "annuale"),
    "day": ("daily", "täglich"),
}
_TOTAL = ("in total", "total", "overall", "altogether", "all in", "insgesamt", "au total", "en total")


def _alternation(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


_WORD_UNIT = {w: u for u, ws in _UNIT_WORDS.items() for w in ws}
_PER_UNIT = re.compile(rf"\s*(?:{_PER})\s*-?\s*({_alternation(_WORD_UNIT)})\b", re.IGNORECASE)
_ADVERB_UNIT = {w: u for u, ws in _ADVERBS.items() for w in ws}
_ADVERB = re.compile(rf"\s*,?\s*({_alternation(_ADVERB_UNIT)})(?!\w)", re.IGNORECASE)
_TOTAL_AFTER = re.compile(rf"\s*,?\s*(?:{_alternation(_TOTAL)})\b", re.IGNORECASE)
_PRICE_NOUNS = ("price", "prices", "fee", "rate", "cost", "charge", "payment", "figure", "amount", "subscription",
                "preis", "prix", "precio", "tarif", "tarifa")
_BEFORE = re.compile(rf"(?:^|\b)(?:(per[- ]({_alternation(_WORD_UNIT)}))|({_alternation(_ADVERB_UNIT)}))"
                     rf"(?:\s+(?:{_alternation(_PRICE_NOUNS)}))?\s*(?:[:=]|of|is|at|comes to)?\s*$", re.IGNORECASE)
"""A unit right before a figure, on a price noun at most: "monthly price of", "per-seat fee:", "annual cost"."""


def unit_stated(before: str, after: str) -> frozenset[str] | None:
    """What the text says a figure is per, from the text right before and right after it; None if it says nothing.

    After the figure: "per month", "a seat", "/mo", "per seat per month", "per user/month", "monthly",
    "annually" (each adds its unit), or "in total", "total" (a total: `frozenset()`). Right before it:
    "monthly price of", "per-seat price:", "annual fee". Anything else says nothing.

    Args:
        before: The text before the figure (its currency mark excluded), e.g. the rest of its clause.
        after: The text after the figure (its currency mark excluded).
    """
    per: set[str] = set()
    rest = after
    while True:
        m = _PER_UNIT.match(rest) or _ADVERB.match(rest)
        if m is None:
            break
        word = m.group(1).lower()
        per.add(_WORD_UNIT.get(word) or _ADVERB_UNIT[word])
        rest = rest[m.end():]
    if per:
        return frozenset(per)
    if _TOTAL_AFTER.match(after):
        return frozenset()
    b = _BEFORE.search(before[-40:])
    if b is not None:
        word = (b.group(2) or b.group(3)).lower()
        return frozenset({_WORD_UNIT.get(word) or _ADVERB_UNIT[word]})
    return None


def stated_amounts(text: str, lang: str | None = None) -> list[tuple[Decimal, frozenset[str] | None]]:
    """Each amount `text` states (`text_facts.located_amounts`), with what the text says it is per (`unit_stated`)."""
    converted, found = located_amounts(text, lang)
    return [(m.value, unit_stated(converted[:m.start], converted[m.end:])) for m in found]


def spread(values: Iterable[Any]) -> list[Any]:
    """`values` with every list or tuple among them replaced by its items, at any depth (`["1.00", ["2.00"]]`
    -> `["1.00", "2.00"]`); a string or a mapping is one value."""
    out: list[Any] = []
    for v in values:
        if isinstance(v, list | tuple):
            out.extend(spread(v))
        else:
            out.append(v)
    return out
