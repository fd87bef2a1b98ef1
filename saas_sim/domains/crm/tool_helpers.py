"""Helpers shared by the CRM tools: typed table access, live records, duplicate conflicts, text and search.

Paging and the agent-facing errors are core conventions (`saas_sim.core.paging`,
`saas_sim.core.tool_errors`); this module holds only what is the CRM's own.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar, cast

from saas_sim.core.state import Entity, Table, TableKey
from saas_sim.core.tool_errors import conflict, not_found, require
from saas_sim.core.tools import ToolContext
from saas_sim.domains.crm.matching import ContactMatch, fold, search_text
from saas_sim.domains.crm.models import Contact
from saas_sim.domains.crm.state import CONTACTS, USERS
from saas_sim.errors import ToolError

__all__ = [
    "Query",
    "clean",
    "contact_conflict",
    "live_contact",
    "matches_query",
    "require_user",
    "table",
]

T = TypeVar("T", bound=Entity)


def table(ctx: ToolContext, key: TableKey[T]) -> Table[T]:
    """Returns a visible table, typed."""
    return cast(Table[T], ctx.table(key))


def live_contact(ctx: ToolContext, contact_id: str, field: str = "contact_id", *,
                 hint: str = "; use that record") -> Contact:
    """Returns a contact that was not merged away: `not_found`, or `conflict` naming the surviving record.

    `hint` ends the conflict message (the deal tools have always said less).
    """
    contact = require(ctx, CONTACTS, contact_id, "contact", field)
    if contact.merged_into is not None:
        raise conflict(f"contact {contact_id} was merged into {contact.merged_into}{hint}", [field],
                       merged_into=contact.merged_into)
    return contact


def require_user(ctx: ToolContext, user_id: str, field: str = "owner_id") -> None:
    """Raises `not_found` unless `user_id` is an active user."""
    user = table(ctx, USERS).get(user_id)
    if user is None or not user.active:
        raise not_found("user", user_id, field)


def contact_conflict(matches: list[ContactMatch]) -> ToolError:
    """Returns the `conflict` error listing probable duplicate contacts (the call as a whole is refused)."""
    return conflict(
        f"{len(matches)} existing contact(s) look like the same person; update one of them, "
        "or pass force=true if you verified this is a different person",
        candidates=[
            {
                "id": m.contact.id,
                "name": f"{m.contact.first_name} {m.contact.last_name}",
                "email": m.contact.email,
                "account_id": m.contact.account_id,
                "reason": m.reason,
            }
            for m in matches
        ],
    )


def clean(value: str | None) -> str | None:
    """Returns `value` with surrounding whitespace removed, or None if it is empty."""
    if value is None:
        return None
    stripped = " ".join(value.split())
    return stripped or None


class Query:
    """A free-text query: every word must occur in a record's text, ignoring case and accents.

    Build it once per call and apply it to each record; ASCII records skip Unicode folding.
    """

    __slots__ = ("has_digits", "terms")

    def __init__(self, query: str | None) -> None:
        self.terms: list[str] = fold(query).split() if query else []
        self.has_digits = any(t.isdigit() for t in self.terms)

    def __call__(self, *haystack: str | None) -> bool:
        if not self.terms:
            return True
        text = search_text(*haystack)
        return all(term in text for term in self.terms)


def matches_query(query: str | None, haystack: Iterable[str | None]) -> bool:
    """Returns whether every word of `query` occurs in the haystack (case- and accent-insensitive)."""
    return Query(query)(*haystack)
