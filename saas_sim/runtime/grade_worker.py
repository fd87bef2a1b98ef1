"""Grading on the second core: a worker process that runs an episode's checks from its task and step events.

A server is one process, and under the GIL its request handling uses one core.
Grading is the biggest single block of that work (about a fifth of a served
episode's CPU, measured with py-spy under `saas-sim bench http`), and it is a
pure function of the task and the events the agent's calls emitted: the final
state is the fold of those events over the task's initial state, exactly as a
resumed episode rebuilds it. So a `GradeWorker` hands the checks to a process
of its own, and the server's core is left to the calls.

How it stays exact and never in the way:

* The worker sets up tasks itself, from the environment's config, with the
  same code: before it grades a task it compares the task's start hash (the
  chain hash over its first events, which commits to the world and the setup)
  with the episode's. A task it has not set up yet, or one that differs, is
  graded in the episode's own process, as it always was.
* `prepare` asks the worker to set a task up ahead of its first grade (an
  episode's start calls it), on a thread of its own, so a world build in the
  worker never delays the grades queued behind it.
* At most `max_in_flight` grades wait on the worker. Beyond that, a grade runs
  in-process: when the worker falls behind, the two cores share the grading.
* A worker that dies, or a grade that fails in it outside the checks (a check's
  own failure is part of its result), turns into an in-process grade and a
  logged error, never into a wrong or missing grade.

Grade effects (the IDE's test runs) still run in the episode's process, which
records them in its log; their outcomes travel to the worker with the job.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import itertools
import logging
import os
import pickle
import struct
import subprocess
import sys
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, BinaryIO, cast

from saas_sim.core.canonical import stable_hash
from saas_sim.core.domain import RefusedCall
from saas_sim.core.effects import EffectOutcome
from saas_sim.core.events import Event
from saas_sim.runtime.scope import WriteStep

if TYPE_CHECKING:
    from saas_sim.runtime.grading import CheckScore
    from saas_sim.runtime.task import TaskInstance

__all__ = ["DEFAULT_MAX_IN_FLIGHT", "GradeJob", "GradeWorker", "frame", "grade_in_worker", "read_frame", "task_key"]

log = logging.getLogger(__name__)

DEFAULT_MAX_IN_FLIGHT = 64
"""Grades that may wait on the worker at once; more run in-process.

