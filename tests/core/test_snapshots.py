"""Snapshots: snapshot + later events hash equal to a full replay; a bad snapshot falls back with a warning."""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import replace
from decimal import Decimal

import pytest
from pydantic import BaseModel, ConfigDict

from saas_sim.core.canonical import sha256_hex
from saas_sim.core.events import GENESIS_HASH, Event, EventRegistry, RecordedEvent, chain_hash, event
from saas_sim.core.ids import IdFactory
from saas_sim.core.rng import SeedTree
from saas_sim.core.snapshots import LoadedState, StateSchema, decode_state, encode_state, load_state, take_snapshot
from saas_sim.core.state import Entity, Projection, State, TableKey, ValueKey
from saas_sim.core.store import EventStore, Snapshot
from saas_sim.errors import IntegrityError, SnapshotError
from tests.core.helpers import raw_execute

REG = EventRegistry()


@pytest.fixture
def registry() -> EventRegistry:
    return REG


@event("snap.ItemAdded", registry=REG)
class ItemAdded(Event):
    item_id: str
    name: str
    qty: int
    price: Decimal


@event("snap.ItemRenamed", registry=REG)
class ItemRenamed(Event):
    item_id: str
    name: str


@event("snap.QtyChanged", registry=REG)
class QtyChanged(Event):
    item_id: str
    delta: int


@event("snap.ItemRemoved", registry=REG)
class ItemRemoved(Event):
    item_id: str


@event("snap.NoteSet", registry=REG)
class NoteSet(Event):
    text: str


class Item(Entity):
    name: str
    qty: int
    price: Decimal


