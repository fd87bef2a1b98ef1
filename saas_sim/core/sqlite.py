"""The embedded SQLite backend (aiosqlite).

* WAL journal, `BEGIN IMMEDIATE` for every write transaction (a deferred BEGIN
  that reads then writes fails at once with SQLITE_BUSY), and an explicit
  `busy_timeout`. A write lock held elsewhere for longer than that is waited
  out with backoff until the outage budget (`?outage_budget_s=N`, default
  30 s) is spent; only then does the write raise `StoreUnavailableError`.
* `synchronous=NORMAL` by default; `durable` selects `FULL`, which survives
  power loss.
* One writer task group-commits many streams' appends per transaction. A
  batch costs a handful of statements, however many appends it holds:
  heads, commands and inserts are set-based, so the thread hop per statement
  that aiosqlite charges is paid per batch, not per event.
* A file database reads on a second connection (WAL readers never block the
  writer). An in-memory database has one connection, so every use of it is
  serialized by a lock: a reader must never see a writer's uncommitted rows.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from pathlib import Path
from typing import Any

import aiosqlite

from saas_sim.core.batching import (
    AppendRequest,
    CommandRecord,
    StreamHead,
    plan_batch,
)
from saas_sim.core.events import EventRegistry, RecordedEvent
from saas_sim.core.outage import DEFAULT_OUTAGE_BUDGET_S
from saas_sim.core.schema import ddl_statements
from saas_sim.core.store import EventStore, Snapshot, StoreUrl
from saas_sim.errors import StoreError, StoreUnavailableError, UsageError

__all__ = ["SqliteEventStore"]

_CHUNK = 500  # stays far below SQLite's bound-parameter limit
_EVENT_COLUMNS = (
    "global_position, stream_id, version, event_type, schema_version, payload, sim_time, "
    "command_id, prev_hash, hash"
)


def _truthy(value: str | None) -> bool:
    return value is not None and value.lower() in ("1", "true", "yes", "on", "full")


def _busy(exc: sqlite3.Error) -> bool:
    """Whether the error is another connection's lock (SQLITE_BUSY or SQLITE_LOCKED): it passes with time."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:  # no extended code: fall back to the message
        return "locked" in str(exc) or "busy" in str(exc)
    return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _chunks(items: Sequence[str]) -> Iterable[Sequence[str]]:
    for i in range(0, len(items), _CHUNK):
        yield items[i : i + _CHUNK]


def _record(row: Any) -> RecordedEvent:
    return RecordedEvent(
        global_position=row[0], stream_id=row[1], version=row[2], event_type=row[3],
        schema_version=row[4], payload=bytes(row[5]), sim_time=row[6], command_id=row[7],
        prev_hash=row[8], hash=row[9],
    )


