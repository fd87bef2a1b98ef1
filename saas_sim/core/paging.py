"""Keyset pagination: one page of a sorted list, after the last key the caller saw.

A list tool sorts its matches by a documented key that ends in the record id,
so the order is total and stable. A page holds at most `limit` items whose key
is greater than the key of the last item the caller already has. Because the
position is a key and not an offset, records created between two calls never
shift or repeat the pages after them.

Records whose keys are equal but for the id (two accounts of one name) are
ties, and the id order would tell them apart: a record staged beside a real
one always has the higher id. So a tool passes its episode's tie salt
(`ToolContext.ties`), and a tie is ordered by `tie_rank(salt, id)` (a sha256,
`saas_sim.core.rng`) before the id: a fixed order within an episode, the same
on every backend and after a replay, that says nothing about which record
came first. A key that is the id alone has no ties and keeps the id order.

This module is also the one paging convention agents see in every domain
(docs/conventions.md): list tools take `PageArgs` (`limit`, default 20, and
`cursor`) and return a `Page` subclass `{items, next_cursor, total}`. A cursor
is opaque: the last key plus a fingerprint of the call's filters, so a cursor
passed with other filters is refused as `invalid_argument` naming `cursor`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, Generic, Self, TypeVar

from pydantic import ConfigDict, Field

from saas_sim.core.rng import tie_rank
from saas_sim.core.tool_errors import bad_args
from saas_sim.core.tools import ToolArgs, ToolResult

__all__ = [
    "DEFAULT_PAGE_SIZE",
    "MAX_PAGE_SIZE",
    "Page",
    "PageArgs",
    "SortKey",
    "decode_cursor",
    "encode_cursor",
    "json_key",
    "keyset_page",
    "tied_key",
]

T = TypeVar("T")

SortKey = tuple[Any, ...]
"""A sort key: a tuple of JSON scalars ending in a unique id."""


def json_key(key: SortKey) -> SortKey:
    """Returns `key` with its datetimes written as ISO-8601 text, so it survives a JSON round trip."""
    return tuple(v.isoformat() if isinstance(v, datetime) else v for v in key)


def tied_key(key: SortKey, ties: str | None) -> SortKey:
    """Returns `key` with the tie rank of its id (`tie_rank(ties, id)`) put before the id.

    Without a salt, or for a key that is the id alone, the key is returned as it is.
    """
    if ties is None or len(key) < 2:
        return key
    return (*key[:-1], tie_rank(ties, str(key[-1])), key[-1])


def keyset_page(
    items: Iterable[T], key: Callable[[T], SortKey], after: SortKey | None, limit: int
) -> tuple[list[T], SortKey | None, int]:
    """Sorts `items` by `key` and returns the page that follows `after`.

    Args:
        items: Every matching item, in any order.
        key: The sort key of an item (see `SortKey`). Datetimes in it compare as ISO text.
        after: The key of the last item of the previous page, or None for the first page.
        limit: The most items a page holds (at least 1).

    Returns:
        `(page, next_key, total)`: the items of this page in order; the key of its last
        item when more items follow (pass it back as `after`), else None; and how many
        items there are across all pages.

    Raises:
        TypeError: `after` cannot be compared with the keys (it came from another list).
    """
    keyed = sorted(((json_key(key(i)), i) for i in items), key=lambda pair: pair[0])
    total = len(keyed)
    start = 0
    if after is not None:
        while start < total and keyed[start][0] <= after:
            start += 1
    page = keyed[start : start + limit]
    more = start + limit < total
    return [i for _, i in page], (page[-1][0] if more and page else None), total


DEFAULT_PAGE_SIZE = 20
"""Items on a page when the agent does not say (`limit`), in every domain."""
MAX_PAGE_SIZE = 100
"""The most items one page may hold."""

ItemT = TypeVar("ItemT")

_BAD_CURSOR = "cursor is invalid or belongs to a different query; start without it"


def _paging_last(schema: dict[str, Any]) -> None:
    """Lists a tool's own filters first and `limit`, `cursor` last, in every domain's schema."""
    props = schema.get("properties")
    if isinstance(props, dict):
        schema["properties"] = {k: v for k, v in props.items() if k not in _PAGING} | {
            k: props[k] for k in _PAGING if k in props
        }
    required = schema.get("required")
    if isinstance(required, list):
        schema["required"] = [k for k in required if k not in _PAGING] + [k for k in _PAGING if k in required]


_PAGING = ("limit", "cursor")


class PageArgs(ToolArgs):
    """Pagination arguments shared by every list and search tool of every domain.

    A subclass adds its filters; the exported schema lists them before `limit` and `cursor`.
    """

    model_config = ConfigDict(**ToolArgs.model_config, json_schema_extra=_paging_last)

    limit: int = Field(
        default=DEFAULT_PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE,
        description=f"Maximum number of items to return (1-{MAX_PAGE_SIZE}, default {DEFAULT_PAGE_SIZE}).",
    )
    cursor: str | None = Field(
        default=None,
        max_length=512,
        description="The `next_cursor` of the previous page, to fetch the next one. Omit for the first page.",
    )

    def filters(self) -> dict[str, Any]:
        """The filters of this call: every argument but `cursor` and `limit` (a cursor is bound to them)."""
        return self.model_dump(mode="json", exclude={"cursor", "limit"})


def _fingerprint(query: Mapping[str, Any]) -> str:
    raw = json.dumps(query, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(raw.encode()).hexdigest()[:12]


def encode_cursor(key: SortKey, query: Mapping[str, Any]) -> str:
    """Returns the opaque cursor for "after `key`, in the list `query` selects".

    The cursor is compact JSON `{"k": key, "q": fingerprint of query}` in unpadded URL-safe base64.
    """
    raw = json.dumps({"k": list(key), "q": _fingerprint(query)}, separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str, query: Mapping[str, Any]) -> SortKey:
    """Returns the sort key a cursor holds.

    Raises:
        ToolError: `invalid_argument` naming `cursor` when it is not a cursor of this query's list.
    """
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        value = json.loads(base64.urlsafe_b64decode(padded.encode()).decode())
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise bad_args(_BAD_CURSOR, ["cursor"]) from None
    if not isinstance(value, dict) or value.get("q") != _fingerprint(query):
        raise bad_args(_BAD_CURSOR, ["cursor"])
    key = value.get("k")
    if not isinstance(key, list) or not key or any(isinstance(part, dict | list) for part in key):
        raise bad_args(_BAD_CURSOR, ["cursor"])
    return tuple(key)


class Page(ToolResult, Generic[ItemT]):
    """One page of a list: `items`, the cursor of the next page, and the total across pages.

    Every list and search tool of every domain returns a subclass (`class DealPage(Page[DealSummary])`).
    """

    items: list[ItemT] = Field(description="The records of this page, in the list's documented order.")
    next_cursor: str | None = Field(description="Pass as `cursor` to get the next page; null on the last page.")
    total: int = Field(description="How many records match the filters, across all pages.")

    @classmethod
    def of(
        cls,
        items: Iterable[Any],
        sort_key: Callable[[Any], SortKey],
        args: PageArgs,
        *,
        view: Callable[[Any], Any] | None = None,
        query: Mapping[str, Any] | None = None,
        ties: str | None = None,
    ) -> Self:
        """Sorts `items`, keeps the page `args` asks for and returns it as this page model.

        Args:
            items: Every matching record, in any order.
            sort_key: A tuple of JSON scalars ending with the record id (see `keyset_page`).
            args: The call's arguments; the cursor is bound to its filters (`PageArgs.filters`).
            view: Turns a record into the page's item model (default: the record itself).
            query: The filters to bind the cursor to, when they are not just the arguments.
            ties: The episode's tie salt (`ToolContext.ties`): records whose keys differ only in the id
                follow `tie_rank(ties, id)`, then the id (`tied_key`). None keeps the id order.

        Raises:
            ToolError: `invalid_argument` naming `cursor` for a cursor of another list or query.
        """
        bound = args.filters() if query is None else query
        after = decode_cursor(args.cursor, bound) if args.cursor else None
        try:
            key = sort_key if ties is None else (lambda i: tied_key(json_key(sort_key(i)), ties))
            chunk, next_key, total = keyset_page(items, key, after, args.limit)
        except TypeError:  # a forged cursor whose key parts have other types than the sort key's
            raise bad_args(_BAD_CURSOR, ["cursor"]) from None
        shown = [view(i) for i in chunk] if view is not None else chunk
        cursor = None if next_key is None else encode_cursor(next_key, bound)
        return cls.model_validate({"items": shown, "next_cursor": cursor, "total": total})
