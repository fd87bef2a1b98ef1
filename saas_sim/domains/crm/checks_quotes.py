"""Checks over a deal's quote (its line items), judged per product, never per line id.

A product is the real-world thing on a quote: two lines of one product at one
price and discount are that product in their summed quantity, and a product on
lines with different terms states two prices at once, which no expectation matches.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.core.state import State
from saas_sim.domains.crm.check_helpers import deal, money
from saas_sim.domains.crm.checks_claims import agent_texts
from saas_sim.domains.crm.gen_sales import line_total
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.models import LineItem
from saas_sim.domains.crm.quote_counts import stated_counts
from saas_sim.domains.crm.state import LINE_ITEMS, PRODUCTS

__all__ = [
    "amount_is_line_total_if_changed",
    "quote_changes_made",
    "quote_counts_true",
    "quote_discounts_true",
    "quote_terms_kept",
    "stated_percents",
]

Terms = tuple[int, Decimal, Decimal] | None
"""A product's summed quantity, unit price and discount on a quote; None when its lines disagree on terms."""


def quote_by_product(state: State, deal_id: str) -> dict[str, Terms]:
    """Returns each product on the deal's quote with its terms, per `Terms`."""
    out: dict[str, Terms] = {}
    for item_id in deal(state, deal_id).line_item_ids:
        item = state.get(LINE_ITEMS, item_id)
        if item is None:
            continue
        if item.product_id not in out:
            out[item.product_id] = (item.quantity, item.unit_price, item.discount_pct)
            continue
        seen = out[item.product_id]
        same = seen is not None and (seen[1], seen[2]) == (item.unit_price, item.discount_pct)
        out[item.product_id] = (seen[0] + item.quantity, seen[1], seen[2]) if same and seen else None
    return out


def _matches(terms: Terms, line: Mapping[str, Any]) -> bool:
    if terms is None:
        return False
    qty, price, disc = terms
    want_qty = line.get("quantity")
    return ((want_qty is None or qty == int(want_qty)) and price == money(line["unit_price"])
            and disc == money(line["discount_pct"]))


@kit.check
def quote_changes_made(
    ctx: CheckContext, deal_id: str, expected_lines: Sequence[Mapping[str, Any]], removed: Sequence[str],
    requested: Sequence[str],
) -> CheckOutcome:
    """Share of the buyer's requested changes the final quote shows.

    Args:
        ctx: The check context.
        deal_id: The quoted deal.
        expected_lines: The whole expected quote, one line per product (`product_id`, `quantity`,
            `unit_price`, `discount_pct`).
        removed: Products the buyer asked to remove: each counts when it is off the quote.
        requested: Products of `expected_lines` the buyer asked to add or re-count: each counts when
            its line is exactly as expected.
    """
    quote = quote_by_product(ctx.final, deal_id)
    wanted = {str(line["product_id"]): line for line in expected_lines}
    done: list[str] = []
    missed: list[str] = []
    for product_id in requested:
        ok = product_id in quote and _matches(quote[product_id], wanted[product_id])
        (done if ok else missed).append(product_id)
    for product_id in removed:
        (done if product_id not in quote else missed).append(f"-{product_id}")
    total = len(requested) + len(removed)
    return CheckOutcome(len(done) / total if total else 0.0, f"changes made: {done}; missing or wrong: {missed}")


@kit.check
def quote_terms_kept(
    ctx: CheckContext, deal_id: str, kept_lines: Sequence[Mapping[str, Any]], allowed_products: Sequence[str],
) -> CheckOutcome:
    """Every agreed term the buyer did not ask to change still holds, and nothing was added (a constraint).

    A kept line with `quantity: null` may change its quantity but not its price or
    discount. Dropping a kept product, repricing it from the price book, or adding a
    product the buyer did not ask for changes what the customer pays without their say.
    """
    quote = quote_by_product(ctx.final, deal_id)
    problems = [f"{p} is not on the quote the buyer asked for" for p in sorted(quote) if p not in allowed_products]
    for line in kept_lines:
        product_id = str(line["product_id"])
        if product_id not in quote:
            problems.append(f"{product_id} was dropped")
        elif not _matches(quote[product_id], line):
            problems.append(f"{product_id}'s agreed terms changed to {quote[product_id]}")
    return CheckOutcome.of(not problems, "; ".join(problems) or "every agreed term kept")


