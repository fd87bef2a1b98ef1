"""Relabelling ids: a state (or any data) rewritten under a permutation of some of its ids.

Ids are allocated in creation order, so a record a setup stages beside a world record (a namesake,
a look-alike account, a decoy order) always has the higher id, and "take the lowest id" would tell the
real record from its copies on every task. Exchanging the labels within such a group, by a seeded
permutation, removes that tell without changing the task: a permutation applied to every reference
at once (a row's own id, a link in another row of any table, an id quoted inside a text, the
task's bindings) gives a world that differs from the old one only in its names, so what is true,
what is allowed and what a correct episode does are unchanged, and only a policy that reads
meaning into the order of ids can tell.

Nothing here knows a domain: an id is recognised by its value alone (`ids.parse_id`'s shape), so
every field of every table is looked at, and a text is rewritten only where a whole id token in the
mapping stands in it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from saas_sim.core.events import Event, event
from saas_sim.core.ids import parse_id
from saas_sim.core.state import Entity, Projection, State, TableKey, ValueKey
from saas_sim.errors import UsageError

__all__ = ["RELABEL_PROJECTION", "IdsRelabeled", "Relabeller", "check_permutation", "relabel_state"]


def check_permutation(mapping: Mapping[str, str]) -> None:
    """Raises `UsageError` unless `mapping` maps a set of well-formed ids onto itself, prefix by prefix.

    A permutation of one set never merges two records and never invents an id, and keeping each
    prefix keeps a record in its own table.
    """
    if sorted(mapping) != sorted(mapping.values()):
        raise UsageError(f"an id relabelling must permute one set of ids, got {dict(mapping)}")
    for old, new in mapping.items():
        a, b = parse_id(old), parse_id(new)
        if a is None or b is None or a[0] != b[0]:
            raise UsageError(f"an id relabelling maps ids to ids of the same prefix, got {old!r} -> {new!r}")


class Relabeller:
    """Rewrites values under one id mapping, returning the very same object where nothing changed.

    Args:
        mapping: Old id to new id; ids not in it stay as they are.
        texts: Also rewrite ids quoted inside longer texts (else only a value that is a whole id).
    """

    __slots__ = ("_json_pattern", "_mapping", "_pattern", "_texts")

    def __init__(self, mapping: Mapping[str, str], *, texts: bool = True) -> None:
        self._mapping = {old: new for old, new in mapping.items() if old != new}
        self._texts = texts
        # A whole token: not glued to a longer name before it, nor to more digits after it.
        alternatives = "|".join(re.escape(old) for old in sorted(self._mapping)) or "(?!)"
        self._pattern = re.compile(rf"(?<![A-Za-z0-9_])(?:{alternatives})(?![0-9])")
        # Ids are ASCII and JSON writes them as they are; without the token bounds, this only over-selects.
        self._json_pattern = re.compile("|".join(re.escape(old) for old in sorted(self._mapping)).encode() or b"(?!)")

    def __bool__(self) -> bool:
        return bool(self._mapping)

    def mentions(self, model: BaseModel) -> bool:
        """Returns whether `model` holds a mapped id anywhere: a cheap test (its JSON, written by pydantic's
        serializer, searched once) that may say yes for an id inside an escaped text, never no for one held."""
        return self._json_pattern.search(model.__pydantic_serializer__.to_json(model)) is not None

    def value(self, value: Any) -> Any:
        """Returns `value` with every mapped id in it replaced (texts, containers and models, recursively)."""
        if isinstance(value, str):
            return self._text(value)
        if isinstance(value, BaseModel):
            return self.model(value)
        if isinstance(value, (tuple, list)):
            items = [self.value(v) for v in value]
            if all(a is b for a, b in zip(items, value, strict=True)):
                return value
            return type(value)(items) if isinstance(value, list) else tuple(items)
        if isinstance(value, (set, frozenset)):
            moved = {self.value(v) for v in value}
            return value if moved == value else type(value)(moved)
        if isinstance(value, dict):
            pairs = [(self.value(k), self.value(v)) for k, v in value.items()]
            if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(pairs, value.items(), strict=True)):
                return value
            return dict(pairs)
        return value

    def model(self, model: BaseModel) -> BaseModel:
        """Returns `model` with its fields relabelled (the same object if none changed)."""
        changes: dict[str, Any] = {}
        for name in type(model).model_fields:
            old = getattr(model, name)
            if old is None or isinstance(old, (int, float)):
                continue
            new = self.value(old)
            if new is not old:
                changes[name] = new
        return model.model_copy(update=changes) if changes else model

    def _text(self, text: str) -> str:
        new = self._mapping.get(text)
        if new is not None:
            return new
        if not self._texts or not self._pattern.search(text):
            return text
        return self._pattern.sub(lambda m: self._mapping[m.group(0)], text)


def relabel_state(state: State, mapping: Mapping[str, str]) -> State:
    """Returns `state` with ids permuted by `mapping` in every table and value.

    Args:
        state: The state to rewrite.
        mapping: A permutation of ids (`check_permutation`); a record moves to its new id (a table
            holding a record at only some ids of a group ends with records at their images).

    Each table becomes one new table (a record that names no mapped id is not touched), so the state's
    hash is kept in O(records changed). Counters do not change: the same ids are in use. Ids quoted inside
    texts are rewritten only in records keyed by an id: a record keyed by something else may be keyed by
    its own text (a blob by the sha256 of its text, a file by its path), and only whole-id values move there.
    """
    check_permutation(mapping)
    relabel = Relabeller(mapping)
    if not relabel:
        return state
    exact = Relabeller(mapping, texts=False)
    for name in state.table_names():
        table = state.raw_table(name)
        moved: list[Entity] = []
        for row in table:
            if relabel.mentions(row):
                moved.append((relabel if parse_id(row.id) else exact).model(row))  # type: ignore[arg-type]
        if moved:
            key = TableKey(name, Entity)
            state = state.put_many(key, moved)
            # A slot whose record moved away and which no record moved into is empty now.
            landed = {row.id for row in moved}
            for gone in sorted(old for old, new in mapping.items() if old != new and old in table):
                if gone not in landed:
                    state = state.delete(key, gone)
    for name in state.value_names():
        old_value = state.raw_value(name)
        assert old_value is not None
        if relabel.mentions(old_value):
            new_value = relabel.model(old_value)
            state = state.set_value(ValueKey(name, BaseModel), new_value)
    return state


@event("core.IdsRelabeled")
class IdsRelabeled(Event):
    """Ids were permuted: each `(old, new)` pair moves a record, and every reference to it, to `new`.

    A task's setup ends with one when it staged look-alikes (`SetupContext.declare_lookalikes`).

    Attributes:
        pairs: `(old id, new id)` for every id of every group, sorted by the old id (an id that keeps its
            label is paired with itself, so the log shows each group whole).
    """

    pairs: tuple[tuple[str, str], ...]


RELABEL_PROJECTION = Projection("relabel")


@RELABEL_PROJECTION.on(IdsRelabeled)
def _relabelled(state: State, ev: IdsRelabeled) -> State:
    return relabel_state(state, dict(ev.pairs))
