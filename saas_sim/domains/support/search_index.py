"""The support desk's secondary indexes and list orders, used by its search and filter tools.

Equality filters are `(field, value)` keys of one `Index` per table; a
customer's name and phone digits are `TextIndex`es over exactly the text
`support.search_customers` compares with. The ticket orders are
`support.list_tickets`' documented sort keys. Tools take candidates from these
and apply their exact predicate (see `saas_sim.core.indexes`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Hashable
from typing import Any

from saas_sim.core.indexes import Index, Order, TextIndex
from saas_sim.domains.support.customer_text import ascii_slug
from saas_sim.domains.support.models import PRIORITY_RANK, Customer, Message, Ticket
from saas_sim.domains.support.models import Order as ShopOrder
from saas_sim.domains.support.plain_text import plain
from saas_sim.domains.support.state import CUSTOMERS, MESSAGES, ORDERS, TICKETS

__all__ = [
    "CUSTOMER_BY_NAME",
    "CUSTOMER_INDEX",
    "CUSTOMER_NAME",
    "CUSTOMER_PHONE",
    "INDEXES",
    "MESSAGE_TEXT",
    "ORDER_INDEX",
    "ORDER_NEWEST",
    "TICKET_INDEX",
    "TICKET_ORDERS",
    "TICKET_TEXT",
    "phone_digits",
    "ticket_sort_key",
]

_FAR = "9999-12-31T23:59:59+00:00"
_NON_DIGIT = re.compile(r"\D")


@functools.lru_cache(maxsize=8192)
def phone_digits(phone: str) -> str:
    """The digits of a phone number, as `support.search_customers` compares them (memoized: checks read
    every customer's)."""
    return _NON_DIGIT.sub("", phone)


def _due(t: Ticket) -> str:
    if t.status in ("solved", "closed"):
        return _FAR
    return (t.first_response_due if t.first_responded_at is None else t.resolution_due).isoformat()


def ticket_sort_key(sort: str) -> Callable[[Ticket], tuple[Any, ...]]:
    """`support.list_tickets`' sort key for its `sort` argument (ties break by id)."""
    if sort == "-created_at":
        return lambda t: (-int(t.created_at.timestamp()), t.id)
    if sort == "sla_due":
        return lambda t: (_due(t), t.id)
    if sort == "priority":
        return lambda t: (PRIORITY_RANK[t.priority], _due(t), t.id)
    return lambda t: (t.created_at.isoformat(), t.id)


def _ticket_keys(t: Ticket) -> list[Hashable]:
    # ("message", id): the tickets whose thread holds a message (a merge moves messages between threads).
    return [("requester", t.requester_id), ("status", t.status), ("priority", t.priority), ("group", t.group),
            ("assignee", t.assignee_id), *(("tag", tag) for tag in t.tags),
            *(("message", mid) for mid in t.message_ids)]


CUSTOMER_INDEX: Index[Customer] = Index(CUSTOMERS.name, "filters", lambda c: [("email", c.email.lower())])
CUSTOMER_NAME: TextIndex[Customer] = TextIndex(CUSTOMERS.name, "name", lambda c: ascii_slug(c.name))
CUSTOMER_PHONE: TextIndex[Customer] = TextIndex(CUSTOMERS.name, "phone", lambda c: phone_digits(c.phone))
CUSTOMER_BY_NAME: Order[Customer] = Order(CUSTOMERS.name, "name,id", lambda c: (ascii_slug(c.name), c.id))
"""`support.search_customers`' order: by name (customers of one name in the episode's tie order)."""
ORDER_INDEX: Index[ShopOrder] = Index(ORDERS.name, "filters",
                                      lambda o: [("customer", o.customer_id), ("number", o.number)])
ORDER_NEWEST: Order[ShopOrder] = Order(ORDERS.name, "newest", lambda o: (-int(o.placed_at.timestamp()), o.id))
TICKET_INDEX: Index[Ticket] = Index(TICKETS.name, "filters", _ticket_keys)
TICKET_TEXT: TextIndex[Ticket] = TextIndex(TICKETS.name, "text", lambda t: plain(f"{t.subject} {t.requester_email}"))
"""A ticket's own searchable text; `support.search_tickets` also looks in its messages (`MESSAGE_TEXT`)."""
MESSAGE_TEXT: TextIndex[Message] = TextIndex(MESSAGES.name, "body", lambda m: plain(m.body))
TICKET_ORDERS: dict[str, Order[Ticket]] = {
    sort: Order(TICKETS.name, f"sort={sort}", ticket_sort_key(sort))
    for sort in ("created_at", "-created_at", "sla_due", "priority")
}
"""`support.list_tickets`' orders, by its `sort` argument."""

INDEXES: tuple[Index[Any] | TextIndex[Any] | Order[Any], ...] = (
    CUSTOMER_INDEX, CUSTOMER_NAME, CUSTOMER_PHONE, CUSTOMER_BY_NAME, ORDER_INDEX, ORDER_NEWEST, TICKET_INDEX,
    TICKET_TEXT, MESSAGE_TEXT, *TICKET_ORDERS.values(),
)
"""Everything a support world prewarms (`saas_sim.core.indexes.prewarm`)."""
