"""Helpers for CRM checks: typed reads of the final state, truth lookups and money parsing."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import TypeVar

from saas_sim.core.domain import CheckContext
from saas_sim.core.state import Entity, State, TableKey
from saas_sim.domains.crm.check_indexes import RECORDS_BY_PERSON
from saas_sim.domains.crm.models import Contact, Deal
from saas_sim.domains.crm.state import CONTACTS, DEALS, PERSON_TRUTH
from saas_sim.errors import VerifierError

__all__ = ["deal", "existing", "money", "person_key", "person_records", "same_person", "wrong_merges"]

E = TypeVar("E", bound=Entity)


def money(value: object) -> Decimal | None:
    """Parses a decimal amount from a string or number; None if it is not one."""
    try:
        parsed = Decimal(str(value).strip().replace(",", ""))
    except (InvalidOperation, ValueError):
        return None
    return parsed if parsed.is_finite() else None


def existing(state: State, key: TableKey[E], entity_id: str, what: str) -> E:
    """Returns a record that must exist (a missing one is a bug in the scenario, not the agent)."""
    found = state.get(key, entity_id)
    if found is None:
        raise VerifierError(f"{what} {entity_id} is not in the state")
    return found


def deal(state: State, deal_id: str) -> Deal:
    """Returns a deal that must exist."""
    return existing(state, DEALS, deal_id, "deal")


def person_key(state: State, contact_id: str) -> str:
    """Returns the true person behind a contact record (the record's own id if unknown)."""
    truth = state.get(PERSON_TRUTH, contact_id)
    return truth.person_key if truth is not None else contact_id


def same_person(state: State, a: str, b: str) -> bool:
    """Returns whether two contact records are truly the same person."""
    return person_key(state, a) == person_key(state, b)


def person_records(state: State, contact_id: str) -> list[Contact]:
    """Returns every record of the person behind `contact_id` (merged ones included), in id order."""
    key = person_key(state, contact_id)
    ids = sorted(RECORDS_BY_PERSON.of(state).holders(key)) or [contact_id]
    return [c for c in (state.get(CONTACTS, i) for i in ids) if c is not None]


def wrong_merges(ctx: CheckContext) -> list[tuple[str, str]]:
    """Returns `(loser, winner)` pairs merged during the episode that are different people."""
    bad: list[tuple[str, str]] = []
    for cid, before, after in ctx.changed(CONTACTS):
        if after is None or after.merged_into is None or (before is not None and before.merged_into):
            continue
        if not same_person(ctx.final, cid, after.merged_into):
            bad.append((cid, after.merged_into))
    return bad
