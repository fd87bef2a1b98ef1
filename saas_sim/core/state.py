"""Immutable, copy-on-write state and pure reducers.

A `State` is a set of named tables of frozen entities plus named singleton
values. Tables are persistent hash-array-mapped tries (`immutables.Map`): a
change returns a new table that shares every untouched entry with the old one.
So copying an episode's state copies a reference, a fork costs O(1), and an
episode's memory grows only with what it changed.

Reducers are pure: `apply(state, event) -> state`. A `Projection` maps event
classes to reducers and folds streams of events.

Iteration order is always sorted by id. Ids are zero-padded (`ct_000042`), so
that is allocation order (but for the look-alike groups a task's setup deals out,
`saas_sim.core.relabel`), and it never depends on a process's hash seed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

import immutables
from pydantic import BaseModel, ConfigDict

from saas_sim.core.events import Event
from saas_sim.core.ids import parse_id
from saas_sim.core.state_digest import (
    DIGEST_MODULUS,
    ItemKey,
    counter_digest,
    entity_digest,
    publish,
    table_digest,
    value_digest,
)
from saas_sim.core.table import Table
from saas_sim.errors import StateError, UsageError

__all__ = [
    "Entity",
    "Projection",
    "Reducer",
    "State",
    "Table",
    "TableKey",
    "ValueKey",
]

T = TypeVar("T", bound="Entity")
V = TypeVar("V", bound=BaseModel)
S = TypeVar("S")
Ev = TypeVar("Ev", bound=Event)


class Entity(BaseModel):
    """Base class of stored records: frozen, with a string id."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str


@dataclass(frozen=True, slots=True)
class TableKey(Generic[T]):
    """Names a table and the entity model it holds."""

    name: str
    model: type[T]


@dataclass(frozen=True, slots=True)
class ValueKey(Generic[V]):
    """Names a singleton value and its model."""

    name: str
    model: type[V]


_EMPTY_TABLE: Table[Any] = Table()

# `parse_id` is pure, and reducers put the same ids over and over: a bounded
# cache turns its regex match into a dict hit.
_parse_id = functools.lru_cache(maxsize=1 << 16)(parse_id)

_Changes = tuple[tuple[ItemKey, ...], "_Changes | None"]
"""A persistent list of the item keys changed since an anchor: (keys, older changes)."""


