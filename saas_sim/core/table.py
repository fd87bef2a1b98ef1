"""Persistent tables: id -> frozen entity maps that share structure across versions.

A `Table` wraps a hash-array-mapped trie (`immutables.Map`): every change
returns a new table that shares every untouched entry with the old one, so a
world's tables are shared by all its episodes and a change costs O(log n).
Iteration is always in sorted id order.

Secondary indexes and sort orders (`saas_sim.core.indexes`) are built lazily
and shared the same way. A table made from raw data (a world, a loaded
snapshot) is a *base*. A table derived from another by `set`, `set_many` or
`remove` keeps a pointer to its base and a persistent list of the ids changed
since; it answers an index lookup from the base's index, overlaid with those
changed entities, in O(result + changes). So a write costs nothing extra (no
index is touched), a table never searched builds nothing, and a world's
indexes, built once, serve every episode. After `_REBASE_AFTER` changes a
derived table becomes a base of its own, so an overlay stays small.

Index structures are caches: a table's content never changes, so building
one twice (say, from two threads) gives equal results, and no observable
answer depends on which build won.
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Hashable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import immutables

from saas_sim.errors import UsageError

if TYPE_CHECKING:
    from saas_sim.core.indexes import Index, Order, TextIndex
    from saas_sim.core.paging import SortKey
    from saas_sim.core.state import Entity

__all__ = ["Table"]

T = TypeVar("T", bound="Entity")

_REBASE_AFTER = 256
"""A derived table with more changed ids than this becomes a base: its overlay would cost more than a rebuild
amortizes (a rebuild is O(size), paid only if the table is searched)."""

_Chain = tuple[tuple[str, ...], "_Chain | None"]
"""A persistent list of the ids changed since the base: (ids of one change, older changes)."""

_EMPTY: frozenset[str] = frozenset()
_SEPARATOR = "\x00"
_Texts = tuple[tuple[str, ...], tuple[str, ...], str, tuple[int, ...]]
"""A built text index: ids and their texts in id order, the texts joined by NUL, and each text's offset."""
_FIRST = operator.itemgetter(0)


