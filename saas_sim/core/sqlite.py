"""The embedded SQLite backend: plain `sqlite3` connections, each owned by a thread of its own.

* WAL journal, `BEGIN IMMEDIATE` for every write transaction (a deferred BEGIN
  that reads then writes fails at once with SQLITE_BUSY), and an explicit
  `busy_timeout`. A write lock held elsewhere for longer than that is waited
  out with backoff until the outage budget (`?outage_budget_s=N`, default
  30 s) is spent; only then does the write raise `StoreUnavailableError`.
* `synchronous=NORMAL` by default; `durable` selects `FULL`, which survives
  power loss.
* One writer task group-commits many streams' appends per transaction, and
  the whole transaction (BEGIN, heads, commands, last position, plan, inserts,
  COMMIT) is one job of the writer thread (`core/sqlite_append.py`): one
  thread hop each way per batch, however many appends and statements it holds.
* WAL checkpoints run off the writer's path: a third connection and thread
  checkpoints (PASSIVE: it never blocks the writer or readers) after about
  2 MB of appends. Left to SQLite, the committing writer checkpoints
  itself, which cost 5-10 us of every event's commit. A passive checkpoint
  cannot restart the WAL while appends keep coming, so the writer's own
  automatic checkpoint stays on at 4,000 pages (16 MB): it then finds most
  frames already copied, and the next write starts the WAL over.
* A file database reads on a second connection and thread (WAL readers never
  block the writer). An in-memory database has one connection, so its reads
  are jobs of the writer thread: jobs run one at a time, so a reader never
  sees a writer's uncommitted rows.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from saas_sim.core.batching import AppendRequest, BatchPlan
from saas_sim.core.events import EventRegistry, RecordedEvent
from saas_sim.core.outage import DEFAULT_OUTAGE_BUDGET_S
from saas_sim.core.schema import ddl_statements
from saas_sim.core.sqlite_append import EVENT_COLUMNS, SqliteAppender, in_write_transaction
from saas_sim.core.sqlite_thread import ThreadedConnection
from saas_sim.core.store import EventStore, Snapshot, StoreUrl
from saas_sim.errors import StoreError, StoreUnavailableError, UsageError

__all__ = ["SqliteEventStore"]

T = TypeVar("T")

log = logging.getLogger(__name__)

_CHECKPOINT_BYTES = 2 << 20  # appended bytes (payloads plus a row's overhead) between checkpoints
_ROW_OVERHEAD_BYTES = 300  # hashes, ids and index entries of one event, command and head
_BACKSTOP_CHECKPOINT_PAGES = 4_000  # bounds the WAL file: the writer finishes what the checkpointer began


def _truthy(value: str | None) -> bool:
    return value is not None and value.lower() in ("1", "true", "yes", "on", "full")


def _busy(exc: sqlite3.Error) -> bool:
    """Whether the error is another connection's lock (SQLITE_BUSY or SQLITE_LOCKED): it passes with time."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:  # no extended code: fall back to the message
        return "locked" in str(exc) or "busy" in str(exc)
    return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _record(row: Any) -> RecordedEvent:
    return RecordedEvent(
        global_position=row[0], stream_id=row[1], version=row[2], event_type=row[3],
        schema_version=row[4], payload=bytes(row[5]), sim_time=row[6], command_id=row[7],
        prev_hash=row[8], hash=row[9],
    )


def _create_tables(conn: sqlite3.Connection) -> None:
    for statement in ddl_statements("sqlite"):
        conn.execute(statement)


def _fetchall(conn: sqlite3.Connection, sql: str, params: Sequence[Any]) -> list[Any]:
    return conn.execute(sql, params).fetchall()


def _checkpoint(conn: sqlite3.Connection) -> tuple[int, int, int]:
    """A PASSIVE checkpoint: copies what it can of the WAL into the database, waiting for no one."""
    busy, frames, done = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return int(busy), int(frames), int(done)


