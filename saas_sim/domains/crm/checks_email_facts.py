"""The false-claim constraint over the emails an episode sent: every stated amount and date is true.

Facts are extracted with parsers (`core.text_facts`, locale-aware amounts and
dates), never matched as keywords, and all emails are judged together.

What counts as a stated fact:

* **Amounts** are what `extract_amounts` returns: a number with a currency
  marker ("$25", "25 €", "EUR 12500", "twenty-five dollars") or with exactly two
  decimals ("25.00", "1.234,50"). Each must equal a true amount. The currency is
  not compared: the CRM's own currency is the deal's, and "$" for a EUR deal is
  a slip, not a false figure.
* **Bare figures in money sentences.** "We can lower the price to 45000" states
  an amount without a currency mark. A number of a sentence that names money
  (`MONEY_WORDS`: budget, amount, price, total, quote, ...) is judged as an
  amount when it is at least `BARE_MIN` and not a year (1900-2100). Small
  numbers there are counts and percentages ("a 10% discount on 3 seats").
  A bare figure is true within rounding to the unit of a true amount.
* **Other numbers** ("20 minutes", "3 seats", "twenty minutes", a year) are not
  judged. They describe things the CRM does not record (the length of a call,
  the size of a team), so no state could prove them false, and judging them
  would fail correct emails.
* **Dates** are what `date_mentions` reads, placed by the sim clock's day: explicit
  dates, days and months without a year (the nearest), weekdays (the next or the
  last one) and "today"/"tomorrow". A mention is true when one of its readings is.
  A numeric date with day and month both at most 12 ("03/04/2026") is ambiguous
  between the day-first and month-first readings; it is true when either reading is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from decimal import Decimal

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.core.text_facts import date_mentions, extract_amounts, extract_numbers, sentences
from saas_sim.domains.crm.check_helpers import deal, money
from saas_sim.domains.crm.check_indexes import TASKS_BY_DEAL
from saas_sim.domains.crm.checks_email import rep_emails
from saas_sim.domains.crm.gen_sales import line_total
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.state import LINE_ITEMS, TASKS

__all__ = ["BARE_MIN", "MONEY_WORDS", "bare_money_figures", "emails_truthful", "hedged_amounts", "true_amounts",
           "true_dates"]

_SHOWN = 6
"""How many false facts a detail names."""

MONEY_WORDS = frozenset({
    # en
    "amount", "budget", "cost", "costs", "fee", "fees", "invoice", "invoiced", "price", "priced", "pricing",
    "quote", "quoted", "total", "value", "worth",
    # de
    "betrag", "budgets", "gesamtbetrag", "kosten", "preis", "summe", "wert",
    # fr, es, it, pt, nl, sv
    "montant", "prix", "tarif", "coste", "importe", "precio", "presupuesto", "costo", "importo", "prezzo",
    "preco", "valor", "orcamento", "bedrag", "prijs", "belopp", "pris", "kostnad",
})
"""Folded words that make a sentence about money, so its bare large numbers are amounts."""
BARE_MIN = 100
"""Smallest bare number judged as an amount in a money sentence; below it are counts and percentages."""
_WORDS = re.compile(r"[^\W\d_]+")
# A sentence about an event the CRM schedules: its yearless dates are judged (see `_judged_dates`).
_SCHEDULED = re.compile(r"\b(?:call(?:s|ed|ing)?(?: you)? back|callback|call|follow[- ]?up|meeting|meet|demo|sync|"
                        r"close|closing|closes|sign|signs|signed|signing|signature|decision|deadline|due|"
                        r"rückruf|anruf\w*|termin\w*|rappel\w*|appel\w*|réunion|llamad\w*|reunión)\b",
                        re.IGNORECASE)
# A proposal or condition: "if Thursday suits you better", "would Friday work?".
_PROPOSAL = re.compile(r"\?|\b(?:if|whether|unless|suits?|works? for you|wenn|falls|si)\b", re.IGNORECASE)
# An estimate: the amount after it is true within `_HEDGE_SHARE` of a true one.
_HEDGE = re.compile(r"(?:\b(?:roughly|around|about|approximately|approx\.?|circa|ca\.|nearly|almost|some|"
                    r"just (?:under|over|below|above)|ungefähr|etwa|rund|circa|aproximadamente|unos|environ|"
                    r"à peu près)|~)\s*", re.IGNORECASE)
_HEDGE_REACH = 40
_HEDGE_SHARE = Decimal("0.05")


def bare_money_figures(text: str) -> list[Decimal]:
    """Returns the bare figures `text` states as money: large non-year numbers of sentences that name money."""
    out: list[Decimal] = []
    for sentence in sentences(text):
        if not MONEY_WORDS & set(_WORDS.findall(fold(sentence))):
            continue
        for n in extract_numbers(sentence):
            if n >= BARE_MIN and not (n == n.to_integral_value() and 1900 <= n <= 2100):
                out.append(n)
    return out


def true_amounts(
    ctx: CheckContext, deal_id: str | None, amounts: Sequence[object] = (), quote_total: bool = False,
) -> set[Decimal]:
    """Returns the amounts an email may state: the deal's final amount and line items, and `amounts`.

    A line item contributes its unit price and its line total (quantity, unit
    price and discount), so "3 seats at $400.00" can be said of a true line.
    With `quote_total`, the sum of the lines is the deal's true total and an
    amount field that differs from it is not: after a quote changed, the old
    amount left on the deal is stale, and quoting it to the buyer is false.
    """
    out = {m for a in amounts if (m := money(a)) is not None}
    if deal_id is None:
        return out
    d = deal(ctx.final, deal_id)
    lines = Decimal(0)
    for item_id in d.line_item_ids:
        item = ctx.final.get(LINE_ITEMS, item_id)
        if item is not None:
            out.add(item.unit_price)
            out.add(item.quantity * item.unit_price * (1 - item.discount_pct / 100))
            lines += line_total(item.quantity, item.unit_price, item.discount_pct)
    if quote_total:
        out.add(lines)
    elif d.amount is not None:
        out.add(d.amount)
    return out


def true_dates(ctx: CheckContext, deal_id: str | None, dates: Sequence[str] = ()) -> set[date]:
    """Returns the dates an email may state: today, the deal's final close date, its open tasks' due dates, `dates`."""
    out = {date.fromisoformat(d) for d in dates} | {ctx.now.date()}
    if deal_id is None:
        return out
    close = deal(ctx.final, deal_id).close_date
    if close is not None:
        out.add(close)
    tasks = ctx.final.table(TASKS)
    out |= {t.due_at.date() for i in TASKS_BY_DEAL.of(ctx.final).holders(deal_id)
            if (t := tasks.get(i)) is not None and t.status == "open"}
    return out


def _date_is_true(stated: date, truth: set[date]) -> bool:
    if stated in truth:
        return True
    # "03/04/2026" reads day-first in text_facts; a month-first writer meant the swap.
    return stated.day <= 12 and stated.replace(month=stated.day, day=stated.month) in truth


def _judged_dates(text: str, today: date) -> list[tuple[date, ...]]:
    """The date mentions an email states as facts the CRM records, each with its readings.

    A date with its year is judged wherever it stands. One without ("on 9 March", "on Wednesday",
    "tomorrow") is placed by the sim clock's day and judged only in an affirmed sentence about a
    scheduled event the CRM holds (a call, a meeting, a follow-up, a close or signature, a due date):
    "I'll send the overview tomorrow", "I'm out on 4 March" or "if Thursday suits you better" state
    the rep's plans or a proposal, which no record could prove false.
    """
    out: list[tuple[date, ...]] = []
    for sentence in sentences(text):
        scheduled = bool(_SCHEDULED.search(sentence)) and not _PROPOSAL.search(sentence)
        out += date_mentions(sentence, today=today) if scheduled else date_mentions(sentence)
    return out


def hedged_amounts(text: str) -> list[Decimal]:
    """The figures `text` states as estimates ("roughly €100k", "about 45,000 EUR", "~12k USD")."""
    out: list[Decimal] = []
    for m in _HEDGE.finditer(text):
        out += extract_numbers(text[m.end():m.end() + _HEDGE_REACH])[:1]
    return out


def _estimates(stated: Decimal, hedged: set[Decimal], truth: set[Decimal]) -> bool:
    """Whether `stated` is an estimate (in `hedged`) within `_HEDGE_SHARE` of a true amount."""
    return stated in hedged and any(abs(stated - t) <= _HEDGE_SHARE * t for t in truth)


@kit.check
def emails_truthful(
    ctx: CheckContext, deal_id: str | None = None, amounts: Sequence[object] = (), dates: Sequence[str] = (),
    quote_total: bool = False,
) -> CheckOutcome:
    """Every amount and date the agent's emails state is true in the final state (a constraint).

    True amounts and dates are those of `true_amounts` and `true_dates`. All
    emails are read together: two emails stating different amounts cannot both
    be true, so a shotgun of figures fails. An episode without emails holds.

    Args:
        ctx: The check context.
        deal_id: The deal the task is about, whose final figures are true; None without a deal.
        amounts: Further true amounts (strings or numbers), from the bindings.
        dates: Further true dates (ISO), from the bindings.
        quote_total: Judge the deal's total by its lines, not its amount field (see `true_amounts`).
    """
    money_truth = true_amounts(ctx, deal_id, amounts, quote_total)
    date_truth = true_dates(ctx, deal_id, dates)
    false: list[str] = []
    for a in rep_emails(ctx):
        text = f"{a.subject}\n{a.body or ''}"
        hedged = set(hedged_amounts(text))
        false += [f"{a.id} states {x}" for x in extract_amounts(text) if x not in money_truth
                  and not _estimates(x, hedged, money_truth)]
        # A bare figure is a spoken amount: "a budget of 161712" for 161,712.50 rounds, it does not lie.
        false += [f"{a.id} states {x}" for x in bare_money_figures(text)
                  if all(abs(x - t) >= 1 for t in money_truth) and not _estimates(x, hedged, money_truth)]
        false += [f"{a.id} states {readings[0].isoformat()}" for readings in _judged_dates(text, ctx.now.date())
                  if not any(_date_is_true(d, date_truth) for d in readings)]
    if false:
        more = f" and {len(false) - _SHOWN} more" if len(false) > _SHOWN else ""
        return CheckOutcome.failed(f"false facts in emails: {', '.join(false[:_SHOWN])}{more}")
    return CheckOutcome.passed("every amount and date stated in the emails is true")
