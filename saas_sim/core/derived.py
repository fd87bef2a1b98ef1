"""Values derived from a state, cached per state and carried forward in O(changes).

Checks and tools often need a view of a whole table: who is who among 6,000
contacts, the pipeline's totals. Recomputing it per call costs O(world). A
`Derived` computes it once per state and, for a state derived from one whose
value is known (a world and its episodes), either reuses that value, when none
of the tables it reads changed, or asks `update` to patch it from the keys that
changed. Values are cached by state identity and dropped with the state.

A derived value must be a pure function of the tables it names: `update`
must give exactly what `full` gives on the new state (test it so).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

from saas_sim.core.state import State
from saas_sim.core.state_digest import ItemKey

__all__ = ["Derived"]

R = TypeVar("R")

Update = Callable[[R, State, State, frozenset[ItemKey]], R]
"""`update(value_of_base, base, state, changed)`: the value on `state`, from the value on `base`
and the keys of the items of the named tables that may differ (all of them table items)."""


class Derived(Generic[R]):
    """A per-state cached view that follows a state's lineage.

    Args:
        name: A label for errors and profiles.
        tables: The names of the tables the value depends on (nothing else may matter).
        full: Computes the value from a whole state. O(size).
        update: Patches an ancestor's value from the changed keys. None: recompute in full
            whenever one of `tables` changed.
    """

    def __init__(
        self, name: str, tables: tuple[str, ...], full: Callable[[State], R], update: Update[R] | None = None,
    ) -> None:
        self.name = name
        self.tables = frozenset(tables)
        self._full = full
        self._update = update
        self._cache: weakref.WeakKeyDictionary[State, R] = weakref.WeakKeyDictionary()

    def of(self, state: State) -> R:
        """Returns the value on `state`, from the cache, from an ancestor's value, or in full."""
        cached = self._cache.get(state)
        if cached is not None:
            return cached
        value = self._from_ancestor(state)
        if value is None:
            value = self._full(state)
        self._cache[state] = value
        return value

    def _from_ancestor(self, state: State) -> R | None:
        anchors = list(state.anchors())
        if not anchors:
            return None
        for anchor in anchors:
            base = self._cache.get(anchor)
            if base is not None:
                return self._carry(base, anchor, state)
        # No ancestor has it yet: compute it once on the oldest (the world, shared by every
        # episode), so every later state of that lineage pays only for its changes.
        oldest = anchors[-1]
        base = self._full(oldest)
        self._cache[oldest] = base
        return self._carry(base, oldest, state)

    def _carry(self, base: R, anchor: State, state: State) -> R | None:
        changed = state.changed_since(anchor)
        if changed is None:
            return None
        relevant = frozenset(k for k in changed if k[0] == "t" and k[1] in self.tables)
        if not relevant:
            return base
        if self._update is None:
            return None
        return self._update(base, anchor, state, relevant)
