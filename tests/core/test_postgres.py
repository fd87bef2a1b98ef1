"""PostgreSQL-only guarantees: tailing under rollbacks and slow commits, connection loss, lost acks."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import asyncpg
import pytest

from saas_sim.core.batching import AppendRequest, AppendResult, BatchPlan
from saas_sim.core.events import Event, EventRegistry, RecordedEvent, event
from saas_sim.core.postgres import PostgresEventStore
from saas_sim.core.store import EventStore, StoreUrl
from saas_sim.errors import ConcurrencyError, StoreError, UsageError
from tests.conftest import StoreFactory, admin_connection
from tests.core.helpers import read_everything, row_key

pytestmark = pytest.mark.postgres

REG = EventRegistry()


@event("pg.Tick", registry=REG)
class Tick(Event):
    writer: int
    n: int


@pytest.fixture
def registry() -> EventRegistry:
    return REG


class ForcedRollback(Exception):
    """Raised by the flaky store to roll a whole transaction back."""


class FlakyPgStore(PostgresEventStore):
    """A real PostgreSQL store whose transactions wait 0-50 ms before COMMIT, and 10% roll back.

    The advisory lock, the reads and the writes are exactly the store's (its whole
    transaction body runs); only the COMMIT is delayed (holding the lock) or
    replaced by the store's own ROLLBACK, as a failure after the writes causes.
    """

    def __init__(self, url: str, seed: int) -> None:
        super().__init__(url, REG, StoreUrl.parse(url))
        self.rng = random.Random(seed)
        self.rollbacks = 0

    async def _plan_and_write(
        self, conn: asyncpg.Connection, requests: list[AppendRequest], *, recovering: bool
    ) -> BatchPlan:
        plan = await super()._plan_and_write(conn, requests, recovering=recovering)
        await asyncio.sleep(self.rng.uniform(0, 0.05))
        if self.rng.random() < 0.10:
            self.rollbacks += 1
            raise ForcedRollback
        return plan


async def _open_flaky(url: str, seed: int, opened: list[EventStore]) -> FlakyPgStore:
    s = FlakyPgStore(url, seed)
    opened.append(s)
    await s._open()
    return s


async def test_a_tailing_reader_never_skips_under_rollbacks_and_slow_commits(
    pg_url: str, open_stores: StoreFactory
) -> None:
    writers, appends = 16, 8
    reader_store = await open_stores(pg_url)
    opened: list[EventStore] = []
    acknowledged: list[AppendResult] = []
    failures = 0
    done = asyncio.Event()

    async def writer(w: int, s: FlakyPgStore) -> None:
        nonlocal failures
        rng = random.Random(1000 + w)
        version = 0
        n = 0
        while n < appends:
            events = [Tick(writer=w, n=n * 10 + j) for j in range(rng.randint(1, 3))]
            try:
                result = await s.append(f"w{w}", events, version)
            except ConcurrencyError:
                raise
            except StoreError:
                failures += 1
                continue
            acknowledged.append(result)
            version = result.last_version
            n += 1

    async def reader() -> list[RecordedEvent]:
        seen: list[RecordedEvent] = []
        cursor = 0
        while True:
            finished = done.is_set()
            rows = await reader_store.read_all(after=cursor, limit=7)
            seen.extend(rows)
            if rows:
                cursor = max(r.global_position for r in rows)
            elif finished:
                return seen
            else:
                await asyncio.sleep(0.002)

    try:
        stores = [await _open_flaky(pg_url, seed=w, opened=opened) for w in range(writers)]
        tail = asyncio.create_task(reader())
        async with asyncio.timeout(25):
            await asyncio.gather(*(writer(w, s) for w, s in enumerate(stores)))
            done.set()
            seen = await tail
    finally:
        for s in opened:
            await s.close()

    assert failures > 0, "no transaction was rolled back; the test did not exercise rollbacks"
    assert failures == sum(s.rollbacks for s in stores if isinstance(s, FlakyPgStore))
    final = await read_everything(reader_store)
    positions = [r.global_position for r in seen]
    assert positions == sorted(set(positions)), "the reader saw an event twice or out of order"
    assert [row_key(r) for r in seen] == [row_key(r) for r in final], "the reader skipped a committed event"
    written = {(r.stream_id, p) for r in acknowledged for p in r.positions}
    assert {(r.stream_id, r.global_position) for r in final} == written
    for w in range(writers):
        rows = await reader_store.read(f"w{w}")
        assert [REG.decode(r).n // 10 for r in rows] == sorted(REG.decode(r).n // 10 for r in rows)  # type: ignore[attr-defined]
        assert len({REG.decode(r).n // 10 for r in rows}) == appends  # type: ignore[attr-defined]


async def _terminate(app_name: str) -> int:
    admin = await admin_connection()
    try:
        killed = await admin.fetch(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 "
            "AND pid <> pg_backend_pid()",
            app_name,
        )
    finally:
        await admin.close()
    return sum(1 for r in killed if r[0])


def _app_name(store: EventStore) -> str:
    assert isinstance(store, PostgresEventStore)
    return f"saas_sim:{store.schema}"


async def test_the_next_call_after_terminated_connections_succeeds_without_duplicates(
    pg_url: str, open_stores: StoreFactory
) -> None:
    store = await open_stores(pg_url)
    await store.append("s", [Tick(writer=0, n=0)], 0)
    assert await _terminate(_app_name(store)) >= 1  # the writer and the pool's reader
    result = await store.append("s", [Tick(writer=0, n=1)], 1, command_id="after-kill")
    assert result.last_version == 2
    assert await _terminate(_app_name(store)) >= 1
    assert [r.version for r in await store.read("s")] == [1, 2]
    assert await _terminate(_app_name(store)) >= 1
    assert len(await store.read_all()) == 2


async def test_terminating_connections_mid_run_loses_and_duplicates_nothing(
    pg_url: str, open_stores: StoreFactory
) -> None:
    store = await open_stores(pg_url)
    app = _app_name(store)
    rounds = 8
    killing = asyncio.Event()
    killing.set()
    kills = 0
    appended = {"with-ids": 0, "without-ids": 0}

    async def killer() -> None:
        nonlocal kills
        rng = random.Random(5)
        for _ in range(rounds):
            await asyncio.sleep(rng.uniform(0.05, 0.2))
            kills += await _terminate(app)
        killing.clear()

    async def writer(stream: str, with_command: bool) -> None:
        i = 0
        while killing.is_set() or i < 20:
            cid = f"{stream}-{i}" if with_command else None
            result = await store.append(stream, [Tick(writer=0, n=i), Tick(writer=1, n=i)], 2 * i, command_id=cid)
            assert result.last_version == 2 * i + 2
            i += 1
            appended[stream] = i

    async def reader() -> None:
        while killing.is_set():
            await store.read_all(after=0, limit=50)
            await asyncio.sleep(0.002)

    async with asyncio.timeout(25):
        await asyncio.gather(killer(), reader(), writer("with-ids", True), writer("without-ids", False))
    assert kills >= rounds, "the store's connections were not there to terminate"
    for stream, total in appended.items():
        rows = await store.read(stream)
        assert [r.version for r in rows] == list(range(1, 2 * total + 1))
        assert [REG.decode(r) for r in rows] == [Tick(writer=w, n=i) for i in range(total) for w in (0, 1)]
    assert len(await read_everything(store)) == 2 * sum(appended.values())


class LostAckStore(PostgresEventStore):
    """Commits, then reports the connection as lost, so the outcome of the COMMIT looks unknown."""

    def __init__(self, url: str, lose: int) -> None:
        super().__init__(url, REG, StoreUrl.parse(url))
        self.lose = lose
        self.calls = 0

    async def _commit_once(
        self, conn: asyncpg.Connection, requests: list[AppendRequest], *, recovering: bool
    ) -> BatchPlan:
        plan = await super()._commit_once(conn, requests, recovering=recovering)
        self.calls += 1
        if self.lose > 0:
            self.lose -= 1
            raise ConnectionResetError("connection lost after COMMIT")
        return plan


@pytest.mark.parametrize("lose", [1, 3])
async def test_a_lost_commit_acknowledgement_is_recovered_without_duplicates(pg_url: str, lose: int) -> None:
    s = LostAckStore(pg_url, 0)
    try:
        await s._open()
        await s.append("s", [Tick(writer=0, n=0)], None)
        s.lose = lose
        outcomes = await asyncio.gather(
            s.append("s", [Tick(writer=1, n=1)], 1),  # recognised by its chain hashes
            s.append("t", [Tick(writer=2, n=2)], 0, command_id="cmd-t"),  # recognised by its command id
            s.append("u", [Tick(writer=3, n=3)], 5),  # a genuine conflict stays a conflict
            return_exceptions=True,
        )
        assert isinstance(outcomes[0], AppendResult) and outcomes[0].last_version == 2
        assert isinstance(outcomes[1], AppendResult) and outcomes[1].last_version == 1
        assert isinstance(outcomes[2], ConcurrencyError)
        assert [REG.decode(r) for r in await s.read("s")] == [Tick(writer=0, n=0), Tick(writer=1, n=1)]
        assert len(await s.read("t")) == 1
        assert len(await s.read_all()) == 3
    finally:
        await s.close()


async def test_stores_on_different_schemas_are_isolated(pg_url: str, open_stores: StoreFactory) -> None:
    other_schema = "t_other_" + pg_url.rsplit("=", 1)[1][2:]
    other_url = pg_url.rsplit("=", 1)[0] + "=" + other_schema
    try:
        a = await open_stores(pg_url)
        b = await open_stores(other_url)
        await a.append("s", [Tick(writer=0, n=1)], 0)
        assert await b.read_all() == []
        await b.append("s", [Tick(writer=0, n=2)], 0)
        assert [REG.decode(r) for r in await a.read("s")] == [Tick(writer=0, n=1)]
    finally:
        admin = await admin_connection()
        try:
            await admin.execute(f'DROP SCHEMA IF EXISTS "{other_schema}" CASCADE')
        finally:
            await admin.close()


async def test_connections_carry_timeouts_and_an_application_name(pg_url: str, open_stores: StoreFactory) -> None:
    store = await open_stores(pg_url)
    assert isinstance(store, PostgresEventStore) and store._pool is not None
    settings: dict[str, Any] = {}
    async with store._pool.acquire() as conn:
        for name in ("lock_timeout", "idle_in_transaction_session_timeout", "application_name", "search_path"):
            settings[name] = await conn.fetchval(f"SHOW {name}")
    assert settings == {
        "lock_timeout": "15s",
        "idle_in_transaction_session_timeout": "1min",
        "application_name": _app_name(store),
        "search_path": store.schema,
    }


async def test_pgbouncer_mode_appends_and_reads_without_prepared_statements(
    pg_url: str, open_stores: StoreFactory
) -> None:
    store = await open_stores(pg_url + "&pgbouncer=true")
    await store.append("s", [Tick(writer=0, n=1)], 0)
    assert len(await store.read("s")) == 1


def test_a_schema_name_that_is_not_a_plain_identifier_is_rejected() -> None:
    for bad in ("Upper", "semi;colon", "x" * 80, "1abc"):
        url = f"postgresql+asyncpg://postgres@127.0.0.1/test?schema={bad}"
        with pytest.raises(UsageError):
            PostgresEventStore(url, REG, StoreUrl.parse(url))


@pytest.mark.parametrize("lose", [1, 3])
async def test_a_lost_commit_acknowledgement_without_version_or_command_id_is_not_duplicated(
    pg_url: str, lose: int
) -> None:
    s = LostAckStore(pg_url, 0)
    try:
        await s._open()
        await s.append("s", [Tick(writer=0, n=0)], None)
        s.lose = lose
        first, second = await asyncio.gather(
            s.append("s", [Tick(writer=1, n=1), Tick(writer=1, n=2)], None),
            s.append("s", [Tick(writer=2, n=3)], None),
        )
        assert (first.first_version, first.last_version, second.last_version) == (2, 3, 4)
        assert [REG.decode(r) for r in await s.read("s")] == [
            Tick(writer=0, n=0), Tick(writer=1, n=1), Tick(writer=1, n=2), Tick(writer=2, n=3)
        ]
        assert len(await s.read_all()) == 4
    finally:
        await s.close()


class ShortLockWaitStore(PostgresEventStore):
    """A store whose connections give up on a lock after 200 ms instead of 15 s."""

    def _settings(self) -> dict[str, str]:
        return {**super()._settings(), "lock_timeout": "200ms"}


async def test_a_lock_wait_past_lock_timeout_fails_the_batch_and_leaves_the_connection_usable(pg_url: str) -> None:
    # The batch's BEGIN and lock wait are one round trip: a lock timeout there leaves an aborted
    # transaction open, which must be rolled back, or every later batch on the connection fails.
    s = ShortLockWaitStore(pg_url, REG, StoreUrl.parse(pg_url))
    holder = await admin_connection()
    try:
        await s._open()
        await s.append("s", [Tick(writer=0, n=0)], 0)
        await holder.execute("SELECT pg_advisory_lock($1)", s.lock_key)
        with pytest.raises(StoreError, match="lock timeout"):
            await s.append("s", [Tick(writer=0, n=1)], 1)
        await holder.execute("SELECT pg_advisory_unlock($1)", s.lock_key)
        result = await s.append("s", [Tick(writer=0, n=1)], 1)
        assert result.last_version == 2
        assert [REG.decode(r) for r in await s.read("s")] == [Tick(writer=0, n=0), Tick(writer=0, n=1)]
    finally:
        await holder.close()
        await s.close()
