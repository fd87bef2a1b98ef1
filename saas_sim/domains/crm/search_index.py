"""The CRM's secondary indexes and list orders, used by its search and filter tools.

Each big table has one `Index` whose keys are its equality filters, as
`(field, value)` pairs, and, where a tool searches free text, a `TextIndex`
over the very text that tool's `Query` looks in (`search_text` of the same
fields), so the records whose text holds every query word are a superset of
the matches; the tools then apply their exact predicate (see
`saas_sim.core.indexes`).

Each `Order` is a tool's documented sort key, so a listing reads a cached
sequence instead of sorting the table per call.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable
from typing import Any

from saas_sim.core.indexes import Index, Order, TextIndex
from saas_sim.domains.crm.matching import fold, phone_digits, search_text
from saas_sim.domains.crm.models import Account, Activity, Contact, Deal, Lead
from saas_sim.domains.crm.pipeline import is_open
from saas_sim.domains.crm.state import ACCOUNTS, ACTIVITIES, CONTACTS, DEALS, LEADS

__all__ = [
    "ACCOUNT_INDEX",
    "ACCOUNT_ORDER",
    "ACCOUNT_TEXT",
    "ACTIVITY_INDEX",
    "ACTIVITY_ORDER",
    "CONTACT_INDEX",
    "CONTACT_ORDER",
    "CONTACT_TEXT",
    "DEAL_INDEX",
    "DEAL_ORDERS",
    "INDEXES",
    "LEAD_INDEX",
    "LEAD_ORDER",
    "LEAD_TEXT",
]


_FAR = "9999-12-31"


def deal_key(sort: str, d: Deal) -> tuple[str | int | float, ...]:
    """`crm.search_deals`' sort key for its `sort` argument (ties break by id)."""
    if sort == "close_date":
        return (d.close_date.isoformat() if d.close_date else _FAR, d.id)
    if sort == "amount_desc":
        return (-(float(d.amount) if d.amount is not None else -1.0), d.id)
    if sort == "last_activity":
        return (d.last_activity_at.isoformat() if d.last_activity_at else "", d.id)
    return (d.id,)


def contact_text(c: Contact) -> str:
    """The text `crm.search_contacts` looks in, with the phone digits it adds for a query with digits."""
    return search_text(c.first_name, c.last_name, c.email, c.secondary_email, c.title, phone_digits(c.phone))


def _contact_keys(c: Contact) -> list[Hashable]:
    return [("account", c.account_id), ("owner", c.owner_id), ("consent", c.consent),
            ("live", c.merged_into is None)]


def _lead_keys(ld: Lead) -> list[Hashable]:
    return [("status", ld.status), ("source", ld.source), ("owner", ld.owner_id)]


def _account_keys(a: Account) -> list[Hashable]:
    return [("territory", a.territory), ("owner", a.owner_id), ("industry", fold(a.industry or ""))]


def _deal_keys(d: Deal) -> list[Hashable]:
    return [("account", d.account_id), ("owner", d.owner_id), ("stage", d.stage), ("currency", d.currency),
            ("open", is_open(d.stage)), ("primary_contact", d.primary_contact_id)]


def _activity_keys(a: Activity) -> list[Hashable]:
    return [("contact", a.contact_id), ("deal", a.deal_id), ("account", a.account_id), ("kind", a.kind),
            ("direction", a.direction)]


CONTACT_INDEX: Index[Contact] = Index(CONTACTS.name, "filters", _contact_keys)
CONTACT_TEXT: TextIndex[Contact] = TextIndex(CONTACTS.name, "text", contact_text)
CONTACT_ORDER: Order[Contact] = Order(CONTACTS.name, "last,first,id",
                                      lambda c: (fold(c.last_name), fold(c.first_name), c.id))
LEAD_INDEX: Index[Lead] = Index(LEADS.name, "filters", _lead_keys)
LEAD_TEXT: TextIndex[Lead] = TextIndex(LEADS.name, "text",
                                       lambda ld: search_text(ld.first_name, ld.last_name, ld.email, ld.company))
LEAD_ORDER: Order[Lead] = Order(LEADS.name, "newest", lambda ld: (-int(ld.created_at.timestamp()), ld.id))
ACCOUNT_INDEX: Index[Account] = Index(ACCOUNTS.name, "filters", _account_keys)
ACCOUNT_TEXT: TextIndex[Account] = TextIndex(ACCOUNTS.name, "text", lambda a: search_text(a.name, a.domain, a.city))
ACCOUNT_ORDER: Order[Account] = Order(ACCOUNTS.name, "name,id", lambda a: (fold(a.name), a.id))
DEAL_INDEX: Index[Deal] = Index(DEALS.name, "filters", _deal_keys)
ACTIVITY_INDEX: Index[Activity] = Index(ACTIVITIES.name, "filters", _activity_keys)
ACTIVITY_ORDER: Order[Activity] = Order(ACTIVITIES.name, "newest", lambda a: (-int(a.occurred_at.timestamp()), a.id))

DEAL_ORDERS: dict[str, Order[Deal]] = {
    sort: Order(DEALS.name, f"sort={sort}", functools.partial(deal_key, sort))
    for sort in ("id", "close_date", "amount_desc", "last_activity")
}
"""`crm.search_deals`' orders, by its `sort` argument."""

INDEXES: tuple[Index[Any] | TextIndex[Any] | Order[Any], ...] = (
    CONTACT_INDEX, CONTACT_TEXT, CONTACT_ORDER, LEAD_INDEX, LEAD_TEXT, LEAD_ORDER,
    ACCOUNT_INDEX, ACCOUNT_TEXT, ACCOUNT_ORDER,
    DEAL_INDEX, *DEAL_ORDERS.values(), ACTIVITY_INDEX, ACTIVITY_ORDER,
)
"""Everything a CRM world prewarms (`saas_sim.core.indexes.prewarm`)."""