A grade's checks take about 1 ms, but its answer is read on the server loop's next turn, and a loaded
loop's turn takes tens of ms: with 8, half the grades of 512 busy sessions overflowed to the server
(measured with `bench http`); with 64, 3-9 %."""

Outcome = tuple[list["CheckScore"], str | None]
"""What `run_checks` returns: the scores, or the traceback of the check that broke."""


def task_key(task: TaskInstance) -> str:
    """Names a task across processes: its scenario, seed and difficulty (the start hash then confirms it)."""
    return f"{task.scenario.ref}|{task.seed}|{stable_hash(dict(task.difficulty.changed))}"


@dataclass(frozen=True, slots=True)
class GradeJob:
    """One grade for the worker: what `run_checks` needs beyond the task.

    Attributes:
        key: `task_key` of the episode's task.
        start_head: The task's chain hash after its first events; the worker's task must match it.
        events: The domain events the agent's calls emitted, in order.
        writes: The WRITE steps that emitted events, for the scope guard (`Episode._write_steps`).
        now: The simulated instant of the grade.
        effects: The grade effects' outcomes, by name: run and recorded by the episode's own process.
        refused: The calls a tool refused, in order (`runtime.refusals.refused_calls`).
    """

    key: str
    start_head: str
    events: tuple[Event, ...]
    writes: tuple[WriteStep, ...]
    now: datetime
    effects: Mapping[str, EffectOutcome] = dataclasses.field(default_factory=dict)
    refused: tuple[RefusedCall, ...] = ()


class GradeWorker:
    """A worker process that grades episodes of the tasks it has set up.

    It talks to the worker from the event loop that started it, through two pipes (length-prefixed
    pickles): no thread of this process takes part, so no answer waits for a thread to get the GIL
    from a busy loop. Requests from another loop are declined (graded in-process).

    Args:
        config: The environment's `config` (its scenario and seed folders and extra domains).
        max_in_flight: Grades that may wait on the worker at once.
    """

    def __init__(self, config: dict[str, Any], *, max_in_flight: int = DEFAULT_MAX_IN_FLIGHT) -> None:
        self.config = config
        self.max_in_flight = max_in_flight
        self._process: subprocess.Popen[bytes] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._writer: asyncio.WriteTransport | None = None
        self._reader: asyncio.ReadTransport | None = None
        self._pending: dict[int, asyncio.Future[tuple[str, Any]]] = {}
        self._announced: set[str] = set()
        self._ready: dict[str, asyncio.Event] = {}
        self._ids = itertools.count()
        self._alive = False
        self.stopped = asyncio.Event()
        """Set once the worker has stopped answering (closed, or died): every grade is in-process from then."""
        self.answers: collections.Counter[str] = collections.Counter()
        """How grades went, by kind: `ok` (the worker graded it), `busy` (`max_in_flight` were waiting),
        `not_ready`, `mismatch`, `error` or `stopped` (graded in-process)."""

    @property
    def alive(self) -> bool:
        """Whether the worker process is running and answering."""
        return self._alive

    async def start(self) -> None:
        """Starts the worker process, talking to it from the running loop. Idempotent."""
        if self._process is not None:
            return
        loop = asyncio.get_running_loop()
        # A fresh interpreter, not multiprocessing: a fork would copy this process's threads' locks
        # mid-use (the store's writer thread), and spawn would re-import the caller's main script.
        to_worker, from_here = os.pipe()
        to_here, from_worker = os.pipe()
        code = f"from saas_sim.runtime.grade_worker_process import serve; serve({to_worker}, {from_worker})"
        try:
            self._process = await asyncio.to_thread(
                subprocess.Popen, [sys.executable, "-c", code], pass_fds=(to_worker, from_worker),
                stdin=subprocess.DEVNULL)
        finally:
            os.close(to_worker)
            os.close(from_worker)
        self._loop = loop
        writer, _ = await loop.connect_write_pipe(lambda: _Closing(self), os.fdopen(from_here, "wb", buffering=0))
        reader, _ = await loop.connect_read_pipe(lambda: _Answers(self), os.fdopen(to_here, "rb", buffering=0))
        self._writer, self._reader = writer, reader
        self._alive = True
        self._send(("config", -1, self.config))

    async def aclose(self) -> None:
        """Stops the worker; grades still waiting on it run in-process. Idempotent."""
        process, self._process = self._process, None
        if process is None:
            return
        self._alive = False
        if self._writer is not None:
            self._writer.close()  # the worker reads the end of its input and exits
        try:
            await asyncio.to_thread(process.wait, 5)
        except subprocess.TimeoutExpired:
            process.kill()
            await asyncio.to_thread(process.wait)
        if self._reader is not None:
            self._reader.close()
        self._stopped()
        log.info("grade worker stopped; answers: %s", dict(self.answers))

    def prepare(self, task: TaskInstance) -> None:
        """Asks the worker to set `task` up (once per task), so its episodes' grades can run there."""
        if not self._serving():
            return
        key = task_key(task)
        if key not in self._announced:
            self._announced.add(key)
            self._send(("prepare", -1, (key, task.scenario.ref, task.seed, task.difficulty)))

    async def grade(self, task: TaskInstance, job: GradeJob) -> Outcome | None:
        """The checks' outcome from the worker, or None when the episode's process must grade it."""
        if not self._readiness(job.key).is_set():  # the worker says when it has set a task up
            answer: tuple[str, Any] | None = ("not_ready", None)
        else:
            answer = await self._ask("grade", job, limit=self.max_in_flight)
        kind, value = (("busy" if self._alive else "stopped"), None) if answer is None else answer
        self.answers[kind] += 1
        if kind == "ok":
            return cast("Outcome", value)
        if kind == "error":
            log.error("the grade worker failed on %s; grading in-process:\n%s", job.key, value)
        return None  # "busy", "not_ready", "mismatch" (the worker logs it) or "stopped"

    async def until_ready(self, task: TaskInstance) -> None:
        """Returns once the worker has set `task` up, so that its episodes' grades run there."""
        await self._readiness(task_key(task)).wait()

    def _readiness(self, key: str) -> asyncio.Event:
        event = self._ready.get(key)
        if event is None:
            event = self._ready[key] = asyncio.Event()
        return event

    async def _ask(self, kind: str, payload: Any, *, limit: int | None = None) -> tuple[str, Any] | None:
        """Sends one request and waits for its answer; None when the worker cannot take it now."""
        if not self._serving() or (limit is not None and len(self._pending) >= limit):
            return None
        request_id = next(self._ids)
        future: asyncio.Future[tuple[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self._send((kind, request_id, payload))
        return await future

    def _serving(self) -> bool:
        try:
            return self._alive and asyncio.get_running_loop() is self._loop
        except RuntimeError:  # no running loop
            return False

    def _send(self, message: tuple[str, int, Any]) -> None:
        assert self._writer is not None
        self._writer.write(frame(message))  # buffered by the transport: never blocks the loop

    def _answer(self, message: tuple[int, str, Any]) -> None:
        request_id, kind, value = message
        if kind == "ready":  # unasked: the worker has set the task `value` up
            self._readiness(value).set()
            return
        future = self._pending.pop(request_id, None)
        if future is not None and not future.done():
            future.set_result((kind, value))

    def _stopped(self) -> None:
        if self._alive:
            log.error("the grade worker stopped; grading in-process from now on")
        self._alive = False
        self.stopped.set()
        pending, self._pending = self._pending, {}
        for future in pending.values():
            if not future.done():
                future.set_result(("stopped", None))


class _Answers(asyncio.Protocol):
    """Reads the worker's answers off its pipe, frame by frame."""

    def __init__(self, owner: GradeWorker) -> None:
        self.owner = owner
        self.buffer = bytearray()

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while len(self.buffer) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self.buffer)
            if len(self.buffer) < _HEADER.size + size:
                return
            message = pickle.loads(self.buffer[_HEADER.size:_HEADER.size + size])
            del self.buffer[:_HEADER.size + size]
            self.owner._answer(message)

    def connection_lost(self, exc: Exception | None) -> None:
        self.owner._stopped()


class _Closing(asyncio.Protocol):
    """The request pipe's protocol: a worker that stops reading stops the worker's use."""

    def __init__(self, owner: GradeWorker) -> None:
        self.owner = owner

    def connection_lost(self, exc: Exception | None) -> None:
        self.owner._stopped()


_HEADER = struct.Struct(">I")
"""Each message on the pipes: its length, then its pickle."""


def frame(message: Any) -> bytes:
    """One message as it goes on a pipe: its length, then its pickle."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(data)) + data


def read_frame(stream: BinaryIO) -> Any:
    """The next message on a blocking stream. Raises EOFError at its end."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


# what the worker process runs (its main is saas_sim.runtime.grade_worker_process) -----------------
def grade_in_worker(task: TaskInstance | None, job: GradeJob) -> tuple[str, Any]:
    """The worker's answer to one grade: `(\"ok\", outcome)`, or why the episode's process must grade it."""
    from saas_sim.runtime.grading import run_checks

    if task is None:
        return "not_ready", None
    if task.start_head != job.start_head:
        log.error("the grade worker's task %s starts at %s, the episode's at %s", job.key, task.start_head,
                  job.start_head)
        return "mismatch", None
    try:
        spec = task.scenario.spec
        outcome: Outcome = run_checks(
            spec.checks, task.scenario.check_fns, initial=task.initial,
            final=task.world.projection.fold(task.initial, job.events),
            bindings=task.fresh_bindings(), events=job.events, now=job.now, scope=spec.scope,
            writes=job.writes, effects=job.effects, refused=job.refused,
        )
    except Exception:
        return "error", traceback.format_exc()
    return "ok", outcome
