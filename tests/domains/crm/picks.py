"""Pick well-defined records from a generated world for tool tests (always the lowest id that fits)."""

from __future__ import annotations

from saas_sim.core.state import State
from saas_sim.domains.crm.models import Contact, Deal, Lead, Task
from saas_sim.domains.crm.state import CONTACTS, DEALS, LEADS, PERSON_TRUTH, TASKS
from tests.domains.helpers import first as first


def contact(state: State, consent: str = "subscribed") -> Contact:
    truth = state.table(PERSON_TRUTH)

    def ok(c: Contact) -> bool:
        t = truth.get(c.id)
        return (
            c.consent == consent and c.email is not None and c.merged_into is None
            and c.account_id is not None and t is not None and t.variant_of is None and t.false_friend_of is None
        )

    return first(state, CONTACTS, ok)


def colleague(state: State, c: Contact) -> Contact:
    return first(state, CONTACTS, lambda o: o.account_id == c.account_id and o.id != c.id
                 and o.last_name.casefold() != c.last_name.casefold() and o.merged_into is None)


def variant_pair(state: State) -> tuple[Contact, Contact]:
    t = first(state, PERSON_TRUTH, lambda t: t.variant_of is not None)
    dup = state.get(CONTACTS, t.id)
    base = state.get(CONTACTS, t.variant_of or "")
    assert dup is not None and base is not None
    return base, dup


def deal(state: State, stage: str, *, items: bool | None = None) -> Deal:
    return first(state, DEALS, lambda d: d.stage == stage and d.primary_contact_id is not None
                 and (items is None or bool(d.line_item_ids) == items))


def task(state: State, status: str) -> Task:
    return first(state, TASKS, lambda t: t.status == status)


def lead(state: State) -> Lead:
    return first(state, LEADS, lambda ld: ld.status != "converted")
