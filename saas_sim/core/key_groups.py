"""Persistent key indexes and key-sharing groups over a table's records, patched in O(changes).

Checks need whole-table views (every contact under a normalized email, every
person made of several records). `KeyIndex` maps a key to the ids of the
records found under it; `KeyGroups` is the connected components of "shares a
key". Both are immutable and persistent (`immutables.Map`): `updated` returns
a new value that shares every untouched entry with the old one, and costs
O(the changed records' keys and groups), never O(table). They are the values
of `core.derived.Derived` views (`index_view`, `groups_view`), computed once
on a world and carried forward to its episodes.

`updated` gives exactly what `of` gives on the changed records: the property
tests in tests/core/test_key_groups.py hold it to that.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import immutables

from saas_sim.core.derived import Derived
from saas_sim.core.state import Entity, State, TableKey
from saas_sim.core.state_digest import ItemKey

__all__ = ["KeyGroups", "KeyIndex", "groups_view", "index_view"]

T = TypeVar("T", bound=Entity)

_NONE: frozenset[str] = frozenset()


class KeyIndex:
    """Record ids by key: `holders(key)` is every record found under `key`.

    Build it with `KeyIndex.of`; change it with `updated`.
    """

    __slots__ = ("_holders", "_keys_of")

    def __init__(self, keys_of: immutables.Map[str, frozenset[str]],
                 holders: immutables.Map[str, frozenset[str]]) -> None:
        self._keys_of = keys_of
        self._holders = holders

    @classmethod
    def of(cls, records: Iterable[tuple[str, Iterable[str]]]) -> KeyIndex:
        """Indexes `(record_id, keys)` pairs (a record with no keys is kept, under none)."""
        keys_of: dict[str, frozenset[str]] = {}
        holders: dict[str, set[str]] = {}
        for record_id, keys in records:
            found = frozenset(keys)
            keys_of[record_id] = found
            for k in found:
                holders.setdefault(k, set()).add(record_id)
        return cls(immutables.Map(keys_of), immutables.Map({k: frozenset(v) for k, v in holders.items()}))

    def holders(self, key: str) -> frozenset[str]:
        """Returns the ids of the records found under `key` (none: empty)."""
        return self._holders.get(key, _NONE)

    def keys(self, record_id: str) -> frozenset[str] | None:
        """Returns the keys of a record, or None when it is not indexed."""
        return self._keys_of.get(record_id)

    def __contains__(self, record_id: object) -> bool:
        return record_id in self._keys_of

    def updated(self, changes: Mapping[str, Iterable[str] | None]) -> KeyIndex:
        """Returns the index with each changed record's keys replaced (None: the record is gone)."""
        keys_of = self._keys_of.mutate()
        holders = self._holders.mutate()
        for record_id in sorted(changes):
            new = changes[record_id]
            old = keys_of.get(record_id)
            fresh = None if new is None else frozenset(new)
            if old == fresh:
                continue
            for k in (old or _NONE) - (fresh or _NONE):
                left = holders[k] - {record_id}
                if left:
                    holders[k] = left
                else:
                    del holders[k]
            for k in (fresh or _NONE) - (old or _NONE):
                holders[k] = holders.get(k, _NONE) | {record_id}
            if fresh is None:
                del keys_of[record_id]
            else:
                keys_of[record_id] = fresh
        return KeyIndex(keys_of.finish(), holders.finish())


def _components(ids: Iterable[str], index: KeyIndex) -> dict[str, frozenset[str]]:
    """Groups `ids` by shared keys of `index`; `ids` must be closed under sharing a key. Maps id -> group.

    The groups are sets, so they do not depend on the order of unions; `ids` is sorted only so that the
    work done is the same in every process.
    """
    parent: dict[str, str] = {}

    def find(node: str) -> str:
        root = node
        while parent[root] != root:
            root = parent[root]
        while parent[node] != root:
            parent[node], node = root, parent[node]
        return root

    members = sorted(ids)
    first_of: dict[str, str] = {}
    for i in members:
        parent[i] = i
        for k in index.keys(i) or _NONE:
            first = first_of.setdefault(k, i)
            ra, rb = find(i), find(first)
            if ra != rb:
                # The lower root wins, so the structure ignores the order keys are met in.
                parent[max(ra, rb)] = min(ra, rb)
    groups: dict[str, set[str]] = {}
    for i in members:
        groups.setdefault(find(i), set()).add(i)
    out: dict[str, frozenset[str]] = {}
    for group in groups.values():
        frozen = frozenset(group)
        for i in frozen:
            out[i] = frozen
    return out


