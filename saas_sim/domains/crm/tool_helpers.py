"""Helpers shared by the CRM tools: typed table access, errors, text search and cursor pagination.

Pagination follows common SaaS APIs: a list is sorted by a documented key that
always ends with the record id (so it is total and stable), a page holds at
most `limit` items, and `next_cursor` is an opaque string to pass back for the
next page (None on the last page). A cursor encodes the sort key of the last
item returned, so records created between pages never shift later pages.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Self, TypeVar, cast

from pydantic import Field

from saas_sim.core.paging import SortKey, keyset_page
from saas_sim.core.state import Entity, Table, TableKey
from saas_sim.core.tools import ToolArgs, ToolContext, ToolResult
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.models import Contact
from saas_sim.domains.crm.state import CONTACTS, USERS
from saas_sim.errors import ToolError

__all__ = [
    "Page",
    "PageArgs",
    "Query",
    "bad_args",
    "clean",
    "live_contact",
    "matches_query",
    "require",
    "require_user",
    "table",
]

T = TypeVar("T", bound=Entity)


class PageArgs(ToolArgs):
    """Pagination arguments shared by every list and search tool."""

    limit: int = Field(default=20, ge=1, le=100, description="Maximum number of items to return (1-100).")
    cursor: str | None = Field(
        default=None,
        max_length=512,
        description="The `next_cursor` of the previous page, to fetch the next one. Omit for the first page.",
    )


def table(ctx: ToolContext, key: TableKey[T]) -> Table[T]:
    """Returns a visible table, typed."""
    return cast(Table[T], ctx.table(key))


def require(ctx: ToolContext, key: TableKey[T], entity_id: str, what: str, field: str | None = None) -> T:
    """Returns the record `entity_id` of `key`, or raises `not_found` naming it."""
    entity = table(ctx, key).get(entity_id)
    if entity is None:
        details: dict[str, Any] = {"id": entity_id}
        if field is not None:
            details["fields"] = [field]
        raise ToolError("not_found", f"{what} {entity_id} does not exist", details=details)
    return entity


def live_contact(ctx: ToolContext, contact_id: str, field: str = "contact_id", *,
                 hint: str = "; use that record") -> Contact:
    """Returns a contact that was not merged away: `not_found`, or `conflict` naming the surviving record.

    `hint` ends the conflict message (the deal tools have always said less).
    """
    contact = require(ctx, CONTACTS, contact_id, "contact", field)
    if contact.merged_into is not None:
        raise ToolError("conflict", f"contact {contact_id} was merged into {contact.merged_into}{hint}",
                        details={"merged_into": contact.merged_into, "fields": [field]})
    return contact


def require_user(ctx: ToolContext, user_id: str, field: str = "owner_id") -> None:
    """Raises `not_found` unless `user_id` is an active user."""
    user = table(ctx, USERS).get(user_id)
    if user is None or not user.active:
        raise ToolError("not_found", f"user {user_id} does not exist", details={"id": user_id, "fields": [field]})


def bad_args(message: str, fields: Sequence[str], **extra: Any) -> ToolError:
    """Returns an `invalid_argument` error naming the offending field paths."""
    return ToolError("invalid_argument", message, details={"fields": list(fields), **extra})


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
        raw = " ".join(h for h in haystack if h)
        text = raw.lower() if raw.isascii() else fold(raw)
        return all(term in text for term in self.terms)


def matches_query(query: str | None, haystack: Iterable[str | None]) -> bool:
    """Returns whether every word of `query` occurs in the haystack (case- and accent-insensitive)."""
    return Query(query)(*haystack)


def _encode(key: SortKey) -> str:
    raw = json.dumps(list(key), separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _decode(cursor: str) -> SortKey:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        value = json.loads(base64.urlsafe_b64decode(padded.encode()).decode())
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise bad_args("cursor is not a cursor this tool returned", ["cursor"]) from None
    if not isinstance(value, list) or not value:
        raise bad_args("cursor is not a cursor this tool returned", ["cursor"])
    return tuple(value)


class Page(ToolResult):
    """Common fields of a page of results; each list tool's page adds its `items`."""

    next_cursor: str | None = Field(description="Pass as `cursor` to get the next page; null on the last page.")
    total: int = Field(description="How many records match the filters, across all pages.")

    @classmethod
    def of(cls, items: Iterable[T], sort_key: Callable[[T], SortKey], args: PageArgs) -> Self:
        """Sorts `items`, keeps the page `args` asks for and returns it as this page model.

        `sort_key` must return a tuple of JSON scalars ending with the record id.
        The cursor is the last returned key, as compact JSON in unpadded URL-safe base64.
        """
        after = _decode(args.cursor) if args.cursor else None
        try:
            page, next_key, total = keyset_page(items, sort_key, after, args.limit)
        except TypeError:
            raise bad_args("cursor does not belong to this list", ["cursor"]) from None
        cursor = None if next_key is None else _encode(next_key)
        return cls.model_validate({"items": page, "next_cursor": cursor, "total": total})
