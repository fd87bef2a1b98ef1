"""The async `EventStore` interface and `open_store(url)`.

Three URLs open a store:

* `sqlite+aiosqlite:///path/events.db` (the embedded default; add `?durable=true`
  for `synchronous=FULL`, `?busy_timeout_ms=N` to change the lock wait);
* `sqlite+aiosqlite:///:memory:`;
* `postgresql+asyncpg://user@host:port/db` (add `?schema=NAME` to use a schema
  of its own).

Every backend takes `?outage_budget_s=N` (default 30): how long an operation
keeps retrying an unreachable backend (a restarted server, a write lock held
elsewhere) with backoff before it raises `StoreUnavailableError`. Opening a
store does not wait: an unreachable URL fails at once.

Every backend keeps the same contract: atomic appends checked against
`expected_version`, idempotent `command_id`s, strictly increasing global
positions in commit order, and a per-stream hash chain verified on read.
"""

from __future__ import annotations

import abc
import asyncio
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

from saas_sim.core.batching import AppendRequest, AppendResult, GroupCommitter
from saas_sim.core.events import DEFAULT_REGISTRY, Event, EventRegistry, PendingEvent, RecordedEvent
from saas_sim.core.outage import DEFAULT_OUTAGE_BUDGET_S, OutageWindow, parse_outage_budget
from saas_sim.errors import IntegrityError, InvalidStoreUrlError, StoreClosedError, UsageError

__all__ = ["MAX_STREAM_ID", "EventStore", "Snapshot", "StoreUrl", "open_store", "verify_chain"]

