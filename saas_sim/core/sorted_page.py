"""One page of a list that is already in its sort order: `Page.of` without the sort.

`Page.of` sorts every match on every call. A list read from a table's cached
order (`Table.ordered`) is sorted already, so this finds the page by bisection
and counts the total without sorting again. The result is the one `Page.of`
gives for the same items, byte for byte; a cursor whose key parts cannot be
compared with the sort key's (a forged one) takes `Page.of`'s own path, so it
is refused the same way.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from numbers import Real
from typing import Any, TypeVar

from saas_sim.core.paging import Page, PageArgs, SortKey, decode_cursor, encode_cursor

__all__ = ["presorted_page"]

P = TypeVar("P", bound=Page[Any])


def _comparable(after: SortKey, key: SortKey) -> bool:
    """Whether every part of `after` compares with `key`'s part at its place without a TypeError."""
    for a, k in zip(after, key, strict=False):
        if isinstance(a, str) and isinstance(k, str):
            continue
        if isinstance(a, Real) and isinstance(k, Real):
            continue
        return False
    return True


def presorted_page(
    page_cls: type[P],
    keyed: Sequence[tuple[SortKey, Any]],
    sort_key: Callable[[Any], SortKey],
    args: PageArgs,
    *,
    member: Callable[[Any], bool] | None = None,
    total: int | None = None,
    view: Callable[[Any], Any] | None = None,
    query: dict[str, Any] | None = None,
) -> P:
    """Returns `page_cls.of(items, sort_key, args, ...)` for items already sorted.

    Args:
        page_cls: The tool's `Page` subclass.
        keyed: `(json_key(sort_key(item)), item)` pairs in ascending key order, keys unique.
        sort_key: The list's sort key (used only when a cursor must take `Page.of`'s path).
        args: The call's paging arguments.
        member: When given, the list is only the items of `keyed` for which it is true, and
            `total` says how many there are: the page is found by walking from the cursor,
            without filtering the rest.
        total: How many items `member` accepts (required with `member`).
        view: Turns an item into the page's item model.
        query: The filters the cursor is bound to, when they are not just the arguments.
    """
    bound = args.filters() if query is None else query
    after = decode_cursor(args.cursor, bound) if args.cursor else None
    if member is not None and total is None:
        raise ValueError("presorted_page: member needs total")
    if after is not None and keyed and not _comparable(after, keyed[0][0]):
        items = [item for _, item in keyed if member is None or member(item)]
        return page_cls.of(items, sort_key, args, view=view, query=query)
    # keyset_page's scan stops at the first key greater than `after`: bisect_right finds it.
    start = 0 if after is None else bisect.bisect_right(keyed, after, key=_first)
    limit = args.limit
    if member is None:
        chunk = list(keyed[start:start + limit])
        more = start + limit < len(keyed)
    else:
        # The filtered list's page after `after` is the next `limit` members; more follow when one more exists.
        chunk, more, at, end = [], False, start, len(keyed)
        while at < end:
            pair = keyed[at]
            at += 1
            if member(pair[1]):
                if len(chunk) == limit:
                    more = True
                    break
                chunk.append(pair)
    next_key = chunk[-1][0] if more and chunk else None
    items = [item for _, item in chunk]
    shown = [view(i) for i in items] if view is not None else items
    cursor = None if next_key is None else encode_cursor(next_key, bound)
    count = len(keyed) if member is None else total
    return page_cls.model_validate({"items": shown, "next_cursor": cursor, "total": count})


def _first(pair: tuple[SortKey, Any]) -> SortKey:
    return pair[0]
