"""Group commit: plan many appends as one transaction, resolve each caller separately.

Backends share this logic. A backend opens a transaction and takes its write
lock, fetches the heads of the touched streams, the already-seen command ids
and the last global position, then asks `plan_batch` what to write. Each
request gets its own outcome: an `AppendResult`, a `ConcurrencyError` or an
`IdempotencyConflictError`. A failed request never affects its neighbours.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from saas_sim.core.events import GENESIS_HASH, PendingEvent, RecordedEvent, chain_hash
from saas_sim.errors import (
    ConcurrencyError,
    IdempotencyConflictError,
    StoreClosedError,
    StoreError,
)

__all__ = [
    "AppendRequest",
    "AppendResult",
    "BatchPlan",
    "CommandRecord",
    "GroupCommitter",
    "StreamHead",
    "match_committed",
    "plan_batch",
]

EventRowTuple = tuple[int, str, int, str, int, bytes, str | None, str | None, str, str]
"""(global_position, stream_id, version, event_type, schema_version, payload, sim_time,
command_id, prev_hash, hash): the column order of every backend's insert."""


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What an append wrote (or, for a repeated command, what it wrote the first time).

    Attributes:
        stream_id: The stream appended to.
        first_version: The version of the first event written.
        last_version: The version of the last event written; the stream's new version.
        first_position: The global position of the first event.
        last_position: The global position of the last event.
        head_hash: The chain hash of the last event written.
        deduplicated: True when this result repeats an earlier command's result.
    """

    stream_id: str
    first_version: int
    last_version: int
    first_position: int
    last_position: int
    head_hash: str
    deduplicated: bool = False

    @property
    def positions(self) -> range:
        """The global positions written, in order."""
        return range(self.first_position, self.last_position + 1)


class StreamHead(NamedTuple):
    """A stream's current version and last chain hash.

    A named tuple, not a frozen dataclass: a batch builds one per stream, and a
    tuple is built several times faster, just as immutable.
    """

    version: int
    head_hash: str


class CommandRecord(NamedTuple):
    """A stored idempotent command (a named tuple, like `StreamHead`, for the same reason)."""

    command_id: str
    stream_id: str
    fingerprint: str
    first_version: int
    last_version: int
    first_position: int
    last_position: int
    head_hash: str

    def result(self) -> AppendResult:
        """Returns the original result, marked as deduplicated."""
        return AppendResult(
            self.stream_id,
            self.first_version,
            self.last_version,
            self.first_position,
            self.last_position,
            self.head_hash,
            deduplicated=True,
        )


@dataclass(slots=True)
class AppendRequest:
    """One caller's append, waiting in the group-commit queue.

    Its `fingerprint` (what a command id stands for) is computed on first use:
    only appends with a command id ever need it, and then inside the batch.
    """

    stream_id: str
    expected_version: int | None
    command_id: str | None
    pending: tuple[PendingEvent, ...]
    future: asyncio.Future[AppendResult]
    _fingerprint: str | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def fingerprint(self) -> str:
        """The SHA-256 of the stream, expected version and every event (type, schema, sim time, payload).

        Stored with each command, so its bytes must never change: one digest over the
        same byte string the original field-by-field updates fed it.
        """
        if self._fingerprint is None:
            parts = [self.stream_id.encode(),
                     b"\x1f%d" % (-1 if self.expected_version is None else self.expected_version)]
            for p in self.pending:
                parts.append(b"\x1e" + p.event_type.encode() + b"\x1f%d\x1f" % p.schema_version)
                parts.append((p.sim_time or "").encode() + b"\x1f" + p.payload)
            self._fingerprint = hashlib.sha256(b"".join(parts)).hexdigest()
        return self._fingerprint


@dataclass(slots=True)
class BatchPlan:
    """The rows one transaction must write, and each request's outcome."""

    event_rows: list[EventRowTuple] = field(default_factory=list)
    heads: dict[str, StreamHead] = field(default_factory=dict)
    commands: list[CommandRecord] = field(default_factory=list)
    outcomes: list[AppendResult | StoreError] = field(default_factory=list)


