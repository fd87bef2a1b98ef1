"""The SQLite group commit as one job of the writer thread: read, plan, write and commit in one hop.

`SqliteAppender.commit` runs inside the writer thread (`ThreadedConnection`)
and does a whole batch there: `BEGIN IMMEDIATE`, the heads of the touched
streams, the stored commands among the batch's ids, the last global position,
`plan_batch`, the inserts and `COMMIT`.

The inserts are multi-row `INSERT ... VALUES (...), (...)` statements of power-of-two sizes, not
`executemany`: Python's sqlite3 module lets go of the GIL around every step, and `executemany`
steps once per row, so a batch of N events asked the event loop's thread for the GIL back N times
(measured with strace at 64 sessions of `saas-sim bench http`: about 6,500 futex calls a second).
A multi-row statement steps once; the sizes are powers of two so that a few prepared statements
serve every batch.

The appender is this store object's only writer, so it keeps what it wrote:
the heads of recently written streams and the last global position. Other
connections (another store object, another process) may write the same file,
so the memory is trusted only while `PRAGMA data_version`, read inside the
write transaction, is unchanged since the appender's last transaction: SQLite
changes that number exactly when another connection has committed. A
statement run on the writer connection outside the appender (a test's raw
SQL) is counted by the connection, and that also drops the memory. Command
ids are always looked up: a retry may come long after its original.
"""

from __future__ import annotations

import contextlib
import functools
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from saas_sim.core.batching import AppendRequest, BatchPlan, CommandRecord, StreamHead, plan_batch

__all__ = ["EVENT_COLUMNS", "SqliteAppender", "in_write_transaction"]

T = TypeVar("T")

EVENT_COLUMNS = (
    "global_position, stream_id, version, event_type, schema_version, payload, sim_time, "
    "command_id, prev_hash, hash"
)
_CHUNK = 500  # stays far below SQLite's bound-parameter limit, and full chunks reuse one prepared statement
_MAX_CACHED_HEADS = 65_536  # bounds the memory of a long-lived store over very many streams

_MAX_ROWS_PER_INSERT = 64  # 640 parameters at most, far below SQLite's limit


@dataclass(frozen=True)
class _MultiInsert:
    """An INSERT of `width`-column rows, written for any number of rows (`execute`)."""

    head: str
    width: int
    tail: str = ""

    def execute(self, conn: sqlite3.Connection, rows: Sequence[Sequence[Any]]) -> None:
        """Inserts `rows` in order, with as few statements as power-of-two sizes allow."""
        start, size = 0, _MAX_ROWS_PER_INSERT
        while start < len(rows):
            while size > len(rows) - start:
                size //= 2
            chunk = rows[start:start + size]
            conn.execute(self._sql(size), [value for row in chunk for value in row])
            start += size

    @functools.cache  # noqa: B019  # a few module-level instances, never freed
    def _sql(self, rows: int) -> str:
        one = "(" + ", ".join("?" * self.width) + ")"
        return f"{self.head} VALUES {', '.join([one] * rows)}{self.tail}"


_INSERT_EVENTS = _MultiInsert(f"INSERT INTO events ({EVENT_COLUMNS})", 10)
_UPSERT_HEADS = _MultiInsert(
    "INSERT INTO streams (stream_id, version, head_hash)", 3,
    " ON CONFLICT(stream_id) DO UPDATE SET version = excluded.version, head_hash = excluded.head_hash",
)
_INSERT_COMMANDS = _MultiInsert(
    "INSERT INTO commands (command_id, stream_id, fingerprint, first_version, last_version, "
    "first_position, last_position, head_hash)", 8,
)


def _chunks(items: Sequence[str]) -> Iterable[Sequence[str]]:
    for i in range(0, len(items), _CHUNK):
        yield items[i : i + _CHUNK]


def in_write_transaction(
    conn: sqlite3.Connection, body: Callable[..., T], *args: Any
) -> T | sqlite3.OperationalError:
    """Runs `body(conn, *args)` between `BEGIN IMMEDIATE` and `COMMIT`, rolling back on any exception.

    Returns the body's result, or the error that kept `BEGIN IMMEDIATE` from taking
    the write lock (then nothing was done, and the caller decides whether to wait).
    `busy_timeout` has already been waited inside SQLite by then.
    """
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        return exc
    try:
        result = body(conn, *args)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:  # a failed COMMIT may already have rolled back
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise
    return result


