"""What the world says about a ticket's real outcome, shared by the simulator and checks.

`assess(state, ticket_id)` reads the ground truth and the public records and
answers: is the customer's problem really fixed? A ticket's status never enters
into it. Text helpers recognise, in four languages, an order-number question, a
polite decline with its reason, a money amount and knowledge-base facts.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from saas_sim.core.state import State
from saas_sim.domains.support.models import Message, Ticket, TicketTruth
from saas_sim.domains.support.state import (
    ESCALATIONS,
    KB_FACTS,
    MESSAGES,
    REFUNDS,
    REPLACEMENTS,
    TICKETS,
    TRUTHS,
)

__all__ = [
    "Assessment",
    "agent_replies",
    "amounts_in",
    "asks_for_order_number",
    "assess",
    "claims_done",
    "declines",
    "gives_reason",
    "has_facts",
    "is_dump",
    "mentions_amount",
    "plain",
]

_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")
_ORDER_ASK = (
    "order number", "order #", "order no", "order id", "which order", "order reference",
    "bestellnummer", "welche bestellung", "número de pedido", "numero de pedido", "qué pedido",
    "numéro de commande", "numero de commande", "quelle commande",
)
_DECLINE = (
    "unfortunately", "not eligible", "cannot refund", "can't refund", "can not refund", "unable to refund",
    "not able to refund", "won't be able", "cannot offer a refund", "are not refundable",
    "is not refundable", "cannot be refunded", "cannot be returned", "leider", "nicht erstatten",
    "keine erstattung", "lamentablemente", "desafortunadamente", "no podemos", "malheureusement",
    "ne pouvons pas",
)
_REASONS = {
    "final_sale": (
        "final sale", "final-sale", "not returnable", "non-returnable", "endverkauf",
        "venta final", "vente finale",
    ),
    "window": ("30 days", "30-day", "30 day", "30 tage", "30 tagen", "30 días", "30 dias", "30 jours"),
}
_DONE = (
    "refunded", "refund has been", "processed your refund", "refund is on its way", "replacement",
    "resolved", "solved", "fixed", "erstattet", "reembolsado", "remboursé", "ersatz", "reemplazo",
)
_AMOUNT = re.compile(r"(?<![\d.,])(\d{1,3}(?:[.,\s]\d{3})*|\d+)(?:([.,])(\d{1,2}))?(?![\d])")


def plain(text: str) -> str:
    """Returns `text` without HTML tags or entities, lowercased, with single spaces."""
    return _SPACE.sub(" ", html.unescape(_TAG.sub(" ", text))).strip().lower()


def asks_for_order_number(text: str) -> bool:
    """Returns whether a message asks the customer which order they mean."""
    t = plain(text)
    return any(k in t for k in _ORDER_ASK)


def declines(text: str) -> bool:
    """Returns whether a message declines a request."""
    t = plain(text)
    return any(k in t for k in _DECLINE)


def gives_reason(text: str, reason: str) -> bool:
    """Returns whether a message names a policy reason (`final_sale` or `window`)."""
    t = plain(text)
    return any(k in t for k in _REASONS.get(reason, ()))


def claims_done(text: str) -> bool:
    """Returns whether a message claims that something was fixed or issued."""
    t = plain(text)
    return any(k in t for k in _DONE)


def amounts_in(text: str) -> list[Decimal]:
    """Returns the money amounts written in `text` (`49.90`, `49,90`, `1,299.00`, `$12`)."""
    out: list[Decimal] = []
    for whole, sep, cents in _AMOUNT.findall(html.unescape(text)):
        digits = re.sub(r"[.,\s]", "", whole)
        try:
            value = Decimal(digits)
            if sep and cents:
                value += Decimal(cents) / (10 ** len(cents))
        except InvalidOperation:
            continue
        out.append(value)
    return out


def mentions_amount(text: str, amount: Decimal) -> bool:
    """Returns whether `text` states `amount` (to the cent, in any common notation)."""
    return any(a == amount for a in amounts_in(text))


def has_facts(text: str, facts: tuple[str, ...]) -> bool:
    """Returns whether `text` contains every fact (case- and whitespace-insensitive)."""
    t = plain(text)
    return all(_SPACE.sub(" ", f).strip().lower() in t for f in facts)


def is_dump(state: State, text: str, article_id: str | None) -> bool:
    """Returns whether a reply pastes the facts of two or more other articles (a wall of text)."""
    others = sum(
        1 for f in state.table(KB_FACTS) if f.id != article_id and f.facts and has_facts(text, f.facts)
    )
    return others >= 2


def _related_tickets(state: State, ticket: Ticket) -> list[Ticket]:
    tickets = state.table(TICKETS)
    ids = {ticket.id, *ticket.merged_from}
    if ticket.merged_into:
        ids.add(ticket.merged_into)
    return [t for t in (tickets.get(i) for i in sorted(ids)) if t is not None]


def agent_replies(state: State, ticket: Ticket) -> list[Message]:
    """Returns public agent messages on a ticket and on tickets merged with it, in id order."""
    messages = state.table(MESSAGES)
    out: list[Message] = []
    for t in _related_tickets(state, ticket):
        for mid in t.message_ids:
            m = messages.get(mid)
            if m is not None and m.public and m.author_kind == "agent":
                out.append(m)
    return sorted(out, key=lambda m: m.id)


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
    for r in state.table(REFUNDS):
        if r.order_id != truth.order_id or r.created_at < since.created_at:
            continue
        if truth.line_id is None or r.line_id == truth.line_id:
            total += r.amount
    return total


def _replaced(state: State, truth: TicketTruth, since: Ticket) -> int:
    return sum(
        r.quantity
        for r in state.table(REPLACEMENTS)
        if r.order_id == truth.order_id
        and r.line_id == truth.replacement_line_id
        and r.created_at >= since.created_at
    )


def assess(state: State, ticket_id: str) -> Assessment | None:
    """Returns the real outcome of a ticket, or None when it has no ground truth."""
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
    replies = agent_replies(state, ticket)
    kind = truth.resolution
    if kind == "refund":
        fixed = truth.amount is not None and refunded >= truth.amount
    elif kind == "replacement":
        fixed = replaced >= truth.replacement_qty
    elif kind == "refund_and_replacement":
        fixed = truth.amount is not None and refunded >= truth.amount and replaced >= truth.replacement_qty
    elif kind == "deny":
        reason = truth.deny_reason or ""
        fixed = any(declines(m.body) and gives_reason(m.body, reason) for m in replies)
    elif kind in ("kb_answer", "reply"):
        fixed = any(
            has_facts(m.body, truth.kb_facts) and not is_dump(state, m.body, truth.kb_article_id)
            for m in replies
        )
    else:
        fixed = truth.team is not None and truth.team in teams
    return Assessment(fixed=fixed, refunded=refunded, replaced=replaced, escalated_to=teams)
