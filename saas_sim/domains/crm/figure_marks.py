"""How a text marks a figure it states: in cents, or as a past value rather than a claim about the present.

A note that explains a price from the code may quote the code's own output ("quote() returns 3118500
cents", "in cents: 3118500") and the figure it replaced ("it was $34,650.00 before the change", "last
year's price of $34,650.00 no longer applies"). Read as plain dollars about the present, both look false.
The truth checks (`checks_suite_billing.plan_texts_true`) read them as what they are:

* **Cents.** A whole number with a minor-unit word after it ("3118500 cents", "3118500 (in cents)",
  "4900¢") or after "in cents:" is that many hundredths: 3118500 cents is 31,185.00.
* **Code output.** A whole number reported as what code returns ("quote(42, 18) returns 3118500",
  "the function gave 3118500", "quote() == 3118500", "-> 3118500") is in the code's own unit, which the
  scenario names (`code_returns`: the company's code returns money in cents): 3118500 is 31,185.00. A figure
  with a currency mark or word ("returns $3,118,500", "3118500 dollars") or decimals is still in dollars, and
  the figure read in the code's unit is judged like any other, so a false output stays false.
* **Past.** An amount with a past cue in its clause, before it ("was", "previously", "the old", "last
  year's", "instead of", "down from") or right after it ("before the change", "no longer applies",
  "last year"), and no verb that offers it now ("quote", "send", "charge") before it, is told of the
  past: it is true when the records showed it before the episode (the
  deal's amount or lines, a figure of its notes and emails), or when it is true now. A past figure the
  records never held ("it was $30,000.00 before") is still false.
"""

from __future__ import annotations

import re
from decimal import Decimal

from saas_sim.core.domain import CheckContext
from saas_sim.core.text_facts import extract_amounts
from saas_sim.domains.crm.check_indexes import ACTIVITIES_BY_DEAL
from saas_sim.domains.crm.state import ACTIVITIES, DEALS, LINE_ITEMS

__all__ = ["CODE_UNITS", "cents_figures", "code_returns", "past_amounts", "told_as_past"]

_WHOLE = r"(\d{1,3}(?:[,\u00a0\u202f]\d{3})+|\d+)"
_CENTS_AFTER = re.compile(rf"(?<![\w.,]){_WHOLE}\s*(?:\(\s*(?:in\s+)?cents?\s*\)|(?:in\s+)?cents?\b|¢)", re.IGNORECASE)
_CENTS_LABEL = re.compile(rf"\b(?:in\s+)?cents\s*[:=]\s*{_WHOLE}(?![\d.,]\d)", re.IGNORECASE)


def cents_figures(text: str) -> dict[Decimal, Decimal]:
    """The whole numbers `text` states in cents, each to its value in currency units ({3118500: 31185.00})."""
    out: dict[Decimal, Decimal] = {}
    for pattern in (_CENTS_AFTER, _CENTS_LABEL):
        for m in pattern.finditer(text):
            n = Decimal(re.sub(r"\D", "", m.group(1)))
            out[n] = n.scaleb(-2)
    return out


CODE_UNITS = ("cents",)
"""The units code may return money in (what `code_returns` converts from)."""
_CODE_RETURN = re.compile(
    r"(?:\b[A-Za-z_][\w.]*\s*\([^()\n]{0,40}\)+|\b(?:function|code|method|script|it|call)\b)\s*"
    r"(?:returns?|returned|returning|gives|gave|yields?|yielded|outputs?|printed|prints|evaluates to|computes|"
    r"computed|comes back (?:as|with)|came back (?:as|with)|==|->|\u2192|=)\s*(?:of\s+)?"
    rf"{_WHOLE}(?!\d|[.,]\d|\s*(?:[$\u20ac\u00a3]|(?:usd|eur|gbp|dollars?|euros?|pounds?|bucks)\b))",
    re.IGNORECASE)


def code_returns(text: str, unit: str) -> dict[Decimal, Decimal]:
    """The whole numbers `text` reports as what code returns, each to its value in currency units, read in the
    code's `unit` (one of `CODE_UNITS`): `quote() returns 3118500` in cents is {3118500: 31185.00}."""
    if unit not in CODE_UNITS:
        raise ValueError(f"unknown code unit: {unit!r}")
    out: dict[Decimal, Decimal] = {}
    for m in _CODE_RETURN.finditer(text):
        n = Decimal(re.sub(r"\D", "", m.group(1)))
        out[n] = n.scaleb(-2)
    return out


_PAST_BEFORE = re.compile(
    r"\b(?:was|were|had been|used to be|previously|previous|formerly|former|old|older|outdated|stale|"
    r"last year'?s?|instead of|rather than|replac\w*|down from|up from|changed from|moved from|went from|"
    r"superseded)\b(?:\W+\w+){0,4}?\W*$", re.IGNORECASE)
_PAST_AFTER = re.compile(
    r"^\W*(?:\w+\W+){0,3}?(?:before the (?:change|update|correction|new pricing)|previously|in the past|"
    r"last year|no longer|is outdated|is stale|is obsolete|was superseded|old price)\b", re.IGNORECASE)
_PRESENT = re.compile(r"\b(?:quote|quoting|quoted|send|offer|confirm|charge|bill|propose|now)\b", re.IGNORECASE)
"""A verb that puts the figure before the buyer now, in the figure's own clause: then it is no past value."""
_CLAUSE_END = re.compile(r"[;.!?\n]\s|[;\n]")


def told_as_past(text: str, start: int, end: int, prev_end: int, next_start: int) -> bool:
    """Whether the amount at text[start:end] is told as a past value (see the module rules).

    Args:
        text: The text the spans index.
        start: Where the amount starts (its currency mark included).
        end: Where it ends.
        prev_end: Where the amount before it ends (0 for none): a cue before that belongs to that one.
        next_start: Where the amount after it starts (len(text) for none).
    """
    before = text[prev_end:start]
    if (cut := list(_CLAUSE_END.finditer(before))):
        before = before[cut[-1].end():]
    after = text[end:next_start]
    if (stop := _CLAUSE_END.search(after)) is not None:
        after = after[:stop.start()]
    if _PRESENT.search(before):
        return False  # "Quote $34,650.00 (last year's price)" proposes the old figure now
    return bool(_PAST_BEFORE.search(before) or _PAST_AFTER.match(after))


def past_amounts(ctx: CheckContext, deal_ids: set[str]) -> set[Decimal]:
    """What the records showed before the episode for these deals: amounts, line prices, and the figures
    stated in their notes and emails (a stale price the buyer's email repeats)."""
    out: set[Decimal] = set()
    for deal_id in deal_ids:
        d = ctx.initial.get(DEALS, deal_id)
        if d is None:
            continue
        if d.amount is not None:
            out.add(d.amount)
        for item in (ctx.initial.get(LINE_ITEMS, i) for i in d.line_item_ids):
            if item is not None:
                out |= {item.unit_price, item.quantity * item.unit_price * (1 - item.discount_pct / 100)}
        for activity_id in ACTIVITIES_BY_DEAL.of(ctx.initial).holders(deal_id):
            a = ctx.initial.get(ACTIVITIES, activity_id)
            if a is not None:
                out |= set(extract_amounts(f"{a.subject}\n{a.body or ''}"))
    return out