class Table(Generic[T]):
    """A persistent map from id to entity. Every change returns a new table."""

    __slots__ = ("_base", "_cache", "_changes", "_map", "_nchanged", "_sorted")

    def __init__(self, data: immutables.Map[str, T] | None = None) -> None:
        self._map: immutables.Map[str, T] = data if data is not None else immutables.Map()
        self._sorted: tuple[str, ...] | None = None
        self._base: Table[T] | None = None  # None: this table is a base
        self._changes: _Chain | None = None
        self._nchanged = 0
        self._cache: dict[tuple[str, str], Any] | None = None

    def _derive(self, data: immutables.Map[str, T], changed: tuple[str, ...]) -> Table[T]:
        """Returns the table holding `data`, which differs from this one in the entities `changed`."""
        table: Table[T] = object.__new__(Table)
        table._map = data
        table._sorted = None
        table._cache = None
        base, chain, count = (self, None, 0) if self._base is None else (self._base, self._changes, self._nchanged)
        count += len(changed)
        if count > _REBASE_AFTER:
            table._base, table._changes, table._nchanged = None, None, 0
        else:
            table._base, table._changes, table._nchanged = base, (changed, chain), count
        return table

    # reads -------------------------------------------------------------------------------
    def get(self, entity_id: str) -> T | None:
        """Returns the entity with `entity_id`, or None."""
        return self._map.get(entity_id)

    def __contains__(self, entity_id: object) -> bool:
        return entity_id in self._map

    def __len__(self) -> int:
        return len(self._map)

    def ids(self) -> tuple[str, ...]:
        """Returns all ids in sorted order (cached: the table is immutable)."""
        if self._sorted is None:
            base = self._base
            if base is not None and base._sorted is not None:
                # The base's order minus the changed ids, merged with those still here: no full sort.
                changed = self._changed()
                data = self._map
                kept = [i for i in base._sorted if i not in changed]
                added = sorted(i for i in changed if i in data)
                if added and kept and added[0] < kept[-1]:
                    kept += added
                    kept.sort()  # two sorted runs: timsort merges them in linear time
                else:
                    kept += added
                self._sorted = tuple(kept)
            else:
                self._sorted = tuple(sorted(self._map.keys()))
        return self._sorted

    def __iter__(self) -> Iterator[T]:
        m = self._map
        return (m[i] for i in self.ids())

    def values(self) -> list[T]:
        """Returns all entities in id order."""
        return list(self)

    def same_as(self, other: Table[T]) -> bool:
        """Returns whether both tables are the very same map (no change between them)."""
        return self._map is other._map

    # writes ------------------------------------------------------------------------------
    def set(self, entity: T) -> Table[T]:
        """Returns a table with `entity` inserted or replaced."""
        return self._derive(self._map.set(entity.id, entity), (entity.id,))

    def remove(self, entity_id: str) -> Table[T]:
        """Returns a table without `entity_id` (a no-op if absent)."""
        if entity_id not in self._map:
            return self
        return self._derive(self._map.delete(entity_id), (entity_id,))

    def set_many(self, entities: Iterable[T]) -> Table[T]:
        """Returns a table with every entity inserted or replaced (one new table)."""
        data = self._map.mutate()
        changed: list[str] = []
        for entity in entities:
            data[entity.id] = entity
            changed.append(entity.id)
        return self._derive(data.finish(), tuple(changed))

    # indexes -----------------------------------------------------------------------------
    def _memo(self) -> dict[tuple[str, str], Any]:
        if self._cache is None:
            self._cache = {}
        return self._cache

    def _claim(self, spec: Index[T] | TextIndex[T] | Order[T]) -> dict[tuple[str, str], Any]:
        """Returns the memo, after checking that no other spec of this table uses `spec`'s name."""
        memo = self._memo()
        if memo.setdefault(("spec", spec.name), spec) is not spec:
            raise UsageError(f"two indexes or orders of table {spec.table} are named {spec.name!r}")
        return memo

    def _changed(self) -> frozenset[str]:
        """The ids changed since the base (cached per table)."""
        memo = self._memo()
        found: frozenset[str] | None = memo.get(("changed", ""))
        if found is None:
            ids: set[str] = set()
            node = self._changes
            while node is not None:
                ids.update(node[0])
                node = node[1]
            found = memo[("changed", "")] = frozenset(ids)
        return found

    def make_base(self) -> None:
        """Makes this table a base: its indexes are then built from its own entities (for prewarming).

        Only the sharing of index structures changes; the table's content never does.
        """
        if self._base is not None:
            self._base, self._changes, self._nchanged = None, None, 0
            self._cache = None

    def build_index(self, index: Index[T]) -> dict[Hashable, frozenset[str]]:
        """Returns this base's postings of `index` (key -> ids), building them on first use. O(size) once."""
        if self._base is not None:
            return self._base.build_index(index)
        memo = self._claim(index)
        postings: dict[Hashable, frozenset[str]] | None = memo.get(("index", index.name))
        if postings is None:
            lists: dict[Hashable, list[str]] = {}
            for entity_id, entity in self._map.items():
                for key in set(index.keys(entity)):
                    lists.setdefault(key, []).append(entity_id)
            postings = memo[("index", index.name)] = {k: frozenset(v) for k, v in lists.items()}
        return postings

    def _keys_of(self, index: Index[T], entity_id: str, entity: T) -> frozenset[Hashable]:
        """The keys of a changed entity (memoized per table: searches between writes recompute nothing)."""
        memo = self._memo()
        per: dict[str, frozenset[Hashable]] | None = memo.get(("keys", index.name))
        if per is None:
            per = memo[("keys", index.name)] = {}
        keys = per.get(entity_id)
        if keys is None:
            keys = per[entity_id] = frozenset(index.keys(entity))
        return keys

    def matching(self, index: Index[T], keys: Sequence[Hashable]) -> frozenset[str]:
        """Returns the ids of the entities found under every one of `keys` in `index` (all ids if none).

        The result is a set: sort it before showing or iterating anything in order.
        """
        postings = self.build_index(index)
        if not keys:
            return frozenset(self._map.keys())
        lists = sorted((postings.get(k, _EMPTY) for k in set(keys)), key=len)
        found = lists[0].intersection(*lists[1:]) if len(lists) > 1 else lists[0]
        if self._base is None:
            return found
        changed = self._changed()
        if not changed:
            return found
        wanted = frozenset(keys)
        data = self._map
        now = [i for i in changed if (e := data.get(i)) is not None and wanted <= self._keys_of(index, i, e)]
        return (found - changed).union(now)

    def build_text(self, index: TextIndex[T]) -> _Texts:
        """Returns this base's texts of `index`: ids and texts in id order, joined, with offsets. O(size) once."""
        if self._base is not None:
            return self._base.build_text(index)
        memo = self._claim(index)
        built: _Texts | None = memo.get(("text", index.name))
        if built is None:
            ids = self.ids()
            data = self._map
            texts = tuple(index.text(data[i]) for i in ids)
            offsets, at = [], 0
            for text in texts:
                offsets.append(at)
                at += len(text) + 1
            built = memo[("text", index.name)] = (ids, texts, _SEPARATOR.join(texts), tuple(offsets))
        return built

    def _text_of(self, index: TextIndex[T], entity_id: str, entity: T) -> str:
        """The text of a changed entity (memoized per table)."""
        memo = self._memo()
        per: dict[str, str] | None = memo.get(("texts", index.name))
        if per is None:
            per = memo[("texts", index.name)] = {}
        text = per.get(entity_id)
        if text is None:
            text = per[entity_id] = index.text(entity)
        return text

    def containing(self, index: TextIndex[T], terms: Sequence[str]) -> frozenset[str]:
        """Returns the ids of the entities whose text (in `index`) contains every one of `terms`.

        The result is a set: sort it before showing or iterating anything in order.
        """
        ids, texts, blob, offsets = self.build_text(index)
        if not terms:
            return frozenset(self._map.keys())
        # The longest term is usually the rarest: find it in the joined texts, one hit per entity
        # (after a hit, the search resumes at the next entity), then test the others per hit.
        ordered_terms = sorted(set(terms), key=lambda t: (-len(t), t))
        first, rest = ordered_terms[0], ordered_terms[1:]
        hits: list[int] = []
        last = len(offsets) - 1
        at = blob.find(first)
        while at >= 0:
            j = bisect.bisect_right(offsets, at) - 1
            hits.append(j)
            if j >= last:
                break
            at = blob.find(first, offsets[j + 1])
        for term in rest:
            hits = [j for j in hits if term in texts[j]]
        found = frozenset(ids[j] for j in hits)
        if self._base is None:
            return found
        changed = self._changed()
        if not changed:
            return found
        data = self._map
        now = [i for i in changed if (e := data.get(i)) is not None
               and all(term in self._text_of(index, i, e) for term in ordered_terms)]
        return (found - changed).union(now)

    def ordered(self, order: Order[T]) -> Sequence[tuple[SortKey, T]]:
        """Returns `(order.sort_key(e), e)` for every entity, in ascending key order (cached)."""
        memo = self._claim(order)
        found: list[tuple[SortKey, T]] | None = memo.get(("order", order.name))
        if found is not None:
            return found
        base = self._base
        if base is None:
            found = [(order.sort_key(e), e) for e in self._map.values()]
            found.sort(key=_FIRST)
        else:
            changed = self._changed()
            data = self._map
            found = [pair for pair in base.ordered(order) if pair[1].id not in changed]
            added = [(order.sort_key(e), e) for i in changed if (e := data.get(i)) is not None]
            if added:
                added.sort(key=_FIRST)
                found += added
                found.sort(key=_FIRST)  # two sorted runs: merged in linear time
        memo[("order", order.name)] = found
        return found
