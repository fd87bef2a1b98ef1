"""The support desk's tables, pure reducers and state schema.

Public tables are named `support.<table>`; ground truth lives in
`hidden.support.<table>`, which `ToolContext.table` refuses to tools. Checks read
everything. The customer simulator runs inside tool handlers and is the one
sanctioned reader of hidden tables from a tool code path: it reads them through
`ToolContext.state` directly (see `simulator.py`). No agent-facing result ever
includes a hidden record.

Reducers are pure: each takes a state and an event and returns a new state.
They trust the event (tools validate before emitting), but a reducer for an
entity that does not exist raises `StateError`, so a bad event is loud.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, TypeVar

from saas_sim.core.reducers import require, stores, stores_all
from saas_sim.core.snapshots import StateSchema
from saas_sim.core.state import Entity, Projection, State, TableKey
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.models import (
    Agent,
    Approval,
    Customer,
    CustomerLink,
    Escalation,
    KbArticle,
    KbFacts,
    Macro,
    Message,
    Order,
    Persona,
    Product,
    Refund,
    Replacement,
    StoreCredit,
    Ticket,
    TicketTruth,
)

__all__ = [
    "AGENTS",
    "APPROVALS",
    "AT_RISK_WINDOW",
    "CUSTOMERS",
    "CUSTOMER_LINKS",
    "ESCALATIONS",
    "KB_ARTICLES",
    "KB_FACTS",
    "MACROS",
    "MESSAGES",
    "ORDERS",
    "PERSONAS",
    "PRODUCTS",
    "PROJECTION",
    "REFUNDS",
    "REPLACEMENTS",
    "SCHEMA",
    "STORE_CREDITS",
    "TICKETS",
    "TRUTHS",
    "line_refunded",
    "sla_state",
    "thread",
]

CUSTOMERS = TableKey("support.customers", Customer)
PRODUCTS = TableKey("support.products", Product)
ORDERS = TableKey("support.orders", Order)
AGENTS = TableKey("support.agents", Agent)
TICKETS = TableKey("support.tickets", Ticket)
MESSAGES = TableKey("support.messages", Message)
MACROS = TableKey("support.macros", Macro)
KB_ARTICLES = TableKey("support.kb_articles", KbArticle)
REFUNDS = TableKey("support.refunds", Refund)
REPLACEMENTS = TableKey("support.replacements", Replacement)
STORE_CREDITS = TableKey("support.store_credits", StoreCredit)
APPROVALS = TableKey("support.approvals", Approval)
ESCALATIONS = TableKey("support.escalations", Escalation)
TRUTHS = TableKey("hidden.support.ticket_truths", TicketTruth)
PERSONAS = TableKey("hidden.support.personas", Persona)
KB_FACTS = TableKey("hidden.support.kb_facts", KbFacts)
CUSTOMER_LINKS = TableKey("hidden.support.customer_links", CustomerLink)

SCHEMA = StateSchema(
    tables=[
        CUSTOMERS,
        PRODUCTS,
        ORDERS,
        AGENTS,
        TICKETS,
        MESSAGES,
        MACROS,
        KB_ARTICLES,
        REFUNDS,
        REPLACEMENTS,
        STORE_CREDITS,
        APPROVALS,
        ESCALATIONS,
        TRUTHS,
        PERSONAS,
        KB_FACTS,
        CUSTOMER_LINKS,
    ],
    version=1,
)

AT_RISK_WINDOW = timedelta(hours=2)
"""A ticket whose next SLA deadline falls within this window is `at_risk`."""

PROJECTION = Projection("support")

E = TypeVar("E", bound=Entity)


def _ticket(state: State, ticket_id: str) -> Ticket:
    return require(state, TICKETS, ticket_id)


def _put_changed(state: State, key: TableKey[E], entity: E, **changes: Any) -> State:
    return state.put(key, entity.model_copy(update=changes))


def _put_ticket(state: State, ticket: Ticket, **changes: Any) -> State:
    return _put_changed(state, TICKETS, ticket, **changes)


# --- catalogue and people ------------------------------------------------------------------
stores(PROJECTION, ev.CustomerCreated, CUSTOMERS, lambda e: e.customer)
stores_all(PROJECTION, ev.CustomerLinksRecorded, CUSTOMER_LINKS, lambda e: e.links)
stores(PROJECTION, ev.ProductCreated, PRODUCTS, lambda e: e.product)
stores(PROJECTION, ev.OrderPlaced, ORDERS, lambda e: e.order)
stores(PROJECTION, ev.AgentCreated, AGENTS, lambda e: e.agent)
stores(PROJECTION, ev.MacroCreated, MACROS, lambda e: e.macro)
stores(PROJECTION, ev.KbArticlePublished, KB_ARTICLES, lambda e: e.article)


# --- tickets -------------------------------------------------------------------------------
stores(PROJECTION, ev.TicketCreated, TICKETS, lambda e: e.ticket)


@PROJECTION.on(ev.MessagePosted)
def _message_posted(state: State, e: ev.MessagePosted) -> State:
    msg = e.message
    ticket = _ticket(state, msg.ticket_id)
    changes: dict[str, Any] = {
        "message_ids": (*ticket.message_ids, msg.id),
        "updated_at": max(ticket.updated_at, msg.created_at),
    }
    if msg.author_kind == "agent" and msg.public and ticket.first_responded_at is None:
        changes["first_responded_at"] = msg.created_at
    return _put_ticket(state.put(MESSAGES, msg), ticket, **changes)


@PROJECTION.on(ev.TicketStatusChanged)
def _status_changed(state: State, e: ev.TicketStatusChanged) -> State:
    ticket = _ticket(state, e.ticket_id)
    solved_at = e.at if e.to_status == "solved" else (None if e.to_status != "closed" else ticket.solved_at)
    return _put_ticket(state, ticket, status=e.to_status, solved_at=solved_at, updated_at=e.at)


@PROJECTION.on(ev.TicketPriorityChanged)
def _priority_changed(state: State, e: ev.TicketPriorityChanged) -> State:
    return _put_ticket(state, _ticket(state, e.ticket_id), priority=e.priority, updated_at=e.at)


@PROJECTION.on(ev.TicketTagsChanged)
def _tags_changed(state: State, e: ev.TicketTagsChanged) -> State:
    return _put_ticket(state, _ticket(state, e.ticket_id), tags=e.tags, updated_at=e.at)


@PROJECTION.on(ev.TicketAssigned)
def _assigned(state: State, e: ev.TicketAssigned) -> State:
    ticket = _ticket(state, e.ticket_id)
    return _put_ticket(state, ticket, group=e.group, assignee_id=e.assignee_id, updated_at=e.at)


@PROJECTION.on(ev.TicketsMerged)
def _merged(state: State, e: ev.TicketsMerged) -> State:
    target = _ticket(state, e.target_id)
    for source_id in e.source_ids:
        source = _ticket(state, source_id)
        state = _put_ticket(state, source, status="closed", merged_into=e.target_id, updated_at=e.at)
    merged_from = (*target.merged_from, *e.source_ids)
    return _put_ticket(state, target, merged_from=merged_from, updated_at=e.at)


@PROJECTION.on(ev.MacroApplied)
def _macro_applied(state: State, e: ev.MacroApplied) -> State:
    return _put_ticket(state, _ticket(state, e.ticket_id), updated_at=e.at)


@PROJECTION.on(ev.SatisfactionRated)
def _satisfaction(state: State, e: ev.SatisfactionRated) -> State:
    ticket = _ticket(state, e.ticket_id)
    return _put_ticket(state, ticket, satisfaction=e.rating, satisfaction_comment=e.comment)


@PROJECTION.on(ev.TicketEscalated)
def _escalated(state: State, e: ev.TicketEscalated) -> State:
    esc = e.escalation
    ticket = _ticket(state, esc.ticket_id)
    tag = f"escalated_{esc.team}"
    tags = ticket.tags if tag in ticket.tags else tuple(sorted((*ticket.tags, tag)))
    state = state.put(ESCALATIONS, esc)
    return _put_ticket(state, ticket, tags=tags, updated_at=esc.created_at)


# --- money ---------------------------------------------------------------------------------
@PROJECTION.on(ev.RefundIssued)
def _refund_issued(state: State, e: ev.RefundIssued) -> State:
    refund = e.refund
    order = require(state, ORDERS, refund.order_id)
    state = state.put(REFUNDS, refund)
    return _put_changed(state, ORDERS, order, refunded_total=order.refunded_total + refund.amount)


stores(PROJECTION, ev.ReplacementCreated, REPLACEMENTS, lambda e: e.replacement)


@PROJECTION.on(ev.StoreCreditIssued)
def _credit_issued(state: State, e: ev.StoreCreditIssued) -> State:
    credit = e.credit
    customer = require(state, CUSTOMERS, credit.customer_id)
    state = state.put(STORE_CREDITS, credit)
    return _put_changed(state, CUSTOMERS, customer, store_credit=customer.store_credit + credit.amount)


stores(PROJECTION, ev.ApprovalRequested, APPROVALS, lambda e: e.approval)


@PROJECTION.on(ev.ApprovalUsed)
def _approval_used(state: State, e: ev.ApprovalUsed) -> State:
    return _put_changed(state, APPROVALS, require(state, APPROVALS, e.approval_id), used_by=e.used_by)


# --- ground truth --------------------------------------------------------------------------
stores(PROJECTION, ev.TicketTruthRecorded, TRUTHS, lambda e: e.truth)
stores(PROJECTION, ev.KbFactsRecorded, KB_FACTS, lambda e: e.facts)
stores(PROJECTION, ev.PersonaCreated, PERSONAS, lambda e: e.persona)
stores(PROJECTION, ev.PersonaUpdated, PERSONAS, lambda e: e.persona)


# --- derived views -------------------------------------------------------------------------
def thread(state: State, ticket: Ticket) -> list[Message]:
    """Returns a ticket's messages in posting order."""
    table = state.table(MESSAGES)
    return [m for m in (table.get(i) for i in ticket.message_ids) if m is not None]


def sla_state(ticket: Ticket, now: datetime) -> str:
    """Returns `breached`, `at_risk`, `ok` or `none` (solved and closed tickets).

    The next deadline is the first-response due time until a public agent reply
    exists, then the resolution due time. A missed first response stays
    `breached` even after a late reply.
    """
    if ticket.status in ("solved", "closed"):
        return "none"
    if ticket.first_responded_at is None:
        if ticket.first_response_due <= now:
            return "breached"
        nxt = min(ticket.first_response_due, ticket.resolution_due)
    else:
        if ticket.first_responded_at > ticket.first_response_due:
            return "breached"
        nxt = ticket.resolution_due
    if nxt <= now:
        return "breached"
    return "at_risk" if nxt - now <= AT_RISK_WINDOW else "ok"


def line_refunded(state: State, order_id: str, line_id: str | None) -> Decimal:
    """Returns the total refunded so far on one order line (or, with None, on order-level refunds)."""
    total = Decimal("0.00")
    for refund in state.table(REFUNDS):
        if refund.order_id == order_id and refund.line_id == line_id:
            total += refund.amount
    return total