class Note(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    text: str
    edits: int


ITEMS = TableKey("items", Item)
NOTE = ValueKey("note", Note)
SCHEMA = StateSchema(tables=[ITEMS], values=[NOTE], version=3)
PROJ = Projection("snapshot-test")


@PROJ.on(ItemAdded)
def _added(s: State, e: ItemAdded) -> State:
    return s.put(ITEMS, Item(id=e.item_id, name=e.name, qty=e.qty, price=e.price))


@PROJ.on(ItemRenamed)
def _renamed(s: State, e: ItemRenamed) -> State:
    item = s.get(ITEMS, e.item_id)
    assert item is not None
    return s.put(ITEMS, item.model_copy(update={"name": e.name}))


@PROJ.on(QtyChanged)
def _qty(s: State, e: QtyChanged) -> State:
    item = s.get(ITEMS, e.item_id)
    assert item is not None
    return s.put(ITEMS, item.model_copy(update={"qty": item.qty + e.delta}))


@PROJ.on(ItemRemoved)
def _removed(s: State, e: ItemRemoved) -> State:
    return s.delete(ITEMS, e.item_id)


@PROJ.on(NoteSet)
def _note(s: State, e: NoteSet) -> State:
    old = s.value(NOTE)
    return s.set_value(NOTE, Note(text=e.text, edits=(old.edits + 1) if old else 1))


def random_events(rng: random.Random, count: int) -> list[Event]:
    """A valid random history: only live items are renamed, changed or removed."""
    ids = IdFactory()
    live: list[str] = []
    out: list[Event] = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.3 or not live:
            item_id = ids.next("it")
            live.append(item_id)
            out.append(ItemAdded(item_id=item_id, name=f"n{rng.randrange(100)}", qty=rng.randrange(10),
                                 price=Decimal(rng.randrange(10**5)) / 100))
        elif roll < 0.5:
            out.append(ItemRenamed(item_id=rng.choice(live), name=f"r{rng.randrange(100)}"))
        elif roll < 0.75:
            out.append(QtyChanged(item_id=rng.choice(live), delta=rng.randrange(-5, 6)))
        elif roll < 0.88:
            out.append(ItemRemoved(item_id=live.pop(rng.randrange(len(live)))))
        else:
            out.append(NoteSet(text=f"note {rng.randrange(1000)}"))
    return out


async def test_snapshot_plus_tail_hashes_equal_to_a_full_replay_over_200_random_streams(store: EventStore) -> None:
    """200 random streams, each snapshotted every 1, 10 and 100 events while it grows in chunks.

    After every chunk the loaded state (latest snapshot + the events after it) must
    hash equal to the state folded from scratch, and report the right version and head.
    """
    tree = SeedTree("snapshot-equivalence")
    loads_from_snapshot = 0
    for i in range(200):
        rng = tree.random(f"stream-{i}")
        length = rng.randrange(100, 130) if i % 25 == 0 else rng.randrange(0, 21)
        events = random_events(rng, length)
        payloads = [REG.encode(ev) for ev in events]
        cuts = sorted(rng.sample(range(1, length), min(2, length - 1))) if length > 1 else []
        bounds = [(a, b) for a, b in zip([0, *cuts], [*cuts, length], strict=True) if b > a]
        for interval in (1, 10, 100):
            sid = f"s{i}/every-{interval}"
            state, head = State(), GENESIS_HASH
            for a, b in bounds:
                result = await store.append(sid, events[a:b], a)
                saves = []
                for version in range(a + 1, b + 1):
                    p = payloads[version - 1]
                    head = chain_hash(head, version, p.event_type, p.schema_version, None, p.payload)
                    state = PROJ.apply(state, events[version - 1])
                    if version % interval == 0:
                        saves.append(store.save_snapshot(take_snapshot(sid, version, head, state, SCHEMA)))
                assert head == result.head_hash
                await asyncio.gather(*saves)
                loaded = await load_state(store, sid, PROJ, SCHEMA)
                assert loaded.state.content_hash() == state.content_hash()
                assert (loaded.version, loaded.head_hash) == (b, head)
                assert loaded.from_snapshot == (b >= interval)
                loads_from_snapshot += loaded.from_snapshot
            replay = PROJ.fold(State(), await store.read_events(sid))
            assert replay.content_hash() == state.content_hash()
    assert loads_from_snapshot > 300


async def _stream_with_snapshot(store: EventStore, sid: str = "acct") -> tuple[State, list[RecordedEvent], Snapshot]:
    events = random_events(random.Random(11), 25)
    await store.append(sid, events, 0)
    rows = await store.read(sid)
    at = 15
    snap_state = PROJ.fold(State(), events[:at])
    snap = take_snapshot(sid, at, rows[at - 1].hash, snap_state, SCHEMA)
    return PROJ.fold(State(), events), rows, snap


def _flip(data: bytes, index: int) -> bytes:
    out = bytearray(data)
    out[index] ^= 0x04
    return bytes(out)


def _bad_snapshots(snap: Snapshot) -> dict[str, Snapshot]:
    garbled = b"{not json" + snap.state[9:]
    unknown_table = snap.state.replace(b'"items"', b'"ghosts"')
    return {
        "flipped byte": replace(snap, state=_flip(snap.state, len(snap.state) // 2)),
        "wrong schema version": replace(snap, schema_version=SCHEMA.version + 1),
        "garbled but rehashed": replace(snap, state=garbled, state_hash=sha256_hex(garbled)),
        "unknown table": replace(snap, state=unknown_table, state_hash=sha256_hex(unknown_table)),
        "off the hash chain": replace(snap, event_hash="ab" * 32),
        "beyond the stream": replace(snap, version=40),
    }


@pytest.mark.parametrize("kind", list(_bad_snapshots(Snapshot("s", 1, 1, b"{}" * 20, "h", "e"))))
async def test_an_unusable_snapshot_falls_back_to_a_full_replay_with_a_warning(
    store: EventStore, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    full, rows, snap = await _stream_with_snapshot(store)
    good = await _loaded_with(store, snap)
    assert good.from_snapshot and good.state.content_hash() == full.content_hash()

    bad = _bad_snapshots(snap)[kind]
    with caplog.at_level(logging.WARNING, logger="saas_sim.core.snapshots"):
        loaded = await _loaded_with(store, bad)
    assert not loaded.from_snapshot
    assert loaded.state.content_hash() == full.content_hash()
    assert (loaded.version, loaded.head_hash) == (25, rows[-1].hash)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "acct" in warnings[0].getMessage() and "replaying" in warnings[0].getMessage()


async def _loaded_with(store: EventStore, snap: Snapshot) -> LoadedState:
    await store.save_snapshot(snap)
    return await load_state(store, snap.stream_id, PROJ, SCHEMA)


async def test_a_missing_snapshot_replays_quietly(store: EventStore, caplog: pytest.LogCaptureFixture) -> None:
    events = random_events(random.Random(3), 12)
    await store.append("s", events, 0)
    with caplog.at_level(logging.WARNING):
        loaded = await load_state(store, "s", PROJ, SCHEMA)
    assert not loaded.from_snapshot and loaded.version == 12
    assert loaded.state.content_hash() == PROJ.fold(State(), events).content_hash()
    assert caplog.records == []


async def test_an_empty_stream_loads_the_initial_state(store: EventStore) -> None:
    initial = State().set_value(NOTE, Note(text="seeded", edits=0))
    loaded = await load_state(store, "nothing", PROJ, SCHEMA, initial=initial)
    assert loaded.state is initial and loaded.version == 0 and not loaded.from_snapshot


async def test_a_snapshot_never_masks_a_corrupt_event_after_it(store: EventStore) -> None:
    _, _, snap = await _stream_with_snapshot(store)
    await store.save_snapshot(snap)
    await raw_execute(store, "UPDATE events SET payload = ? WHERE stream_id = ? AND version = ?",
                      b'{"text":"forged"}', "acct", 20)
    with pytest.raises(IntegrityError) as info:
        await load_state(store, "acct", PROJ, SCHEMA)
    assert (info.value.stream_id, info.value.version) == ("acct", 20)


async def test_snapshots_continue_from_an_initial_world_state(store: EventStore) -> None:
    world = PROJ.fold(State(), random_events(random.Random(8), 30))
    events = [QtyChanged(item_id=world.table(ITEMS).ids()[0], delta=2), NoteSet(text="episode")]
    await store.append("episode", events, 0)
    rows = await store.read("episode")
    after_one = PROJ.apply(world, events[0])
    await store.save_snapshot(take_snapshot("episode", 1, rows[0].hash, after_one, SCHEMA))
    loaded = await load_state(store, "episode", PROJ, SCHEMA, initial=world)
    assert loaded.from_snapshot
    assert loaded.state.content_hash() == PROJ.fold(world, events).content_hash()


def test_encode_decode_round_trips_tables_values_and_counters() -> None:
    state = PROJ.fold(State(), random_events(random.Random(1), 60))
    data = encode_state(state)
    back = decode_state(data, SCHEMA)
    assert back.content_hash() == state.content_hash()
    assert back.counters() == state.counters()
    assert encode_state(back) == data
    snap = take_snapshot("s", 60, "e" * 64, state, SCHEMA)
    assert (snap.schema_version, snap.state, snap.state_hash) == (3, data, sha256_hex(data))


@pytest.mark.parametrize("data", [b"", b"[]", b"{}", b'{"tables":{"items":{"it_000001":{"id":1}}}}', b"\xff"])
def test_decoding_garbage_raises_snapshot_error(data: bytes) -> None:
    with pytest.raises(SnapshotError):
        decode_state(data, SCHEMA)


def test_merged_schemas_know_both_tables_and_version_from_both() -> None:
    other = StateSchema(tables=[TableKey("others", Item)], version=2)
    merged = SCHEMA.merge(other)
    assert [t.name for t in merged.tables] == ["items", "others"]
    assert merged.version == 3002
    assert merged.version != SCHEMA.merge(StateSchema(tables=[], version=3)).version
