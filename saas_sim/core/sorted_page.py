"""One page of a list that is already in its sort order: `Page.of` without the sort.

`Page.of` sorts every match on every call. A list read from a table's cached
order (`Table.ordered`) is sorted already, so this finds the page by bisection
and counts the total without sorting again. The result is the one `Page.of`
gives for the same items, byte for byte; a cursor whose key parts cannot be
compared with the sort key's (a forged one) takes `Page.of`'s own path, so it
is refused the same way.

With a tie salt (`ties`), records whose keys differ only in the id follow
`tied_key`'s order: the cached sequence is in key order, so each run of equal
keys but for the id is re-sorted by its tie ranks as the page walks it (runs
are short: records of one name).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from numbers import Real
from typing import Any, TypeVar

from saas_sim.core.paging import Page, PageArgs, SortKey, decode_cursor, encode_cursor, tied_key

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
    ties: str | None = None,
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
        ties: The episode's tie salt (`Page.of`'s `ties`); `keyed` stays in the order without it.
    """
    bound = args.filters() if query is None else query
    after = decode_cursor(args.cursor, bound) if args.cursor else None
    if member is not None and total is None:
        raise ValueError("presorted_page: member needs total")
    if ties is not None and keyed and len(keyed[0][0]) > 1:
        return _tied_page(page_cls, keyed, sort_key, args, ties, after, bound,
                          member=member, total=total, view=view, query=query)
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
    return _finish(page_cls, chunk, more, bound, len(keyed) if member is None else total, view)


def _tied_page(
    page_cls: type[P],
    keyed: Sequence[tuple[SortKey, Any]],
    sort_key: Callable[[Any], SortKey],
    args: PageArgs,
    ties: str,
    after: SortKey | None,
    bound: dict[str, Any],
    *,
    member: Callable[[Any], bool] | None,
    total: int | None,
    view: Callable[[Any], Any] | None,
    query: dict[str, Any] | None,
) -> P:
    """`presorted_page` with ties: walks runs of keys equal but for the id, each sorted by `tied_key`."""
    width = len(keyed[0][0])
    if after is not None and (len(after) != width + 1 or not _comparable(after, tied_key(keyed[0][0], ties))):
        items = [item for _, item in keyed if member is None or member(item)]
        return page_cls.of(items, sort_key, args, view=view, query=query, ties=ties)
    # The run of the cursor's record starts at the first key not below its key without the tie and the id.
    at = 0 if after is None else bisect.bisect_left(keyed, after[:-2], key=_first)
    limit, end = args.limit, len(keyed)
    chunk: list[tuple[SortKey, Any]] = []
    more = False
    while at < end and not more:
        key, item = keyed[at]
        at += 1
        if member is not None and not member(item):
            continue
        # The run: this member and the next ones whose keys are equal but for the id.
        head = key[:-1]
        members = [(key, item)]
        while at < end and keyed[at][0][:-1] == head:
            if member is None or member(keyed[at][1]):
                members.append(keyed[at])
            at += 1
        run = sorted(((tied_key(k, ties), i) for k, i in members), key=_first)
        for pair in run:
            if after is not None and pair[0] <= after:
                continue
            if len(chunk) == limit:
                more = True
                break
            chunk.append(pair)
    return _finish(page_cls, chunk, more, bound, len(keyed) if member is None else total, view)


def _finish(page_cls: type[P], chunk: list[tuple[SortKey, Any]], more: bool, bound: dict[str, Any],
            count: int | None, view: Callable[[Any], Any] | None) -> P:
    """The page model of `chunk`, with a cursor after its last key when `more` records follow."""
    next_key = chunk[-1][0] if more and chunk else None
    items = [item for _, item in chunk]
    shown = [view(i) for i in items] if view is not None else items
    cursor = None if next_key is None else encode_cursor(next_key, bound)
    return page_cls.model_validate({"items": shown, "next_cursor": cursor, "total": count})


def _first(pair: tuple[SortKey, Any]) -> SortKey:
    return pair[0]
