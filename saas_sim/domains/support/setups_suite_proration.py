"""Cross-app proration setup at the support desk: a seat contract downgraded mid-term.

* `downgrade_ticket`: a customer who is a CRM contact paid a seat contract up front (one charge) and
  downgraded to fewer seats some whole months into the term. Their ticket states the date the
  downgrade took effect and asks for the difference back, with their own estimate (a per-seat division
  of the contract price that ignores the price tiers: wrong). The refund the pricing code gives
  (`ide.code_downgrade`) is passed in; the contract's seats, term and start are the CRM deal's (the
  charge names only the invoice), so the agent has to read both products and the code.

Staged records get seed-drawn ids and numbers (`skip_ids`).
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import OrderLine
from saas_sim.domains.support.setup_helpers import money, skip_ids, ticket_b
from saas_sim.domains.support.setups_suite_billing import PLAN_SKU, _charge, _dispute, _earlier_invoices, _pick_customer
from saas_sim.domains.support.state import TICKETS
from saas_sim.errors import ScenarioError

__all__ = ["downgrade_ticket", "months_before"]


def months_before(day: date, months: int) -> date:
    """The same day of the month `months` months before `day` (`day` falls on the 1st-28th)."""
    index = day.year * 12 + day.month - 1 - months
    return date(index // 12, index % 12 + 1, day.day)


def _long(day: date) -> str:
    return f"{day.strftime('%B')} {day.day}, {day.year}"


@kit.setup
def downgrade_ticket(ctx: SetupContext) -> Setup:
    """A customer downgraded their seat contract mid-term and asks for the difference back.

    Params:
        old_seats, new_seats, elapsed: The contract's seats before and after, and the whole months of the
            term before the downgrade took effect (from `ide.code_downgrade`).
        paid, refund, guess: The contract's price, the refund the pricing code gives and the customer's
            estimate (dollars).
        invoices: Earlier charges of the customer, which were right (distractors, default 1).

    Bindings: ticket, customer (with crm_contact_id), order (the contract's charge), line, invoice,
    start (the contract's first day, ISO), start_text, downgrade_date (ISO), downgrade_text, refund,
    guess, other_order, other_ticket, refund_reply, refund_reply_alt.
    """
    old, new, elapsed = int(ctx.params["old_seats"]), int(ctx.params["new_seats"]), int(ctx.params["elapsed"])
    paid, refund = Decimal(str(ctx.params["paid"])), Decimal(str(ctx.params["refund"]))
    guess = Decimal(str(ctx.params["guess"]))
    n_inv = int(ctx.params.get("invoices", 1))
    if not 0 < new < old or elapsed < 1 or not 0 < refund < paid or not 0 <= n_inv <= 3:
        raise ScenarioError("downgrade_ticket needs fewer new seats, a month elapsed, a refund under the price "
                            "and 0-3 earlier invoices")
    customer = _pick_customer(ctx)
    skip_ids(ctx, "prd", "ord", "ol")
    effective = (ctx.now - timedelta(days=ctx.rng.randint(2, 9))).date()
    effective = effective.replace(day=min(effective.day, 28))
    start = months_before(effective, elapsed)
    placed = datetime.combine(start, time(9 + ctx.rng.randrange(8)), tzinfo=ctx.now.tzinfo)
    invoice = str(ctx.rng.randrange(20_000, 90_000))
    plan, earlier, events = _earlier_invoices(ctx, customer, invoice, placed, n_inv)
    line = OrderLine(id=ctx.ids.next("ol"), product_id=plan.id, sku=PLAN_SKU, quantity=1, unit_price=paid,
                     total=paid, name=f"Platform subscription contract, paid up front, invoice {invoice}")
    order = _charge(ctx, customer, line, placed, earlier)
    events.append(ev.OrderPlaced(order=order))
    body = (f"Hello,\n\nwe reduced our platform contract from {old} to {new} seats; the change took effect on "
            f"{_long(effective)}. We paid the whole contract up front (charge #{order.number}), so please refund "
            f"the seats we no longer have for the rest of the term. By my own count that is about {money(guess)} "
            "USD: the contract price per seat and month, times the seats we dropped and the months left.")
    staged, common = _dispute(ctx, customer, order, earlier, invoice, refund, guess, body)
    first = customer.first_name
    bindings: dict[str, Any] = {
        **{k: v for k, v in common.items() if k not in ("excess", "excess_less_cent", "refund_back_to_guess")},
        "refund": money(refund), "start": start.isoformat(), "start_text": _long(start),
        "downgrade_date": effective.isoformat(), "downgrade_text": _long(effective),
        "other_ticket": ticket_b(ctx.rng.choice(sorted(
            (t for t in ctx.state.table(TICKETS) if t.status in ("new", "open")), key=lambda t: t.id))),
        "refund_reply": (f"Hi {first},\n\nthank you for writing. Your contract went from {old} to {new} seats on "
                         f"{_long(effective)}. Under our price list the remaining months cost {money(refund)} USD "
                         f"less at {new} seats, so I have refunded {money(refund)} USD on #{order.number} to your "
                         "card.\n\nBest regards"),
        "refund_reply_alt": (f"Hello {first},\n\nI refunded USD {money(refund)} of charge {order.number} today for "
                             "the seats you dropped; your estimate did not take our seat tiers into account.\n\n"
                             "Kind regards"),
    }
    return Setup(bindings=bindings, events=[*events, *staged])
