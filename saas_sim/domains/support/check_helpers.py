"""What several check modules read from an episode: its replies on a ticket, what they state, what it paid."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from saas_sim.core.derived import Derived
from saas_sim.core.domain import CheckContext
from saas_sim.core.key_groups import index_view
from saas_sim.core.state import State
from saas_sim.domains.support.models import Message, Order, Refund, Replacement, StoreCredit, Ticket
from saas_sim.domains.support.people import PEOPLE, compensation
from saas_sim.domains.support.reply_facts import ReplyFacts, Sentence, read_facts
from saas_sim.domains.support.search_index import ORDER_INDEX
from saas_sim.domains.support.state import (
    MESSAGES,
    ORDERS,
    REFUNDS,
    REPLACEMENTS,
    STORE_CREDITS,
    TICKETS,
    TRUTHS,
)
from saas_sim.domains.support.threads import related_tickets

__all__ = [
    "CHECK_VIEWS", "CLAUSE", "clauses", "credits_of", "customer_texts", "episode_facts", "episode_replies",
    "money_value", "order_by_number",
    "order_ids_by_number", "paid_to_person", "refunds_on", "replacements_on", "replies_facts", "ticket_since",
]

_REFUNDS_BY_ORDER = index_view("support.refunds_by_order", REFUNDS, lambda r: (r.order_id,))
"""Refund ids by order id: what was refunded on one order, without scanning every refund."""
_REPLACEMENTS_BY_ORDER = index_view("support.replacements_by_order", REPLACEMENTS, lambda r: (r.order_id,))
"""Replacement ids by order id."""
_CREDITS_BY_CUSTOMER = index_view("support.store_credits_by_customer", STORE_CREDITS, lambda c: (c.customer_id,))
"""Store credit ids by customer record id."""


CHECK_VIEWS: tuple[Derived[Any], ...] = (
    PEOPLE, _REFUNDS_BY_ORDER, _REPLACEMENTS_BY_ORDER, _CREDITS_BY_CUSTOMER,
)
"""Every per-state view the support checks read. Computing them on a world (`view.of(world_state)`, O(size),
off the event loop) spares the first grade of each world that cost; a grade computes any it lacks."""


@functools.lru_cache(maxsize=1024)
def _facts_of(bodies: tuple[str, ...]) -> ReplyFacts:
    return read_facts(bodies)


def replies_facts(bodies: Iterable[str]) -> ReplyFacts:
    """`reply_facts.read_facts`, memoized by the bodies it reads (it is a pure function of them).

    Several checks of one grade read the same replies (what they state, whether it is true, whether
    they decline), and language identification costs milliseconds per text; a regrade, replay or
    audit reads them again. The memo is bounded and holds only immutable facts of texts.
    """
    return _facts_of(tuple(bodies))


CLAUSE = re.compile(r"[,:](?!\d)|(?<!\d)[,:]|[;()]|\s[-\u2013\u2014]\s|\b(?:and|but|so|because|und|aber|weil|denn|"
                    r"y|pero|porque|et|mais|donc)\b")
"""Where a sentence splits into clauses that can be negated on their own ("no reply from support; account
takeover", "our billing team has it, so you are not paid twice"). A comma or colon between digits belongs to a
figure ("1,250.00", "25,00 €")."""


def clauses(facts: ReplyFacts, splitter: re.Pattern[str] = CLAUSE) -> list[Sentence]:
    """Every sentence of `facts`, a negated or conditional one split into its clauses, each flagged alone.

    A "no" or an "if" in one clause says nothing of the others, so a statement is judged by the clause
    that makes it: "we have not passed anything to billing" denies a hand-off, while "billing has your
    case, so you are not paid twice" affirms one.
    """
    return facts.clauses(splitter)


def order_by_number(state: State, number: str) -> Order | None:
    """Returns the order with `number` (the lowest id if several share it), or None."""
    ids = order_ids_by_number(state, number)
    return state.get(ORDERS, min(ids)) if ids else None


def order_ids_by_number(state: State, number: str) -> frozenset[str]:
    """Returns the ids of every order numbered `number` (none: empty), through the tools' order index."""
    return state.table(ORDERS).matching(ORDER_INDEX, [("number", number)])


def refunds_on(state: State, order_id: str) -> list[Refund]:
    """Returns the refunds on an order, in id order."""
    refunds = state.table(REFUNDS)
    return [r for i in sorted(_REFUNDS_BY_ORDER.of(state).holders(order_id)) if (r := refunds.get(i)) is not None]


def replacements_on(state: State, order_id: str) -> list[Replacement]:
    """Returns the replacements on an order, in id order."""
    replacements = state.table(REPLACEMENTS)
    return [r for i in sorted(_REPLACEMENTS_BY_ORDER.of(state).holders(order_id))
            if (r := replacements.get(i)) is not None]


def credits_of(state: State, customer_ids: Iterable[str]) -> list[StoreCredit]:
    """Returns the store credits issued to any of the customer records `customer_ids`, in id order."""
    index = _CREDITS_BY_CUSTOMER.of(state)
    credits = state.table(STORE_CREDITS)
    ids: set[str] = set()
    for cid in customer_ids:
        ids |= index.holders(cid)
    return [c for i in sorted(ids) if (c := credits.get(i)) is not None]


def money_value(value: Any) -> Decimal:
    """Returns a scenario parameter (a number or a string) as an exact `Decimal`."""
    return Decimal(str(value))


def episode_replies(ctx: CheckContext, ticket_id: str) -> list[Message]:
    """Public agent messages the episode posted on the ticket or a ticket merged with it, in id order."""
    ticket = ctx.final.get(TICKETS, ticket_id)
    related = {t.id for t in related_tickets(ctx.final, ticket)} if ticket else {ticket_id}
    return sorted((m for m in ctx.created(MESSAGES)
                   if m.ticket_id in related and m.public and m.author_kind == "agent"), key=lambda m: m.id)


def customer_texts(ctx: CheckContext, ticket_id: str) -> list[str]:
    """What the customer wrote on the ticket and the tickets merged with it (its thread, not the world)."""
    ticket = ctx.final.get(TICKETS, ticket_id)
    if ticket is None:
        return []
    messages = ctx.final.table(MESSAGES)
    return [m.body for t in related_tickets(ctx.final, ticket) for mid in t.message_ids
            if (m := messages.get(mid)) is not None and m.author_kind == "customer"]


def episode_facts(ctx: CheckContext, ticket_id: str) -> ReplyFacts:
    """What the episode's public replies on the ticket (and tickets merged with it) state, read together."""
    return replies_facts(m.body for m in episode_replies(ctx, ticket_id))


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
