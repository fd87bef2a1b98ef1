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
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from saas_sim.core.identity import IdentityIndex, normalize_company, url_domain
from saas_sim.core.state import State
from saas_sim.domains.crm.models import Account, Contact
from saas_sim.domains.crm.state import ACCOUNTS, CONTACTS, PERSON_TRUTH

__all__ = ["Companies", "People"]


@dataclass(frozen=True)
class People:
    """The real people behind every contact record of a state."""

    _by_key: dict[str, frozenset[str]]

    @classmethod
    def of(cls, contacts: Iterable[Contact], state: State) -> People:
        """Groups `contacts` into people, using the ground truth of `state` where it knows the record."""
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
        """Groups every contact of `final` (merged ones included), plus `extra` records, into people."""
        seen = {c.id: c for c in final.table(CONTACTS)}
        for c in extra:
            seen.setdefault(c.id, c)
        return cls.of(seen.values(), final)

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


@dataclass(frozen=True)
class Companies:
    """The real companies behind the accounts of a state: accounts sharing a normalized name or domain."""

    _keys: dict[str, frozenset[str]]

    @classmethod
    def of(cls, accounts: Iterable[Account]) -> Companies:
        """Indexes accounts by their normalized name and domain."""
        keys: dict[str, set[str]] = {}
        for a in sorted(accounts, key=lambda a: a.id):
            for k in _account_keys(a):
                keys.setdefault(k, set()).add(a.id)
        return cls({k: frozenset(v) for k, v in keys.items()})

    @classmethod
    def of_state(cls, state: State) -> Companies:
        """Indexes every account of a state."""
        return cls.of(state.table(ACCOUNTS))

    def matches(self, account: Account) -> list[str]:
        """Returns the ids of indexed accounts that are the same company as `account` (itself excluded)."""
        found: set[str] = set()
        for k in _account_keys(account):
            found |= self._keys.get(k, frozenset())
        found.discard(account.id)
        return sorted(found)
