"""Secondary indexes and sort orders of tables: declared by domains, built by `Table` when first used.

An `Index` names a pure function from an entity to the keys it is found under
(equality keys such as `("account", "acc_000042")`); a `TextIndex` names the
text a free-text search looks in; an `Order` names the documented sort key of
a list tool.
Neither holds data: a `Table` builds the structure the first time it is asked
(`Table.matching`, `Table.containing`, `Table.ordered`) and shares it with every table derived from
it, which reads it through an overlay of the ids changed since (see
`saas_sim.core.table`). A world's big tables are built once, off the event
loop, by `prewarm`, so no agent call pays for it.

Search tools use an index for *candidates* (a superset of the matches) and
then apply their exact predicate, so an index can only make a search faster,
never change what it returns. Every lookup is a set of ids with no order;
callers sort what they show (`select_page` does), so nothing depends on
insertion order or a hash seed.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from saas_sim.core.paging import json_key
from saas_sim.core.sorted_page import presorted_page

if TYPE_CHECKING:
    from saas_sim.core.paging import Page, PageArgs, SortKey
    from saas_sim.core.state import Entity, State
    from saas_sim.core.table import Table

__all__ = [
    "SPARSE_SHARE",
    "Constraint",
    "Index",
    "Order",
    "TextIndex",
    "candidates",
    "given_keys",
    "prewarm",
    "select_page",
]

T = TypeVar("T", bound="Entity")
P = TypeVar("P", bound="Page[Any]")


@dataclass(frozen=True, slots=True, eq=False)
class Index(Generic[T]):
    """A secondary index of one table.

    Attributes:
        table: The name of the table it indexes (`TableKey.name`).
        name: Unique among the table's indexes and orders.
        keys: A pure function: the hashable keys an entity is found under (any order, repeats allowed).
    """

    table: str
    name: str
    keys: Callable[[T], Iterable[Hashable]]


@dataclass(frozen=True, slots=True, eq=False)
class Order(Generic[T]):
    """A sort order of one table: the documented sort key of a list tool, ending in the id.

    Attributes:
        table: The name of the table it orders.
        name: Unique among the table's indexes and orders.
        key: A pure function: the entity's sort key (a tuple of JSON scalars or datetimes ending in its id).
    """

    table: str
    name: str
    key: Callable[[T], SortKey]

    def sort_key(self, entity: T) -> SortKey:
        """Returns the entity's key as `Page.of` compares it: datetimes as ISO text (`json_key`)."""
        return json_key(self.key(entity))


@dataclass(frozen=True, slots=True, eq=False)
class TextIndex(Generic[T]):
    """A substring index of one table: the text each entity is searched in.

    `Table.containing` finds the entities whose text contains every given term, with
    one C-level substring search over all texts joined (an entity's text, not its
    words, so a term of any length, even one letter, is found wherever it occurs).

    Attributes:
        table: The name of the table it indexes (`TableKey.name`).
        name: Unique among the table's indexes and orders.
        text: A pure function: the text a search looks in (for candidates: at least all
            the text the tool's own predicate looks in).
    """

    table: str
    name: str
    text: Callable[[T], str]


Constraint = tuple["Index[Any] | TextIndex[Any]", "Sequence[Hashable] | None"]
"""`(index, keys)` for an `Index`, `(text index, terms)` for a `TextIndex`; None or empty constrains nothing."""


def given_keys(**filters: Hashable | None) -> list[tuple[str, Hashable]]:
    """Returns the `(name, value)` equality keys of the filters a call set; None means "not filtering"."""
    return [(name, value) for name, value in filters.items() if value is not None]


def candidates(table: Table[Any], constraints: Sequence[Constraint]) -> frozenset[str] | None:
    """Returns the ids that satisfy every constraint, or None when nothing constrains.

    An `Index` constraint holds the ids found under every one of its keys; a `TextIndex`
    constraint the ids whose text contains every one of its terms (strings).
    """
    found: frozenset[str] | None = None
    for index, keys in constraints:
        if not keys:
            continue
        if isinstance(index, TextIndex):
            ids = table.containing(index, [str(k) for k in keys])
        else:
            ids = table.matching(index, keys)
        found = ids if found is None else found & ids
        if not found:
            return found
    return found


SPARSE_SHARE = 16
"""`select_page` sorts the candidates themselves when they are at most 1/16 of the table."""


def select_page(
    page_cls: type[P],
    table: Table[T],
    order: Order[T],
    args: PageArgs,
    where: Callable[[T], bool],
    *,
    among: frozenset[str] | None = None,
    exact: bool = False,
    view: Callable[[Any], Any] | None = None,
    query: dict[str, Any] | None = None,
    ties: str | None = None,
) -> P:
    """Returns the page of `table`'s entities that satisfy `where`, in `order`: what `Page.of` returns for them.

    Args:
        page_cls: The tool's `Page` subclass.
        table: The table searched.
        order: The list's documented order (its key is the tool's sort key).
        args: The call's paging arguments.
        where: The tool's exact predicate.
        among: Candidate ids (a superset of the matches, from `candidates`), or None for all.
        exact: The candidates are exactly the matches (every filter is an index key), so
            `where` need not be asked of each record of a long listing.
        view: Turns an entity into the page's item model.
        query: The filters the cursor is bound to, when they are not just the arguments.
        ties: The episode's tie salt (`ToolContext.ties`): records whose keys differ only in the id
            follow its order (`saas_sim.core.paging.tied_key`).

    Few candidates are sorted directly; many (or none given) are read in the order's
    cached sequence, so a listing does not sort the table on every call.
    """
    if among is not None and len(among) * SPARSE_SHARE <= len(table):
        rows = [e for e in (table.get(i) for i in sorted(among)) if e is not None and where(e)]
        return page_cls.of(rows, order.key, args, view=view, query=query, ties=ties)
    ordered = table.ordered(order)
    if exact:
        if among is None:
            return presorted_page(page_cls, ordered, order.key, args, view=view, query=query, ties=ties)
        # Every candidate is a match: the total is known, and the page is the next members from the cursor.
        return presorted_page(page_cls, ordered, order.key, args, member=lambda e: e.id in among,
                              total=len(among), view=view, query=query, ties=ties)
    keyed = [pair for pair in ordered if (among is None or pair[1].id in among) and where(pair[1])]
    return presorted_page(page_cls, keyed, order.key, args, view=view, query=query, ties=ties)


def prewarm(state: State, specs: Iterable[Index[Any] | TextIndex[Any] | Order[Any]]) -> None:
    """Builds every index and order in `specs` on `state`'s tables now (O(size); run it off the event loop).

    The tables then become the shared base that every state derived from `state` reads
    through, so no agent call builds them. A spec of a table `state` lacks is skipped.
    """
    for spec in specs:
        table = state.raw_table(spec.table)
        if not len(table):
            continue
        table.make_base()
        if isinstance(spec, Index):
            table.build_index(spec)
        elif isinstance(spec, TextIndex):
            table.build_text(spec)
        else:
            table.ordered(spec)
