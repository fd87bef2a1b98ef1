"""What the world says about a ticket's real outcome, shared by the simulator and checks.

`assess(state, ticket_id)` reads the ground truth and the public records and
answers: is the customer's problem really fixed? A ticket's status never enters
into it. Money and goods are judged by the refund and replacement records; a
refusal or a how-to answer by the facts the replies state (`judge`), never by
their wording.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from saas_sim.core.state import State
from saas_sim.domains.support.check_helpers import refunds_on, replacements_on, replies_facts
from saas_sim.domains.support.judge import deny_verdict, kb_verdict
from saas_sim.domains.support.models import Message, Ticket, TicketTruth
from saas_sim.domains.support.plain_text import plain
from saas_sim.domains.support.reply_facts import ReplyFacts
from saas_sim.domains.support.shipping_answer import tracking_verdict
from saas_sim.domains.support.state import ESCALATIONS, ORDERS, TICKETS, TRUTHS
from saas_sim.domains.support.threads import agent_replies

__all__ = ["Assessment", "agent_replies", "assess", "plain"]

@dataclass(frozen=True)
class Assessment:
    """The real outcome of a ticket.

    Attributes:
        fixed: The problem is really solved (or, for a refusal, explained).
        refunded: Refunded since the ticket opened, on the order (and line) it is about.
        replaced: Units replaced since the ticket opened, on the line to replace.
        escalated_to: Teams the ticket was escalated to.
    """

    fixed: bool
    refunded: Decimal
    replaced: int
    escalated_to: tuple[str, ...]


def _refunded(state: State, truth: TicketTruth, since: Ticket) -> Decimal:
    total = Decimal("0.00")
    for r in refunds_on(state, truth.order_id) if truth.order_id is not None else ():
        if r.created_at < since.created_at:
            continue
        if truth.line_id is None or r.line_id == truth.line_id:
            total += r.amount
    return total


def _replaced(state: State, truth: TicketTruth, since: Ticket) -> int:
    if truth.order_id is None:
        return 0
    return sum(
        r.quantity
        for r in replacements_on(state, truth.order_id)
        if r.line_id == truth.replacement_line_id
        and r.created_at >= since.created_at
    )


def _replies(state: State, ticket: Ticket, extra: Message | None) -> ReplyFacts:
    # `reply_facts.read_replies`, through the memo the checks share (the same replies, read once).
    replies = agent_replies(state, ticket)
    if extra is not None and all(m.id != extra.id for m in replies):
        replies = [*replies, extra]
    return replies_facts(m.body for m in replies)


def assess(state: State, ticket_id: str, extra: Message | None = None) -> Assessment | None:
    """Returns the real outcome of a ticket, or None when it has no ground truth.

    Args:
        state: The state to judge.
        ticket_id: The ticket.
        extra: A reply the state does not hold yet (the one the simulator reacts to).
    """
    truth = state.get(TRUTHS, ticket_id)
    ticket = state.get(TICKETS, ticket_id)
    if truth is None or ticket is None:
        return None
    # A duplicate is judged from when the first ticket about the issue was opened.
    since = ticket
    if truth.duplicate_of is not None:
        since = state.get(TICKETS, truth.duplicate_of) or ticket
    refunded = _refunded(state, truth, since) if truth.order_id else Decimal("0.00")
    replaced = _replaced(state, truth, since) if truth.replacement_line_id else 0
    teams = tuple(sorted({e.team for e in state.table(ESCALATIONS) if e.ticket_id == ticket_id}))
    kind = truth.resolution
    if kind == "refund":
        fixed = truth.amount is not None and refunded >= truth.amount
    elif kind == "replacement":
        fixed = replaced >= truth.replacement_qty
    elif kind == "refund_and_replacement":
        fixed = truth.amount is not None and refunded >= truth.amount and replaced >= truth.replacement_qty
    elif kind == "deny":
        fixed = deny_verdict(state, _replies(state, ticket, extra), truth, since).ok
    elif kind == "tracking":
        order = state.get(ORDERS, truth.order_id) if truth.order_id else None
        fixed = tracking_verdict(state, _replies(state, ticket, extra), order).ok and refunded == 0
    elif kind in ("kb_answer", "reply"):
        fixed = kb_verdict(state, _replies(state, ticket, extra), truth.kb_article_id).ok
    else:
        fixed = truth.team is not None and truth.team in teams
    return Assessment(fixed=fixed, refunded=refunded, replaced=replaced, escalated_to=teams)
