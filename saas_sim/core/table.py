"""Persistent tables: id -> frozen entity maps that share structure across versions.

A `Table` wraps a hash-array-mapped trie (`immutables.Map`): every change
returns a new table that shares every untouched entry with the old one, so a
world's tables are shared by all its episodes and a change costs O(log n).
Iteration is always in sorted id order.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Generic, TypeVar

import immutables

if TYPE_CHECKING:
    from saas_sim.core.state import Entity

__all__ = ["Table"]

T = TypeVar("T", bound="Entity")


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

    def set_many(self, entities: Iterable[T]) -> Table[T]:
        """Returns a table with every entity inserted or replaced (one new table)."""
        data = self._map.mutate()
        for entity in entities:
            data[entity.id] = entity
        return Table(data.finish())