def _save(conn: sqlite3.Connection, s: Snapshot) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO snapshots (stream_id, version, schema_version, state, "
        "state_hash, event_hash) VALUES (?, ?, ?, ?, ?, ?)",
        (s.stream_id, s.version, s.schema_version, s.state, s.state_hash, s.event_hash),
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
        self._writer: ThreadedConnection | None = None
        self._reader: ThreadedConnection | None = None
        self._checkpointer: ThreadedConnection | None = None
        self._checkpoint_running: asyncio.Future[tuple[int, int, int]] | None = None
        self._bytes_since_checkpoint = 0
        self.checkpoints = 0
        """How many checkpoints the checkpointer thread has completed (diagnostics)."""
        self._appender = SqliteAppender()
        # Jobs on one connection already run one at a time; this lock is for callers that run
        # several raw statements on the writer (tests' fault injection) and want them together.
        self._write_lock = asyncio.Lock()

    async def _connect(self, name: str, *extra: str) -> ThreadedConnection:
        setup = [f"PRAGMA busy_timeout = {self.busy_timeout_ms}"]
        if not self.memory:
            setup.append("PRAGMA journal_mode = WAL")
        setup.append(f"PRAGMA synchronous = {'FULL' if self.durable else 'NORMAL'}")
        setup.extend(extra)
        try:
            return await ThreadedConnection.open(self.path, name, setup)
        except sqlite3.Error as exc:
            raise StoreUnavailableError(f"cannot open SQLite database {self.path!r}: {exc}") from exc

    async def _open(self) -> None:
        if not self.memory:
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreUnavailableError(f"cannot create the directory of {self.path!r}: {exc}") from exc
        backstop = () if self.memory else (f"PRAGMA wal_autocheckpoint = {_BACKSTOP_CHECKPOINT_PAGES}",)
        self._writer = await self._connect("writer", *backstop)
        await self._write("schema creation", in_write_transaction, _create_tables)
        if self.memory:
            self._reader = self._writer
        else:
            self._reader = await self._connect("reader")
            self._checkpointer = await self._connect("checkpointer")

    async def _close(self) -> None:
        conns = (self._checkpointer, self._reader, self._writer)
        for conn in {id(c): c for c in conns if c is not None}.values():
            await conn.close()  # queued jobs (a running checkpoint) finish first
        self._checkpointer = self._reader = self._writer = None

    # read side ---------------------------------------------------------------
    async def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        window = self._outage("SQLite read")
        while True:
            conn = self._reader
            if conn is None:
                raise StoreError("store is not open")
            try:
                return await conn.run(_fetchall, sql, params)
            except sqlite3.OperationalError as exc:
                if not _busy(exc):
                    raise StoreUnavailableError(f"SQLite read failed: {exc}") from exc
                await window.retry_after(exc)

    async def _read_stream(self, stream_id: str, after: int) -> list[RecordedEvent]:
        rows = await self._query(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE stream_id = ? AND version > ? ORDER BY version",
            (stream_id, after),
        )
        return [_record(r) for r in rows]

    async def _read_all(self, after: int, limit: int) -> list[RecordedEvent]:
        rows = await self._query(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE global_position > ? "
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
    async def _write(self, what: str, job: Callable[..., T | sqlite3.OperationalError], *args: Any) -> T:
        """Runs a write transaction job on the writer thread, waiting out a write lock held elsewhere.

        `job(conn, *args)` returns the `BEGIN IMMEDIATE` error when it could not take the
        lock (see `in_write_transaction`). Each attempt already waits `busy_timeout` inside
        SQLite; the outage budget bounds them all. SQLite errors inside the transaction
        (rolled back by then) become `StoreError`.
        """
        window = self._outage("SQLite write lock")
        while True:
            conn = self._writer
            if conn is None:
                raise StoreError("store is not open")
            try:
                outcome = await conn.run(job, *args)
            except sqlite3.Error as exc:
                raise StoreError(f"SQLite {what} failed: {exc}") from exc
            if not isinstance(outcome, sqlite3.OperationalError):
                return outcome
            if not _busy(outcome):
                raise StoreUnavailableError(f"SQLite write lock not acquired: {outcome}") from outcome
            await window.retry_after(outcome)

    async def _save_snapshot(self, snapshot: Snapshot) -> None:
        await self._write("snapshot save", in_write_transaction, _save, snapshot)

    async def _commit_batch(self, requests: list[AppendRequest]) -> None:
        writer = self._writer
        if writer is None:
            raise StoreError("store is not open")
        plan: BatchPlan = await self._write("append", self._appender.commit, requests, writer.raw_uses)
        if plan.event_rows and self._checkpointer is not None:
            self._note_appended(plan)
        for req, outcome in zip(requests, plan.outcomes, strict=True):
            if req.future.done():  # the caller went away; the outcome stands
                continue
            if isinstance(outcome, Exception):
                req.future.set_exception(outcome)
            else:
                req.future.set_result(outcome)

    # checkpoints ---------------------------------------------------------------
    def _note_appended(self, plan: BatchPlan) -> None:
        """Counts what a batch appended and starts a checkpoint once enough has (one at a time)."""
        self._bytes_since_checkpoint += sum(len(r[5]) for r in plan.event_rows)
        self._bytes_since_checkpoint += _ROW_OVERHEAD_BYTES * len(plan.event_rows)
        checkpointer = self._checkpointer
        if (self._bytes_since_checkpoint < _CHECKPOINT_BYTES or checkpointer is None
                or self._checkpoint_running is not None):
            return
        self._bytes_since_checkpoint = 0
        running = checkpointer.submit(_checkpoint)
        self._checkpoint_running = running
        running.add_done_callback(self._checkpointed)

    def _checkpointed(self, running: asyncio.Future[tuple[int, int, int]]) -> None:
        self._checkpoint_running = None
        if running.cancelled():
            return
        exc = running.exception()
        if exc is None:
            self.checkpoints += 1
        else:
            # Housekeeping, not an append: the WAL only grows until a later checkpoint (or the backstop).
            log.warning("SQLite checkpoint of %r failed: %s", self.path, exc)
