"""Shared fixtures: event stores on every backend, always closed, PostgreSQL in a schema of its own.

* `store_url` / `store` run a test on a SQLite file, SQLite in memory and PostgreSQL.
* `durable_store_url` runs it on the backends that survive a reopen (SQLite file, PostgreSQL).
* `pg_url` runs it on PostgreSQL only.

PostgreSQL comes from `SAAS_SIM_TEST_PG_URL`. Each test gets a fresh schema
(`?schema=t_<hex>`), dropped afterwards. Without the URL the PostgreSQL cases
skip with a visible reason, unless `CI` or `SAAS_SIM_REQUIRE_PG` is set: then
they fail, because CI must never skip them silently.

A test module picks its own `EventRegistry` by overriding the `registry`
fixture, so event names never clash across modules.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import asyncpg
import pytest

from saas_sim.core.events import EventRegistry
from saas_sim.core.store import EventStore, open_store

PG_ENV = "SAAS_SIM_TEST_PG_URL"

StoreFactory = Callable[..., Awaitable[EventStore]]


def pg_base_url() -> str:
    """Returns the PostgreSQL test URL, or skips (fails in CI) when none is configured."""
    url = os.environ.get(PG_ENV, "").strip()
    if url:
        return url
    if os.environ.get("CI") or os.environ.get("SAAS_SIM_REQUIRE_PG"):
        pytest.fail(f"{PG_ENV} is not set, but PostgreSQL tests must run here (CI/SAAS_SIM_REQUIRE_PG)")
    pytest.skip(f"PostgreSQL tests need {PG_ENV}, e.g. postgresql+asyncpg://postgres@127.0.0.1:5432/test")


def asyncpg_dsn(url: str) -> str:
    """Turns a store URL into a plain DSN asyncpg accepts (no driver suffix, no query)."""
    rest = url.partition("://")[2]
    return "postgresql://" + rest.partition("?")[0]


def with_option(url: str, key: str, value: str) -> str:
    """Appends a query option to a URL."""
    return f"{url}{'&' if '?' in url else '?'}{key}={value}"


async def admin_connection() -> asyncpg.Connection:
    """Opens a plain asyncpg connection to the test database (for setup, fault injection, cleanup)."""
    return await asyncpg.connect(asyncpg_dsn(pg_base_url()), timeout=10)


async def drop_schema(schema: str) -> None:
    """Drops a test schema and everything in it."""
    conn = await admin_connection()
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


@pytest.fixture
async def pg_url() -> AsyncIterator[str]:
    """A PostgreSQL store URL on a fresh schema, dropped after the test."""
    schema = f"t_{secrets.token_hex(8)}"
    url = with_option(pg_base_url(), "schema", schema)
    try:
        yield url
    finally:
        await drop_schema(schema)


_PG = pytest.param("postgres", marks=pytest.mark.postgres, id="postgres")


def _url_for(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if kind == "sqlite-file":
        return f"sqlite+aiosqlite:///{tmp_path / 'events.db'}"
    if kind == "sqlite-memory":
        return "sqlite+aiosqlite:///:memory:"
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture(params=["sqlite-file", "sqlite-memory", _PG])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store URL on each backend: SQLite file, SQLite memory, PostgreSQL."""
    return _url_for(request.param, tmp_path, request)


@pytest.fixture(params=["sqlite-file", _PG])
def durable_store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store URL on each backend that outlives its store: SQLite file and PostgreSQL."""
    return _url_for(request.param, tmp_path, request)


@pytest.fixture
def registry() -> EventRegistry:
    """The event registry stores are opened with; test modules override it with their own."""
    return EventRegistry()


@pytest.fixture
async def open_stores(registry: EventRegistry) -> AsyncIterator[StoreFactory]:
    """A factory that opens stores (default: with `registry`) and closes every one after the test."""
    opened: list[EventStore] = []

    async def factory(url: str, **kwargs: object) -> EventStore:
        kwargs.setdefault("registry", registry)
        s = await open_store(url, **kwargs)  # type: ignore[arg-type]
        opened.append(s)
        return s

    try:
        yield factory
    finally:
        for s in reversed(opened):
            await s.close()


@pytest.fixture
async def store(store_url: str, open_stores: StoreFactory) -> EventStore:
    """An open store on each backend; closed after the test."""
    return await open_stores(store_url)