class State:
    """An immutable world or episode state.

    Use the typed keys: `state.table(CONTACTS).get("ct_000001")`,
    `state.put(CONTACTS, contact)`. Every write returns a new `State` and leaves
    this one untouched.

    The content hash is kept in O(changes): a state derived from one whose hash
    is known remembers that anchor and the keys of the items it changed since,
    so `content_hash` sums only those items' differences (`state_digest`).
    """

    __slots__ = ("__weakref__", "_anchor", "_changes", "_counters", "_digest", "_tables", "_values")

    def __init__(
        self,
        tables: immutables.Map[str, Table[Any]] | None = None,
        values: immutables.Map[str, BaseModel] | None = None,
        counters: immutables.Map[str, int] | None = None,
    ) -> None:
        self._tables: immutables.Map[str, Table[Any]] = tables or immutables.Map()
        self._values: immutables.Map[str, BaseModel] = values or immutables.Map()
        self._counters: immutables.Map[str, int] = counters or immutables.Map()
        # A state built from raw maps has no history: its digest is summed in full when asked.
        self._digest: int | None = None
        self._anchor: State | None = None
        self._changes: _Changes | None = None

    def _derive(
        self,
        tables: immutables.Map[str, Table[Any]],
        values: immutables.Map[str, BaseModel],
        counters: immutables.Map[str, int],
        changed: tuple[ItemKey, ...],
    ) -> State:
        """Returns the state that `changed` made of this one, carrying its hash anchor along."""
        # The reducers' hot path: every argument is already a map, so skip __init__'s defaults.
        state = object.__new__(State)
        state._tables = tables
        state._values = values
        state._counters = counters
        state._digest = None
        if self._digest is not None:
            state._anchor, state._changes = self, (changed, None)
        elif self._anchor is not None:
            state._anchor, state._changes = self._anchor, (changed, self._changes)
        else:
            state._anchor = state._changes = None
        return state

    # reads -----------------------------------------------------------------
    def table(self, key: TableKey[T]) -> Table[T]:
        """Returns the table for `key` (empty if nothing was ever stored in it)."""
        # A string cast: `Table[T]` evaluated at run time builds a generic alias per call.
        return cast("Table[T]", self._tables.get(key.name, _EMPTY_TABLE))

    def get(self, key: TableKey[T], entity_id: str) -> T | None:
        """Returns one entity, or None."""
        return cast("Table[T]", self._tables.get(key.name, _EMPTY_TABLE)).get(entity_id)

    def value(self, key: ValueKey[V]) -> V | None:
        """Returns a singleton value, or None."""
        return cast("V | None", self._values.get(key.name))

    def counters(self) -> dict[str, int]:
        """Returns the highest id number used per prefix (feeds an `IdFactory`)."""
        return dict(self._counters.items())

    def table_names(self) -> list[str]:
        """Returns the names of the non-empty tables, sorted."""
        return sorted(k for k, t in self._tables.items() if len(t))

    def value_names(self) -> list[str]:
        """Returns the names of the stored values, sorted."""
        return sorted(self._values.keys())

    def raw_table(self, name: str) -> Table[Any]:
        """Returns a table by name, for generic code such as snapshots and diffs."""
        return self._tables.get(name, _EMPTY_TABLE)

    def raw_value(self, name: str) -> BaseModel | None:
        """Returns a value by name, for generic code such as snapshots and diffs."""
        return self._values.get(name)

    # writes ----------------------------------------------------------------
    def put(self, key: TableKey[T], entity: T) -> State:
        """Returns a state with `entity` stored in `key`'s table."""
        if not isinstance(entity, key.model):
            raise UsageError(f"{key.name} holds {key.model.__name__}, not {type(entity).__name__}")
        tables = self._tables
        table: Table[T] = tables.get(key.name, _EMPTY_TABLE)
        counters = self._counters
        entity_id = entity.id
        changed: tuple[ItemKey, ...] = (("t", key.name, entity_id),)
        parsed = _parse_id(entity_id)
        if parsed is not None and parsed[1] > counters.get(parsed[0], 0):
            counters = counters.set(parsed[0], parsed[1])
            changed = (("t", key.name, entity_id), ("c", parsed[0], ""))
        return self._derive(tables.set(key.name, table.set(entity)), self._values, counters, changed)

    def put_many(self, key: TableKey[T], entities: Iterable[T]) -> State:
        """Returns a state with every entity stored (one new state, not one per entity)."""
        batch = list(entities)
        counters = self._counters.mutate()
        changed: list[ItemKey] = []
        for entity in batch:
            if not isinstance(entity, key.model):
                raise UsageError(f"{key.name} holds {key.model.__name__}")
            changed.append(("t", key.name, entity.id))
            parsed = _parse_id(entity.id)
            if parsed is not None and parsed[1] > counters.get(parsed[0], 0):
                counters[parsed[0]] = parsed[1]
                changed.append(("c", parsed[0], ""))
        new_table = self.table(key).set_many(batch)
        return self._derive(self._tables.set(key.name, new_table), self._values, counters.finish(), tuple(changed))

    def delete(self, key: TableKey[T], entity_id: str) -> State:
        """Returns a state without the entity (ids are never reused)."""
        return self._derive(self._tables.set(key.name, self.table(key).remove(entity_id)), self._values,
                            self._counters, (("t", key.name, entity_id),))

    def set_value(self, key: ValueKey[V], value: V) -> State:
        """Returns a state with the singleton value replaced."""
        if not isinstance(value, key.model):
            raise UsageError(f"{key.name} holds {key.model.__name__}")
        return self._derive(self._tables, self._values.set(key.name, value), self._counters,
                            (("v", key.name, ""),))

    def with_counters(self, counters: Mapping[str, int]) -> State:
        """Returns a state whose id counters are raised to at least `counters`."""
        merged = self._counters.mutate()
        changed: list[ItemKey] = []
        for prefix, number in counters.items():
            if number > merged.get(prefix, 0):
                merged[prefix] = number
                changed.append(("c", prefix, ""))
        return self._derive(self._tables, self._values, merged.finish(), tuple(changed))

    # hashing ---------------------------------------------------------------
    def content(self) -> dict[str, Any]:
        """Returns the whole state as plain data, in canonical order."""
        return {
            "tables": {
                name: {e.id: e.model_dump(mode="python") for e in self._tables[name]}
                for name in self.table_names()
            },
            "values": {
                name: self._values[name].model_dump(mode="python") for name in self.value_names()
            },
            "counters": dict(sorted(self._counters.items())),
        }

    def content_hash(self) -> str:
        """Returns the hash of the whole state's content, in O(changes) since a state whose hash is known.

        Two states with the same tables, values and counters have the same hash,
        however they were built. The first call on a state without a hashed
        ancestor (a freshly built world, a loaded snapshot) costs O(size); run it
        off the event loop (`anyio.to_thread.run_sync`).
        """
        if self._digest is None:
            anchor = self._anchor
            if anchor is None or anchor._digest is None:
                self._digest = self._full_digest()
            else:
                self._digest = (anchor._digest + self._delta_from(anchor)) % DIGEST_MODULUS
        return publish(self._digest)

    def changed_since(self, base: State) -> frozenset[ItemKey] | None:
        """Returns the keys of the items that may differ between `base` and this state, or None if unknown.

        O(changes): both states are walked up their anchors (the hashed states
        they were derived from) to the nearest one they share, and the keys
        changed on either side since it are returned. Every item that differs
        is in the set; an item in the set may have been changed back. None means
        the two share no anchor (a state built from raw maps, such as a loaded
        snapshot): compare them in full instead.
        """
        if self is base:
            return frozenset()
        mine = self._lineage()
        node: State | None = base
        theirs: set[ItemKey] = set()
        while node is not None:
            found = mine.get(id(node))
            if found is not None and found[0] is node:
                return frozenset(found[1] | theirs)
            theirs.update(node._own_changes())
            node = node._anchor
        return None

    def _own_changes(self) -> set[ItemKey]:
        """The keys changed since this state's anchor."""
        keys: set[ItemKey] = set()
        node = self._changes
        while node is not None:
            keys.update(node[0])
            node = node[1]
        return keys

    def _lineage(self) -> dict[int, tuple[State, set[ItemKey]]]:
        """Maps this state and each of its anchors (by id) to the keys changed from it to this state."""
        out: dict[int, tuple[State, set[ItemKey]]] = {}
        keys: set[ItemKey] = set()
        node: State | None = self
        while node is not None:
            out[id(node)] = (node, set(keys))
            keys |= node._own_changes()
            node = node._anchor
        return out

    def anchors(self) -> Iterator[State]:
        """Yields the states this one was derived from whose hash is known, nearest first."""
        node = self._anchor
        while node is not None:
            yield node
            node = node._anchor

    def full_content_hash(self) -> str:
        """Returns the content hash summed from every item, ignoring history. O(size); for audits and tests."""
        return publish(self._full_digest())

    def _item_digest(self, item: ItemKey) -> int:
        kind, name, entity_id = item
        if kind == "t":
            entity = self._tables.get(name, _EMPTY_TABLE).get(entity_id)
            return 0 if entity is None else entity_digest(name, entity)
        if kind == "v":
            value = self._values.get(name)
            return 0 if value is None else value_digest(name, value)
        number = self._counters.get(name)
        return 0 if number is None else counter_digest(name, number)

    def _delta_from(self, anchor: State) -> int:
        """The digest change from `anchor` to this state, over the distinct items changed since."""
        delta = 0
        for item in self._own_changes():
            delta += self._item_digest(item) - anchor._item_digest(item)
        return delta

    def _full_digest(self) -> int:
        total = sum(table_digest(name, table) for name, table in self._tables.items())
        total += sum(value_digest(name, value) for name, value in self._values.items())
        total += sum(counter_digest(prefix, number) for prefix, number in self._counters.items())
        return total % DIGEST_MODULUS