class SqliteEventStore(EventStore):
    """An `EventStore` in a SQLite file or in memory."""

    backend = "sqlite"

    def __init__(
        self, url: str, registry: EventRegistry, parsed: StoreUrl, *, durable: bool | None,
        outage_budget_s: float = DEFAULT_OUTAGE_BUDGET_S,
    ) -> None:
        super().__init__(url, registry, outage_budget_s=outage_budget_s)
        self.memory = parsed.target == ":memory:"
        self.path = parsed.target
        self.durable = _truthy(parsed.options.get("durable")) if durable is None else durable
        try:
            self.busy_timeout_ms = int(parsed.options.get("busy_timeout_ms", "10000"))
        except ValueError:
            raise UsageError("busy_timeout_ms must be an integer") from None
        self._writer: aiosqlite.Connection | None = None
        self._reader: aiosqlite.Connection | None = None
        # One lock per connection: its holder owns the connection for a whole
        # transaction or read, so no task ever sees another's uncommitted rows.
        self._write_lock = asyncio.Lock()
        self._read_lock = asyncio.Lock()

    async def _connect(self) -> aiosqlite.Connection:
        pending = aiosqlite.connect(self.path, isolation_level=None)
        try:
            conn = await pending
        except sqlite3.Error as exc:
            # aiosqlite stops its worker thread after a failed connect but does not wait for it;
            # wait here, or the thread reports to an event loop that may be closed by then.
            await asyncio.to_thread(pending._thread.join, 5)
            raise StoreUnavailableError(f"cannot open SQLite database {self.path!r}: {exc}") from exc
        try:
            await conn.execute(f"PRAGMA busy_timeout = {self.busy_timeout_ms}")
            if not self.memory:
                await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute(f"PRAGMA synchronous = {'FULL' if self.durable else 'NORMAL'}")
        except BaseException as exc:
            # An unclosed aiosqlite connection keeps its thread alive and hangs exit.
            with contextlib.suppress(Exception):
                await conn.close()
            if isinstance(exc, sqlite3.Error):
                raise StoreUnavailableError(
                    f"cannot open SQLite database {self.path!r}: {exc}"
                ) from exc
            raise
        return conn

    async def _open(self) -> None:
        if not self.memory:
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreUnavailableError(f"cannot create the directory of {self.path!r}: {exc}") from exc
        self._writer = await self._connect()
        async with self._write_lock:
            await self._writer.execute("BEGIN IMMEDIATE")
            try:
                for statement in ddl_statements("sqlite"):
                    await self._writer.execute(statement)
                await self._writer.execute("COMMIT")
            except BaseException:
                await self._writer.execute("ROLLBACK")
                raise
        self._reader = self._writer if self.memory else await self._connect()

    async def _close(self) -> None:
        for conn in {id(c): c for c in (self._reader, self._writer) if c is not None}.values():
            with contextlib.suppress(Exception):
                await conn.close()
        self._reader = self._writer = None

    # read side ---------------------------------------------------------------
    def _read_conn(self) -> tuple[aiosqlite.Connection, asyncio.Lock]:
        if self._reader is None or self._writer is None:
            raise StoreError("store is not open")
        if self.memory:
            return self._writer, self._write_lock
        return self._reader, self._read_lock

    async def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        window = self._outage("SQLite read")
        while True:
            conn, lock = self._read_conn()
            async with lock:
                try:
                    return list(await conn.execute_fetchall(sql, params))
                except sqlite3.OperationalError as exc:
                    if not _busy(exc):
                        raise StoreUnavailableError(f"SQLite read failed: {exc}") from exc
                    failure = exc
            await window.retry_after(failure)  # outside the lock: others may use the connection meanwhile

    async def _read_stream(self, stream_id: str, after: int) -> list[RecordedEvent]:
        rows = await self._query(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE stream_id = ? AND version > ? ORDER BY version",
            (stream_id, after),
        )
        return [_record(r) for r in rows]

    async def _read_all(self, after: int, limit: int) -> list[RecordedEvent]:
        rows = await self._query(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE global_position > ? "
            "ORDER BY global_position LIMIT ?",
            (after, limit),
        )
        return [_record(r) for r in rows]

    async def _stream_version(self, stream_id: str) -> int:
        rows = await self._query("SELECT version FROM streams WHERE stream_id = ?", (stream_id,))
        return int(rows[0][0]) if rows else 0

    async def _load_snapshot(self, stream_id: str, max_version: int | None) -> Snapshot | None:
        rows = await self._query(
            "SELECT stream_id, version, schema_version, state, state_hash, event_hash FROM snapshots "
            "WHERE stream_id = ? AND version <= ? ORDER BY version DESC LIMIT 1",
            (stream_id, 2**62 if max_version is None else max_version),
        )
        if not rows:
            return None
        r = rows[0]
        return Snapshot(r[0], r[1], r[2], bytes(r[3]), r[4], r[5])

    # write side --------------------------------------------------------------
    async def _begin(self, conn: aiosqlite.Connection) -> None:
        """Starts a write transaction, waiting out a lock held elsewhere until the outage budget is spent.

        Each attempt already waits `busy_timeout` inside SQLite; the budget bounds them all.
        """
        window = self._outage("SQLite write lock")
        while True:
            try:
                await conn.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if not _busy(exc):
                    raise StoreUnavailableError(f"SQLite write lock not acquired: {exc}") from exc
                await window.retry_after(exc)

    @contextlib.asynccontextmanager
    async def _transaction(self, conn: aiosqlite.Connection, what: str) -> AsyncIterator[None]:
        """`BEGIN IMMEDIATE` ... `COMMIT`; on any exception a rollback, and SQLite errors as `StoreError`."""
        await self._begin(conn)
        try:
            yield
            await conn.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(Exception):
                await conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise StoreError(f"SQLite {what} failed: {exc}") from exc
            raise

    async def _save_snapshot(self, snapshot: Snapshot) -> None:
        conn = self._writer
        if conn is None:
            raise StoreError("store is not open")
        async with self._write_lock, self._transaction(conn, "snapshot save"):
            await conn.execute(
                "INSERT OR REPLACE INTO snapshots (stream_id, version, schema_version, state, "
                "state_hash, event_hash) VALUES (?, ?, ?, ?, ?, ?)",
                (snapshot.stream_id, snapshot.version, snapshot.schema_version, snapshot.state,
                 snapshot.state_hash, snapshot.event_hash),
            )

    async def _commit_batch(self, requests: list[AppendRequest]) -> None:
        conn = self._writer
        if conn is None:
            raise StoreError("store is not open")
        # The writer is this store's one task, so holding the lock while waiting blocks no one else.
        async with self._write_lock, self._transaction(conn, "append"):
            plan = await self._plan(conn, requests)
            if plan.event_rows:
                await conn.executemany(
                    f"INSERT INTO events ({_EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    plan.event_rows,
                )
                await conn.executemany(
                    "INSERT INTO streams (stream_id, version, head_hash) VALUES (?, ?, ?) "
                    "ON CONFLICT(stream_id) DO UPDATE SET version = excluded.version, "
                    "head_hash = excluded.head_hash",
                    [(s, h.version, h.head_hash) for s, h in plan.heads.items()],
                )
            if plan.commands:
                await conn.executemany(
                    "INSERT INTO commands (command_id, stream_id, fingerprint, first_version, "
                    "last_version, first_position, last_position, head_hash) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(c.command_id, c.stream_id, c.fingerprint, c.first_version, c.last_version,
                      c.first_position, c.last_position, c.head_hash) for c in plan.commands],
                )
        for req, outcome in zip(requests, plan.outcomes, strict=True):
            if req.future.done():  # the caller went away; the outcome stands
                continue
            if isinstance(outcome, Exception):
                req.future.set_exception(outcome)
            else:
                req.future.set_result(outcome)

    async def _plan(self, conn: aiosqlite.Connection, requests: list[AppendRequest]) -> Any:
        stream_ids = sorted({r.stream_id for r in requests})
        heads: dict[str, StreamHead] = {}
        for chunk in _chunks(stream_ids):
            marks = ",".join("?" * len(chunk))
            for sid, version, head_hash in await conn.execute_fetchall(
                f"SELECT stream_id, version, head_hash FROM streams WHERE stream_id IN ({marks})", chunk
            ):
                heads[sid] = StreamHead(version, head_hash)
        command_ids = sorted({r.command_id for r in requests if r.command_id is not None})
        commands: dict[str, CommandRecord] = {}
        for chunk in _chunks(command_ids):
            marks = ",".join("?" * len(chunk))
            for row in await conn.execute_fetchall(
                "SELECT command_id, stream_id, fingerprint, first_version, last_version, "
                f"first_position, last_position, head_hash FROM commands WHERE command_id IN ({marks})",
                chunk,
            ):
                commands[row[0]] = CommandRecord(*row)
        (last,) = list(await conn.execute_fetchall("SELECT COALESCE(MAX(global_position), 0) FROM events"))
        return plan_batch(requests, heads, commands, int(last[0]))
