"""Immutable, copy-on-write state and pure reducers.

A `State` is a set of named tables of frozen entities plus named singleton
values. Tables are persistent hash-array-mapped tries (`immutables.Map`): a
change returns a new table that shares every untouched entry with the old one.
So copying an episode's state copies a reference, a fork costs O(1), and an
episode's memory grows only with what it changed.

Reducers are pure: `apply(state, event) -> state`. A `Projection` maps event
classes to reducers and folds streams of events.

Iteration order is always sorted by id. Ids are zero-padded (`ct_000042`), so
that is creation order, and it never depends on a process's hash seed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

import immutables
from pydantic import BaseModel, ConfigDict

from saas_sim.core.canonical import stable_hash
from saas_sim.core.events import Event
from saas_sim.core.ids import parse_id
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


class Table(Generic[T]):
    """A persistent map from id to entity. Every change returns a new table."""

    __slots__ = ("_map", "_sorted")

    def __init__(self, data: immutables.Map[str, T] | None = None) -> None:
        self._map: immutables.Map[str, T] = data if data is not None else immutables.Map()
        self._sorted: tuple[str, ...] | None = None

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
            self._sorted = tuple(sorted(self._map.keys()))
        return self._sorted

    def __iter__(self) -> Iterator[T]:
        m = self._map
        return (m[i] for i in self.ids())

    def values(self) -> list[T]:
        """Returns all entities in id order."""
        return list(self)

    def set(self, entity: T) -> Table[T]:
        """Returns a table with `entity` inserted or replaced."""
        return Table(self._map.set(entity.id, entity))

    def remove(self, entity_id: str) -> Table[T]:
        """Returns a table without `entity_id` (a no-op if absent)."""
        if entity_id not in self._map:
            return self
        return Table(self._map.delete(entity_id))

    def same_as(self, other: Table[T]) -> bool:
        """Returns whether both tables are the very same map (no change between them)."""
        return self._map is other._map


_EMPTY_TABLE: Table[Any] = Table()

# `parse_id` is pure, and reducers put the same ids over and over: a bounded
# cache turns its regex match into a dict hit.
_parse_id = functools.lru_cache(maxsize=1 << 16)(parse_id)


class State:
    """An immutable world or episode state.

    Use the typed keys: `state.table(CONTACTS).get("ct_000001")`,
    `state.put(CONTACTS, contact)`. Every write returns a new `State` and leaves
    this one untouched.
    """

    __slots__ = ("_counters", "_tables", "_values")

    def __init__(
        self,
        tables: immutables.Map[str, Table[Any]] | None = None,
        values: immutables.Map[str, BaseModel] | None = None,
        counters: immutables.Map[str, int] | None = None,
    ) -> None:
        self._tables: immutables.Map[str, Table[Any]] = tables or immutables.Map()
        self._values: immutables.Map[str, BaseModel] = values or immutables.Map()
        self._counters: immutables.Map[str, int] = counters or immutables.Map()

    @classmethod
    def _of(
        cls,
        tables: immutables.Map[str, Table[Any]],
        values: immutables.Map[str, BaseModel],
        counters: immutables.Map[str, int],
    ) -> State:
        # The reducers' hot path: every argument is already a map, so skip __init__'s defaults.
        state = object.__new__(cls)
        state._tables = tables
        state._values = values
        state._counters = counters
        return state

    # reads -----------------------------------------------------------------
    def table(self, key: TableKey[T]) -> Table[T]:
        """Returns the table for `key` (empty if nothing was ever stored in it)."""
        # A string cast: `Table[T]` evaluated at run time builds a generic alias per call.
        return cast("Table[T]", self._tables.get(key.name, _EMPTY_TABLE))

    def get(self, key: TableKey[T], entity_id: str) -> T | None:
        """Returns one entity, or None."""
        return cast("Table[T]", self._tables.get(key.name, _EMPTY_TABLE))._map.get(entity_id)

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
        parsed = _parse_id(entity_id)
        if parsed is not None and parsed[1] > counters.get(parsed[0], 0):
            counters = counters.set(parsed[0], parsed[1])
        return State._of(
            tables.set(key.name, Table(table._map.set(entity_id, entity))), self._values, counters
        )

    def put_many(self, key: TableKey[T], entities: Iterable[T]) -> State:
        """Returns a state with every entity stored (one new state, not one per entity)."""
        table_map = self.table(key)._map.mutate()
        counters = self._counters.mutate()
        for entity in entities:
            if not isinstance(entity, key.model):
                raise UsageError(f"{key.name} holds {key.model.__name__}")
            table_map[entity.id] = entity
            parsed = _parse_id(entity.id)
            if parsed is not None and parsed[1] > counters.get(parsed[0], 0):
                counters[parsed[0]] = parsed[1]
        new_table: Table[T] = Table(table_map.finish())
        return State(self._tables.set(key.name, new_table), self._values, counters.finish())

    def delete(self, key: TableKey[T], entity_id: str) -> State:
        """Returns a state without the entity (ids are never reused)."""
        return State(
            self._tables.set(key.name, self.table(key).remove(entity_id)),
            self._values,
            self._counters,
        )

    def set_value(self, key: ValueKey[V], value: V) -> State:
        """Returns a state with the singleton value replaced."""
        if not isinstance(value, key.model):
            raise UsageError(f"{key.name} holds {key.model.__name__}")
        return State(self._tables, self._values.set(key.name, value), self._counters)

    def with_counters(self, counters: Mapping[str, int]) -> State:
        """Returns a state whose id counters are raised to at least `counters`."""
        merged = self._counters.mutate()
        for prefix, number in counters.items():
            if number > merged.get(prefix, 0):
                merged[prefix] = number
        return State(self._tables, self._values, merged.finish())

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
        """Returns the sha256 of the whole state's canonical JSON. O(size): not per step."""
        return stable_hash(self.content())


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