Reducer = Callable[[State, Any], State]
ReducerOf = Callable[[State, Ev], State]


class Projection:
    """Maps event classes to pure reducers and folds events into a state.

    Args:
        name: A label for error messages.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._reducers: dict[type[Event], Reducer] = {}

    def on(self, event_cls: type[Ev]) -> Callable[[ReducerOf[Ev]], ReducerOf[Ev]]:
        """Decorator: registers the reducer of `event_cls`."""

        def decorate(fn: ReducerOf[Ev]) -> ReducerOf[Ev]:
            if event_cls in self._reducers:
                raise StateError(f"{self.name}: {event_cls.__name__} already has a reducer")
            self._reducers[event_cls] = fn
            return fn

        return decorate

    def include(self, other: Projection) -> Projection:
        """Adds every reducer of `other` (for composing domains); returns self."""
        for cls, fn in other._reducers.items():
            if cls in self._reducers and self._reducers[cls] is not fn:
                raise StateError(f"{self.name}: {cls.__name__} has two reducers")
            self._reducers[cls] = fn
        return self

    def handles(self, event_cls: type[Event]) -> bool:
        """Returns whether a reducer is registered for `event_cls`."""
        return event_cls in self._reducers

    def apply(self, state: State, ev: Event) -> State:
        """Applies one event. An event with no reducer is a bug, never silently skipped."""
        fn = self._reducers.get(type(ev))
        if fn is None:
            raise StateError(f"projection {self.name!r} has no reducer for {type(ev).__name__}")
        return fn(state, ev)

    def fold(self, state: State, events: Iterable[Event]) -> State:
        """Applies events in order and returns the final state."""
        reducers = self._reducers
        for ev in events:
            fn = reducers.get(type(ev))
            if fn is None:
                raise StateError(f"projection {self.name!r} has no reducer for {type(ev).__name__}")
            state = fn(state, ev)
        return state
