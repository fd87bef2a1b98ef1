"""Money tools: refunds, replacements, store credit and approvals, with the desk's policy limits.

Order of checks in every tool: arguments (`invalid_argument`), existence
(`not_found`), state (`conflict`), then policy (`permission_denied`). A refund
can never exceed what was paid (`invalid_argument`); above the agent limit it
needs an approved, unused approval for the same order (`permission_denied`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import Field

from saas_sim.core.events import Event
from saas_sim.core.money import Money
from saas_sim.core.tool_errors import bad_args, conflict, denied, not_found, require
from saas_sim.core.tools import WRITE, ToolArgs, ToolContext
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import Approval, Order, Refund, Replacement, StoreCredit
from saas_sim.domains.support.state import AGENTS, APPROVALS, CUSTOMERS, REPLACEMENTS, TICKETS, line_refunded
from saas_sim.domains.support.tool_helpers import APPROVAL_MAX, CREDIT_LIMIT, REFUND_LIMIT, check_cents
from saas_sim.domains.support.tools_customers import find_order
from saas_sim.domains.support.views_money import ApprovalView, RefundView, ReplacementView, StoreCreditView

__all__ = ["create_replacement", "issue_refund", "issue_store_credit", "refundable", "request_approval"]

RefundReason = Literal[
    "damaged", "defective", "wrong_item", "missing_item", "not_delivered", "return", "goodwill", "other"
]


def refundable(ctx: ToolContext, order: Order, line_id: str | None) -> Decimal:
    """Returns what can still be refunded on an order, or on one of its lines."""
    remaining = order.total - order.refunded_total
    if line_id is None:
        return remaining
    line = order.line(line_id)
    if line is None:
        raise not_found("order line", line_id, "line_id", order_id=order.id)
    return min(remaining, line.total - line_refunded(ctx.state, order.id, line_id))


_AGENT_LIMITS: dict[str, tuple[Decimal, str]] = {
    "refund": (REFUND_LIMIT, f"refunds above {REFUND_LIMIT} need an approved approval; call "
               "support.request_approval first"),
    "store_credit": (CREDIT_LIMIT, f"store credit above {CREDIT_LIMIT} needs an approved approval"),
}
"""Per kind of payout: what an agent may pay without an approval, and the refusal above it."""


def _authorize(ctx: ToolContext, approval_id: str | None, kind: str, amount: Decimal, *, order_id: str | None,
               customer_id: str | None) -> Approval | None:
    """Returns the approval that covers `amount`, or None when it is within the agent's own limit."""
    if approval_id is None:
        limit, refusal = _AGENT_LIMITS[kind]
        if amount > limit:
            raise denied(refusal, ["amount"], limit=str(limit))
        return None
    appr = require(ctx, APPROVALS, approval_id, "approval", "approval_id")
    if appr.used_by is not None:
        raise conflict(f"approval {appr.id} was already used by {appr.used_by}", ["approval_id"])
    if appr.status != "approved":
        raise denied(f"approval {appr.id} was denied: {appr.decision_note}", ["approval_id"])
    if appr.kind != kind or (order_id and appr.order_id != order_id) or (
            customer_id and appr.customer_id != customer_id):
        raise denied(f"approval {appr.id} is for a different {kind} target", ["approval_id"])
    if amount > appr.amount:
        raise denied(f"approval {appr.id} covers at most {appr.amount}", ["amount"],
                     approved_amount=str(appr.amount))
    return appr


def _emit_payout(ctx: ToolContext, event: Event, approval: Approval | None, payout_id: str) -> None:
    """Emits a refund or credit and, if an approval covered it, marks the approval used."""
    ctx.emit(event)
    if approval is not None:
        ctx.emit(ev.ApprovalUsed(approval_id=approval.id, used_by=payout_id))


def _ticket_ref(ctx: ToolContext, ticket_id: str | None) -> None:
    if ticket_id is not None:
        require(ctx, TICKETS, ticket_id, "ticket", "ticket_id")


