"""Helpers for kernel tests: raw SQL for fault injection, and small comparisons."""

from __future__ import annotations

import itertools
import logging
import re
from typing import Any

from saas_sim.core.batching import AppendResult
from saas_sim.core.events import RecordedEvent
from saas_sim.core.postgres import PostgresEventStore
from saas_sim.core.sqlite import SqliteEventStore
from saas_sim.core.store import EventStore


def _pg_sql(sql: str) -> str:
    n = itertools.count(1)
    return re.sub(r"\?", lambda _: f"${next(n)}", sql)


async def raw_execute(store: EventStore, sql: str, *params: Any) -> None:
    """Runs one statement on the store's own database, bypassing the store (`?` placeholders)."""
    if isinstance(store, SqliteEventStore):
        assert store._writer is not None
        async with store._write_lock:
            await store._writer.execute(sql, params)
    elif isinstance(store, PostgresEventStore):
        assert store._pool is not None
        await store._pool.execute(_pg_sql(sql), *params)
    else:  # pragma: no cover - only two backends exist
        raise AssertionError(f"unknown backend {type(store).__name__}")


async def raw_fetch(store: EventStore, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """Runs one query on the store's own database, bypassing the store (`?` placeholders)."""
    if isinstance(store, SqliteEventStore):
        assert store._writer is not None
        async with store._write_lock:
            return [tuple(r) for r in await store._writer.execute_fetchall(sql, params)]
    if isinstance(store, PostgresEventStore):
        assert store._pool is not None
        return [tuple(r) for r in await store._pool.fetch(_pg_sql(sql), *params)]
    raise AssertionError(f"unknown backend {type(store).__name__}")  # pragma: no cover


async def read_everything(store: EventStore, page: int = 1000) -> list[RecordedEvent]:
    """Returns the whole log through `read_all`, page by page."""
    out: list[RecordedEvent] = []
    cursor = 0
    while True:
        rows = await store.read_all(after=cursor, limit=page)
        if not rows:
            return out
        out.extend(rows)
        cursor = rows[-1].global_position


def row_key(r: RecordedEvent) -> tuple[Any, ...]:
    """Every stored field of an envelope, for exact comparisons."""
    return (r.global_position, r.stream_id, r.version, r.event_type, r.schema_version, r.payload,
            r.sim_time, r.command_id, r.prev_hash, r.hash)


def undeduplicated(result: AppendResult) -> AppendResult:
    """The result with its `deduplicated` flag cleared, to compare a retry with the original."""
    return AppendResult(result.stream_id, result.first_version, result.last_version,
                        result.first_position, result.last_position, result.head_hash)


def outage_retries(records: list[logging.LogRecord], what: str) -> int:
    """Counts the retries an outage window logged for an operation ("PostgreSQL append", "SQLite write lock")."""
    return sum(1 for r in records if r.name == "saas_sim.core.outage" and r.args and r.args[0] == what)
