"""What several check modules read from an episode: its replies on a ticket, what they state, what it paid."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from saas_sim.core.domain import CheckContext
from saas_sim.domains.support.models import Message, Ticket
from saas_sim.domains.support.people import compensation
from saas_sim.domains.support.reply_facts import ReplyFacts, read_facts
from saas_sim.domains.support.state import MESSAGES, REFUNDS, STORE_CREDITS, TICKETS, TRUTHS
from saas_sim.domains.support.threads import related_tickets

__all__ = ["episode_facts", "episode_replies", "money_value", "paid_to_person", "ticket_since"]


def money_value(value: Any) -> Decimal:
    """Returns a scenario parameter (a number or a string) as an exact `Decimal`."""
    return Decimal(str(value))


def episode_replies(ctx: CheckContext, ticket_id: str) -> list[Message]:
    """Public agent messages the episode posted on the ticket or a ticket merged with it, in id order."""
    ticket = ctx.final.get(TICKETS, ticket_id)
    related = {t.id for t in related_tickets(ctx.final, ticket)} if ticket else {ticket_id}
    return sorted((m for m in ctx.created(MESSAGES)
                   if m.ticket_id in related and m.public and m.author_kind == "agent"), key=lambda m: m.id)


def episode_facts(ctx: CheckContext, ticket_id: str) -> ReplyFacts:
    """What the episode's public replies on the ticket (and tickets merged with it) state, read together."""
    return read_facts(m.body for m in episode_replies(ctx, ticket_id))


def ticket_since(ctx: CheckContext, ticket_id: str) -> Ticket | None:
    """The ticket whose history a claim is judged from: the original when `ticket_id` is a duplicate."""
    truth = ctx.final.get(TRUTHS, ticket_id)
    ticket = ctx.final.get(TICKETS, ticket_id)
    if truth is not None and truth.duplicate_of is not None:
        return ctx.final.get(TICKETS, truth.duplicate_of) or ticket
    return ticket


def paid_to_person(ctx: CheckContext, customer_id: str) -> Decimal:
    """What the episode paid the person behind `customer_id`: refunds on their orders plus store credit."""
    return compensation(ctx.final, customer_id, refund_ids={r.id for r in ctx.created(REFUNDS)},
                        credit_ids={c.id for c in ctx.created(STORE_CREDITS)})
