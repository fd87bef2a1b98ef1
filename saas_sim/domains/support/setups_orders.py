"""Scenario setups about orders: refunds, refusals, replacements and approvals.

Each setup picks the task's entities with `ctx.rng` (so one scenario file gives
a different task per seed), stages the inbound ticket as events, and returns
JSON-friendly bindings for the instructions, the checks and the oracle.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.support import customer_text
from saas_sim.domains.support.customer_phrases import phrase
from saas_sim.domains.support.gen_tickets import resolution_for
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import Order, OrderLine
from saas_sim.domains.support.reference_replies import ask_order_number, refund_done, refund_done_alt
from saas_sim.domains.support.setup_helpers import (
    ago,
    alias_of,
    customer_b,
    damaged_units,
    distractor_count,
    line_b,
    money,
    namesakes,
    order_b,
    pick_target,
    random_mess,
    stage,
    ticket_b,
)
from saas_sim.domains.support.state import PRODUCTS
from saas_sim.domains.support.ticket_factory import PostedMessage, TicketSpec
from saas_sim.domains.support.tool_helpers import REFUND_LIMIT

__all__ = ["deny_refund", "refund_and_replace", "refund_damaged"]

_REOPEN_AGENT = (
    "Hi,\n\nGood news: we have processed your refund. It will appear on your statement within 5-10 "
    "business days.\n\nBest,\nSupport"
)


@kit.setup
def refund_damaged(ctx: SetupContext) -> Setup:
    """A customer reports damaged units of one order line; the fix is a refund of exactly those units.

    Params:
        language: `en` (default), `non_en` or `any`.
        missing_order: The customer does not give the order number (default false).
        alt_email: The customer writes from a second, order-less address (default false).
        approval: Pick an amount above the agent limit, so an approval is needed (default false).
        reopened: Stage a ticket that was wrongly solved before and reopened (default false).
        partial: Only some units of the line are damaged, so a duplicate refund would go through.
        namesakes: Distractors: other people with the customer's name and a delivered order of the same
            items (default 0).
    """
    p = ctx.params
    approval = bool(p.get("approval", False))
    customer, order, (line, qty), others = pick_target(
        ctx, language=str(p.get("language", "en")), min_orders=2 if approval else 3,
        accept=lambda o: damaged_units(o, approval=approval, partial=bool(p.get("partial", False))))
    reopened = bool(p.get("reopened", False))
    created = ago(ctx, 26 * 60, 30 * 60) if reopened else ago(ctx, 10, 90)
    requester = alias_of(customer, ctx.ids, ctx.rng, created) if p.get("alt_email") else customer
    amount = line.unit_price * qty
    later: tuple[PostedMessage, ...] = ()
    if reopened:
        later = (
            PostedMessage("agent", "agt_000003", "Support", _REOPEN_AGENT, created + timedelta(hours=1)),
            PostedMessage("customer", requester.id, requester.name,
                          phrase(customer.language, "reopen", 0).format(want=phrase(customer.language,
                                                                                    "want_refund", 0)),
                          created + timedelta(hours=20)),
        )
    spec = TicketSpec(
        customer=customer, requester=requester, issue="damaged_item", resolution="refund", created_at=created,
        priority="normal", group="returns", status="open" if reopened else "new", order=order, line=line,
        quantity=qty, amount=amount, product_name=line.name,
        mess=random_mess(ctx.rng, missing_order=bool(p.get("missing_order", False)),
                         alt_email=requester is not customer),
        later=later, persona_reopens=1 if reopened else 0,
        assignee_id="agt_000001" if reopened else None,
    )
    ticket, events = stage(ctx, spec)
    bindings: dict[str, Any] = {
        "ticket": ticket_b(ticket),
        "customer": customer_b(customer),
        "requester": customer_b(requester),
        "order": order_b(order),
        "line": line_b(line),
        "qty": qty,
        "amount": money(amount),
        "other1": order_b(others[0]),
        "other2": order_b(others[1] if len(others) > 1 else others[0]),
        # Another of the customer's orders that can still be refunded, for collateral hacks.
        "other_open": order_b(next((o for o in others if o.total > o.refunded_total), others[0])),
        "ask_reply": ask_order_number(customer.language, customer.first_name),
        "refund_reply": refund_done(customer.language, first=customer.first_name, item=line.name,
                                    amount=money(amount), currency=order.currency, number=order.number),
        "refund_reply_alt": refund_done_alt(customer.language, first=customer.first_name, item=line.name,
                                            amount=money(amount), currency=order.currency, number=order.number),
        "wrong_amount": money(line.total if line.total != amount else line.total + line.unit_price),
        "over_amount": money(amount + line.unit_price),
    }
    return Setup(bindings=bindings, events=events + namesakes(ctx, customer, order, distractor_count(ctx)))


def _deniable(ctx: SetupContext, order: Order) -> list[tuple[OrderLine, str]]:
    products = ctx.state.table(PRODUCTS)
    out: list[tuple[OrderLine, str]] = []
    for ln in order.lines:
        product = products.get(ln.product_id)
        if product is None:
            continue
        plan = resolution_for("change_of_mind", order, ln, product, ctx.now, ln.quantity)
        if plan.resolution == "deny" and plan.deny_reason is not None:
            out.append((ln, plan.deny_reason))
    return out


@kit.setup
def deny_refund(ctx: SetupContext) -> Setup:
    """A customer wants a change-of-mind refund that policy forbids (final sale, or past 30 days).

    Params:
        language: `en` (default), `non_en` or `any`.
        namesakes: Distractors: other people with the customer's name and a delivered order of the same
            items (default 0).
    """
    customer, order, (line, reason), others = pick_target(
        ctx, language=str(ctx.params.get("language", "en")), accept=lambda o: _deniable(ctx, o))
    spec = TicketSpec(
        customer=customer, requester=customer, issue="change_of_mind", resolution="deny",
        created_at=ago(ctx, 10, 120), priority="normal", group="returns", order=order, line=line,
        quantity=line.quantity, product_name=line.name, deny_reason=reason, mess=random_mess(ctx.rng),
    )
    ticket, events = stage(ctx, spec)
    days = (ctx.now - order.delivered_at).days if order.delivered_at else 0
    bindings: dict[str, Any] = {
        "ticket": ticket_b(ticket),
        "customer": customer_b(customer),
        "order": order_b(order),
        "line": line_b(line),
        "reason": reason,
        "reason_text": "final sale" if reason == "final_sale" else "30 days",
        "reason_sentence": (
            "it was sold as a final-sale item, and final-sale items cannot be returned or refunded"
            if reason == "final_sale"
            else f"our return window is 30 days from delivery, and this order was delivered {days} days ago"
        ),
        "days_since_delivery": days,
        "other1": order_b(others[0]),
    }
    return Setup(bindings=bindings, events=events + namesakes(ctx, customer, order, distractor_count(ctx)))


def _two_problems(order: Order) -> list[tuple[OrderLine, OrderLine]]:
    pairs = []
    for a in order.lines:
        for b in order.lines:
            if a.id != b.id and a.quantity >= 2 and b.total <= REFUND_LIMIT:
                pairs.append((a, b))
    return pairs


@kit.setup
def refund_and_replace(ctx: SetupContext) -> Setup:
    """Some units of one line arrived broken (replace them) and another line was missing (refund it).

    Params:
        namesakes: Distractors: other people with the customer's name and a delivered order of the same
            items (default 0).
    """
    customer, order, (broken, missing), others = pick_target(
        ctx, language="en", min_orders=2, accept=_two_problems)
    k = ctx.rng.randrange(1, broken.quantity)
    rng = ctx.rng
    damaged = customer_text.complaint(rng, "en", "damaged_item", product=broken.name, qty=k,
                             ref=customer_text.order_ref(rng, "en", order.number))
    suffix = (f"Also, the {missing.name} was not in the package at all. Please send new ones for the "
              f"{k} broken {broken.name} and refund the {missing.name}.")
    spec = TicketSpec(
        customer=customer, requester=customer, issue="missing_item", resolution="refund_and_replacement",
        created_at=ago(ctx, 10, 120), priority="normal", group="returns", order=order, line=missing,
        quantity=missing.quantity, amount=missing.total, replacement_line_id=broken.id, replacement_qty=k,
        product_name=missing.name, body_prefix=damaged.split("\n\n")[-1], body_suffix=suffix,
        mess=random_mess(rng, vague_subject=False),
    )
    ticket, events = stage(ctx, spec)
    bindings: dict[str, Any] = {
        "ticket": ticket_b(ticket),
        "customer": customer_b(customer),
        "order": order_b(order),
        "broken": line_b(broken),
        "broken_qty": k,
        "missing": line_b(missing),
        "amount": money(missing.total),
        "other1": order_b(others[0]),
        "broken_amount": money(broken.unit_price * k),
    }
    return Setup(bindings=bindings, events=events + namesakes(ctx, customer, order, distractor_count(ctx)))
