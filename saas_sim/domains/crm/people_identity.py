"""Who is who in a CRM state: contact records grouped into real people, accounts into real companies.

Checks judge people and companies as real-world entities, never by the record
ids that were special at the start (docs/grading.md, "Identity"). A person is
the union of:

* records sharing a normalized email or phone (`core.identity.IdentityIndex`,
  transitively), which also covers records the agent created in the episode;
* records the hidden ground truth (`PERSON_TRUTH`) says are one person, which
  covers duplicates with no shared email or phone (a nickname at the same
  account, a personal address).

A company is the set of accounts sharing a normalized name or web domain.

Both are whole-table views, kept per state as `core.derived.Derived` values
(`core.key_groups`): computed once on a world and patched per episode from the
records that changed, so a grade pays for its changes, not for the world.
`People.of` and `Companies.of` compute them from a list of records in full; the
views equal them (tests/domains/crm/test_people_views.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from saas_sim.core.derived import Derived
from saas_sim.core.identity import IdentityIndex, normalize_company, normalize_email, normalize_phone, url_domain
from saas_sim.core.key_groups import KeyIndex, groups_view, index_view
from saas_sim.core.state import State
from saas_sim.domains.crm.check_indexes import INDEX_VIEWS
from saas_sim.domains.crm.models import Account, Contact
from saas_sim.domains.crm.state import ACCOUNTS, CONTACTS, PERSON_TRUTH

__all__ = ["CHECK_VIEWS", "LIVE_IDENTITY", "Companies", "People", "contact_identity_keys"]


def contact_identity_keys(c: Contact) -> list[str]:
    """Returns the normalized emails (`e:`) and phone (`p:`) a contact is found under, as `IdentityIndex` reads them."""
    keys = [f"e:{e}" for e in (normalize_email(x) for x in (c.email, c.secondary_email) if x) if e]
    phone = normalize_phone(c.phone) if c.phone else None
    if phone:
        keys.append(f"p:{phone}")
    return keys


def _person_keys(state: State, contact_id: str) -> list[str] | None:
    """A record's keys as a person: its identity keys and its true person (its own id when the truth has none)."""
    c = state.get(CONTACTS, contact_id)
    if c is None:
        return None
    truth = state.get(PERSON_TRUTH, contact_id)
    return [*contact_identity_keys(c), f"t:{truth.person_key if truth is not None else contact_id}"]


def _live_identity_keys(state: State, contact_id: str) -> list[str] | None:
    c = state.get(CONTACTS, contact_id)
    return None if c is None or c.merged_into is not None else contact_identity_keys(c)


_PEOPLE = groups_view("crm.people", (CONTACTS, PERSON_TRUTH), lambda s: s.table(CONTACTS).ids(), _person_keys)
"""Every contact record of a state grouped into people (shared email, phone or true person, transitively)."""

LIVE_IDENTITY = groups_view("crm.live_identity", (CONTACTS,), lambda s: s.table(CONTACTS).ids(), _live_identity_keys)
"""The live (unmerged) contacts of a state grouped by shared normalized email or phone: an `IdentityIndex` of them."""