def plan_batch(
    requests: Sequence[AppendRequest],
    heads: Mapping[str, StreamHead],
    commands: Mapping[str, CommandRecord],
    last_position: int,
) -> BatchPlan:
    """Decides what a batch writes. Pure: the same inputs give the same plan.

    Args:
        requests: The appends, in queue order (which becomes commit order).
        heads: The current head of each touched stream that exists.
        commands: The stored commands among the requests' command ids.
        last_position: The highest global position already stored.
    """
    plan = BatchPlan()
    # Locals, not attribute look-ups, in the loop: it runs once per event of every batch.
    rows = plan.event_rows
    outcomes = plan.outcomes
    new_heads = plan.heads
    live_heads = dict(heads)
    seen_commands = dict(commands)
    position = last_position
    for req in requests:
        stream_id, command_id = req.stream_id, req.command_id
        if command_id is not None and command_id in seen_commands:
            record = seen_commands[command_id]
            if record.fingerprint != req.fingerprint:
                outcomes.append(IdempotencyConflictError(command_id))
            else:
                outcomes.append(record.result())
            continue
        head = live_heads.get(stream_id)
        start_version, prev = (0, GENESIS_HASH) if head is None else head
        if req.expected_version is not None and req.expected_version != start_version:
            outcomes.append(ConcurrencyError(stream_id, req.expected_version, start_version))
            continue
        version = start_version
        first_position = position + 1
        for p in req.pending:
            version += 1
            position += 1
            h = chain_hash(prev, version, p.event_type, p.schema_version, p.sim_time, p.payload)
            rows.append((position, stream_id, version, p.event_type, p.schema_version, p.payload,
                         p.sim_time, command_id, prev, h))
            prev = h
        live_heads[stream_id] = new_heads[stream_id] = StreamHead(version, prev)
        if command_id is not None:
            record = CommandRecord(command_id, stream_id, req.fingerprint, start_version + 1, version,
                                   first_position, position, prev)
            plan.commands.append(record)
            seen_commands[command_id] = record
        outcomes.append(AppendResult(stream_id, start_version + 1, version, first_position, position, prev))
    return plan


def match_committed(req: AppendRequest, stored: Sequence[RecordedEvent]) -> AppendResult | None:
    """Returns the result if `stored` is exactly what `req` would have written.

    Used after a connection dropped during COMMIT: the outcome is unknown, and
    a request without a command id is recognised by its chain hashes instead.
    """
    if req.expected_version is None or len(stored) != len(req.pending) or not stored:
        return None
    prev = stored[0].prev_hash
    version = req.expected_version
    for p, row in zip(req.pending, stored, strict=True):
        version += 1
        h = chain_hash(prev, version, p.event_type, p.schema_version, p.sim_time, p.payload)
        if row.version != version or row.hash != h:
            return None
        prev = h
    return AppendResult(
        req.stream_id, stored[0].version, stored[-1].version, stored[0].global_position,
        stored[-1].global_position, prev, deduplicated=True,
    )


CommitFn = Callable[[list[AppendRequest]], Awaitable[None]]


class GroupCommitter:
    """One writer task that drains the queue into batches and commits each in one transaction.

    The queue is a plain deque with one wake-up future for the writer: an append
    costs an `append` and, when the writer sleeps, one `set_result`.

    Args:
        commit: The backend's batch commit. It must resolve every request's future.
        max_events: The most events one transaction takes.
        settled: Called with each batch once every one of its futures is resolved
            (by `commit`, or failed here), before the next batch starts.
    """

    def __init__(
        self, commit: CommitFn, *, max_events: int = 4000,
        settled: Callable[[list[AppendRequest]], None] | None = None,
    ) -> None:
        self._commit = commit
        self._settled = settled
        self._max_events = max_events
        self._queue: deque[AppendRequest] = deque()
        self._wakeup: asyncio.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    async def submit(self, req: AppendRequest) -> AppendResult:
        """Queues a request and waits for its own outcome."""
        return await self.enqueue(req)

    def enqueue(self, req: AppendRequest) -> asyncio.Future[AppendResult]:
        """Queues a request and returns the future of its outcome (no task is created)."""
        if self._closed:
            raise StoreClosedError("the store is closed")
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name="saas-sim-group-commit"
            )
        self._queue.append(req)
        self._wake()
        return req.future

    def _wake(self) -> None:
        wakeup = self._wakeup
        if wakeup is not None and not wakeup.done():
            wakeup.set_result(None)

    async def close(self) -> None:
        """Commits what is queued, then stops the writer task. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._task is not None:
            self._wake()
            await self._task

    def _take_batch(self) -> list[AppendRequest]:
        """Pops the oldest requests, up to `max_events` events (at least one request)."""
        queue = self._queue
        first = queue.popleft()
        batch = [first]
        events = len(first.pending)
        while queue and events < self._max_events:
            nxt = queue.popleft()
            batch.append(nxt)
            events += len(nxt.pending)
        return batch

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            if not self._queue:
                if self._closed:  # close() refuses new work first, so the queue stays empty now
                    return
                self._wakeup = loop.create_future()
                try:
                    await self._wakeup
                finally:
                    self._wakeup = None
                continue
            batch = self._take_batch()
            try:
                await self._commit(batch)
            except Exception as exc:  # the writer must survive; every caller gets the error
                for req in batch:
                    if not req.future.done():
                        req.future.set_exception(
                            exc if isinstance(exc, StoreError) else StoreError(f"append failed: {exc!r}")
                        )
            finally:
                for req in batch:
                    if not req.future.done():
                        req.future.set_exception(StoreError("append was not resolved by the backend"))
                if self._settled is not None:
                    self._settled(batch)