class IssueRefundArgs(ToolArgs):
    order_id: str = Field(description="The order's id (ord_...) or its number (100482).")
    line_id: str | None = Field(default=None, description=(
        "The order line to refund (ol_...). Null refunds at order level (for example a lost parcel)."))
    amount: Money | None = Field(default=None, gt=0, description=(
        "Amount in the order's currency, at most two decimals. Null refunds everything still refundable on "
        "the line (or order)."))
    reason: RefundReason = Field(description="Why the money is returned.")
    ticket_id: str | None = Field(default=None, description="The ticket this refund resolves.")
    approval_id: str | None = Field(default=None, description=(
        "An approved approval (support.request_approval); required above the 200.00 agent limit."))


@kit.tool(WRITE)
def issue_refund(ctx: ToolContext, args: IssueRefundArgs) -> RefundView:
    """Refunds money on an order or one order line to the original payment method.

    Never more than is still refundable (`invalid_argument`). Above 200.00 per refund you need an
    approval id from support.request_approval for this order (`permission_denied` otherwise).
    Each call creates a new refund, so do not repeat a refund that succeeded.
    """
    amount = check_cents(args.amount) if args.amount is not None else None
    order = find_order(ctx, args.order_id)
    _ticket_ref(ctx, args.ticket_id)
    cap = refundable(ctx, order, args.line_id)
    if amount is None:
        amount = cap
    if cap <= 0 or amount > cap:
        raise bad_args(f"at most {cap} {order.currency} can still be refunded here; {amount} asked", ["amount"],
                       refundable=str(cap))
    approval = _authorize(ctx, args.approval_id, "refund", amount, order_id=order.id, customer_id=None)
    refund = Refund(id=ctx.ids.next("rf"), order_id=order.id, line_id=args.line_id, amount=amount,
                    currency=order.currency, reason=args.reason, ticket_id=args.ticket_id,
                    approval_id=approval.id if approval else None, created_at=ctx.now)
    _emit_payout(ctx, ev.RefundIssued(refund=refund), approval, refund.id)
    return RefundView.of(refund)


class CreateReplacementArgs(ToolArgs):
    order_id: str = Field(description="The order's id (ord_...) or its number.")
    line_id: str = Field(description="The order line to re-ship (ol_...).")
    quantity: int = Field(ge=1, le=100, description="How many units to send again.")
    reason: Literal["damaged", "defective", "wrong_item", "missing_item", "other"] = Field(
        description="Why the units are replaced.")
    ticket_id: str | None = Field(default=None, description="The ticket this replacement resolves.")


@kit.tool(WRITE)
def create_replacement(ctx: ToolContext, args: CreateReplacementArgs) -> ReplacementView:
    """Ships replacement units of a delivered order line at no cost.

    At most the ordered quantity minus units already replaced (`invalid_argument`). Units that were
    already refunded cannot also be replaced (`permission_denied`). The order must be delivered (`conflict`).
    """
    order = find_order(ctx, args.order_id)
    _ticket_ref(ctx, args.ticket_id)
    line = order.line(args.line_id)
    if line is None:
        raise not_found("order line", args.line_id, "line_id", order_id=order.id)
    done = sum(r.quantity for r in ctx.table(REPLACEMENTS) if r.order_id == order.id and r.line_id == line.id)
    if args.quantity > line.quantity - done:
        raise bad_args(f"line {line.id} has {line.quantity} units and {done} were already replaced", ["quantity"],
                       replaceable=line.quantity - done)
    if order.status != "delivered":
        raise conflict(f"order {order.id} is {order.status}; only delivered orders get replacements", ["order_id"])
    refunded_units = line_refunded(ctx.state, order.id, line.id) / line.unit_price
    if refunded_units + done + args.quantity > line.quantity:
        raise denied(f"{refunded_units:.0f} unit(s) of line {line.id} were refunded; "
                     "refunded units cannot also be replaced", ["quantity"])
    rpl = Replacement(id=ctx.ids.next("rpl"), order_id=order.id, line_id=line.id, product_id=line.product_id,
                      quantity=args.quantity, reason=args.reason, ticket_id=args.ticket_id, created_at=ctx.now)
    ctx.emit(ev.ReplacementCreated(replacement=rpl))
    return ReplacementView.of(rpl)


