"""Encoding states as snapshots, and loading a stream's state from snapshot plus tail.

A snapshot is the faithful JSON (`saas_sim.core.faithful`) of a `State`, with
the sha256 of those bytes and the chain hash of the event it was taken at.
Loading checks both. Faithful, never canonical: canonical JSON folds
`"22950.00"` into `"22950"`, and an agent would then see other text in a world
loaded from a snapshot than in the freshly built one. A missing, corrupt or
outdated snapshot is never fatal: the loader logs a warning and replays the
whole stream, which always gives the same state.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import immutables
from pydantic import BaseModel, ValidationError

from saas_sim.core.canonical import sha256_hex
from saas_sim.core.events import GENESIS_HASH
from saas_sim.core.faithful import faithful_bytes
from saas_sim.core.state import Projection, State, Table, TableKey, ValueKey
from saas_sim.core.store import EventStore, Snapshot
from saas_sim.errors import IntegrityError, SnapshotError

__all__ = ["LoadedState", "StateSchema", "decode_state", "encode_state", "load_state", "take_snapshot"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StateSchema:
    """Which models a state's tables and values hold, and the encoding's version.

    Bump `version` whenever an entity model changes incompatibly: old snapshots
    are then ignored and states are rebuilt by replay.
    """

    tables: Sequence[TableKey[Any]]
    values: Sequence[ValueKey[Any]] = ()
    version: int = 1
    _by_table: dict[str, type[BaseModel]] = field(init=False, repr=False)
    _by_value: dict[str, type[BaseModel]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_table", {k.name: k.model for k in self.tables})
        object.__setattr__(self, "_by_value", {k.name: k.model for k in self.values})

    def merge(self, other: StateSchema) -> StateSchema:
        """Returns a schema with both schemas' tables and values (for composed worlds)."""
        return StateSchema(
            tables=[*self.tables, *other.tables],
            values=[*self.values, *other.values],
            version=self.version * 1000 + other.version,
        )


def encode_state(state: State) -> bytes:
    """Returns the faithful JSON bytes of a state: `decode_state` gives back the very same values."""
    return faithful_bytes(state.content())


def decode_state(data: bytes, schema: StateSchema, *, verify: bool = False) -> State:
    """Rebuilds a state from `encode_state` bytes.

    Args:
        data: The bytes of `encode_state`.
        schema: The models of the state's tables and values.
        verify: Also re-encode the decoded state and require the same bytes. That proves
            the round trip was exact (no model field lost or changed a value's form), at
            the cost of one more encoding.

    Raises:
        SnapshotError: The bytes are not a state of this schema, or (with `verify`) do not
            round-trip exactly.
    """
    try:
        raw = json.loads(data)
        tables: dict[str, Table[Any]] = {}
        for name, rows in raw["tables"].items():
            model = schema._by_table.get(name)
            if model is None:
                raise SnapshotError(f"snapshot has table {name!r} unknown to the schema")
            tables[name] = Table(immutables.Map({k: model.model_validate(v) for k, v in rows.items()}))
        values: dict[str, BaseModel] = {}
        for name, value in raw["values"].items():
            model = schema._by_value.get(name)
            if model is None:
                raise SnapshotError(f"snapshot has value {name!r} unknown to the schema")
            values[name] = model.model_validate(value)
        counters = {str(k): int(v) for k, v in raw["counters"].items()}
    except (ValueError, KeyError, TypeError, AttributeError, ValidationError) as exc:
        raise SnapshotError(f"snapshot cannot be decoded: {exc}") from exc
    state = State(immutables.Map(tables), immutables.Map(values), immutables.Map(counters))
    if verify and encode_state(state) != data:
        raise SnapshotError("snapshot does not round-trip exactly: a model changes the form of a stored value")
    return state


def take_snapshot(
    stream_id: str, version: int, event_hash: str, state: State, schema: StateSchema
) -> Snapshot:
    """Returns a snapshot of `state`, taken after `version` events of `stream_id`."""
    data = encode_state(state)
    return Snapshot(stream_id, version, schema.version, data, sha256_hex(data), event_hash)


@dataclass(frozen=True)
class LoadedState:
    """A stream's state, as loaded by `load_state`."""

    state: State
    version: int
    head_hash: str
    from_snapshot: bool


async def load_state(
    store: EventStore,
    stream_id: str,
    projection: Projection,
    schema: StateSchema,
    initial: State | None = None,
) -> LoadedState:
    """Loads a stream's state from its latest valid snapshot plus the later events.

    A missing or unusable snapshot falls back to a full replay from `initial`.
    """
    base = initial if initial is not None else State()
    snap = await store.load_snapshot(stream_id)
    if snap is not None:
        try:
            state = _verified(snap, schema)
            tail = await store.read(stream_id, after=max(snap.version - 1, 0))
            if snap.version:
                if not tail or tail[0].version != snap.version or tail[0].hash != snap.event_hash:
                    raise SnapshotError("snapshot does not sit on the stream's hash chain")
                tail = tail[1:]
            events = [store.registry.decode(r) for r in tail]
            head = tail[-1].hash if tail else snap.event_hash
            return LoadedState(
                projection.fold(state, events), snap.version + len(tail), head, True
            )
        except (SnapshotError, IntegrityError) as exc:
            log.warning(
                "snapshot of %s at version %d unusable (%s); replaying the full stream",
                stream_id, snap.version, exc,
            )
    rows = await store.read(stream_id)
    events = [store.registry.decode(r) for r in rows]
    head = rows[-1].hash if rows else GENESIS_HASH
    return LoadedState(projection.fold(base, events), len(rows), head, False)


def _verified(snap: Snapshot, schema: StateSchema) -> State:
    if snap.schema_version != schema.version:
        raise SnapshotError(
            f"snapshot schema v{snap.schema_version} is not the current v{schema.version}"
        )
    if sha256_hex(snap.state) != snap.state_hash:
        raise SnapshotError("snapshot bytes do not match their hash")
    return decode_state(snap.state, schema)