class SqliteAppender:
    """Plans and writes group commits inside the writer thread, remembering the heads it wrote.

    Only the writer thread calls it, one batch at a time, so it needs no lock.
    """

    def __init__(self, max_cached_heads: int = _MAX_CACHED_HEADS) -> None:
        self._max_cached_heads = max_cached_heads
        self._heads: dict[str, StreamHead] = {}
        self._last_position: int | None = None
        self._data_version: int | None = None
        self._raw_uses = -1

    def commit(
        self, conn: sqlite3.Connection, requests: list[AppendRequest], raw_uses: int
    ) -> BatchPlan | sqlite3.OperationalError:
        """Writes a batch in one transaction and returns its plan (see `in_write_transaction`).

        Args:
            conn: The writer connection (this thread's).
            requests: The batch, in queue order.
            raw_uses: The connection's count of statements run outside the appender,
                read when the batch was queued.
        """
        try:
            outcome = in_write_transaction(conn, self._plan_and_write, requests, raw_uses)
        except BaseException:
            self.forget()  # whatever the failure, the database is the truth again
            raise
        if isinstance(outcome, BatchPlan):
            self._remember(outcome)
        return outcome

    def forget(self) -> None:
        """Drops everything remembered; the next batch reads the database."""
        self._heads.clear()
        self._last_position = None
        self._data_version = None

    def _plan_and_write(
        self, conn: sqlite3.Connection, requests: list[AppendRequest], raw_uses: int
    ) -> BatchPlan:
        (data_version,) = conn.execute("PRAGMA data_version").fetchone()
        if data_version != self._data_version or raw_uses != self._raw_uses:
            self.forget()
            self._data_version, self._raw_uses = data_version, raw_uses
        plan = plan_batch(requests, self._heads_of(conn, requests), self._commands_of(conn, requests),
                          self._last(conn))
        if plan.event_rows:
            _INSERT_EVENTS.execute(conn, plan.event_rows)
            _UPSERT_HEADS.execute(conn, [(s, *h) for s, h in plan.heads.items()])
        if plan.commands:
            _INSERT_COMMANDS.execute(conn, plan.commands)  # a record is a tuple in column order
        return plan

    def _heads_of(self, conn: sqlite3.Connection, requests: list[AppendRequest]) -> dict[str, StreamHead]:
        heads: dict[str, StreamHead] = {}
        missing: list[str] = []
        cached = self._heads
        for req in requests:
            sid = req.stream_id
            if sid in heads:
                continue
            head = cached.get(sid)
            if head is None:
                missing.append(sid)
            else:
                heads[sid] = head
        if missing:
            for chunk in _chunks(sorted(set(missing))):
                marks = ",".join("?" * len(chunk))
                for sid, version, head_hash in conn.execute(
                    f"SELECT stream_id, version, head_hash FROM streams WHERE stream_id IN ({marks})", chunk
                ):
                    heads[sid] = StreamHead(version, head_hash)
        return heads

    @staticmethod
    def _commands_of(conn: sqlite3.Connection, requests: list[AppendRequest]) -> dict[str, CommandRecord]:
        command_ids = sorted({r.command_id for r in requests if r.command_id is not None})
        commands: dict[str, CommandRecord] = {}
        for chunk in _chunks(command_ids):
            marks = ",".join("?" * len(chunk))
            for row in conn.execute(
                "SELECT command_id, stream_id, fingerprint, first_version, last_version, "
                f"first_position, last_position, head_hash FROM commands WHERE command_id IN ({marks})",
                chunk,
            ):
                commands[row[0]] = CommandRecord(*row)
        return commands

    def _last(self, conn: sqlite3.Connection) -> int:
        if self._last_position is None:
            (last,) = conn.execute("SELECT COALESCE(MAX(global_position), 0) FROM events").fetchone()
            self._last_position = int(last)
        return self._last_position

    def _remember(self, plan: BatchPlan) -> None:
        heads = self._heads
        for sid, head in plan.heads.items():
            heads.pop(sid, None)  # re-inserted last: the dict's order is least recently written first
            heads[sid] = head
        while len(heads) > self._max_cached_heads:
            del heads[next(iter(heads))]
        if plan.event_rows:
            self._last_position = plan.event_rows[-1][0]
