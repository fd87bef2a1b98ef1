"""The PostgreSQL backend (asyncpg): the scale-out store.

* Appenders are serialized by `pg_advisory_xact_lock`, held until COMMIT. A
  transaction takes its global positions only after the previous holder has
  committed, so insert order equals commit order, and a tailing reader that
  advances to the highest position it saw never skips a late commit. There is
  no time-based gap detection anywhere.
* One writer task group-commits many streams per transaction in six round
  trips however large the batch: BEGIN with the lock; one read of the last
  position, the heads and the stored commands; a binary COPY of the events
  (two); one statement for heads and commands (`unnest`); COMMIT.
* `lock_timeout` and `idle_in_transaction_session_timeout` are set on every
  connection, so a stuck peer cannot hang us forever.
* A dropped connection or a server that is restarting is retried with
  backoff until the outage budget (`?outage_budget_s=N`, default 30 s) is
  spent; only then does the operation raise `StoreUnavailableError`. When a
  COMMIT's outcome is unknown, a retried request is recognised by its command
  id, or, without one, by its chain hashes: no duplicates either way.
* `?schema=NAME` puts the tables in a schema of their own (tests use this);
  `?pgbouncer=true` turns off prepared statements for transaction pooling.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import asyncpg

from saas_sim.core.batching import (
    AppendRequest,
    AppendResult,
    BatchPlan,
    CommandRecord,
    StreamHead,
    match_committed,
    plan_batch,
)
from saas_sim.core.events import EventRegistry, RecordedEvent
from saas_sim.core.outage import DEFAULT_OUTAGE_BUDGET_S
from saas_sim.core.schema import ddl_statements
from saas_sim.core.store import EventStore, Snapshot, StoreUrl
from saas_sim.errors import ConcurrencyError, StoreError, StoreUnavailableError, UsageError

__all__ = ["PostgresEventStore"]

T = TypeVar("T")

_CONNECT_TIMEOUT_S = 10.0
_CONNECTION_ERRORS: tuple[type[Exception], ...] = (
    asyncpg.exceptions.PostgresConnectionError,
    asyncpg.exceptions.AdminShutdownError,
    asyncpg.exceptions.CrashShutdownError,
    asyncpg.exceptions.CannotConnectNowError,
    # A server that is starting up or full of clients takes connections again soon.
    asyncpg.exceptions.TooManyConnectionsError,
    asyncpg.exceptions.InterfaceError,
    # A backend killed mid-operation can leave the client protocol confused; reconnecting is the cure.
    asyncpg.exceptions.InternalClientError,
    ConnectionError,
    OSError,
)
_RETRYABLE_WRITE: tuple[type[Exception], ...] = (*_CONNECTION_ERRORS, StoreUnavailableError)
_EVENT_COLUMNS = (
    "global_position, stream_id, version, event_type, schema_version, payload, sim_time, "
    "command_id, prev_hash, hash"
)
_EVENT_COLUMN_LIST = [c.strip() for c in _EVENT_COLUMNS.split(",")]
_READ_BATCH_STATE = (
    # One round trip for all a batch must know: the last position (kind 0), the heads of its
    # streams (kind 1) and its stored commands (kind 2), in one column layout.
    "SELECT 0, NULL::text, NULL::text, NULL::text, NULL::text, COALESCE(MAX(global_position), 0)::bigint, "
    "NULL::bigint, NULL::bigint, NULL::bigint FROM events "
    # The keys are joined, not matched with `= ANY`: on the update-heavy streams table the
    # planner picked a scan of every row for `= ANY` (10 ms for 1,000 heads, against 1 ms).
    "UNION ALL SELECT 1, s.stream_id, s.head_hash, NULL, NULL, s.version::bigint, NULL, NULL, NULL "
    "FROM unnest($1::text[]) AS k(id) JOIN streams s ON s.stream_id = k.id "
    "UNION ALL SELECT 2, c.command_id, c.stream_id, c.fingerprint, c.head_hash, c.first_version::bigint, "
    "c.last_version::bigint, c.first_position, c.last_position "
    "FROM unnest($2::text[]) AS k(id) JOIN commands c ON c.command_id = k.id"
)
_WRITE_HEADS_AND_COMMANDS = (
    # Heads and commands in one statement (empty arrays where a batch has none). Under the lock
    # the batch knows which streams exist: those are updated (cheaper than an upsert), the
    # others inserted, and a stream that exists after all fails the batch instead of forking it.
    "WITH moved AS (UPDATE streams s SET version = u.version, head_hash = u.head_hash FROM "
    "unnest($1::text[], $2::int[], $3::text[]) AS u(stream_id, version, head_hash) "
    "WHERE s.stream_id = u.stream_id), "
    "born AS (INSERT INTO streams (stream_id, version, head_hash) SELECT * FROM "
    "unnest($4::text[], $5::int[], $6::text[])) "
    "INSERT INTO commands (command_id, stream_id, fingerprint, first_version, last_version, "
    "first_position, last_position, head_hash) SELECT * FROM unnest($7::text[], $8::text[], "
    "$9::text[], $10::int[], $11::int[], $12::bigint[], $13::bigint[], $14::text[])"
)
_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def _columns(rows: Sequence[Sequence[Any]], width: int) -> list[list[Any]]:
    """Turns rows into `width` column lists, the arguments of an `unnest` (empty lists for no rows)."""
    return [list(c) for c in zip(*rows, strict=True)] if rows else [[] for _ in range(width)]


def _record(row: Any) -> RecordedEvent:
    return RecordedEvent(
        global_position=row[0], stream_id=row[1], version=row[2], event_type=row[3],
        schema_version=row[4], payload=bytes(row[5]), sim_time=row[6], command_id=row[7],
        prev_hash=row[8], hash=row[9],
    )


class PostgresEventStore(EventStore):
    """An `EventStore` in PostgreSQL."""

    backend = "postgresql"

    def __init__(
        self, url: str, registry: EventRegistry, parsed: StoreUrl, *,
        outage_budget_s: float = DEFAULT_OUTAGE_BUDGET_S,
    ) -> None:
        super().__init__(url, registry, outage_budget_s=outage_budget_s)
        self.dsn = parsed.target
        self.schema = parsed.options.get("schema", "public")
        if not _SCHEMA_NAME.match(self.schema):
            raise UsageError(f"schema {self.schema!r} must be a lowercase SQL identifier")
        self._statement_cache = 0 if parsed.options.get("pgbouncer", "").lower() == "true" else 100
        digest = hashlib.sha256(f"saas_sim.events:{self.schema}".encode()).digest()
        self.lock_key = int.from_bytes(digest[:8], "big", signed=True)
        self._pool: asyncpg.Pool | None = None
        self._writer: asyncpg.Connection | None = None
        # The outcomes the last attempt planned, in request order: after a COMMIT whose
        # outcome is unknown, they identify what that attempt wrote.
        self._inflight: list[AppendResult | StoreError] | None = None

    def _settings(self) -> dict[str, str]:
        return {
            "search_path": self.schema,
            "application_name": f"saas_sim:{self.schema}",
            "lock_timeout": "15s",
            "idle_in_transaction_session_timeout": "60s",
        }

    async def _connect(self, connect_timeout_s: float = _CONNECT_TIMEOUT_S) -> asyncpg.Connection:
        try:
            return await asyncpg.connect(
                self.dsn, server_settings=self._settings(),
                statement_cache_size=self._statement_cache, timeout=connect_timeout_s,
            )
        except _CONNECTION_ERRORS as exc:  # TimeoutError is an OSError
            raise StoreUnavailableError(f"cannot connect to PostgreSQL: {exc}") from exc
        except asyncpg.exceptions.PostgresError as exc:
            # A wrong password or database does not heal with time: no retry.
            raise StoreError(f"cannot connect to PostgreSQL: {exc}") from exc

    async def _open(self) -> None:
        setup = await self._connect()
        try:
            async with setup.transaction():
                await setup.execute("SELECT pg_advisory_xact_lock($1)", self.lock_key)
                await setup.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
                for statement in ddl_statements("postgresql"):
                    await setup.execute(statement)
        finally:
            await setup.close()
        try:
            self._pool = await asyncpg.create_pool(
                self.dsn, min_size=1, max_size=4, server_settings=self._settings(),
                statement_cache_size=self._statement_cache, timeout=10,
            )
        except _CONNECTION_ERRORS as exc:
            raise StoreUnavailableError(f"cannot connect to PostgreSQL: {exc}") from exc

    async def _close(self) -> None:
        if self._writer is not None:
            with contextlib.suppress(Exception):
                await self._writer.close(timeout=5)
            self._writer = None
        if self._pool is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._pool.close(), timeout=10)
            self._pool = None

    async def _retrying(self, op: Callable[[], Awaitable[T]]) -> T:
        """Runs a read (or an idempotent write), retrying a dropped connection until the outage budget is spent."""
        window = self._outage("PostgreSQL read")
        while True:
            try:
                return await op()
            except _CONNECTION_ERRORS as exc:  # TimeoutError is an OSError
                await window.retry_after(exc)

    async def _fetch(self, sql: str, *args: Any) -> list[Any]:
        pool = self._pool
        if pool is None:
            raise StoreError("store is not open")

        async def op() -> list[Any]:
            return list(await pool.fetch(sql, *args))

        return await self._retrying(op)

    # read side ---------------------------------------------------------------
    async def _read_stream(self, stream_id: str, after: int) -> list[RecordedEvent]:
        rows = await self._fetch(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE stream_id = $1 AND version > $2 ORDER BY version",
            stream_id, after,
        )
        return [_record(r) for r in rows]

    async def _read_all(self, after: int, limit: int) -> list[RecordedEvent]:
        rows = await self._fetch(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE global_position > $1 "
            "ORDER BY global_position LIMIT $2",
            after, limit,
        )
        return [_record(r) for r in rows]

    async def _stream_version(self, stream_id: str) -> int:
        rows = await self._fetch("SELECT version FROM streams WHERE stream_id = $1", stream_id)
        return int(rows[0][0]) if rows else 0

    async def _load_snapshot(self, stream_id: str, max_version: int | None) -> Snapshot | None:
        rows = await self._fetch(
            "SELECT stream_id, version, schema_version, state, state_hash, event_hash FROM snapshots "
            "WHERE stream_id = $1 AND version <= $2 ORDER BY version DESC LIMIT 1",
            stream_id, 2**31 - 1 if max_version is None else max_version,
        )
        if not rows:
            return None
        r = rows[0]
        return Snapshot(r[0], r[1], r[2], bytes(r[3]), r[4], r[5])

    async def _save_snapshot(self, snapshot: Snapshot) -> None:
        pool = self._pool
        if pool is None:
            raise StoreError("store is not open")

        async def op() -> None:
            await pool.execute(
                "INSERT INTO snapshots (stream_id, version, schema_version, state, state_hash, "
                "event_hash) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (stream_id, version) DO "
                "UPDATE SET schema_version = EXCLUDED.schema_version, state = EXCLUDED.state, "
                "state_hash = EXCLUDED.state_hash, event_hash = EXCLUDED.event_hash",
                snapshot.stream_id, snapshot.version, snapshot.schema_version, snapshot.state,
                snapshot.state_hash, snapshot.event_hash,
            )

        await self._retrying(op)

    # write side --------------------------------------------------------------
    async def _commit_batch(self, requests: list[AppendRequest]) -> None:
        plan: BatchPlan | None = None
        self._inflight = None
        window = self._outage("PostgreSQL append")
        # After any failed attempt the COMMIT's outcome may be unknown, so every later
        # attempt recovers what an earlier one may have written (by command id or chain hash).
        recovering = False
        while plan is None:
            try:
                if self._writer is None or self._writer.is_closed():
                    # Never wait on one connect longer than the budget has left (but give it a second).
                    self._writer = await self._connect(min(_CONNECT_TIMEOUT_S, max(1.0, window.remaining_s())))
                plan = await self._commit_once(self._writer, requests, recovering=recovering)
            except _RETRYABLE_WRITE as exc:
                if self._writer is not None:
                    self._writer.terminate()
                    self._writer = None
                recovering = True
                await window.retry_after(exc)
            except asyncpg.exceptions.PostgresError as exc:
                raise StoreError(f"PostgreSQL append failed: {exc}") from exc
        for req, outcome in zip(requests, plan.outcomes, strict=True):
            if req.future.done():
                continue
            if isinstance(outcome, Exception):
                req.future.set_exception(outcome)
            else:
                req.future.set_result(outcome)

    async def _commit_once(
        self, conn: asyncpg.Connection, requests: list[AppendRequest], *, recovering: bool
    ) -> BatchPlan:
        """One attempt at a batch, in five round trips: lock, read, COPY events, heads and commands, COMMIT.

        Any failure rolls back, or drops the connection when even that is unsure (a
        cancellation mid-transaction), so the connection never carries a half transaction.
        """
        # One simple-protocol round trip opens the transaction and waits for the lock (the key is
        # our own integer, never input). The reads that follow start after the lock is held, so
        # their snapshots see every earlier holder's commit.
        try:
            # Inside the try: a lock wait past lock_timeout leaves the transaction open and aborted.
            await conn.execute(f"BEGIN; SELECT pg_advisory_xact_lock({int(self.lock_key)})")
            plan = await self._plan_and_write(conn, requests, recovering=recovering)
            await conn.execute("COMMIT")
        except asyncio.CancelledError:
            conn.terminate()  # the server rolls back; a rollback here could itself be cut short
            raise
        except BaseException:
            if not conn.is_closed():
                try:
                    await conn.execute("ROLLBACK")
                except Exception:
                    conn.terminate()
            raise
        return plan

    async def _plan_and_write(
        self, conn: asyncpg.Connection, requests: list[AppendRequest], *, recovering: bool
    ) -> BatchPlan:
        stream_ids = sorted({r.stream_id for r in requests})
        command_ids = sorted({r.command_id for r in requests if r.command_id is not None})
        heads: dict[str, StreamHead] = {}
        commands: dict[str, CommandRecord] = {}
        last = 0
        for r in await conn.fetch(_READ_BATCH_STATE, stream_ids, command_ids):
            kind = r[0]
            if kind == 0:
                last = int(r[5])
            elif kind == 1:
                heads[r[1]] = StreamHead(r[5], r[2])
            else:
                commands[r[1]] = CommandRecord(r[1], r[2], r[3], r[5], r[6], r[7], r[8], r[4])
        done = await self._committed_earlier(conn, requests) if recovering else {}
        todo = [r for i, r in enumerate(requests) if i not in done]
        plan = plan_batch(todo, heads, commands, last)
        if recovering:
            await self._recover(conn, todo, plan)
        if done:
            rest = iter(plan.outcomes)
            plan.outcomes = [done[i] if i in done else next(rest) for i in range(len(requests))]
        self._inflight = list(plan.outcomes)
        if plan.event_rows:
            # Binary COPY: the cheapest way in, for the client (no per-element array checks) and the server.
            await conn.copy_records_to_table(
                "events", records=plan.event_rows, columns=_EVENT_COLUMN_LIST, schema_name=self.schema
            )
            moved = [(sid, *h) for sid, h in plan.heads.items() if sid in heads]
            born = [(sid, *h) for sid, h in plan.heads.items() if sid not in heads]
            await conn.execute(
                _WRITE_HEADS_AND_COMMANDS, *_columns(moved, 3), *_columns(born, 3), *_columns(plan.commands, 8)
            )
        return plan

    async def _committed_earlier(
        self, conn: asyncpg.Connection, requests: list[AppendRequest]
    ) -> dict[int, AppendResult]:
        """Finds the appends without expected version or command id that a lost COMMIT wrote.

        Neither a conflict nor a command id can recognise them, so they are matched
        against the rows the previous attempt planned: same positions, same chain hashes.
        """
        found: dict[int, AppendResult] = {}
        previous = self._inflight
        if previous is None or len(previous) != len(requests):
            return found
        for i, (req, earlier) in enumerate(zip(requests, previous, strict=True)):
            if req.expected_version is not None or req.command_id is not None:
                continue
            if not isinstance(earlier, AppendResult):
                continue
            rows = await conn.fetch(
                f"SELECT {_EVENT_COLUMNS} FROM events WHERE stream_id = $1 AND version >= $2 "
                "AND version <= $3 ORDER BY version",
                req.stream_id, earlier.first_version, earlier.last_version,
            )
            stored = [_record(r) for r in rows]
            pinned = dataclasses.replace(req, expected_version=earlier.first_version - 1)
            matched = match_committed(pinned, stored)
            if matched is not None and stored[0].global_position == earlier.first_position:
                found[i] = matched
        return found

    async def _recover(
        self, conn: asyncpg.Connection, requests: list[AppendRequest], plan: BatchPlan
    ) -> None:
        """After an unknown COMMIT outcome, turns conflicts that are our own writes into successes."""
        for i, (req, outcome) in enumerate(zip(requests, plan.outcomes, strict=True)):
            if not isinstance(outcome, ConcurrencyError) or req.expected_version is None:
                continue
            rows = await conn.fetch(
                f"SELECT {_EVENT_COLUMNS} FROM events WHERE stream_id = $1 AND version > $2 "
                "AND version <= $3 ORDER BY version",
                req.stream_id, req.expected_version, req.expected_version + len(req.pending),
            )
            matched = match_committed(req, [_record(r) for r in rows])
            if matched is not None:
                plan.outcomes[i] = matched