MAX_STREAM_ID = 255


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A serialized state of a stream at a version.

    Attributes:
        stream_id: The stream the state was folded from.
        version: The last stream version folded into the state.
        schema_version: The state encoding's version; a mismatch means replay.
        state: The encoded state.
        state_hash: The content hash of the state, checked on load.
        event_hash: The chain hash of the stream at `version`.
    """

    stream_id: str
    version: int
    schema_version: int
    state: bytes
    state_hash: str
    event_hash: str


@dataclass(frozen=True, slots=True)
class StoreUrl:
    """A parsed store URL."""

    backend: str
    target: str
    options: dict[str, str]

    @classmethod
    def parse(cls, url: str) -> StoreUrl:
        """Parses and validates a store URL.

        Raises:
            InvalidStoreUrlError: The URL is not a string or names no supported backend.
        """
        if not isinstance(url, str) or not url:
            raise InvalidStoreUrlError(f"store URL must be a non-empty string, got {url!r}")
        scheme, sep, rest = url.partition("://")
        if not sep:
            raise InvalidStoreUrlError(f"store URL {url!r} has no scheme (expected sqlite+aiosqlite:// or postgresql+asyncpg://)")
        path, _, query = rest.partition("?")
        options = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
        if scheme in ("sqlite+aiosqlite", "sqlite"):
            if not path.startswith("/"):
                raise InvalidStoreUrlError(f"SQLite URL {url!r} must look like sqlite+aiosqlite:///path.db")
            target = path[1:]
            if not target:
                raise InvalidStoreUrlError(f"SQLite URL {url!r} names no file (use /:memory: for memory)")
            return cls("sqlite", target, options)
        if scheme in ("postgresql+asyncpg", "postgresql", "postgres"):
            parts = urlsplit("postgresql://" + rest)
            if not parts.hostname and not parts.path.strip("/"):
                raise InvalidStoreUrlError(f"PostgreSQL URL {url!r} names no host or database")
            return cls("postgresql", "postgresql://" + path, options)
        raise InvalidStoreUrlError(
            f"unsupported store URL scheme {scheme!r}; use sqlite+aiosqlite or postgresql+asyncpg"
        )


def verify_chain(rows: Sequence[RecordedEvent], prev_hash: str | None) -> None:
    """Checks each row's own hash and its link to the previous row of the stream.

    Raises:
        IntegrityError: A row was altered, naming its stream and version.
    """
    for row in rows:
        if prev_hash is not None and row.prev_hash != prev_hash:
            raise IntegrityError(row.stream_id, row.version, "hash chain broken (prev_hash mismatch)")
        if not row.verify():
            raise IntegrityError(row.stream_id, row.version, "stored event does not match its hash")
        prev_hash = row.hash


def _check_stream_id(stream_id: object) -> str:
    if not isinstance(stream_id, str):
        raise UsageError(f"stream_id must be a str, got {type(stream_id).__name__}")
    if not stream_id or len(stream_id) > MAX_STREAM_ID:
        raise UsageError(f"stream_id must be 1-{MAX_STREAM_ID} characters")
    return stream_id


def _check_count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{name} must be an int, got {type(value).__name__}")
    if value < 0:
        raise UsageError(f"{name} must be >= 0, got {value}")
    return value


class EventStore(abc.ABC):
    """An append-only, hash-chained event log. Open one with `open_store(url)`.

    Use it as an async context manager, or call `close()`: engines and
    connections are always released, so nothing hangs at exit.
    """

    backend: str = ""

    def __init__(
        self, url: str, registry: EventRegistry, *, outage_budget_s: float = DEFAULT_OUTAGE_BUDGET_S
    ) -> None:
        self.url = url
        self.registry = registry
        self.outage_budget_s = outage_budget_s
        self._closed = False
        self._committer = GroupCommitter(self._commit_batch, settled=self._settled)
        # The last append queued per stream and not yet resolved: a read waits for it (see `read`).
        self._queued: dict[str, asyncio.Future[AppendResult]] = {}

    # lifecycle ---------------------------------------------------------------
    @abc.abstractmethod
    async def _open(self) -> None: ...

    @abc.abstractmethod
    async def _close(self) -> None: ...

    async def close(self) -> None:
        """Flushes queued appends and releases every connection. Idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            await self._committer.close()
        finally:
            await self._close()

    @property
    def closed(self) -> bool:
        """Whether `close()` was called."""
        return self._closed

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosedError(f"store {self.url!r} is closed")

    def _outage(self, what: str) -> OutageWindow:
        """Starts the retry window of one operation, bounded by this store's outage budget."""
        return OutageWindow(self.outage_budget_s, what)

    # writes ------------------------------------------------------------------
    async def append(
        self,
        stream_id: str,
        events: Sequence[Event],
        expected_version: int | None,
        command_id: str | None = None,
        *,
        sim_time: datetime | None = None,
    ) -> AppendResult:
        """Appends events to a stream atomically.

        Args:
            stream_id: The stream to append to (1-255 characters).
            events: Registered events, at least one.
            expected_version: The version the stream must have now (0 for a new
                stream), or None to append at whatever the head is.
            command_id: An idempotency key. Repeating it returns the original
                result and writes nothing.
            sim_time: The simulated instant recorded with every event.

        Raises:
            ConcurrencyError: The stream's version is not `expected_version`.
            IdempotencyConflictError: `command_id` was used for different events.
            UsageError: An argument is malformed; nothing is written.
            StoreClosedError: The store was closed.
        """
        self._check_append(stream_id, expected_version, command_id)
        if not isinstance(events, list | tuple) or not events:
            raise UsageError("events must be a non-empty sequence of Event")
        encode = self.registry.encode
        pending = tuple([encode(ev, sim_time) for ev in events])
        return await self._enqueue(stream_id, pending, expected_version, command_id)

    def _check_append(self, stream_id: object, expected_version: object, command_id: object) -> None:
        """Rejects a closed store and malformed append arguments before anything is encoded or written."""
        self._check_open()
        _check_stream_id(stream_id)
        if expected_version is not None:
            _check_count("expected_version", expected_version)
        if command_id is not None and (not isinstance(command_id, str) or not command_id):
            raise UsageError("command_id must be a non-empty str or None")

    async def append_pending(
        self,
        stream_id: str,
        pending: Sequence[PendingEvent],
        expected_version: int | None,
        command_id: str | None = None,
    ) -> AppendResult:
        """Appends already-encoded events (each with its own sim time). See `append`."""
        return await self.enqueue_pending(stream_id, pending, expected_version, command_id)

    def enqueue_pending(
        self,
        stream_id: str,
        pending: Sequence[PendingEvent],
        expected_version: int | None,
        command_id: str | None = None,
    ) -> asyncio.Future[AppendResult]:
        """Queues already-encoded events and returns the future of the append's outcome.

        The append commits whether or not anyone awaits the future, so a caller that
        may be cancelled can shield it and still learn what was written.
        """
        self._check_append(stream_id, expected_version, command_id)
        if not isinstance(pending, list | tuple) or not pending:
            raise UsageError("pending must be a non-empty sequence of PendingEvent")
        for p in pending:
            if not isinstance(p, PendingEvent):
                raise UsageError("pending must hold only PendingEvent values")
        return self._enqueue(stream_id, tuple(pending), expected_version, command_id)

    def _enqueue(
        self, stream_id: str, pending: tuple[PendingEvent, ...], expected_version: int | None,
        command_id: str | None,
    ) -> asyncio.Future[AppendResult]:
        """Queues an append whose arguments were checked: the one path every write takes."""
        future: asyncio.Future[AppendResult] = asyncio.get_running_loop().create_future()
        self._committer.enqueue(AppendRequest(stream_id, expected_version, command_id, pending, future))
        self._queued[stream_id] = future
        return future

    def _settled(self, batch: Sequence[AppendRequest]) -> None:
        """Forgets the queued appends of a batch whose outcomes are all set (called by the committer)."""
        queued = self._queued
        for req in batch:
            if queued.get(req.stream_id) is req.future:
                del queued[req.stream_id]

    async def fork_stream(self, source: str, target: str, upto_version: int) -> AppendResult | None:
        """Copies the first `upto_version` events of `source` into the new stream `target`.

        The copy has the same versions, payloads, sim times and chain hashes, so a
        fork that replays the same calls reproduces the original's hashes.
        Returns None when there is nothing to copy.
        """
        _check_count("upto_version", upto_version)
        rows = [r for r in await self.read(source) if r.version <= upto_version]
        if len(rows) != upto_version:
            raise UsageError(f"stream {source!r} has {len(rows)} events, fewer than {upto_version}")
        if not rows:
            return None
        pending = [PendingEvent(r.event_type, r.schema_version, r.payload, r.sim_time) for r in rows]
        return await self.append_pending(target, pending, 0)

    @abc.abstractmethod
    async def _commit_batch(self, requests: list[AppendRequest]) -> None:
        """Writes a batch in one transaction and resolves every request's future."""

    # reads -------------------------------------------------------------------
    async def read(self, stream_id: str, after: int = 0) -> list[RecordedEvent]:
        """Returns the stream's events with version > `after`, verified against the hash chain.

        Raises:
            IntegrityError: A stored event was altered.
        """
        self._check_open()
        _check_stream_id(stream_id)
        _check_count("after", after)
        queued = self._queued.get(stream_id)
        if queued is not None:
            # Read-your-queued-writes: a read in this process sees every append queued before it,
            # committed or refused (its outcome belongs to whoever queued it, not to this read).
            await asyncio.wait([queued])
        rows = await self._read_stream(stream_id, max(after - 1, 0) if after else 0)
        prev: str | None = None
        if after:
            if rows and rows[0].version == after:
                prev = rows[0].hash
                verify_chain(rows[:1], None)
                rows = rows[1:]
            elif rows:
                # Later events exist but the one at `after` does not: a hole in the stream.
                raise IntegrityError(stream_id, after, "event missing (hash chain has a gap)")
        else:
            prev = "0" * 64
        verify_chain(rows, prev)
        return rows

    async def read_events(self, stream_id: str, after: int = 0) -> list[Event]:
        """Returns the stream's events as current models (upcast on read)."""
        return [self.registry.decode(r) for r in await self.read(stream_id, after)]

    async def read_all(self, after: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        """Returns up to `limit` events of all streams with global position > `after`, in order.

        Insert order equals commit order, so a reader that advances its cursor to
        the highest position it saw never skips an event that commits late.
        """
        self._check_open()
        _check_count("after", after)
        _check_count("limit", limit)
        rows = await self._read_all(after, limit)
        for row in rows:
            if not row.verify():
                raise IntegrityError(row.stream_id, row.version, "stored event does not match its hash")
        return rows

    async def stream_version(self, stream_id: str) -> int:
        """Returns the stream's current version (0 if it does not exist)."""
        self._check_open()
        _check_stream_id(stream_id)
        return await self._stream_version(stream_id)

    @abc.abstractmethod
    async def _read_stream(self, stream_id: str, after: int) -> list[RecordedEvent]: ...

    @abc.abstractmethod
    async def _read_all(self, after: int, limit: int) -> list[RecordedEvent]: ...

    @abc.abstractmethod
    async def _stream_version(self, stream_id: str) -> int: ...

    # snapshots ---------------------------------------------------------------
    async def save_snapshot(self, snapshot: Snapshot) -> None:
        """Stores a snapshot (replacing one at the same stream and version)."""
        self._check_open()
        _check_stream_id(snapshot.stream_id)
        await self._save_snapshot(snapshot)

    async def load_snapshot(self, stream_id: str, max_version: int | None = None) -> Snapshot | None:
        """Returns the latest snapshot of a stream at or below `max_version`, or None."""
        self._check_open()
        _check_stream_id(stream_id)
        return await self._load_snapshot(stream_id, max_version)

    @abc.abstractmethod
    async def _save_snapshot(self, snapshot: Snapshot) -> None: ...

    @abc.abstractmethod
    async def _load_snapshot(self, stream_id: str, max_version: int | None) -> Snapshot | None: ...


_BACKENDS: dict[str, str] = {
    "sqlite": "saas_sim.core.sqlite:SqliteEventStore",
    "postgresql": "saas_sim.core.postgres:PostgresEventStore",
}
"""Backend name (`StoreUrl.backend`) -> `module:class` of its store.

The backends subclass `EventStore`, so this module names them instead of
importing them: the imports stay one-way (backend -> base) and a backend's
driver (aiosqlite, asyncpg) loads only when a URL asks for it.
"""


def _backend_class(backend: str) -> Callable[..., EventStore]:
    """Imports and returns the store class of a backend named by `StoreUrl.parse`."""
    module_name, _, class_name = _BACKENDS[backend].partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(cls, type) and issubclass(cls, EventStore)):
        raise TypeError(f"{_BACKENDS[backend]} is not an EventStore")
    return cls


