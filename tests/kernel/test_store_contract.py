"""The store contract on every backend: SQLite file, SQLite memory and PostgreSQL."""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from saas_sim.core.events import Event, EventRegistry, event
from saas_sim.core.store import EventStore, open_store
from saas_sim.errors import (
    ConcurrencyError,
    EventValidationError,
    IdempotencyConflictError,
    IntegrityError,
    InvalidStoreUrlError,
    StoreClosedError,
    UnknownEventTypeError,
    UnregisteredEventError,
    UsageError,
)

REG = EventRegistry()
ROOT = Path(__file__).resolve().parents[2]
PG_URL = os.environ.get("SAAS_SIM_TEST_PG_URL")
REQUIRE_PG = bool(os.environ.get("CI") or os.environ.get("SAAS_SIM_REQUIRE_PG"))


@event("kernel.Counted", registry=REG)
class Counted(Event):
    n: int
    label: str = ""


class Stray(Event):
    n: int


async def _pg_url() -> tuple[str, str]:
    if not PG_URL:
        if REQUIRE_PG:
            pytest.fail("SAAS_SIM_TEST_PG_URL is not set, but PostgreSQL tests must run here")
        pytest.skip("PostgreSQL tests need SAAS_SIM_TEST_PG_URL")
    schema = f"t_{secrets.token_hex(6)}"
    return f"{PG_URL}?schema={schema}", schema


async def _drop(schema: str) -> None:
    assert PG_URL is not None
    conn = await asyncpg.connect(PG_URL.replace("+asyncpg", ""))
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


