"""SQLite specifics: WAL, BEGIN IMMEDIATE, busy timeout, the durable option, and lock contention."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from saas_sim.core.batching import AppendRequest, BatchPlan
from saas_sim.core.events import Event, EventRegistry, event
from saas_sim.core.schema import ddl_statements
from saas_sim.core.sqlite import SqliteEventStore
from saas_sim.core.sqlite_append import SqliteAppender
from saas_sim.core.store import EventStore, open_store
from saas_sim.errors import ConcurrencyError, StoreUnavailableError
from tests.conftest import StoreFactory, wait_until
from tests.core.helpers import outage_retries, raw_execute, raw_fetch

REG = EventRegistry()


@event("lite.Wrote", registry=REG)
class Wrote(Event):
    n: int


@event("lite.Noted", registry=REG)
class Noted(Event):
    text: str


@pytest.fixture
def registry() -> EventRegistry:
    return REG


async def _pragma(store: EventStore, name: str) -> object:
    return (await raw_fetch(store, f"PRAGMA {name}"))[0][0]


async def test_a_file_store_runs_in_wal_mode_with_normal_sync_and_a_busy_timeout(
    tmp_path: Path, open_stores: StoreFactory
) -> None:
    store = await open_stores(f"sqlite+aiosqlite:///{tmp_path}/a/b/events.db")
    assert (tmp_path / "a" / "b" / "events.db").exists()
    assert await _pragma(store, "journal_mode") == "wal"
    assert await _pragma(store, "synchronous") == 1  # NORMAL
    assert await _pragma(store, "busy_timeout") == 10000


@pytest.mark.parametrize(
    ("query", "durable"), [("?durable=true", None), ("?durable=1", None), ("", True), ("?durable=true", False)]
)
async def test_the_durable_option_selects_full_sync(
    tmp_path: Path, open_stores: StoreFactory, query: str, durable: bool | None
) -> None:
    store = await open_stores(f"sqlite+aiosqlite:///{tmp_path}/events.db{query}", durable=durable)
    expected_full = durable if durable is not None else True
    assert isinstance(store, SqliteEventStore) and store.durable is expected_full
    assert await _pragma(store, "synchronous") == (2 if expected_full else 1)


async def test_busy_timeout_is_configurable(tmp_path: Path, open_stores: StoreFactory) -> None:
    store = await open_stores(f"sqlite+aiosqlite:///{tmp_path}/events.db?busy_timeout_ms=250")
    assert await _pragma(store, "busy_timeout") == 250


async def test_each_memory_store_is_its_own_database(open_stores: StoreFactory) -> None:
    a = await open_stores("sqlite+aiosqlite:///:memory:")
    b = await open_stores("sqlite+aiosqlite:///:memory:")
    await a.append("s", [Wrote(n=1)], 0)
    assert await b.read_all() == []


async def test_two_stores_on_one_file_see_each_others_commits(tmp_path: Path, open_stores: StoreFactory) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/events.db"
    a, b = await open_stores(url), await open_stores(url)
    await a.append("s", [Wrote(n=1)], 0)
    await b.append("s", [Wrote(n=2)], 1)
    assert [r.version for r in await a.read("s")] == [1, 2]
    assert [r.global_position for r in await b.read_all()] == [1, 2]


async def test_a_write_lock_held_past_the_outage_budget_is_unavailable_and_the_writer_recovers(
    tmp_path: Path, open_stores: StoreFactory
) -> None:
    path = tmp_path / "events.db"
    store = await open_stores(f"sqlite+aiosqlite:///{path}?busy_timeout_ms=100&outage_budget_s=0.3")
    await store.append("s", [Wrote(n=1)], 0)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreUnavailableError):
            await store.append("s", [Wrote(n=2)], 1)
        assert [r.version for r in await store.read("s")] == [1], "WAL readers are not blocked by a writer"
    finally:
        other.execute("ROLLBACK")
        other.close()
    result = await store.append("s", [Wrote(n=2)], 1)
    assert result.last_version == 2


async def test_a_lock_held_elsewhere_longer_than_the_busy_timeout_is_waited_out_within_the_outage_budget(
    tmp_path: Path, open_stores: StoreFactory, caplog: pytest.LogCaptureFixture
) -> None:
    # Bug: a write lock held longer than busy_timeout failed the append at once (StoreUnavailableError),
    # which invalidated the episode; now the store keeps retrying with backoff until its budget is spent.
    caplog.set_level(logging.WARNING, logger="saas_sim.core.outage")
    path = tmp_path / "events.db"
    store = await open_stores(f"sqlite+aiosqlite:///{path}?busy_timeout_ms=50")
    await store.append("s", [Wrote(n=1)], 0)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    append = asyncio.create_task(store.append("s", [Wrote(n=2)], 1))
    try:
        # Released on a readiness signal, not a timer: the store has failed three busy waits in a row.
        await wait_until(lambda: outage_retries(caplog.records, "SQLite write lock") >= 3 or append.done(),
                         what="the store to retry the busy write lock")
        assert not append.done(), f"the append gave up while the lock was held: {append}"
    finally:
        other.execute("ROLLBACK")
        other.close()
    result = await asyncio.wait_for(append, timeout=30)
    assert result.last_version == 2
    assert [r.version for r in await store.read("s")] == [1, 2]


async def test_a_short_lock_elsewhere_is_waited_out_by_the_busy_timeout(
    tmp_path: Path, open_stores: StoreFactory
) -> None:
    path = tmp_path / "events.db"
    store = await open_stores(f"sqlite+aiosqlite:///{path}")
    await store.append("s", [Wrote(n=1)], 0)
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    loop = asyncio.get_running_loop()
    loop.call_later(0.2, lambda: (other.execute("COMMIT"), other.close()))
    result = await store.append("s", [Wrote(n=2)], 1)
    assert result.last_version == 2


async def test_a_store_that_failed_to_open_leaves_no_thread_behind(tmp_path: Path) -> None:
    import threading

    from saas_sim.core.sqlite_thread import THREAD_NAME_PREFIX

    def sqlite_threads() -> int:
        return sum(t.name.startswith(THREAD_NAME_PREFIX) for t in threading.enumerate())

    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"\x00not sqlite" * 500)
    before = sqlite_threads()
    for _ in range(3):
        with pytest.raises(StoreUnavailableError):
            await open_store(f"sqlite+aiosqlite:///{garbage}", registry=REG)
        with pytest.raises(StoreUnavailableError):
            await open_store(f"sqlite+aiosqlite:///{tmp_path}", registry=REG)
    await wait_until(lambda: sqlite_threads() <= before, what="aiosqlite worker threads to exit")


async def test_a_store_whose_file_another_store_wrote_meanwhile_plans_from_the_file_not_its_memory(
    tmp_path: Path, open_stores: StoreFactory
) -> None:
    # The writer remembers heads and the last position between batches; a commit by another
    # connection (PRAGMA data_version moves) must make it read them again.
    url = f"sqlite+aiosqlite:///{tmp_path}/events.db"
    a, b = await open_stores(url), await open_stores(url)
    await a.append("s", [Wrote(n=1)], 0)
    await b.append("s", [Wrote(n=2)], 1)
    await b.append("t", [Wrote(n=3)], 0)
    with pytest.raises(ConcurrencyError):
        await a.append("s", [Wrote(n=4)], 1)
    result = await a.append("s", [Wrote(n=4)], 2)
    assert (result.last_version, result.first_position) == (3, 4)
    assert [r.global_position for r in await b.read_all()] == [1, 2, 3, 4]
    assert [r.version for r in await b.read("s")] == [1, 2, 3]


async def test_a_process_writing_the_file_between_batches_is_seen_by_the_next_batch(
    tmp_path: Path, open_stores: StoreFactory
) -> None:
    path = tmp_path / "events.db"
    store = await open_stores(f"sqlite+aiosqlite:///{path}")
    await store.append("s", [Wrote(n=1)], 0)
    script = (
        "import asyncio, sys\n"
        "from saas_sim.core.events import Event, EventRegistry, event\n"
        "from saas_sim.core.store import open_store\n"
        "REG = EventRegistry()\n"
        "@event('lite.Wrote', registry=REG)\n"
        "class Wrote(Event):\n"
        "    n: int\n"
        "async def main():\n"
        "    async with await open_store(sys.argv[1], registry=REG) as s:\n"
        "        await s.append('s', [Wrote(n=2)], 1)\n"
        "asyncio.run(main())\n"
    )
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", script, f"sqlite+aiosqlite:///{path}")
    assert await proc.wait() == 0
    result = await store.append("s", [Wrote(n=3)], 2)
    assert (result.first_version, result.first_position) == (3, 3)
    rows = await store.read("s")  # verifies the chain across both writers
    assert [REG.decode(r) for r in rows] == [Wrote(n=1), Wrote(n=2), Wrote(n=3)]


async def test_raw_sql_on_the_writer_connection_drops_the_writers_memory(
    tmp_path: Path, open_stores: StoreFactory
) -> None:
    # Statements run on the writer's own connection do not move data_version; the connection counts them.
    store = await open_stores(f"sqlite+aiosqlite:///{tmp_path}/events.db")
    await store.append("s", [Wrote(n=1)], 0)
    await raw_execute(store, "UPDATE streams SET version = 7 WHERE stream_id = 's'")
    with pytest.raises(ConcurrencyError) as caught:
        await store.append("s", [Wrote(n=2)], 1)
    assert caught.value.actual == 7


def test_the_writers_memory_of_heads_is_bounded_and_keeps_the_most_recent(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "events.db", isolation_level=None)
    try:
        for statement in ddl_statements("sqlite"):
            conn.execute(statement)
        appender = SqliteAppender(max_cached_heads=3)
        loop = asyncio.new_event_loop()
        try:
            for round_ in range(2):
                for s in "abcde":
                    req = AppendRequest(s, round_, None, (REG.encode(Wrote(n=round_)),), loop.create_future())
                    plan = appender.commit(conn, [req], raw_uses=0)
                    assert isinstance(plan, BatchPlan) and plan.outcomes[0].last_version == round_ + 1  # type: ignore[union-attr]
                assert list(appender._heads) == ["c", "d", "e"]
        finally:
            loop.close()
        assert conn.execute("SELECT stream_id, version FROM streams ORDER BY stream_id").fetchall() == [
            (s, 2) for s in "abcde"
        ]
    finally:
        conn.close()


def test_a_failed_batch_rolls_back_and_forgets_what_the_writer_remembered(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "events.db", isolation_level=None)
    try:
        for statement in ddl_statements("sqlite"):
            conn.execute(statement)
        appender = SqliteAppender()
        loop = asyncio.new_event_loop()
        try:
            first = AppendRequest("s", 0, None, (REG.encode(Wrote(n=1)),), loop.create_future())
            appender.commit(conn, [first], raw_uses=0)
            # A row the plan does not know about makes the insert fail after BEGIN.
            conn.execute("INSERT INTO events VALUES (2, 'x', 1, 't', 1, x'00', NULL, NULL, 'p', 'h')")
            clash = AppendRequest("s", 1, None, (REG.encode(Wrote(n=2)),), loop.create_future())
            with pytest.raises(sqlite3.IntegrityError):
                appender.commit(conn, [clash], raw_uses=0)
            assert not conn.in_transaction
            assert appender._last_position is None and not appender._heads
            conn.execute("DELETE FROM events WHERE stream_id = 'x'")
            again = AppendRequest("s", 1, None, (REG.encode(Wrote(n=2)),), loop.create_future())
            plan = appender.commit(conn, [again], raw_uses=1)
            assert isinstance(plan, BatchPlan) and plan.event_rows[0][0] == 2
        finally:
            loop.close()
    finally:
        conn.close()


async def test_the_wal_is_checkpointed_off_the_writer_after_enough_appends(
    tmp_path: Path, open_stores: StoreFactory
) -> None:
    path = tmp_path / "events.db"
    store = await open_stores(f"sqlite+aiosqlite:///{path}")
    assert await _pragma(store, "wal_autocheckpoint") == 4000  # the writer's own checkpoint is a backstop
    big = "x" * 4000
    for n in range(600):  # about 2.5 MB of payloads: past the checkpointer's threshold
        await store.append("s", [Noted(text=big)], n)
    assert isinstance(store, SqliteEventStore)
    await wait_until(lambda: store.checkpoints >= 1, what="a checkpoint off the writer")
    assert [r.version for r in await store.read("s")][-1] == 600


# One step of the interleaving property: (store index, stream, expected-version offset, command id or None).
_Step = tuple[int, str, int, str | None]
_STEPS = st.lists(
    st.tuples(st.integers(0, 1), st.sampled_from(["a", "b", "c"]), st.sampled_from([0, 0, 0, -1, 1]),
              st.one_of(st.none(), st.sampled_from(["k1", "k2", "k3", "k4"]))),
    min_size=1, max_size=25,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=_STEPS)
def test_two_stores_interleaving_on_one_file_agree_with_a_model_of_the_log(tmp_path: Path, steps: list[_Step]) -> None:
    # Two store objects (two writers, each remembering heads) take turns on one file. Every outcome
    # must be what one log would give: conflicts exactly when the expected version is stale, a
    # reused command id answers its first result, positions contiguous, every chain intact.
    async def run(path: Path) -> None:
        url = f"sqlite+aiosqlite:///{path}"
        stores = [await open_store(url, registry=REG), await open_store(url, registry=REG)]
        versions: dict[str, int] = {}
        commands: dict[str, tuple[str, int, int]] = {}  # command id -> (stream, first version, n)
        position = 0
        try:
            for i, (who, stream, offset, command) in enumerate(steps):
                expected = versions.get(stream, 0) + offset
                if expected < 0:
                    continue
                events = [Wrote(n=i)]
                key = None if command is None else f"{command}:{stream}:{expected}:{i % 2}"
                if key is not None and key in commands:
                    # A retry of the very same command (same stream, version and events) is deduplicated.
                    events = [Wrote(n=commands[key][2])]
                conflict: ConcurrencyError | None = None
                try:
                    result = await stores[who].append(stream, events, expected, command_id=key)
                except ConcurrencyError as exc:
                    conflict = exc
                if conflict is not None:
                    assert offset != 0 and (key is None or key not in commands)
                    assert conflict.actual == versions.get(stream, 0)
                    continue
                if key is not None and key in commands:
                    assert result.deduplicated and result.first_version == commands[key][1]
                    continue
                assert offset == 0 and not result.deduplicated
                position += 1
                versions[stream] = expected + 1
                assert (result.first_version, result.first_position) == (expected + 1, position)
                if key is not None:
                    commands[key] = (stream, expected + 1, i)
            for stream, version in versions.items():
                for s in stores:
                    assert [r.version for r in await s.read(stream)] == list(range(1, version + 1))
                    assert await s.stream_version(stream) == version
            assert [r.global_position for r in await stores[0].read_all()] == list(range(1, position + 1))
        finally:
            for s in stores:
                await s.close()

    with tempfile.TemporaryDirectory(dir=tmp_path) as d:
        asyncio.run(run(Path(d) / "events.db"))
