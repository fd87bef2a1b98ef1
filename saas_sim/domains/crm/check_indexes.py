"""Per-state lookups the CRM checks need, kept in O(changes): records by person, account, contact and deal.

Each is a `core.key_groups.index_view` (a `core.derived.Derived`): built once on
a world and patched from the records an episode changed, so a check that asks
"every record of this person" or "the deals of this buyer" reads a few entries
instead of scanning a table of the world.
"""

from __future__ import annotations

from saas_sim.core.key_groups import index_view
from saas_sim.domains.crm.state import ACTIVITIES, CONTACTS, DEALS, PERSON_TRUTH, TASKS

__all__ = [
    "ACTIVITIES_BY_DEAL", "CONTACTS_BY_ACCOUNT", "DEALS_BY_PRIMARY_CONTACT", "INDEX_VIEWS", "RECORDS_BY_PERSON",
    "TASKS_BY_DEAL",
]

RECORDS_BY_PERSON = index_view("crm.records_by_person", PERSON_TRUTH, lambda t: (t.person_key,))
"""Contact ids by their true person key (the hidden ground truth)."""

CONTACTS_BY_ACCOUNT = index_view(
    "crm.contacts_by_account", CONTACTS, lambda c: () if c.account_id is None else (c.account_id,))
"""Contact ids (merged ones included) by account id."""

DEALS_BY_PRIMARY_CONTACT = index_view(
    "crm.deals_by_primary_contact", DEALS, lambda d: () if d.primary_contact_id is None else (d.primary_contact_id,))
"""Deal ids by their primary contact's id."""

TASKS_BY_DEAL = index_view("crm.tasks_by_deal", TASKS, lambda t: () if t.deal_id is None else (t.deal_id,))
"""Task ids (any status) by deal id."""

ACTIVITIES_BY_DEAL = index_view(
    "crm.activities_by_deal", ACTIVITIES, lambda a: () if a.deal_id is None else (a.deal_id,))
"""Activity ids (notes, calls, emails) by deal id."""

INDEX_VIEWS = (RECORDS_BY_PERSON, CONTACTS_BY_ACCOUNT, DEALS_BY_PRIMARY_CONTACT, TASKS_BY_DEAL, ACTIVITIES_BY_DEAL)
"""Every view of this module."""
