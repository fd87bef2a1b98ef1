"""The event store contract, on SQLite file, SQLite memory and PostgreSQL.

Covers the issue's reliability list items 1, 2, 3, 5, 7 and 9, the misuse
errors, and the basic read/append contract. PostgreSQL-only items (tailing
under rollbacks, connection loss) live in test_postgres.py.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import signal
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from saas_sim.core.batching import AppendResult
from saas_sim.core.events import GENESIS_HASH, Event, EventRegistry, RecordedEvent, chain_hash, event
from saas_sim.core.rng import SeedTree
from saas_sim.core.store import EventStore, Snapshot, StoreUrl, open_store
from saas_sim.errors import (
    ConcurrencyError,
    EventValidationError,
    IdempotencyConflictError,
    IntegrityError,
    InvalidStoreUrlError,
    StoreClosedError,
    StoreError,
    StoreUnavailableError,
    UnknownEventTypeError,
    UnregisteredEventError,
    UsageError,
)
from tests.conftest import StoreFactory
from tests.core.helpers import raw_execute, raw_fetch, read_everything, row_key, undeduplicated

REG = EventRegistry()
SCRIPTS = Path(__file__).parent / "scripts"
ROOT = Path(__file__).resolve().parents[2]


@event("store.Counted", registry=REG)
class Counted(Event):
    n: int
    writer: int = 0
    tag: str = ""


@event("store.Noted", registry=REG)
class Noted(Event):
    text: str


class NeverRegistered(Event):
    n: int


@pytest.fixture
def registry() -> EventRegistry:
    return REG


def _is_memory(url: str) -> bool:
    return url.endswith(":memory:")


async def _stores_on(url: str, open_stores: StoreFactory, store: EventStore, count: int) -> list[EventStore]:
    """`count` stores on one database: extra instances (own connections) where the backend allows."""
    if _is_memory(url):
        return [store]
    return [store, *[await open_stores(url) for _ in range(count - 1)]]


# --- basic contract -------------------------------------------------------------------------------


async def test_append_assigns_versions_positions_and_chained_hashes(store: EventStore) -> None:
    first = await store.append("acct-1", [Counted(n=1), Counted(n=2)], 0)
    second = await store.append("acct-2", [Noted(text="hi")], 0)
    third = await store.append("acct-1", [Counted(n=3)], 2)

    assert (first.first_version, first.last_version, first.first_position, first.last_position) == (1, 2, 1, 2)
    assert (second.first_version, second.last_position) == (1, 3)
    assert (third.first_version, third.last_version, third.first_position) == (3, 3, 4)
    assert not first.deduplicated
    assert list(first.positions) == [1, 2]

    rows = await store.read("acct-1")
    assert [r.version for r in rows] == [1, 2, 3]
    assert [r.global_position for r in rows] == [1, 2, 4]
    assert rows[0].prev_hash == GENESIS_HASH
    for prev, row in itertools.pairwise(rows):
        assert row.prev_hash == prev.hash
    assert all(r.verify() for r in rows)
    assert rows[-1].hash == third.head_hash
    assert await store.stream_version("acct-1") == 3
    assert await store.stream_version("nobody") == 0


async def test_read_after_returns_only_later_events_and_still_verifies_the_link(store: EventStore) -> None:
    await store.append("s", [Counted(n=i) for i in range(5)], 0)
    assert [r.version for r in await store.read("s", after=2)] == [3, 4, 5]
    assert [r.version for r in await store.read("s", after=1)] == [2, 3, 4, 5]
    assert await store.read("s", after=5) == []
    assert await store.read("s", after=99) == []
    assert await store.read("missing") == []


async def test_read_events_decodes_to_the_registered_models(store: EventStore) -> None:
    await store.append("s", [Counted(n=7, tag="x"), Noted(text="n")], 0)
    assert await store.read_events("s") == [Counted(n=7, tag="x"), Noted(text="n")]


async def test_read_all_pages_in_strictly_increasing_global_order(store: EventStore) -> None:
    for i in range(7):
        await store.append(f"s{i % 3}", [Counted(n=i), Counted(n=i + 100)], None)
    page1 = await store.read_all(after=0, limit=5)
    page2 = await store.read_all(after=page1[-1].global_position, limit=100)
    positions = [r.global_position for r in [*page1, *page2]]
    assert len(page1) == 5
    assert positions == list(range(1, 15))
    assert await store.read_all(after=14) == []
    assert await store.read_all(after=0, limit=0) == []


async def test_append_with_no_expected_version_appends_at_the_head(store: EventStore) -> None:
    await store.append("s", [Counted(n=1)], None)
    result = await store.append("s", [Counted(n=2)], None)
    assert result.first_version == 2


async def test_sim_time_is_recorded_as_utc_iso(store: EventStore) -> None:
    from datetime import UTC, datetime, timedelta, timezone

    t = datetime(2026, 3, 2, 10, 30, tzinfo=timezone(timedelta(hours=1)))
    await store.append("s", [Counted(n=1)], 0, sim_time=t)
    (row,) = await store.read("s")
    assert row.sim_time == "2026-03-02T09:30:00Z"
    assert datetime.fromisoformat(row.sim_time) == t.astimezone(UTC)


async def test_snapshots_round_trip_and_latest_at_or_below_max_version_wins(store: EventStore) -> None:
    for v in (3, 1, 2):
        await store.save_snapshot(Snapshot("s", v, 1, b"state-%d" % v, f"h{v}", f"e{v}"))
    await store.save_snapshot(Snapshot("s", 2, 1, b"replaced", "h2b", "e2b"))
    latest = await store.load_snapshot("s")
    assert latest == Snapshot("s", 3, 1, b"state-3", "h3", "e3")
    assert await store.load_snapshot("s", max_version=2) == Snapshot("s", 2, 1, b"replaced", "h2b", "e2b")
    assert await store.load_snapshot("s", max_version=0) is None
    assert await store.load_snapshot("other") is None


async def test_store_is_an_async_context_manager_and_close_is_idempotent(store_url: str) -> None:
    async with await open_store(store_url, registry=REG) as s:
        await s.append("s", [Counted(n=1)], 0)
    assert s.closed
    await s.close()
    await s.close()


async def test_closing_flushes_queued_appends(store_url: str) -> None:
    s = await open_store(store_url, registry=REG)
    try:
        tasks = [asyncio.create_task(s.append(f"s{i}", [Counted(n=i)], 0)) for i in range(50)]
        await asyncio.sleep(0)
    finally:
        await s.close()
    results = await asyncio.gather(*tasks)
    assert sorted(r.first_position for r in results) == list(range(1, 51))


# --- 1. version race ------------------------------------------------------------------------------


async def test_version_race_has_exactly_one_winner_per_round(
    store_url: str, store: EventStore, open_stores: StoreFactory
) -> None:
    stores = await _stores_on(store_url, open_stores, store, 4)
    writers, rounds = 64, 100
    winners: list[int] = []
    for version in range(rounds):
        outcomes = await asyncio.gather(
            *(
                stores[w % len(stores)].append("race", [Counted(n=version, writer=w)], version)
                for w in range(writers)
            ),
            return_exceptions=True,
        )
        wins = [w for w, o in enumerate(outcomes) if isinstance(o, AppendResult)]
        losses = [o for o in outcomes if isinstance(o, ConcurrencyError)]
        assert len(wins) == 1, f"round {version}: winners {wins}"
        assert len(losses) == writers - 1, [o for o in outcomes if not isinstance(o, AppendResult | ConcurrencyError)]
        assert all(e.expected == version and e.actual == version + 1 and e.stream_id == "race" for e in losses)
        win = outcomes[wins[0]]
        assert isinstance(win, AppendResult) and win.first_version == win.last_version == version + 1
        winners.append(wins[0])

    rows = await store.read("race")
    assert [r.version for r in rows] == list(range(1, rounds + 1))
    events = [REG.decode(r) for r in rows]
    assert events == [Counted(n=v, writer=w) for v, w in enumerate(winners)]
    assert len(await read_everything(store)) == rounds


# --- 2. atomic batch ------------------------------------------------------------------------------


async def test_a_batch_whose_second_event_conflicts_changes_nothing(store: EventStore) -> None:
    """200 seeded trials; in each, a 3-event batch fails at its 2nd event in five different ways.

    * the 2nd event is invalid (encode fails before anything is queued);
    * the 2nd event's class was never registered;
    * a concurrent writer took the version the batch needs (ConcurrencyError);
    * the batch races a rival single-event append: exactly one of the two lands, never a mix;
    * the database itself rejects the 2nd row (a stray row already holds its (stream, version)),
      so the transaction fails half-way through its inserts and must roll back the 1st row.

    After every failure the stream is exactly what it was, and the failed batch's
    command id was not recorded (a retry with valid events is not deduplicated).
    """
    tree = SeedTree("atomic-batch")
    expected: dict[str, list[Counted]] = {}

    async def assert_stream(sid: str) -> None:
        assert [REG.decode(r) for r in await store.read(sid)] == expected[sid]

    for trial in range(200):
        rng = tree.random(f"trial-{trial}")
        sid = f"t{trial}"
        prefix = [Counted(n=rng.randrange(1000)) for _ in range(rng.randrange(0, 5))]
        expected[sid] = list(prefix)
        if prefix:
            await store.append(sid, prefix, 0)
        v = len(prefix)

        def batch(second: Event) -> list[Event]:
            return [Counted(n=rng.randrange(1000), tag="b1"), second, Counted(n=3, tag="b3")]  # noqa: B023

        bad = Counted.model_construct(n=f"not-a-number-{trial}", writer=0, tag="")
        with pytest.raises(EventValidationError):
            await store.append(sid, batch(bad), v, command_id=f"cmd-{trial}-a")
        await assert_stream(sid)

        with pytest.raises(UnregisteredEventError):
            await store.append(sid, batch(NeverRegistered(n=1)), v, command_id=f"cmd-{trial}-b")
        await assert_stream(sid)

        rival = Counted(n=trial, tag="rival")
        await store.append(sid, [rival], v)
        expected[sid].append(rival)
        with pytest.raises(ConcurrencyError) as info:
            await store.append(sid, batch(Counted(n=2)), v, command_id=f"cmd-{trial}-c")
        assert (info.value.expected, info.value.actual) == (v, v + 1)
        await assert_stream(sid)
        v += 1

        racing = batch(Counted(n=2, tag="race"))
        rival = Counted(n=trial, tag="rival2")
        calls = [store.append(sid, racing, v), store.append(sid, [rival], v)]
        if rng.random() < 0.5:
            calls.reverse()
        outcomes = await asyncio.gather(*calls, return_exceptions=True)
        assert sorted(type(o).__name__ for o in outcomes) == ["AppendResult", "ConcurrencyError"]
        stored = [REG.decode(r) for r in await store.read(sid)]
        assert stored in (expected[sid] + racing, [*expected[sid], rival])
        expected[sid] = stored  # type: ignore[assignment]
        v = len(stored)

        stray_position = 10**12 + trial
        await raw_execute(
            store,
            "INSERT INTO events (global_position, stream_id, version, event_type, schema_version, payload, "
            "sim_time, command_id, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            stray_position, sid, v + 2, "store.Counted", 1, b'{"n":0}', None, None, "0" * 64, "0" * 64,
        )
        with pytest.raises(StoreError) as failed:
            await store.append(sid, batch(Counted(n=2)), v, command_id=f"cmd-{trial}-e")
        assert not isinstance(failed.value, ConcurrencyError)
        versions = [r[0] for r in await raw_fetch(store, "SELECT version FROM events WHERE stream_id = ?", sid)]
        assert sorted(versions) == [*range(1, v + 1), v + 2], "the 1st row of the failed batch was kept"
        await raw_execute(store, "DELETE FROM events WHERE global_position = ?", stray_position)
        await assert_stream(sid)

        failed_commands = [f"cmd-{trial}-{suffix}" for suffix in "abce"]
        assert await raw_fetch(
            store, "SELECT command_id FROM commands WHERE command_id IN (?, ?, ?, ?)", *failed_commands
        ) == []
        retry = await store.append(sid, [Counted(n=0, tag="retry")], v, command_id=failed_commands[0])
        assert not retry.deduplicated
        expected[sid].append(Counted(n=0, tag="retry"))
        await assert_stream(sid)
        assert await store.stream_version(sid) == len(expected[sid])

    everything = await read_everything(store)
    assert Counter(r.stream_id for r in everything) == {sid: len(evs) for sid, evs in expected.items() if evs}
    assert [r.global_position for r in everything] == sorted({r.global_position for r in everything})


async def test_a_conflicting_request_in_a_group_commit_leaves_its_neighbours_alone(store: EventStore) -> None:
    await store.append("b", [Counted(n=0)], 0)
    outcomes = await asyncio.gather(
        store.append("a", [Counted(n=1)] * 3, 0),
        store.append("b", [Counted(n=1)] * 3, 0),  # stale: b is at version 1
        store.append("c", [Counted(n=1)] * 3, 0),
        return_exceptions=True,
    )
    assert isinstance(outcomes[0], AppendResult) and isinstance(outcomes[2], AppendResult)
    assert isinstance(outcomes[1], ConcurrencyError)
    assert [len(await store.read(s)) for s in "abc"] == [3, 1, 3]


# --- 3. writers and tailing readers ---------------------------------------------------------------


async def test_tailing_readers_see_exactly_the_final_table_while_writers_run(
    store_url: str, store: EventStore, open_stores: StoreFactory
) -> None:
    writers, appends, per_append = 10, 100, 10
    # One reader shares the writers' store; on a file or a server the other reads through its own.
    reader_stores = [store, store if _is_memory(store_url) else await open_stores(store_url)]
    done = asyncio.Event()

    async def writer(w: int) -> None:
        for i in range(appends):
            await store.append(
                f"w{w}", [Counted(n=i * per_append + j, writer=w) for j in range(per_append)], i * per_append
            )

    async def reader(s: EventStore) -> list[RecordedEvent]:
        seen: list[RecordedEvent] = []
        cursor = 0
        while True:
            finished = done.is_set()
            rows = await s.read_all(after=cursor, limit=250)
            seen.extend(rows)
            if rows:
                cursor = rows[-1].global_position
            elif finished:
                return seen
            else:
                await asyncio.sleep(0.001)

    readers = [asyncio.create_task(reader(s)) for s in reader_stores]
    await asyncio.gather(*(writer(w) for w in range(writers)))
    done.set()
    seen_by = await asyncio.gather(*readers)

    final = await read_everything(store)
    assert len(final) == writers * appends * per_append
    assert [r.global_position for r in final] == sorted({r.global_position for r in final})
    for seen in seen_by:
        positions = [r.global_position for r in seen]
        assert positions == sorted(set(positions)), "a reader saw an event twice or out of order"
        assert [row_key(r) for r in seen] == [row_key(r) for r in final]
    union = {row_key(r) for seen in seen_by for r in seen}
    assert union == {row_key(r) for r in final}
    for w in range(writers):
        rows = await store.read(f"w{w}")
        assert [r.version for r in rows] == list(range(1, appends * per_append + 1))


# --- 5. idempotent commands -----------------------------------------------------------------------


async def test_one_command_id_sent_serially_and_concurrently_writes_once(
    store_url: str, store: EventStore, open_stores: StoreFactory
) -> None:
    stores = await _stores_on(store_url, open_stores, store, 2)
    events = [Counted(n=1), Noted(text="two"), Counted(n=3)]
    await store.append("cmd", [Counted(n=0)], 0)

    serial = [await stores[i % len(stores)].append("cmd", events, 1, command_id="c-1") for i in range(5)]
    concurrent = await asyncio.gather(
        *(stores[i % len(stores)].append("cmd", events, 1, command_id="c-1") for i in range(5))
    )
    results = [*serial, *concurrent]
    assert [r.deduplicated for r in results] == [False] + [True] * 9
    assert {undeduplicated(r) for r in results} == {undeduplicated(serial[0])}
    assert (serial[0].first_version, serial[0].last_version) == (2, 4)
    assert [REG.decode(r) for r in await store.read("cmd")] == [Counted(n=0), *events]
    assert len(await read_everything(store)) == 4


async def test_a_new_command_id_sent_concurrently_has_exactly_one_original(
    store_url: str, store: EventStore, open_stores: StoreFactory
) -> None:
    stores = await _stores_on(store_url, open_stores, store, 3)
    results = await asyncio.gather(
        *(stores[i % len(stores)].append("fresh", [Counted(n=i % 1)], 0, command_id="c-new") for i in range(5))
    )
    assert sum(not r.deduplicated for r in results) == 1
    assert len({undeduplicated(r) for r in results}) == 1
    assert len(await store.read("fresh")) == 1


async def test_reusing_a_command_id_for_different_events_is_rejected_and_writes_nothing(store: EventStore) -> None:
    await store.append("s", [Counted(n=1)], 0, command_id="c")
    for stream, events, expected in [
        ("s", [Counted(n=2)], 0),  # other events
        ("other", [Counted(n=1)], 0),  # other stream
        ("s", [Counted(n=1)], None),  # other expected version
    ]:
        with pytest.raises(IdempotencyConflictError) as info:
            await store.append(stream, events, expected, command_id="c")
        assert info.value.command_id == "c"
    assert len(await read_everything(store)) == 1


async def test_a_command_rejected_for_a_stale_version_can_be_retried_with_the_same_id(store: EventStore) -> None:
    await store.append("s", [Counted(n=0)], 0)
    with pytest.raises(ConcurrencyError):
        await store.append("s", [Counted(n=1)], 0, command_id="c")
    result = await store.append("s", [Counted(n=1)], 1, command_id="c")
    assert not result.deduplicated and result.last_version == 2


# --- 9. corruption --------------------------------------------------------------------------------


async def _flip_payload_byte(store: EventStore, stream: str, version: int, index: int = 3) -> None:
    ((payload,),) = await raw_fetch(
        store, "SELECT payload FROM events WHERE stream_id = ? AND version = ?", stream, version
    )
    data = bytearray(payload)
    data[index] ^= 0x01
    await raw_execute(
        store, "UPDATE events SET payload = ? WHERE stream_id = ? AND version = ?", bytes(data), stream, version
    )


@pytest.mark.parametrize("after", [0, 1, 2])
async def test_a_flipped_payload_byte_is_detected_on_read_naming_stream_and_version(
    store: EventStore, after: int
) -> None:
    await store.append("ok", [Counted(n=1)], 0)
    await store.append("acct-9", [Counted(n=i, tag="abcdef") for i in range(4)], 0)
    await _flip_payload_byte(store, "acct-9", 2)

    with pytest.raises(IntegrityError) as info:
        await store.read("acct-9", after=after)
    assert (info.value.stream_id, info.value.version) == ("acct-9", 2)
    assert "'acct-9'" in str(info.value) and "version 2" in str(info.value)
    with pytest.raises(IntegrityError):
        await store.read_events("acct-9")
    with pytest.raises(IntegrityError) as info_all:
        await read_everything(store)
    assert (info_all.value.stream_id, info_all.value.version) == ("acct-9", 2)
    # Reading after the tampered version still checks the link through it; later reads are fine.
    with pytest.raises(IntegrityError):
        await store.read("acct-9", after=2)
    assert [r.version for r in await store.read("acct-9", after=3)] == [4]
    assert len(await store.read("ok")) == 1


@pytest.mark.parametrize(
    ("column", "value"), [("prev_hash", "f" * 64), ("hash", "e" * 64), ("event_type", "store.Noted")]
)
async def test_a_tampered_envelope_field_is_detected_on_read(store: EventStore, column: str, value: str) -> None:
    await store.append("s", [Counted(n=i) for i in range(3)], 0)
    await raw_execute(store, f"UPDATE events SET {column} = ? WHERE stream_id = ? AND version = ?", value, "s", 2)
    with pytest.raises(IntegrityError) as info:
        await store.read("s")
    assert (info.value.stream_id, info.value.version) == ("s", 2)


async def test_a_deleted_event_breaks_the_chain_at_the_next_version(store: EventStore) -> None:
    await store.append("s", [Counted(n=i) for i in range(4)], 0)
    await raw_execute(store, "DELETE FROM events WHERE stream_id = ? AND version = ?", "s", 2)
    with pytest.raises(IntegrityError) as info:
        await store.read("s")
    assert (info.value.stream_id, info.value.version) == ("s", 3)
    with pytest.raises(IntegrityError) as info:
        await store.read("s", after=1)
    assert (info.value.stream_id, info.value.version) == ("s", 3)
    # Reading after the missing event itself must not quietly start from the next one.
    with pytest.raises(IntegrityError) as info:
        await store.read("s", after=2)
    assert (info.value.stream_id, info.value.version) == ("s", 2)
    assert [r.version for r in await store.read("s", after=3)] == [4]


async def test_an_unknown_event_type_on_read_names_the_type(store: EventStore) -> None:
    await store.append("s", [Counted(n=1)], 0)
    (row,) = await store.read("s")
    stranger = EventRegistry()
    with pytest.raises(UnknownEventTypeError) as info:
        stranger.decode(row)
    assert info.value.event_type == "store.Counted"
    assert "'store.Counted'" in str(info.value)

    # Bytes stored under a name this code no longer knows (the hash chain itself is intact).
    ghost = chain_hash(row.hash, 2, "store.Ghost", 1, None, b'{"n":1}')
    await raw_execute(
        store,
        "INSERT INTO events (global_position, stream_id, version, event_type, schema_version, payload, "
        "sim_time, command_id, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        2, "s", 2, "store.Ghost", 1, b'{"n":1}', None, None, row.hash, ghost,
    )
    assert [r.event_type for r in await store.read("s")] == ["store.Counted", "store.Ghost"]
    with pytest.raises(UnknownEventTypeError) as info:
        await store.read_events("s")
    assert info.value.event_type == "store.Ghost" and "store.Ghost" in str(info.value)


async def test_an_unknown_event_type_is_reported_by_a_store_opened_with_another_registry(
    durable_store_url: str, open_stores: StoreFactory
) -> None:
    writer = await open_stores(durable_store_url)
    await writer.append("s", [Counted(n=1)], 0)
    other = EventRegistry()
    reader = await open_stores(durable_store_url, registry=other)
    assert len(await reader.read("s")) == 1
    with pytest.raises(UnknownEventTypeError, match=r"store\.Counted"):
        await reader.read_events("s")


async def test_an_invalid_event_payload_is_rejected_before_anything_is_written(store: EventStore) -> None:
    bad = Counted.model_construct(n="x")
    with pytest.raises(EventValidationError, match=r"store\.Counted"):
        await store.append("s", [bad], 0)
    with pytest.raises(EventValidationError):
        await store.append("s", [Counted(n=1), bad, Counted(n=3)], 0, command_id="c")
    assert await read_everything(store) == []
    assert await store.stream_version("s") == 0
    result = await store.append("s", [Counted(n=1)], 0, command_id="c")
    assert not result.deduplicated


async def test_a_lax_payload_is_stored_in_its_validated_form(store: EventStore) -> None:
    loose = Counted.model_construct(n="5", writer=0, tag="")
    await store.append("s", [loose], 0)
    (row,) = await store.read("s")
    assert row.payload == REG.encode(Counted(n=5)).payload


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "",
        "events.db",
        "mysql://user@host/db",
        "sqlite+aiosqlite://relative.db",
        "sqlite+aiosqlite:///",
        "postgresql+asyncpg://",
        "postgresql+asyncpg://postgres@127.0.0.1/test?schema=Bad-Name",
        "sqlite+aiosqlite:///:memory:?busy_timeout_ms=soon",
    ],
)
async def test_a_bad_url_raises_a_typed_usage_error(url: str) -> None:
    with pytest.raises(UsageError):
        await open_store(url, registry=REG)


@pytest.mark.parametrize("url", [None, 42, b"sqlite+aiosqlite:///:memory:"])
async def test_a_non_string_url_raises_invalid_store_url(url: Any) -> None:
    with pytest.raises(InvalidStoreUrlError):
        await open_store(url, registry=REG)


def test_store_url_parsing_keeps_target_and_options() -> None:
    parsed = StoreUrl.parse("sqlite+aiosqlite:////tmp/x/events.db?durable=true")
    assert (parsed.backend, parsed.target, parsed.options) == ("sqlite", "/tmp/x/events.db", {"durable": "true"})
    pg = StoreUrl.parse("postgresql+asyncpg://u@h:5432/db?schema=s1")
    assert (pg.backend, pg.target, pg.options) == ("postgresql", "postgresql://u@h:5432/db", {"schema": "s1"})


async def test_an_unreachable_database_raises_store_unavailable(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database" * 300)
    blocker = tmp_path / "file"
    blocker.write_text("a file where a directory should be")
    for url in [
        f"sqlite+aiosqlite:///{garbage}",
        f"sqlite+aiosqlite:///{blocker}/sub/events.db",
        f"sqlite+aiosqlite:///{tmp_path}",
        "postgresql+asyncpg://postgres@127.0.0.1:1/test",
    ]:
        with pytest.raises(StoreUnavailableError):
            await open_store(url, registry=REG)


@pytest.mark.parametrize("stream_id", [123, None, b"bytes", ("t",), "", "x" * 256])
async def test_append_rejects_a_bad_stream_id_and_writes_nothing(store: EventStore, stream_id: Any) -> None:
    with pytest.raises(UsageError):
        await store.append(stream_id, [Counted(n=1)], 0)
    with pytest.raises(UsageError):
        await store.read(stream_id)
    with pytest.raises(UsageError):
        await store.stream_version(stream_id)
    assert await read_everything(store) == []


@pytest.mark.parametrize("expected", [-1, -100, True, 1.0, "0"])
async def test_append_rejects_a_negative_or_non_int_expected_version(store: EventStore, expected: Any) -> None:
    with pytest.raises(UsageError):
        await store.append("s", [Counted(n=1)], expected)
    pending = [REG.encode(Counted(n=1))]
    with pytest.raises(UsageError):
        await store.append_pending("s", pending, expected)
    assert await read_everything(store) == []


@pytest.mark.parametrize("events", [[], (), None, "events", Counted(n=1), iter([Counted(n=1)]), [{"n": 1}]])
async def test_append_rejects_malformed_event_lists(store: EventStore, events: Any) -> None:
    with pytest.raises(UsageError):
        await store.append("s", events, 0)
    assert await read_everything(store) == []


async def test_append_rejects_an_unregistered_event_class_and_writes_nothing(store: EventStore) -> None:
    with pytest.raises(UnregisteredEventError, match="NeverRegistered"):
        await store.append("s", [Counted(n=1), NeverRegistered(n=1)], 0)
    other = EventRegistry()

    @event("store.Elsewhere", registry=other)
    class Elsewhere(Event):
        n: int

    with pytest.raises(UnregisteredEventError):
        await store.append("s", [Elsewhere(n=1)], 0)
    assert await read_everything(store) == []


@pytest.mark.parametrize("command_id", ["", 7, b"c"])
async def test_append_rejects_a_bad_command_id(store: EventStore, command_id: Any) -> None:
    with pytest.raises(UsageError):
        await store.append("s", [Counted(n=1)], 0, command_id=command_id)
    assert await read_everything(store) == []


@pytest.mark.parametrize(("after", "limit"), [(-1, 10), (0, -1), ("0", 10), (0, 2.5)])
async def test_reads_reject_bad_cursors(store: EventStore, after: Any, limit: Any) -> None:
    with pytest.raises(UsageError):
        await store.read_all(after=after, limit=limit)


async def test_every_operation_on_a_closed_store_raises_store_closed(store_url: str) -> None:
    s = await open_store(store_url, registry=REG)
    await s.append("s", [Counted(n=1)], 0)
    await s.close()
    calls = [
        s.append("s", [Counted(n=2)], 1),
        s.append_pending("s", [REG.encode(Counted(n=2))], 1),
        s.read("s"),
        s.read_events("s"),
        s.read_all(),
        s.stream_version("s"),
        s.save_snapshot(Snapshot("s", 1, 1, b"{}", "h", "e")),
        s.load_snapshot("s"),
    ]
    for call in calls:
        with pytest.raises(StoreClosedError):
            await call
    if not _is_memory(store_url):
        async with await open_store(store_url, registry=REG) as again:
            assert [r.version for r in await again.read("s")] == [1]


# --- 7. crash atomicity ---------------------------------------------------------------------------


async def test_a_writer_killed_mid_batch_leaves_every_batch_all_or_nothing(durable_store_url: str) -> None:
    batch_size, cycles = 25, 3
    acknowledged: set[str] = set()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    rng = random.Random(7)
    for cycle in range(cycles):
        proc = await asyncio.create_subprocess_exec(
            sys.executable, str(SCRIPTS / "crash_writer.py"), durable_store_url, str(batch_size), str(cycle),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
        )
        assert proc.stdout is not None
        try:
            commits = 0
            target = rng.randrange(20, 60)
            async with asyncio.timeout(20):
                while commits < target:
                    line = (await proc.stdout.readline()).decode().strip()
                    if not line:
                        err = b"" if proc.stderr is None else await proc.stderr.read()
                        pytest.fail(f"writer exited early: {err.decode()[-2000:]}")
                    if line.startswith("committed "):
                        acknowledged.add(line.split()[1])
                        commits += 1
            await asyncio.sleep(rng.uniform(0, 0.02))
        finally:
            if proc.returncode is None:
                proc.send_signal(signal.SIGKILL)
            await proc.wait()
        assert proc.returncode == -signal.SIGKILL

    async with await open_store(durable_store_url, registry=EventRegistry()) as s:
        if s.backend == "sqlite":
            assert await raw_fetch(s, "PRAGMA integrity_check") == [("ok",)]
        rows = await read_everything(s)
        by_batch: dict[str, list[RecordedEvent]] = defaultdict(list)
        for r in rows:
            by_batch[r.command_id or "?"].append(r)
        assert "?" not in by_batch
        assert acknowledged <= set(by_batch), "an acknowledged batch was lost"
        for batch_id, batch_rows in by_batch.items():
            assert len(batch_rows) == batch_size, f"batch {batch_id} is partial: {len(batch_rows)} events"
            versions = [r.version for r in batch_rows]
            assert versions == list(range(versions[0], versions[0] + batch_size))
            assert len({r.stream_id for r in batch_rows}) == 1
        for stream in {r.stream_id for r in rows}:
            stream_rows = await s.read(stream)  # verifies the whole hash chain
            assert [r.version for r in stream_rows] == list(range(1, len(stream_rows) + 1))
            assert await s.stream_version(stream) == len(stream_rows)
        assert len(acknowledged) >= cycles * 20
