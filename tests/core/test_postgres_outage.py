"""PostgreSQL outages: writes wait out an unreachable server within the outage budget, and only past it fail.

The outage is made by a TCP proxy that drops every connection and refuses new
ones, which is what a server restart shows a client, without disturbing the
server other tests use. `tests/runtime/test_store_outage.py` restarts the real
server under running episodes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest

from saas_sim.core.events import Event, EventRegistry, event
from saas_sim.errors import StoreUnavailableError
from tests.conftest import StoreFactory, wait_until, with_option
from tests.core.helpers import outage_retries, read_everything
from tests.core.pg_proxy import PgProxy

pytestmark = pytest.mark.postgres

REG = EventRegistry()

OLD_RETRIES = 6
"""The store used to give up after six attempts (about 1.55 s of backoff): outages here outlast that."""


@event("pgout.Wrote", registry=REG)
class Wrote(Event):
    writer: int
    n: int


@pytest.fixture
def registry() -> EventRegistry:
    return REG


@pytest.fixture
async def proxy(pg_url: str) -> AsyncIterator[PgProxy]:
    p = PgProxy(pg_url)
    await p.start()
    try:
        yield p
    finally:
        await p.close()


async def test_writes_during_an_outage_longer_than_the_old_retry_window_all_commit_once(
    proxy: PgProxy, open_stores: StoreFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="saas_sim.core.outage")
    store = await open_stores(proxy.url)
    per_writer, writers = 12, 4
    progress = [0] * writers

    async def writer(w: int) -> None:
        for i in range(per_writer):
            cid = f"w{w}-{i}" if w % 2 else None  # half recovered by command id, half by chain hash
            result = await store.append(f"w{w}", [Wrote(writer=w, n=i)], i, command_id=cid)
            assert result.last_version == i + 1
            progress[w] = i + 1

    tasks = [asyncio.create_task(writer(w)) for w in range(writers)]
    try:
        await wait_until(lambda: min(progress) >= 2, what="every writer to commit twice")
        await proxy.cut()
        # The outage ends on a readiness signal: the writer has retried past the old bounded window.
        await wait_until(lambda: outage_retries(caplog.records, "PostgreSQL append") > OLD_RETRIES
                         or any(t.done() for t in tasks), what="the store to retry past the old window")
        assert not any(t.done() and t.exception() for t in tasks), [t.exception() for t in tasks if t.done()]
        await proxy.start()
        async with asyncio.timeout(60):
            await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
    for w in range(writers):
        rows = await store.read(f"w{w}")
        assert [REG.decode(r) for r in rows] == [Wrote(writer=w, n=i) for i in range(per_writer)]
    assert len(await read_everything(store)) == writers * per_writer, "an event was lost or duplicated"


async def test_reads_during_an_outage_wait_for_the_server(
    proxy: PgProxy, open_stores: StoreFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="saas_sim.core.outage")
    store = await open_stores(proxy.url)
    await store.append("s", [Wrote(writer=0, n=0)], 0)
    await proxy.cut()
    read = asyncio.create_task(store.read("s"))
    await wait_until(lambda: outage_retries(caplog.records, "PostgreSQL read") > OLD_RETRIES or read.done(),
                     what="the read to retry past the old window")
    assert not read.done(), read
    await proxy.start()
    rows = await asyncio.wait_for(read, timeout=60)
    assert [r.version for r in rows] == [1]


async def test_an_outage_past_the_budget_fails_the_write_and_the_store_recovers_after(
    proxy: PgProxy, open_stores: StoreFactory
) -> None:
    store = await open_stores(with_option(proxy.url, "outage_budget_s", "0.5"))
    assert store.outage_budget_s == 0.5
    await store.append("s", [Wrote(writer=0, n=0)], 0)
    await proxy.cut()
    with pytest.raises(StoreUnavailableError, match=r"outage budget of 0\.5s"):
        await store.append("s", [Wrote(writer=0, n=1)], 1, command_id="c1")
    await proxy.start()
    # The failed write's outcome was unknown to the caller; its retry with the same id commits it once.
    result = await store.append("s", [Wrote(writer=0, n=1)], 1, command_id="c1")
    assert result.last_version == 2
    assert [r.version for r in await store.read("s")] == [1, 2]


async def test_a_zero_budget_gives_up_at_the_first_failure(proxy: PgProxy, open_stores: StoreFactory) -> None:
    store = await open_stores(proxy.url, outage_budget_s=0)
    await store.append("s", [Wrote(writer=0, n=0)], 0)
    await proxy.cut()
    with pytest.raises(StoreUnavailableError, match="failed 1 times"):
        await store.append("s", [Wrote(writer=0, n=1)], 1)