class IssueCreditArgs(ToolArgs):
    customer_id: str = Field(description="The customer to credit.")
    amount: Money = Field(gt=0, le=1000, description="Credit amount, at most two decimals.")
    reason: str = Field(min_length=3, max_length=500, description="Why the credit is given.")
    ticket_id: str | None = Field(default=None, description="The ticket this credit relates to.")
    approval_id: str | None = Field(default=None, description="An approved approval; required above 50.00.")


@kit.tool(WRITE)
def issue_store_credit(ctx: ToolContext, args: IssueCreditArgs) -> StoreCreditView:
    """Adds store credit to a customer's balance. Above 50.00 it needs an approval (`permission_denied`)."""
    amount = check_cents(args.amount)
    customer = require(ctx, CUSTOMERS, args.customer_id, "customer", "customer_id")
    _ticket_ref(ctx, args.ticket_id)
    approval = _authorize(ctx, args.approval_id, "store_credit", amount, order_id=None, customer_id=customer.id)
    currency = "USD" if customer.language == "en" else "EUR"
    credit = StoreCredit(id=ctx.ids.next("sc"), customer_id=customer.id, amount=amount, currency=currency,
                         reason=args.reason, ticket_id=args.ticket_id,
                         approval_id=approval.id if approval else None, created_at=ctx.now)
    _emit_payout(ctx, ev.StoreCreditIssued(credit=credit), approval, credit.id)
    return StoreCreditView.of(credit)


class RequestApprovalArgs(ToolArgs):
    kind: Literal["refund", "store_credit"] = Field(description="What needs approval.")
    amount: Money = Field(gt=0, description="The amount to approve, at most two decimals.")
    reason: str = Field(min_length=10, max_length=1_000, description="Why, for the team lead (10+ characters).")
    order_id: str | None = Field(default=None, description="For a refund: the order's id or number.")
    customer_id: str | None = Field(default=None, description="For store credit: the customer's id.")
    ticket_id: str | None = Field(default=None, description="The ticket the request is about.")


@kit.tool(WRITE, cost_s=60)
def request_approval(ctx: ToolContext, args: RequestApprovalArgs) -> ApprovalView:
    """Asks a team lead to approve a refund above 200.00 or store credit above 50.00; decided at once.

    Leads approve up to 1000.00 when the amount is still refundable on the order; otherwise they deny.
    Use the returned id as `approval_id` on the refund or credit (one use only).
    """
    amount = check_cents(args.amount)
    _ticket_ref(ctx, args.ticket_id)
    order: Order | None = None
    if args.kind == "refund":
        if args.order_id is None:
            raise bad_args("a refund approval needs the order_id", ["order_id"])
        order = find_order(ctx, args.order_id)
        customer_id, currency, limit = order.customer_id, order.currency, REFUND_LIMIT
    else:
        if args.customer_id is None:
            raise bad_args("a store-credit approval needs the customer_id", ["customer_id"])
        customer = require(ctx, CUSTOMERS, args.customer_id, "customer", "customer_id")
        customer_id, currency, limit = customer.id, "USD" if customer.language == "en" else "EUR", CREDIT_LIMIT
    if amount <= limit:
        raise bad_args(f"{amount} is within your own limit of {limit}; no approval is needed", ["amount"])
    lead = next((a for a in ctx.table(AGENTS) if a.role == "lead"), None)
    status: Literal["approved", "denied"] = "approved"
    note = "Approved."
    if amount > APPROVAL_MAX:
        status, note = "denied", f"Leads approve at most {APPROVAL_MAX}."
    elif order is not None and amount > order.total - order.refunded_total:
        status, note = "denied", "That is more than is still refundable on the order."
    appr = Approval(id=ctx.ids.next("apr"), kind=args.kind, order_id=order.id if order else None,
                    customer_id=customer_id, amount=amount, currency=currency, reason=args.reason,
                    ticket_id=args.ticket_id, status=status, decided_by=lead.id if lead else "lead",
                    decision_note=note, requested_at=ctx.now)
    ctx.emit(ev.ApprovalRequested(approval=appr))
    return ApprovalView.of(appr)