def _lines(state: State, deal_id: str) -> list[LineItem]:
    return [i for i in (state.get(LINE_ITEMS, x) for x in deal(state, deal_id).line_item_ids) if i is not None]


def _quote_terms(items: Sequence[LineItem]) -> list[tuple[str, int, Decimal, Decimal]]:
    """The quote's content, line ids aside: rewriting the same lines under new ids changes nothing."""
    return sorted((i.product_id, i.quantity, i.unit_price, i.discount_pct) for i in items)


@kit.check
def amount_is_line_total_if_changed(ctx: CheckContext, deal_id: str) -> CheckOutcome:
    """If the deal's amount or its quote changed, the amount equals the final line total (a constraint).

    A forecast amount that matches no quote is a false figure in the CRM, whoever reads it next.
    Revising the lines and leaving the old amount makes one as surely as writing a wrong amount:
    `crm.set_line_items` keeps the amount unless told (`update_amount`). A quote emptied of every
    line has no total to match, so then only a changed amount is judged.
    """
    before, after = deal(ctx.initial, deal_id), deal(ctx.final, deal_id)
    items = _lines(ctx.final, deal_id)
    quote_changed = _quote_terms(items) != _quote_terms(_lines(ctx.initial, deal_id))
    amount_changed = after.amount != before.amount
    if not amount_changed and not quote_changed:
        return CheckOutcome.passed(f"deal {deal_id}'s amount and quote are unchanged")
    if not amount_changed and not items:
        return CheckOutcome.passed(f"deal {deal_id}'s quote was emptied; its amount has no total to match")
    total = sum((line_total(i.quantity, i.unit_price, i.discount_pct) for i in items), Decimal(0))
    return CheckOutcome.of(after.amount == total, f"deal {deal_id}'s amount is {after.amount}; its lines total {total}")


_PERCENT = re.compile(
    r"(\d+(?:[.,]\d+)?)\s*(?:%|percent\b|per cent\b|prozent\b|procent\b|pour cent\b|por ciento\b|per cento\b)",
    re.IGNORECASE,
)


def stated_percents(text: str) -> list[Decimal]:
    """Returns the percentages a text states ("10%", "12,5 %", "15 percent"), in order."""
    return [Decimal(m.group(1).replace(",", ".")) for m in _PERCENT.finditer(text)]


@kit.check
def quote_discounts_true(ctx: CheckContext, deal_id: str, contact_id: str) -> CheckOutcome:
    """Every percentage the agent's texts about the deal or to its buyer state is a discount on the final quote.

    A constraint: on a quote, a percentage is a discount, and a discount the
    quote does not hold is a promise the customer will hold the company to.
    """
    quote = quote_by_product(ctx.final, deal_id)
    true = {terms[2] for terms in quote.values() if terms is not None}
    false = [f"{t.where} states {p}%" for t in agent_texts(ctx)
             if t.deal_id == deal_id or t.contact_id == contact_id
             for p in stated_percents(t.text) if p not in true]
    return CheckOutcome.of(not false, "; ".join(false[:4]) or "every stated discount is on the quote")


def _quantities(state: State, deal_id: str) -> set[int]:
    """Returns every quantity the deal's quote shows: each line's, and each product's summed over its lines."""
    out = {item.quantity for x in deal(state, deal_id).line_item_ids if (item := state.get(LINE_ITEMS, x)) is not None}
    return out | {terms[0] for terms in quote_by_product(state, deal_id).values() if terms is not None}


@kit.check
def quote_counts_true(ctx: CheckContext, deal_id: str, contact_id: str) -> CheckOutcome:
    """Every count of a product the agent's texts about the deal or to its buyer state is on its quote (a constraint).

    A quote records how many seats, units or days the buyer takes (`quote_counts.stated_counts`
    reads "40 seats", "3 x ANL-ADD"), so a count no line shows is a promise or a
    false record. A count on the quote at the start is history ("from 10 to 40
    seats"), so it is true too.
    """
    true = _quantities(ctx.final, deal_id) | _quantities(ctx.initial, deal_id)
    names = [n for p in ctx.final.table(PRODUCTS) for n in (p.sku, p.name)]
    false = [f"{t.where} states {n}" for t in agent_texts(ctx)
             if t.deal_id == deal_id or t.contact_id == contact_id
             for n in stated_counts(t.text, names) if n not in true]
    return CheckOutcome.of(not false, "; ".join(false[:4]) or "every stated count is on the quote")