@dataclass(frozen=True)
class People:
    """The real people behind every contact record of a state."""

    _by_key: Mapping[str, frozenset[str]]

    @classmethod
    def of(cls, contacts: Iterable[Contact], state: State) -> People:
        """Groups `contacts` into people, using the ground truth of `state` where it knows the record. O(records)."""
        records = sorted(contacts, key=lambda c: c.id)
        index = IdentityIndex.of(
            [(c.id, [e for e in (c.email, c.secondary_email) if e], [c.phone] if c.phone else []) for c in records]
        )
        truth_table = state.table(PERSON_TRUTH)
        truth = {c.id: t.person_key for c in records if (t := truth_table.get(c.id)) is not None}
        # Union-find over both relations: shared email/phone, and one true person key.
        parent = {c.id: c.id for c in records}

        def root(x: str) -> str:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        def union(a: str, b: str) -> None:
            ra, rb = root(a), root(b)
            if ra != rb:
                # The lower id wins, so keys do not depend on iteration order.
                parent[max(ra, rb)] = min(ra, rb)

        first_of: dict[str, str] = {}
        for c in records:
            for key in (f"id:{index.entity(c.id)}", f"truth:{truth.get(c.id, c.id)}"):
                if key in first_of:
                    union(first_of[key], c.id)
                else:
                    first_of[key] = c.id
        groups: dict[str, set[str]] = {}
        for c in records:
            groups.setdefault(root(c.id), set()).add(c.id)
        by_key = {k: frozenset(v) for k, v in groups.items()}
        members = {i: by_key[root(i)] for i in parent}
        return cls(members)

    @classmethod
    def of_state(cls, final: State, extra: Iterable[Contact] = ()) -> People:
        """Groups every contact of `final` (merged ones included), plus `extra` records, into people.

        Without `extra` (or when every extra record is still in `final`, whose version wins),
        this is the per-state view, O(changes) since the world.
        """
        table = final.table(CONTACTS)
        gone = [c for c in extra if c.id not in table]
        if gone:
            return cls.of([*table, *gone], final)
        return cls(_PEOPLE.of(final).groups)

    @classmethod
    def of_episode(cls, initial: State, final: State) -> People:
        """`of_state(final, initial's contacts)` in O(changes): a record is evidence of who is who even once gone.

        Only a contact deleted during the episode can add to `final`'s records; without one, this is
        the per-state view of `final`.
        """
        changed = final.changed_since(initial)
        if changed is None:
            return cls.of_state(final, initial.table(CONTACTS))
        after = final.table(CONTACTS)
        gone = [b for k in sorted(changed) if k[0] == "t" and k[1] == CONTACTS.name and k[2] not in after
                and (b := initial.get(CONTACTS, k[2])) is not None]
        if gone:
            return cls.of([*after, *gone], final)
        return cls(_PEOPLE.of(final).groups)

    def records(self, contact_id: str) -> frozenset[str]:
        """Returns every record id of the person behind `contact_id` (itself if unknown)."""
        return self._by_key.get(contact_id, frozenset((contact_id,)))

    def same(self, a: str, b: str) -> bool:
        """Returns whether two contact records are the same person."""
        return b in self.records(a)

    def key(self, contact_id: str) -> str:
        """Returns a stable key of the person: their lowest record id."""
        return min(self.records(contact_id))


def _account_keys(a: Account) -> list[str]:
    keys = [f"name:{normalize_company(a.name)}"] if normalize_company(a.name) else []
    domain = url_domain(a.domain) if a.domain else None
    if domain:
        keys.append(f"domain:{domain}")
    return keys


_COMPANIES = index_view("crm.companies", ACCOUNTS, _account_keys)
"""Every account of a state under its normalized name and web domain."""


@dataclass(frozen=True)
class Companies:
    """The real companies behind the accounts of a state: accounts sharing a normalized name or domain."""

    _index: KeyIndex

    @classmethod
    def of(cls, accounts: Iterable[Account]) -> Companies:
        """Indexes accounts by their normalized name and domain. O(accounts)."""
        return cls(KeyIndex.of((a.id, _account_keys(a)) for a in sorted(accounts, key=lambda a: a.id)))

    @classmethod
    def of_state(cls, state: State) -> Companies:
        """Indexes every account of a state (the per-state view, O(changes) since the world)."""
        return cls(_COMPANIES.of(state))

    def matches(self, account: Account) -> list[str]:
        """Returns the ids of indexed accounts that are the same company as `account` (itself excluded)."""
        found: set[str] = set()
        for k in _account_keys(account):
            found |= self._index.holders(k)
        found.discard(account.id)
        return sorted(found)


CHECK_VIEWS: tuple[Derived[Any], ...] = (_PEOPLE, LIVE_IDENTITY, _COMPANIES, *INDEX_VIEWS)
"""Every per-state view the CRM checks read. Computing them on a world (`view.of(world_state)`, O(size), off
the event loop) spares the first grade of each world that cost; a grade computes any it lacks."""
