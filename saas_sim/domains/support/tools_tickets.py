"""Ticket tools: list, search, read, reply publicly and add internal notes."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from saas_sim.core.events import Event
from saas_sim.core.indexes import select_page
from saas_sim.core.paging import PageArgs
from saas_sim.core.table import Table
from saas_sim.core.tool_errors import bad_args, require
from saas_sim.core.tools import READ, WRITE, ToolArgs, ToolContext
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import Group, Message, Priority, Ticket, TicketStatus
from saas_sim.domains.support.plain_text import plain
from saas_sim.domains.support.search_index import MESSAGE_TEXT, TICKET_INDEX, TICKET_ORDERS, TICKET_TEXT
from saas_sim.domains.support.simulator import RULES
from saas_sim.domains.support.state import MESSAGES, TICKETS, sla_state, thread
from saas_sim.domains.support.tool_helpers import acting_agent, open_ticket
from saas_sim.domains.support.views_tickets import MessageView, ReplyResult, TicketDetail, TicketPage, TicketSummary

__all__ = [
    "add_internal_note",
    "emit_solved_reaction",
    "get_ticket",
    "list_tickets",
    "post_reply",
    "react_to_reply",
    "search_tickets",
    "send_reply",
]

SortKey = Literal["created_at", "-created_at", "sla_due", "priority"]
SlaState = Literal["breached", "at_risk", "ok", "none"]


class ListTicketsArgs(PageArgs):
    status: list[TicketStatus] | None = Field(
        default=None, description="Only tickets in one of these statuses. Null for any status.")
    priority: list[Priority] | None = Field(default=None, description="Only tickets with one of these priorities.")
    group: Group | None = Field(default=None, description="Only tickets in this group (queue).")
    tag: str | None = Field(default=None, description="Only tickets carrying this tag.")
    requester_id: str | None = Field(default=None, description="Only tickets opened by this customer id.")
    assignee_id: str | None = Field(
        default=None, description="Only tickets assigned to this agent id; 'unassigned' for tickets with none.")
    sla_state: SlaState | None = Field(
        default=None,
        description="Only tickets in this SLA state now: 'breached' (a deadline passed), 'at_risk' (the next "
        "deadline is within 2 hours), 'ok', or 'none' (solved/closed).")
    sort: SortKey = Field(
        default="created_at",
        description="Order: 'created_at' oldest first, '-created_at' newest first, 'sla_due' soonest SLA "
        "deadline first (tickets without one last), 'priority' most urgent first then soonest deadline. "
        "Ties are broken by ticket id.")


def _matches(t: Ticket, args: ListTicketsArgs, now: datetime) -> bool:
    if args.status is not None and t.status not in args.status:
        return False
    if args.priority is not None and t.priority not in args.priority:
        return False
    if args.group is not None and t.group != args.group:
        return False
    if args.tag is not None and args.tag not in t.tags:
        return False
    if args.requester_id is not None and t.requester_id != args.requester_id:
        return False
    if args.assignee_id is not None:
        want = None if args.assignee_id == "unassigned" else args.assignee_id
        if t.assignee_id != want:
            return False
    return args.sla_state is None or sla_state(t, now) == args.sla_state


@kit.tool(READ)
def list_tickets(ctx: ToolContext, args: ListTicketsArgs) -> TicketPage:
    """Lists tickets matching every given filter, one page at a time, in a stable order.

    Use the filters to build a work queue, for example status ["new", "open"] with sla_state "breached".
    Pass `next_cursor` back as `cursor` with the same filters to get the next page.
    """
    tickets = ctx.table(TICKETS)
    among: frozenset[str] | None = None
    for field, values in (("status", args.status), ("priority", args.priority),
                          ("group", None if args.group is None else [args.group]),
                          ("tag", None if args.tag is None else [args.tag]),
                          ("requester", None if args.requester_id is None else [args.requester_id]),
                          ("assignee", None if args.assignee_id is None
                           else [None if args.assignee_id == "unassigned" else args.assignee_id])):
        if values is None:
            continue
        ids: frozenset[str] = frozenset().union(*(tickets.matching(TICKET_INDEX, [(field, v)]) for v in values))
        among = ids if among is None else among & ids
    return select_page(TicketPage, tickets, TICKET_ORDERS[args.sort], args, lambda t: _matches(t, args, ctx.now),
                       among=among, view=lambda t: TicketSummary.of(t, ctx.now), ties=ctx.ties)


class SearchTicketsArgs(PageArgs):
    query: str = Field(min_length=2, max_length=200, description=(
        "Words to find. A ticket matches when every word appears in its subject, its messages or its "
        "requester's e-mail address (case-insensitive)."))
    status: list[TicketStatus] | None = Field(default=None, description="Only tickets in one of these statuses.")


@kit.tool(READ)
def search_tickets(ctx: ToolContext, args: SearchTicketsArgs) -> TicketPage:
    """Full-text search over tickets: subjects, message bodies and requester e-mails. Newest first."""
    words = [w for w in plain(args.query).split(" ") if any(ch.isalnum() for ch in w)]
    if not words:
        raise bad_args("query must contain at least one word", ["query"])
    messages = ctx.table(MESSAGES)
    tickets = ctx.table(TICKETS)
    hits: list[Ticket] = []
    for t in _text_candidates(tickets, messages, words):
        if args.status is not None and t.status not in args.status:
            continue
        bodies = " ".join(m.body for m in (messages.get(i) for i in t.message_ids) if m is not None)
        text = plain(f"{t.subject} {t.requester_email} {bodies}")
        if all(w in text for w in words):
            hits.append(t)
    return TicketPage.of(hits, lambda t: (-int(t.created_at.timestamp()), t.id), args,
                         view=lambda t: TicketSummary.of(t, ctx.now), ties=ctx.ties)


def _text_candidates(tickets: Table[Ticket], messages: Table[Message], words: list[str]) -> list[Ticket]:
    """The tickets that may contain every word: each word in the ticket's own text or in one of its messages.

    A superset of `search_tickets`' hits (each word lies inside one part of the joined text), found
    through the text indexes; the exact predicate then runs on these alone.
    """
    among: frozenset[str] | None = None
    for word in words:
        in_messages = messages.containing(MESSAGE_TEXT, [word])
        if len(in_messages) > len(tickets):  # a word most threads hold narrows little and costs more than a scan
            continue
        ids = set(tickets.containing(TICKET_TEXT, [word]))
        for message_id in in_messages:
            ids |= tickets.matching(TICKET_INDEX, [("message", message_id)])
        among = frozenset(ids) if among is None else among & ids
        if not among:
            return []
    if among is None:
        return list(tickets)
    return [t for tid in sorted(among) if (t := tickets.get(tid)) is not None]


class GetTicketArgs(ToolArgs):
    ticket_id: str = Field(description="The ticket's id, such as tkt_000042.")


@kit.tool(READ)
def get_ticket(ctx: ToolContext, args: GetTicketArgs) -> TicketDetail:
    """Returns one ticket with its SLA deadlines and its whole thread, oldest message first.

    Internal notes (public = false) are visible to agents only, never to the customer.
    """
    t = require(ctx, TICKETS, args.ticket_id, "ticket", "ticket_id")
    return TicketDetail(
        ticket=TicketSummary.of(t, ctx.now),
        first_response_due=t.first_response_due,
        resolution_due=t.resolution_due,
        first_responded_at=t.first_responded_at,
        solved_at=t.solved_at,
        satisfaction=t.satisfaction,
        merged_from=list(t.merged_from),
        messages=[MessageView.of(m) for m in thread(ctx.state, t)],
    )


def post_reply(ctx: ToolContext, ticket: Ticket, body: str, *, macro_id: str | None = None,
               react: bool = True) -> tuple[Message, Message | None]:
    """Posts a public agent reply (a new ticket becomes open) and lets the customer react.

    Returns the posted message and the customer's answer, if it wrote one.
    """
    agent = acting_agent(ctx)
    msg = Message(id=ctx.ids.next("msg"), ticket_id=ticket.id, author_kind="agent", author_id=agent.id,
                  author_name=agent.name, public=True, body=body, created_at=ctx.now, macro_id=macro_id)
    ctx.emit(ev.MessagePosted(message=msg))
    if ticket.status == "new":
        ctx.emit(ev.TicketStatusChanged(ticket_id=ticket.id, from_status="new", to_status="open", at=ctx.now))
    if not react:
        return msg, None
    return msg, react_to_reply(ctx, ticket.id, msg)


def react_to_reply(ctx: ToolContext, ticket_id: str, msg: Message) -> Message | None:
    """Lets the customer react to a public agent reply; returns its message, if any."""
    return _emit_reaction(ctx, RULES.on_agent_reply(ctx.state, ticket_id, msg, ctx.now, ctx.ids))


def _emit_reaction(ctx: ToolContext, events: list[Event]) -> Message | None:
    answer: Message | None = None
    for e in events:
        ctx.emit(e)
        if isinstance(e, ev.MessagePosted):
            answer = e.message
    return answer


def emit_solved_reaction(ctx: ToolContext, ticket_id: str) -> Message | None:
    """Lets the customer react to its ticket being solved; returns its message, if any."""
    return _emit_reaction(ctx, RULES.on_solved(ctx.state, ticket_id, ctx.now, ctx.ids))


class SendReplyArgs(ToolArgs):
    ticket_id: str = Field(description="The ticket to answer.")
    body: str = Field(min_length=1, max_length=10_000, description=(
        "The reply the customer will read (plain text). Write in the customer's language."))


@kit.tool(WRITE)
def send_reply(ctx: ToolContext, args: SendReplyArgs) -> ReplyResult:
    """Sends a public reply to the customer on a ticket. A `new` ticket becomes `open`.

    The customer may answer at once (for example with an order number you asked for, or to confirm a
    fix); that answer is returned as `customer_response` and added to the thread.
    """
    ticket = open_ticket(ctx, args.ticket_id)
    msg, answer = post_reply(ctx, ticket, args.body)
    after: Ticket = ctx.table(TICKETS).get(ticket.id)
    return ReplyResult(message=MessageView.of(msg), ticket=TicketSummary.of(after, ctx.now),
                       customer_response=MessageView.of(answer) if answer else None)


class AddNoteArgs(ToolArgs):
    ticket_id: str = Field(description="The ticket to annotate.")
    body: str = Field(min_length=1, max_length=10_000, description="The note, visible to agents only.")


@kit.tool(WRITE, cost_s=15)
def add_internal_note(ctx: ToolContext, args: AddNoteArgs) -> MessageView:
    """Adds an internal note to a ticket. Customers never see notes and are not notified."""
    ticket = open_ticket(ctx, args.ticket_id)
    agent = acting_agent(ctx)
    msg = Message(id=ctx.ids.next("msg"), ticket_id=ticket.id, author_kind="agent", author_id=agent.id,
                  author_name=agent.name, public=False, body=args.body, created_at=ctx.now)
    ctx.emit(ev.MessagePosted(message=msg))
    return MessageView.of(msg)
