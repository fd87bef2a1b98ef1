"""Cross-app billing setups at the support desk: a charge the company's code says was too high.

* `late_fee_ticket`: a customer who is a CRM contact disputes a late fee. Finance charged the fee by
  hand (a fee line on its own charge); the billing code's `late_fee` rules (grace days, a rate per
  started 30-day period, a cap), bound by `ide.code_late_fee` and passed here, say what was due.
  Only the excess is refunded. The customer's own figure is wrong too (they guessed).

The fee's charge records the invoice's balance and how many days late it was paid, the facts the
code needs; the customer's ticket rounds them the way people do. Staged records get seed-drawn ids
and numbers (`skip_ids`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import Customer, Order, OrderLine, Product
from saas_sim.domains.support.setup_helpers import (
    ago,
    customer_b,
    line_b,
    money,
    order_b,
    random_mess,
    skip_ids,
    stage,
    ticket_b,
)
from saas_sim.domains.support.state import CUSTOMER_LINKS, CUSTOMERS, ORDERS, TICKETS
from saas_sim.domains.support.ticket_factory import TicketSpec
from saas_sim.errors import ScenarioError

__all__ = ["FEE_SKU", "PLAN_SKU", "late_fee_ticket", "plan_overcharge_ticket"]

FEE_SKU = "FEE-LATE"
PLAN_SKU = "PLT-SUB"


def _linked_customers(ctx: SetupContext) -> list[Customer]:
    """English-writing customers who are the CRM contact of an account (support's own link records), by id."""
    links = ctx.state.table(CUSTOMER_LINKS)
    out = []
    for c in ctx.state.table(CUSTOMERS):
        link = links.get(c.id)
        if c.language == "en" and c.crm_contact_id and link is not None and link.crm_account_id \
                and not link.email_differs:
            out.append(c)
    return out


def _number(ctx: SetupContext, staged: Sequence[Order]) -> str:
    """A fresh order number above every number in the world and every one this setup staged so far."""
    top = max(int(o.number) for o in [*ctx.state.table(ORDERS), *staged])
    return str(top + ctx.rng.randrange(2, 60))


def _pick_customer(ctx: SetupContext) -> Customer:
    pool = _linked_customers(ctx)
    if not pool:
        raise ScenarioError("this world has no support customer who is a CRM contact")
    return pool[ctx.rng.randrange(len(pool))]


def _charge(ctx: SetupContext, customer: Customer, line: OrderLine, at: datetime, staged: Sequence[Order]) -> Order:
    """A settled charge of one line (a service: nothing ships)."""
    return Order(id=ctx.ids.next("ord"), number=_number(ctx, staged), customer_id=customer.id, placed_at=at,
                 currency="USD", lines=(line,), shipping=Decimal("0.00"), total=line.total, status="delivered",
                 carrier="none", delivered_at=at, shipped_at=at)


def _earlier_invoices(ctx: SetupContext, customer: Customer, invoice: str, before: datetime, n: int
                      ) -> tuple[Product, list[Order], list[Any]]:
    """The subscription product and `n` earlier subscription invoices of the customer, paid and right."""
    plan = Product(id=ctx.ids.next("prd"), sku=PLAN_SKU, name="Platform subscription", category="subscriptions",
                   price=Decimal("0.00"), returnable=False)
    events: list[Any] = [ev.ProductCreated(product=plan)]
    earlier: list[Order] = []
    for k in range(n):
        at = before - timedelta(days=31 * (k + 2) + ctx.rng.randrange(10))
        amount = Decimal(ctx.rng.randrange(15_000, 400_000)) / 100
        name = f"Platform subscription, invoice {int(invoice) - 7 * (k + 1)} (paid on time)"
        line = OrderLine(id=ctx.ids.next("ol"), product_id=plan.id, sku=PLAN_SKU, quantity=1, unit_price=amount,
                         total=amount, name=name)
        earlier.append(_charge(ctx, customer, line, at, earlier))
        events.append(ev.OrderPlaced(order=earlier[-1]))
    return plan, earlier, events


def _other_charge(ctx: SetupContext, customer: Customer, earlier: list[Order], order: Order) -> dict[str, str]:
    others = sorted((o for o in ctx.state.table(ORDERS) if o.customer_id == customer.id), key=lambda o: o.id)
    other = earlier[0] if earlier else (others[0] if others else order)
    return {"id": other.id, "line_id": other.lines[0].id, "number": other.number}


def _dispute(ctx: SetupContext, customer: Customer, order: Order, earlier: list[Order], invoice: str,
             excess: Decimal, guess: Decimal, body: str) -> tuple[list[Any], dict[str, Any]]:
    """Stages the customer's ticket about the charge `order` (one line, partly overcharged) and returns its
    events and the bindings both disputes share: ticket, customer, order, line, invoice, charged, excess,
    guess, refund_back_to_guess, excess_less_cent, other_order."""
    (line,) = order.lines
    charged = line.total
    ticket, staged = stage(ctx, TicketSpec(
        customer=customer, requester=customer, issue="billing_question", resolution="refund",
        created_at=ago(ctx, 10, 240), priority="normal", group="billing", order=order, line=line,
        amount=excess, product_name=line.name, body_core=body, mess=random_mess(ctx.rng, vague_subject=True)))
    return staged, {
        "ticket": ticket_b(ticket),
        "customer": {**customer_b(customer), "crm_contact_id": customer.crm_contact_id},
        "order": order_b(order),
        "line": line_b(line),
        "invoice": invoice,
        "charged": money(charged), "excess": money(excess), "guess": money(guess),
        "refund_back_to_guess": money(charged - guess),
        "excess_less_cent": money(excess - Decimal("0.01")),
        "other_order": _other_charge(ctx, customer, earlier, order),
    }


@kit.setup
def late_fee_ticket(ctx: SetupContext) -> Setup:
    """A customer disputes a late fee that was charged by hand; only the excess over the code's fee is due.

    Params:
        balance, days_late, fee: The overdue invoice's balance (dollars), the days it was paid late and
            the fee the code's rules allow (dollars), from `ide.code_late_fee`.
        charged: The fee finance charged (dollars, above `fee`).
        invoices: Earlier invoices of the customer paid on time, each a charge of its own (distractors,
            default 1).

    Bindings: ticket, customer (with crm_contact_id), order (the fee's charge), line (its fee line),
    invoice (the overdue invoice's number), charged, fee, excess, guess (the customer's wrong figure),
    other_order (an earlier invoice, else another order of the customer's), refund_reply,
    refund_reply_alt, other_ticket.
    """
    balance, fee, charged = Decimal(str(ctx.params["balance"])), Decimal(str(ctx.params["fee"])), \
        Decimal(str(ctx.params["charged"]))
    days = int(ctx.params["days_late"])
    n_inv = int(ctx.params.get("invoices", 1))
    if charged <= fee or not 0 <= n_inv <= 3:
        raise ScenarioError("late_fee_ticket needs a charge above the fee and 0-3 earlier invoices")
    customer = _pick_customer(ctx)
    skip_ids(ctx, "prd", "ord", "ol")
    product = Product(id=ctx.ids.next("prd"), sku=FEE_SKU, name="Late payment fee", category="fees",
                      price=Decimal("0.00"), returnable=False)
    events: list[Any] = [ev.ProductCreated(product=product)]
    charged_at = ctx.now - timedelta(days=ctx.rng.randint(2, 9), hours=ctx.rng.randrange(24))
    invoice = str(ctx.rng.randrange(20_000, 90_000))
    _, earlier, more = _earlier_invoices(ctx, customer, invoice, charged_at, n_inv)
    events += more
    fee_line = OrderLine(id=ctx.ids.next("ol"), product_id=product.id, sku=FEE_SKU, name=(
        f"Late payment fee, invoice {invoice}: balance {money(balance)} USD paid {days} days after the due date"),
        quantity=1, unit_price=charged, total=charged)
    order = _charge(ctx, customer, fee_line, charged_at, earlier)
    events.append(ev.OrderPlaced(order=order))
    excess = charged - fee
    guess = (fee / 2).quantize(Decimal("0.01")) if ctx.rng.random() < 0.5 else Decimal("0.00")
    weeks = max(1, round(days / 7))
    body = (f"Hello,\n\nyou charged me a late fee of {money(charged)} USD (charge #{order.number}) for invoice "
            f"{invoice}. I paid it roughly {weeks} weeks late, that is true, but that fee is far too high. By my "
            f"own count it should be {money(guess)} USD at most, so please refund the difference.")
    staged, common = _dispute(ctx, customer, order, earlier, invoice, excess, guess, body)
    first = customer.first_name
    return Setup(bindings={
        **common, "fee": money(fee),
        "refund_reply": (f"Hi {first},\n\nthank you for writing. Under our billing rules the late fee on invoice "
                         f"{invoice} ({money(balance)} USD paid {days} days late) comes to {money(fee)} USD, so "
                         f"the {money(charged)} USD we charged on #{order.number} was too high. I have refunded the "
                         f"difference of {money(excess)} USD to your card.\n\nBest regards"),
        "refund_reply_alt": (f"Hello {first},\n\nyou are right that the fee was wrong. The correct late fee is "
                             f"USD {money(fee)}.\n\nI refunded USD {money(excess)} of charge {order.number} today, "
                             "which should reach your card within a week.\n\nKind regards"),
        "other_ticket": ticket_b(ctx.rng.choice(sorted(
            (t for t in ctx.state.table(TICKETS) if t.status in ("new", "open") and t.id != common["ticket"]["id"]),
            key=lambda t: t.id))),
    }, events=[*events, *staged])


@kit.setup
def plan_overcharge_ticket(ctx: SetupContext) -> Setup:
    """A customer reports a wrong charge for a seat plan; the pricing code had a bug and charged too much.

    Params:
        seats, months: The plan bought.
        charged, correct: What the buggy code charged and what the documented rules give (dollars), from
            `ide.overcharging_bug`.
        invoices: Earlier invoices of the customer, which were right (distractors, default 1).

    Bindings: ticket, customer (with crm_contact_id), order (the plan's charge), line, invoice, charged,
    correct, excess, guess (the customer's own figure: wrong), refund_back_to_guess, excess_less_cent,
    other_order, refund_reply, refund_reply_alt.
    """
    seats, months = int(ctx.params["seats"]), int(ctx.params["months"])
    charged, correct = Decimal(str(ctx.params["charged"])), Decimal(str(ctx.params["correct"]))
    n_inv = int(ctx.params.get("invoices", 1))
    if charged <= correct or not 0 <= n_inv <= 3:
        raise ScenarioError("plan_overcharge_ticket needs a charge above the correct price and 0-3 earlier invoices")
    customer = _pick_customer(ctx)
    skip_ids(ctx, "prd", "ord", "ol")
    charged_at = ctx.now - timedelta(days=ctx.rng.randint(2, 9), hours=ctx.rng.randrange(24))
    invoice = str(ctx.rng.randrange(20_000, 90_000))
    plan, earlier, events = _earlier_invoices(ctx, customer, invoice, charged_at, n_inv)
    line = OrderLine(id=ctx.ids.next("ol"), product_id=plan.id, sku=PLAN_SKU, quantity=1, unit_price=charged,
                     total=charged, name=f"Platform subscription, {seats} seats for {months} months, invoice {invoice}")
    order = _charge(ctx, customer, line, charged_at, earlier)
    events.append(ev.OrderPlaced(order=order))
    excess = charged - correct
    # The customer's figure is a guess, never the true price; refunding down to it stays within an agent's
    # refund limit, so taking the guess is a wrong refund the desk makes, not one it refuses.
    if excess <= 160:
        guess = correct - Decimal(ctx.rng.randint(3, 40))
    else:
        guess = correct + (excess / 2).quantize(Decimal("1"))
    body = (f"Hello,\n\nwe were charged {money(charged)} USD (charge #{order.number}) for our {seats}-seat plan, "
            f"{months} months. That is more than your price list says: by my count it should be about "
            f"{money(guess)} USD. Please check the invoice and refund what we were overcharged.")
    staged, common = _dispute(ctx, customer, order, earlier, invoice, excess, guess, body)
    first = customer.first_name
    return Setup(bindings={
        **common, "correct": money(correct),
        "refund_reply": (f"Hi {first},\n\nthank you for reporting this. A bug in our pricing charged your "
                         f"{seats}-seat plan for {months} months {money(charged)} USD on #{order.number}; the "
                         f"correct price is {money(correct)} USD. The bug is fixed, and I have refunded the "
                         f"difference of {money(excess)} USD to your card.\n\nBest regards"),
        "refund_reply_alt": (f"Hello {first},\n\nyou were right: we overcharged you. The right price for your "
                             f"plan is USD {money(correct)}.\n\nUSD {money(excess)} of charge {order.number} went "
                             "back to your card today.\n\nKind regards"),
    }, events=[*events, *staged])
