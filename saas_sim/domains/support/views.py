"""What tools return: agent-facing views of the support desk's public records.

Views never include ground truth. Money is a `Decimal` (a string in JSON) and
times are UTC instants on the simulated clock.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any, Self

from saas_sim.core.state import Entity, State
from saas_sim.core.tools import ToolResult
from saas_sim.domains.support.models import Order, Ticket
from saas_sim.domains.support.state import PRODUCTS, line_refunded, sla_state

__all__ = [
    "AgentList",
    "AgentView",
    "CustomerList",
    "CustomerView",
    "EscalationView",
    "KbArticleView",
    "KbHit",
    "KbPage",
    "MacroList",
    "MacroView",
    "MergeResult",
    "MessageView",
    "OrderLineView",
    "OrderPage",
    "OrderView",
    "RecordView",
    "ReplyResult",
    "TicketDetail",
    "TicketPage",
    "TicketSummary",
    "TicketUpdate",
]


class RecordView(ToolResult):
    """A view of one record: each of its fields is the record's field of the same name."""

    @classmethod
    def of(cls, record: Entity, **extra: Any) -> Self:
        """Builds the view of `record`; `extra` sets the fields the record does not have."""
        return cls.model_validate({**record.model_dump(include=set(cls.model_fields)), **extra})


class MessageView(RecordView):
    """One message of a ticket thread."""

    author_kind: str
    author_name: str
    body: str
    public: bool
    id: str
    created_at: datetime


class TicketSummary(ToolResult):
    """A ticket as it appears in lists."""

    id: str
    subject: str
    status: str
    priority: str
    group: str
    assignee_id: str | None
    requester_id: str
    requester_email: str
    language: str
    channel: str
    tags: list[str]
    created_at: datetime
    updated_at: datetime
    sla_state: str
    next_sla_due: datetime | None
    merged_into: str | None

    @classmethod
    def of(cls, t: Ticket, now: datetime) -> TicketSummary:
        """Builds the summary of a ticket at sim time `now`."""
        due: datetime | None = None
        if t.status not in ("solved", "closed"):
            due = t.first_response_due if t.first_responded_at is None else t.resolution_due
        return cls(
            id=t.id, subject=t.subject, status=t.status, priority=t.priority, group=t.group,
            assignee_id=t.assignee_id, requester_id=t.requester_id, requester_email=t.requester_email,
            language=t.language, channel=t.channel, tags=list(t.tags), created_at=t.created_at,
            updated_at=t.updated_at, sla_state=sla_state(t, now), next_sla_due=due, merged_into=t.merged_into,
        )


class TicketPage(ToolResult):
    """One page of tickets; pass `next_cursor` back to get the next page (null at the end)."""

    tickets: list[TicketSummary]
    total: int
    next_cursor: str | None


class TicketDetail(ToolResult):
    """A ticket with its SLA times and its whole thread (public replies and internal notes)."""

    ticket: TicketSummary
    first_response_due: datetime
    resolution_due: datetime
    first_responded_at: datetime | None
    solved_at: datetime | None
    satisfaction: str
    merged_from: list[str]
    messages: list[MessageView]


class ReplyResult(ToolResult):
    """The customer's immediate answer (if any), the posted message and the ticket afterwards."""

    customer_response: MessageView | None
    message: MessageView
    ticket: TicketSummary


class TicketUpdate(ToolResult):
    """The customer's immediate answer (if any) and the ticket after a change."""

    customer_response: MessageView | None = None
    ticket: TicketSummary


class MergeResult(ToolResult):
    """The surviving ticket and the tickets merged (and closed) into it."""

    target: TicketSummary
    merged: list[str]


class MacroView(RecordView):
    """A macro: its reply text and the actions it applies."""

    id: str
    title: str
    body: str
    set_status: str | None
    set_priority: str | None
    add_tags: list[str]


class MacroList(ToolResult):
    """All macros, by id."""

    macros: list[MacroView]


class AgentView(RecordView):
    """A support agent with its current load."""

    id: str
    name: str
    email: str
    groups: list[str]
    role: str
    active_tickets: int


class AgentList(ToolResult):
    """Agents, by id."""

    agents: list[AgentView]


class KbHit(ToolResult):
    """A search hit: an article's id, title and the start of its text."""

    id: str
    title: str
    category: str
    tags: list[str]
    snippet: str


class KbPage(ToolResult):
    """One page of KB search hits, best match first."""

    articles: list[KbHit]
    next_cursor: str | None


class KbArticleView(RecordView):
    """A whole help-centre article."""

    id: str
    title: str
    body: str
    category: str
    tags: list[str]
    product_id: str | None
    updated_at: datetime


class CustomerView(RecordView):
    """A customer record with counts of its orders and open tickets."""

    id: str
    name: str
    email: str
    phone: str
    language: str
    country: str
    tier: str
    store_credit: Decimal
    crm_contact_id: str | None
    created_at: datetime
    order_count: int
    open_ticket_count: int


class CustomerList(ToolResult):
    """Matching customers, by id."""

    customers: list[CustomerView]


class OrderLineView(ToolResult):
    """An order line with what was refunded on it so far."""

    id: str
    product_id: str
    sku: str
    name: str
    quantity: int
    unit_price: Decimal
    total: Decimal
    refunded: Decimal
    final_sale: bool


class OrderView(ToolResult):
    """An order with lines, shipment and refunds. `refundable` is what can still be refunded."""

    id: str
    number: str
    customer_id: str
    placed_at: datetime
    currency: str
    status: str
    carrier: str
    tracking_number: str | None
    shipped_at: datetime | None
    delivered_at: datetime | None
    lines: list[OrderLineView]
    shipping: Decimal
    total: Decimal
    refunded_total: Decimal
    refundable: Decimal

    @classmethod
    def of(cls, o: Order, state: State) -> OrderView:
        """Builds the view of an order."""
        products = state.table(PRODUCTS)
        lines = []
        for ln in o.lines:
            product = products.get(ln.product_id)
            lines.append(OrderLineView(
                id=ln.id, product_id=ln.product_id, sku=ln.sku, name=ln.name, quantity=ln.quantity,
                unit_price=ln.unit_price, total=ln.total, refunded=line_refunded(state, o.id, ln.id),
                final_sale=product is not None and not product.returnable,
            ))
        return cls(
            id=o.id, number=o.number, customer_id=o.customer_id, placed_at=o.placed_at, currency=o.currency,
            status=o.status, carrier=o.carrier, tracking_number=o.tracking_number, shipped_at=o.shipped_at,
            delivered_at=o.delivered_at, lines=lines, shipping=o.shipping, total=o.total,
            refunded_total=o.refunded_total, refundable=o.total - o.refunded_total,
        )


class OrderPage(ToolResult):
    """One page of a customer's orders, newest first."""

    orders: list[OrderView]
    next_cursor: str | None


class EscalationView(RecordView):
    """An escalation, and the ticket afterwards."""

    id: str
    ticket_id: str
    team: str
    reason: str
    created_at: datetime
    ticket: TicketSummary
