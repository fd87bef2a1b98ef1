"""Customers as real-world people: every record that shares a normalized e-mail or phone is one person.

A second-address alias record, or a record the agent's actions led to, is the
same person as the original. Checks about "the customer" (what they were paid,
whose orders were touched) ask this module, never a record id alone.
"""

from __future__ import annotations

from decimal import Decimal

from saas_sim.core.identity import IdentityIndex, normalize_email, normalize_phone
from saas_sim.core.key_groups import groups_view
from saas_sim.core.state import State
from saas_sim.domains.support.models import Customer
from saas_sim.domains.support.state import CUSTOMERS, ORDERS, REFUNDS, STORE_CREDITS

__all__ = ["PEOPLE", "compensation", "identity", "person_records"]


def _phone(c: Customer) -> str:
    """The phone as the index reads it: in E.164 by the record's own country when it parses so."""
    return normalize_phone(c.phone, c.country) or c.phone


def identity(state: State) -> IdentityIndex:
    """Returns the identity index over every customer record of `state`. O(customers): for audits and tests.

    Phones are normalized with each record's own country, so a local number
    groups with the same number written in international form.
    """
    return IdentityIndex.of((c.id, (c.email,), (_phone(c),)) for c in state.table(CUSTOMERS))


def _identity_keys(state: State, customer_id: str) -> list[str] | None:
    """A customer's keys exactly as `identity` reads them: its normalized email and phone."""
    c = state.get(CUSTOMERS, customer_id)
    if c is None:
        return None
    keys = [f"e:{e}"] if c.email and (e := normalize_email(c.email)) else []
    phone = _phone(c)
    if phone and (p := normalize_phone(phone)):
        keys.append(f"p:{p}")
    return keys


PEOPLE = groups_view("support.people", (CUSTOMERS,), lambda s: s.table(CUSTOMERS).ids(), _identity_keys)
"""Every customer record of a state grouped into people: `identity`'s entities, kept in O(changes) per state."""


def person_records(state: State, customer_id: str) -> frozenset[str]:
    """Returns the ids of every customer record of the person behind `customer_id`."""
    if state.get(CUSTOMERS, customer_id) is None:
        return frozenset({customer_id})
    return PEOPLE.of(state).group(customer_id) or frozenset({customer_id})


def compensation(state: State, customer_id: str, *, refund_ids: set[str], credit_ids: set[str]) -> Decimal:
    """Returns the refunds and store credits among the given ids that went to the person behind `customer_id`."""
    records = person_records(state, customer_id)
    orders = state.table(ORDERS)
    total = Decimal("0")
    for rid in sorted(refund_ids):
        r = state.get(REFUNDS, rid)
        if r is not None and (o := orders.get(r.order_id)) is not None and o.customer_id in records:
            total += r.amount
    for cid in sorted(credit_ids):
        c = state.get(STORE_CREDITS, cid)
        if c is not None and c.customer_id in records:
            total += c.amount
    return total