async def open_store(
    url: str,
    *,
    registry: EventRegistry | None = None,
    durable: bool | None = None,
    outage_budget_s: float | None = None,
) -> EventStore:
    """Opens (and creates, if needed) the store at `url`.

    Args:
        url: A store URL (see the module docstring).
        registry: The event registry; defaults to the one `@event` fills.
        durable: For SQLite files, `synchronous=FULL` instead of `NORMAL`.
            Overrides the URL's `durable` option when given.
        outage_budget_s: How many seconds an operation retries an unreachable
            backend before it raises `StoreUnavailableError` (0: no retry).
            Overrides the URL's `outage_budget_s` option when given; default 30.

    Raises:
        InvalidStoreUrlError: The URL is malformed or names no supported backend.
        UsageError: An option is malformed.
        StoreUnavailableError: The backend cannot be reached.
    """
    parsed = StoreUrl.parse(url)
    reg = registry or DEFAULT_REGISTRY
    budget = parse_outage_budget(
        parsed.options.get("outage_budget_s", DEFAULT_OUTAGE_BUDGET_S) if outage_budget_s is None
        else outage_budget_s
    )
    # Only SQLite has a `synchronous` level; PostgreSQL's durability is the server's.
    options: dict[str, Any] = {"durable": durable} if parsed.backend == "sqlite" else {}
    store = _backend_class(parsed.backend)(url, reg, parsed, outage_budget_s=budget, **options)
    try:
        await store._open()
    except BaseException:
        await store.close()
        raise
    return store