class KeyGroups:
    """Records grouped by shared keys, transitively: A and B share a key, B and C another, so A, B, C are one.

    `group(id)` is the set of record ids of the record's group. Build it with
    `KeyGroups.of`; change it with `updated`.
    """

    __slots__ = ("_groups", "index")

    def __init__(self, index: KeyIndex, groups: immutables.Map[str, frozenset[str]]) -> None:
        self.index = index
        self._groups = groups

    @classmethod
    def of(cls, records: Iterable[tuple[str, Iterable[str]]]) -> KeyGroups:
        """Groups `(record_id, keys)` pairs."""
        index = KeyIndex.of(records)
        return cls(index, immutables.Map(_components(index._keys_of.keys(), index)))

    def group(self, record_id: str) -> frozenset[str] | None:
        """Returns the ids of the record's group (itself included), or None when it is not grouped."""
        return self._groups.get(record_id)

    @property
    def groups(self) -> Mapping[str, frozenset[str]]:
        """Every record id and its group."""
        return self._groups

    def updated(self, changes: Mapping[str, Iterable[str] | None]) -> KeyGroups:
        """Returns the groups with each changed record's keys replaced (None: the record is gone).

        Exact because groups are connected components: only the old groups of the
        changed records, and of the records sharing a key with a changed record's new
        keys, can change. That set is closed under sharing a key (any other record
        keeps its keys and its old group, disjoint from it), so its components are
        recomputed alone and spliced in.
        """
        if not changes:
            return self
        seeds: set[str] = set(changes)
        for new in changes.values():
            for k in new or ():
                seeds |= self.index.holders(k)
        touched: set[str] = set()
        for i in seeds:
            touched |= self._groups.get(i, _NONE) or {i}
        index = self.index.updated(changes)
        groups = self._groups.mutate()
        for i in touched:
            if i in groups:
                del groups[i]
        for i, group in _components((i for i in touched if i in index), index).items():
            groups[i] = group
        return KeyGroups(index, groups.finish())


def _changed_ids(changed: frozenset[ItemKey]) -> list[str]:
    return sorted({k[2] for k in changed})


def index_view(name: str, key: TableKey[T], keys: Callable[[T], Iterable[str]]) -> Derived[KeyIndex]:
    """A per-state `KeyIndex` of one table: each record under `keys(record)`.

    Args:
        name: The view's label.
        key: The table.
        keys: A pure function of a record: the keys it is found under.
    """

    def full(state: State) -> KeyIndex:
        return KeyIndex.of((e.id, keys(e)) for e in state.table(key))

    def update(base: KeyIndex, _base_state: State, state: State, changed: frozenset[ItemKey]) -> KeyIndex:
        table = state.table(key)
        return base.updated({i: None if (e := table.get(i)) is None else keys(e) for i in _changed_ids(changed)})

    return Derived(name, (key.name,), full, update)


def groups_view(
    name: str, tables: tuple[TableKey[Any], ...], ids: Callable[[State], Iterable[str]],
    keys: Callable[[State, str], Iterable[str] | None],
) -> Derived[KeyGroups]:
    """A per-state `KeyGroups` of records whose keys may read several tables (all keyed by the record's id).

    Args:
        name: The view's label.
        tables: Every table the keys read; an item of any of them changed under an id re-keys that id.
        ids: Every record id of a whole state.
        keys: A pure function of a state and a record id: its keys, or None when it is no record.
    """

    def full(state: State) -> KeyGroups:
        return KeyGroups.of((i, k) for i in ids(state) if (k := keys(state, i)) is not None)

    def update(base: KeyGroups, _base_state: State, state: State, changed: frozenset[ItemKey]) -> KeyGroups:
        return base.updated({i: keys(state, i) for i in _changed_ids(changed)})

    return Derived(name, tuple(t.name for t in tables), full, update)
