"""Keyset pagination: one page of a sorted list, after the last key the caller saw.

A list tool sorts its matches by a documented key that ends in the record id,
so the order is total and stable. A page holds at most `limit` items whose key
is greater than the key of the last item the caller already has. Because the
position is a key and not an offset, records created between two calls never
shift or repeat the pages after them.

How that key travels to the agent (an opaque cursor, possibly bound to the
query's filters) is each domain's own wire format; this module never sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any, TypeVar

__all__ = ["SortKey", "json_key", "keyset_page"]

T = TypeVar("T")

SortKey = tuple[Any, ...]
"""A sort key: a tuple of JSON scalars ending in a unique id."""


def json_key(key: SortKey) -> SortKey:
    """Returns `key` with its datetimes written as ISO-8601 text, so it survives a JSON round trip."""
    return tuple(v.isoformat() if isinstance(v, datetime) else v for v in key)


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