@pytest.fixture(params=["sqlite-file", "sqlite-memory", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[EventStore]:
    schema = None
    if request.param == "sqlite-file":
        url = f"sqlite+aiosqlite:///{tmp_path}/events.db"
    elif request.param == "sqlite-memory":
        url = "sqlite+aiosqlite:///:memory:"
    else:
        url, schema = await _pg_url()
    s = await open_store(url, registry=REG)
    try:
        yield s
    finally:
        await s.close()
        if schema:
            await _drop(schema)


async def test_version_race_has_exactly_one_winner_per_round(store: EventStore) -> None:
    for version in range(30):
        outcomes = await asyncio.gather(
            *(store.append("race", [Counted(n=w)], version) for w in range(64)), return_exceptions=True
        )
        wins = [o for o in outcomes if not isinstance(o, BaseException)]
        losses = [o for o in outcomes if isinstance(o, ConcurrencyError)]
        assert len(wins) == 1
        assert len(losses) == 63
        assert all(e.expected == version and e.actual == version + 1 for e in losses)
    rows = await store.read("race")
    assert [r.version for r in rows] == list(range(1, 31))


async def test_a_conflicting_batch_writes_nothing(store: EventStore) -> None:
    await store.append("s", [Counted(n=0)], 0)
    with pytest.raises(ConcurrencyError):
        await store.append("s", [Counted(n=1), Counted(n=2), Counted(n=3)], 0)
    bad = Counted.model_construct(n="not a number")
    with pytest.raises(EventValidationError):
        await store.append("s", [Counted(n=1), bad, Counted(n=3)], 1)
    assert [r.version for r in await store.read("s")] == [1]


async def test_repeated_command_returns_the_original_result_and_writes_once(store: EventStore) -> None:
    events = [Counted(n=1), Counted(n=2)]
    serial = [await store.append("cmd", events, 0, command_id="c1") for _ in range(5)]
    concurrent = await asyncio.gather(*(store.append("cmd", events, 0, command_id="c1") for _ in range(5)))
    results = {(r.first_position, r.last_position, r.head_hash) for r in [*serial, *concurrent]}
    assert len(results) == 1
    assert len(await store.read("cmd")) == 2
    with pytest.raises(IdempotencyConflictError):
        await store.append("cmd", [Counted(n=9)], 0, command_id="c1")


async def test_tailing_readers_see_every_event_once_in_order(store: EventStore) -> None:
    seen: list[list[int]] = [[], []]
    done = asyncio.Event()

    async def writer(w: int) -> None:
        v = 0
        for i in range(20):
            r = await store.append(f"w{w}", [Counted(n=i * 10 + k) for k in range(5)], v)
            v = r.last_version

    async def reader(k: int) -> None:
        cursor = 0
        while True:
            finished = done.is_set()
            rows = await store.read_all(after=cursor, limit=500)
            for r in rows:
                assert r.global_position > cursor
                seen[k].append(r.global_position)
                cursor = r.global_position
            if finished and not rows:
                return
            await asyncio.sleep(0)

    readers = [asyncio.create_task(reader(k)) for k in range(2)]
    await asyncio.gather(*(writer(w) for w in range(10)))
    done.set()
    await asyncio.gather(*readers)
    final = [r.global_position for r in await store.read_all(after=0, limit=100_000)]
    assert len(final) == 1000
    assert seen[0] == final
    assert seen[1] == final


async def test_hash_chain_detects_a_flipped_payload_byte(store: EventStore, tmp_path: Path) -> None:
    await store.append("c", [Counted(n=1), Counted(n=2)], 0)
    await _tamper(store)
    with pytest.raises(IntegrityError) as info:
        await store.read("c")
    assert info.value.stream_id == "c"
    assert info.value.version == 2


async def _tamper(store: EventStore) -> None:
    if store.backend == "sqlite":
        conn = store._writer  # type: ignore[attr-defined]
        await conn.execute("UPDATE events SET payload = CAST('{\"n\":3}' AS BLOB) WHERE version = 2")
    else:
        pool = store._pool  # type: ignore[attr-defined]
        await pool.execute("UPDATE events SET payload = convert_to('{\"n\":3}', 'UTF8') WHERE version = 2")


async def test_unknown_event_type_on_read_names_the_type(store: EventStore) -> None:
    other = EventRegistry()

    @event("kernel.Vanished", registry=other)
    class Vanished(Event):
        n: int

    writer = store.registry
    store.registry = other
    try:
        await store.append("u", [Vanished(n=1)], 0)
    finally:
        store.registry = writer
    with pytest.raises(UnknownEventTypeError, match=r"kernel\.Vanished"):
        await store.read_events("u")


async def test_misuse_gets_typed_errors_and_writes_nothing(store: EventStore) -> None:
    with pytest.raises(UsageError):
        await store.append(42, [Counted(n=1)], 0)  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        await store.append("m", [Counted(n=1)], -1)
    with pytest.raises(UnregisteredEventError):
        await store.append("m", [Stray(n=1)], 0)
    with pytest.raises(UsageError):
        await store.append("m", [], 0)
    assert await store.read("m") == []
    await store.close()
    with pytest.raises(StoreClosedError):
        await store.append("m", [Counted(n=1)], 0)


@pytest.mark.parametrize("url", ["", "mysql://x", "sqlite+aiosqlite://relative.db", "nonsense"])
async def test_bad_store_url_is_rejected(url: str) -> None:
    with pytest.raises(InvalidStoreUrlError):
        await open_store(url)


FLOW = """
import asyncio, json, sys
from saas_sim.core.determinism import SeedContext
from saas_sim.core.store import open_store
from tests.kernel.test_store_contract import REG, Counted

async def main(url):
    ctx = SeedContext(7)
    fake = ctx.faker("names", ["en_US", "de_DE", "ja_JP"])
    rng = ctx.random("picks")
    async with await open_store(url, registry=REG) as s:
        v = 0
        for i in range(30):
            label = fake.name() + ctx.ids.next("ct")
            r = await s.append("flow", [Counted(n=rng.randint(0, 10**6), label=label)], v, sim_time=ctx.clock.now())
            ctx.clock.advance(30)
            v = r.last_version
        rows = await s.read("flow")
        print(json.dumps([[r.version, r.event_type, r.payload.decode(), r.sim_time, r.hash] for r in rows]))

asyncio.run(main(sys.argv[1]))
"""


def _flow(url: str, hashseed: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", FLOW, url], capture_output=True, text=True, check=True, timeout=120,
        env={**os.environ, "PYTHONHASHSEED": hashseed}, cwd=ROOT,
    )
    return proc.stdout


async def test_same_seeded_flow_gives_identical_logs_across_processes_and_backends(tmp_path: Path) -> None:
    a = _flow(f"sqlite+aiosqlite:///{tmp_path}/a.db", "1")
    b = _flow(f"sqlite+aiosqlite:///{tmp_path}/b.db", "987")
    assert a == b
    assert len(a) > 1000
    url, schema = await _pg_url()
    try:
        assert _flow(url, "42") == a
    finally:
        await _drop(schema)


CRASH = """
import asyncio, sys
from saas_sim.core.store import open_store
from tests.kernel.test_store_contract import REG, Counted

async def main(url):
    s = await open_store(url, registry=REG)
    i = 0
    while True:
        await asyncio.gather(*(s.append(f"b{i}-{k}", [Counted(n=j, label=f"b{i}-{k}") for j in range(10)], 0)
                               for k in range(20)))
        i += 1
        print(i, flush=True)

asyncio.run(main(sys.argv[1]))
"""


async def _crash_and_check(url: str) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", CRASH, url, stdout=asyncio.subprocess.PIPE, cwd=ROOT
    )
    assert proc.stdout is not None
    for _ in range(5):
        await proc.stdout.readline()
    proc.kill()  # SIGKILL, mid-batch
    await proc.wait()
    async with await open_store(url, registry=REG) as s:
        rows = await s.read_all(after=0, limit=1_000_000)
    per_stream: dict[str, int] = {}
    for r in rows:
        per_stream[r.stream_id] = per_stream.get(r.stream_id, 0) + 1
    assert len(per_stream) >= 100
    assert set(per_stream.values()) == {10}


async def test_sigkill_mid_batch_leaves_batches_all_or_nothing(tmp_path: Path) -> None:
    await _crash_and_check(f"sqlite+aiosqlite:///{tmp_path}/crash.db")
    url, schema = await _pg_url()
    try:
        await _crash_and_check(url)
    finally:
        await _drop(schema)


async def test_postgres_connection_loss_is_retried_without_duplicates() -> None:
    url, schema = await _pg_url()
    try:
        async with await open_store(url, registry=REG) as s:
            await s.append("loss", [Counted(n=0)], 0)
            assert PG_URL is not None
            admin = await asyncpg.connect(PG_URL.replace("+asyncpg", ""))
            try:
                killed = await admin.fetchval(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1",
                    f"saas_sim:{schema}",
                )
            finally:
                await admin.close()
            assert killed >= 1
            r = await s.append("loss", [Counted(n=1)], 1)
            assert r.last_version == 2
            assert [x.version for x in await s.read("loss")] == [1, 2]
    finally:
        await _drop(schema)
