"""An episode: one isolated attempt at one task.

The life of a call (ARCHITECTURE.md section 3):

1. The call id is checked (`call_ids.check_call_id`) and the episode's lock
   is taken: calls on one episode are serialized, and their order is the
   recorded step order.
2. The tool is looked up in the scenario's action space, and the arguments
   are validated by its pydantic model. Failures are `ToolError`s.
3. A repeated `call_id` with the same arguments returns the original result
   and writes no domain event.
4. The fault injector decides, from (seed, step, tool), whether the call gets
   an injected fault; the decision is recorded as an event.
5. The handler reads the *current* state and decides events. An effect tool's
   handler returns an `Effect` instead: its work runs off the event loop
   (`runtime/effects.py`), once; the outcome is appended as an
   `EffectCompleted` in the step's commit, the sim clock moves by the effect's
   declared cost, and the effect's pure `complete` step decides the events.
   Replays fold the recorded outcome (`Episode.effects`); nothing re-runs it.
6. The step's outcome (`StepOutcome`, a lost response already decided) is
   appended as a `StepRecorded` event in one commit with the step's events,
   with `expected_version`: a step and its effects are never half-written,
   and the log alone holds all an episode needs to continue (`resume`).
7. The state and the chain hash move on, the step is recorded once from its
   outcome, and only then is the result returned: read-your-writes, always.

Anything but a `ToolError` is a harness bug: the episode is marked invalid,
the traceback is kept in the trajectory, and a `HarnessError` is raised. It is
never turned into an observation or a reward. A `ConcurrencyError` means
another process wrote this episode: this copy is stale, and the caller
resumes it from the log (`Environment.resume`) and retries.
"""

from __future__ import annotations

import asyncio
import copy
import random
import traceback
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from saas_sim.core.batching import AppendResult
from saas_sim.core.canonical import normalize, sha256_hex
from saas_sim.core.clock import SimClock
from saas_sim.core.effects import Effect, EffectOutcome
from saas_sim.core.events import Event, PendingEvent, RecordedEvent, chain_hash
from saas_sim.core.ids import copy_token, unique_token
from saas_sim.core.state import State
from saas_sim.core.store import EventStore
from saas_sim.core.tools import ToolContext, ToolKind, ToolSpec
from saas_sim.errors import ConcurrencyError, EpisodeInvalidError, HarnessError, ToolError, UsageError
from saas_sim.runtime.arg_bounds import not_json
from saas_sim.runtime.call_ids import AUTO_CALL_ID, check_call_id, escaped, is_utf8_text, reissued_call_id
from saas_sim.runtime.call_result import CallError, CallResult
from saas_sim.runtime.effects import LiveOutcomes, effect_record, record_view
from saas_sim.runtime.faults import decide_fault, fault_error
from saas_sim.runtime.grade_effects import GradeEffects, grade_stream_of
from saas_sim.runtime.grade_worker import GradeJob, GradeWorker, task_key
from saas_sim.runtime.grading import Attribution, Grade, assemble_grade, run_checks
from saas_sim.runtime.recorded_args import bytes_text, copy_json, recordable_args
from saas_sim.runtime.records import (
    EffectCompleted,
    EpisodeConfigured,
    EpisodeEnded,
    FaultInjected,
)
from saas_sim.runtime.refusals import refused_calls
from saas_sim.runtime.resume import logged_steps
from saas_sim.runtime.scope import WriteStep
from saas_sim.runtime.shielded import to_the_end
from saas_sim.runtime.step_outcome import StepOutcome
from saas_sim.runtime.task import TaskInstance
from saas_sim.runtime.toolkit import Toolkit
from saas_sim.runtime.trajectory import FORMAT, Trajectory
from saas_sim.scenarios.model import FaultProfile

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic import BaseModel

__all__ = ["AUTO_CALL_ID", "CallError", "CallResult", "Episode", "reissued_call_id"]


@dataclass(frozen=True, slots=True)
class _CallMemo:
    """A successful call, kept for retries with its call_id (a private JSON copy of its result)."""

    fingerprint: str
    step: int
    result: Any


def _observe(write: asyncio.Future[AppendResult]) -> None:
    """Marks a queued append's error as seen (`_settle` raises it), so asyncio does not log it as lost."""
    if not write.cancelled():
        write.exception()


class Episode:
    """One isolated attempt at a task. Start one with `Environment.start`, or resume one with `Environment.resume`.

    Episodes share nothing mutable: each holds its own state (a copy-on-write
    reference to the task's initial state), clock, step counter and stream.
    """

    def __init__(
        self,
        task: TaskInstance,
        store: EventStore,
        toolkit: Toolkit,
        faults: FaultProfile | None,
        *,
        stream_id: str | None = None,
        durable_reads: bool = False,
        grader: GradeWorker | None = None,
    ) -> None:
        self.task = task
        self.durable_reads = durable_reads
        self.grader = grader
        if grader is not None:
            grader.prepare(task)  # once per task: the worker sets it up while the agent works
        self.store = store
        self.toolkit = toolkit
        self.faults = faults
        self.stream_id = stream_id or f"ep:{task.scenario.ref}:{task.seed}:{unique_token()}"
        # Names this in-memory copy in its appends' command ids. A store-level retry of one append
        # is deduplicated; two copies of the episode (two replicas) that happen to write the same
        # bytes at one version are not one command, and the second must collide on expected_version.
        self._writer = copy_token()
        self._lock = asyncio.Lock()
        self._state: State = task.initial
        self._clock = SimClock(task.start_time)
        self._deadline = task.start_time + timedelta(seconds=task.scenario.spec.limits.sim_time_s)
        # The task's shared first events, then this episode's own configuration (its faults).
        configured = store.registry.encode(
            EpisodeConfigured(faults=None if faults is None else faults.model_dump(mode="json")), task.start_time
        )
        self._base_version = len(task.start_events) + 1
        self._base_head = chain_hash(task.start_head, self._base_version, configured.event_type,
                                     configured.schema_version, configured.sim_time, configured.payload)
        self._version = 0
        self._head = self._base_head
        self._unwritten: list[PendingEvent] = [*task.start_events, configured]
        # Appends of READ steps not yet confirmed: (outcome, version and head they must produce).
        self._inflight: list[tuple[asyncio.Future[AppendResult], int, str]] = []
        self._step = 0
        self._memo: dict[str, _CallMemo] = {}
        self._step_events: list[list[Event]] = []
        self._step_versions: list[int] = []
        self._closed = False
        self._stale: str | None = None
        self._cancel_pending = False
        self.truncated = False
        self.invalid: str | None = None
        # Where effect outcomes come from: live runs, or a replay's recorded outcomes.
        self.effects: LiveOutcomes = LiveOutcomes()
        # Grade effects' records by request key: run once per tree, read back after.
        self._graded = GradeEffects()
        self.trajectory = Trajectory(header=self._header(parent=None))

    # public surface ------------------------------------------------------------
    @property
    def instructions(self) -> str:
        """The task, in words, for the agent."""
        return self.task.instructions

    @property
    def tools(self) -> list[ToolSpec]:
        """The specs of the tools this episode allows, sorted by name."""
        return list(self.toolkit.allowed.values())

    def tool_schemas(self, flavor: str = "openai") -> list[dict[str, Any]]:
        """Returns the allowed tools' schemas: `openai` (strict), `anthropic` or `mcp`."""
        if flavor == "openai":
            return self.toolkit.openai()
        if flavor == "anthropic":
            return self.toolkit.anthropic()
        if flavor == "mcp":
            return self.toolkit.mcp()
        raise UsageError(f"unknown schema flavor {flavor!r}; use openai, anthropic or mcp")

    @property
    def state(self) -> State:
        """The current state (immutable; for analysis and checks, not for agents)."""
        return self._state

    @property
    def state_hash(self) -> str:
        """The chain hash of everything that happened so far. O(1)."""
        return self._head

    @property
    def now(self) -> datetime:
        """The current simulated instant."""
        return self._clock.now()

    @property
    def steps(self) -> int:
        """How many calls were recorded."""
        return self._step

    @property
    def done(self) -> bool:
        """True once the episode was closed, invalidated, or has no step or sim time left."""
        return self._closed or self.truncated or self.invalid is not None or self._limit_error() is not None

    @property
    def busy(self) -> bool:
        """Whether a call, grade, fork or close is running on the episode now."""
        return self._lock.locked()

    async def call(self, tool: str, args: Any = None, call_id: str | None = None) -> CallResult:
        """Calls a tool and returns what the agent observes.

        Args:
            tool: The tool name (`crm.get_deal`, or its wire form `crm__get_deal`).
            args: The arguments: a mapping or a JSON string.
            call_id: An idempotency key. Retrying with the same key and arguments
                returns the original result and writes no domain event. Without
                one the call gets `auto:<step>`, which is never treated as a
                retry; keys starting with `auto:` are reserved for that.

        Raises:
            EpisodeInvalidError: An earlier harness error invalidated the episode.
            HarnessError: The harness failed; the episode is now invalid.
            ConcurrencyError: Another process wrote this episode first. This copy is
                stale; resume the episode (`Environment.resume`) and retry.
            InvalidCallIdError: `call_id` is no UTF-8 text (a lone surrogate), or (`ReservedCallIdError`)
                starts with `auto:`.
            UsageError: The episode was closed or is stale, `call_id` is neither a str
                nor None, or `args` is not JSON data (bytes or other objects inside,
                non-str keys, cycles); no step is recorded then.
            asyncio.CancelledError: The caller was cancelled. A call that had started
                writing is still finished and recorded first, so a retry with its
                call_id returns its result, as after a lost response.
        """
        check_call_id(call_id)
        if isinstance(tool, str) and not is_utf8_text(tool):
            # No tool has such a name, so this is an unknown tool; its step must still be recordable (the
            # log holds UTF-8), and the escaped name is what a replay re-issues, to the same error.
            tool = escaped(tool)
        if isinstance(args, bytes):
            # json.loads reads UTF-16 and a BOM too: the parser and the record must see one text, or a replay
            # reads other arguments than the call did.
            args = bytes_text(args)
        if not isinstance(args, str | bytes):
            # Refused before a step exists: such a call was recorded as something else than what the
            # tool saw (a repr), so its replay could apply a write the original refused.
            problem = not_json(args)
            if problem is not None:
                raise UsageError(f"arguments to {tool!r} must be JSON data: {problem}")
        async with self._lock:
            if self._closed:
                raise UsageError(f"episode {self.stream_id} is closed")
            if self.invalid is not None:
                raise EpisodeInvalidError(f"episode {self.stream_id} is invalid after a harness error")
            if self._stale is not None:
                raise UsageError(f"episode {self.stream_id} is stale ({self._stale}); resume it from the store")
            limit = self._limit_error()
            if limit is not None:
                self.truncated = True
                return CallResult(False, None, CallError.of(limit), call_id or f"{AUTO_CALL_ID}{self._step}",
                                  self._step, done=True, truncated=True)
            step = self._step
            self._step += 1
            explicit = bool(call_id)
            cid = call_id if call_id else f"{AUTO_CALL_ID}{step}"
            try:
                try:
                    out = await self._run(step, cid, tool, args, explicit=explicit)
                except ToolError as err:
                    resolved = self.toolkit.resolve(tool)
                    name = resolved if isinstance(resolved, str) else tool
                    out = self._outcome(step, cid, name, args, ok=False, error=err.to_dict(),
                                        sim_time=normalize(self._clock.now()))
                    await self._commit(out, [], self._clock.now(), self._clock, queued=self._is_read(name))
            except ConcurrencyError as exc:
                # Another writer moved the stream: nothing of this step was written, and this copy
                # no longer knows the episode's state. The caller resumes it and retries.
                self._step -= 1
                self._stale = str(exc)
                self._cancel_pending = False
                raise
            except Exception as exc:
                self._cancel_pending = False
                self.invalid = traceback.format_exc()
                self.trajectory.footer = self._invalid_footer("harness_error", self.invalid)
                raise HarnessError(f"harness error during {tool!r} (step {step}): {exc!r}") from exc
            if self._limit_error() is not None:
                self.truncated = True  # the budget is used up: no further call can be made
            if self._cancel_pending:
                self._cancel_pending = False
                raise asyncio.CancelledError
            return out.observation(done=self.done, truncated=self.truncated)

    async def persist(self) -> None:
        """Writes the episode's start to the log now, rather than with its first call.

        A server behind a load balancer does this before it hands out the episode's id: the
        first call may reach another replica, which can only resume what the log holds.
        """
        async with self._lock:
            if not self._closed and self.invalid is None and self._stale is None:
                await self._flush()

    async def check_current(self) -> None:
        """Checks that no other process has written this episode's stream past this copy.

        A replica that serves an episode another replica moved on would grade or
        show a state the agent never saw last; call this before such reads.

        Raises:
            ConcurrencyError: The stream is ahead of (or behind) this copy; resume it afresh.
        """
        async with self._lock:
            await self._settle()
            written = await self.store.stream_version(self.stream_id)
            mine = self._version  # 0 while the start events are still unwritten
            if written != mine or self._stale is not None:
                self._stale = self._stale or f"the stream is at version {written}, this copy at {mine}"
                raise ConcurrencyError(self.stream_id, mine, written)

    async def grade(self, *, footer: bool = True) -> Grade:
        """Judges the final state against the scenario's checks. Never raises for a check bug.

        A check that breaks yields `attribution="verifier_error"`, `valid=False`
        and `score=None`: an invalid episode carries no reward.

        Args:
            footer: Whether to write the trajectory's footer (the self-audit's throw-away forks
                pass False). Its content hash of the graded state is deferred to the first read
                of the footer.
        """
        async with self._lock:
            spec = self.task.scenario.spec
            if self.invalid is not None:
                grade = Grade(
                    scenario=spec.ref, seed=self.task.seed, score=None, checks=[],
                    attribution="harness_error", valid=False, truncated=self.truncated, error=self.invalid,
                )
            else:
                await self._flush()
                # A private copy: the task's bindings are shared by every episode of the task, and a
                # check that changed its params in place would change other episodes' rewards.
                effects, error = await self._grade_effects()
                if error is None:
                    events = tuple(e for evs in self._step_events for e in evs)
                    writes, now = tuple(self._write_steps()), self._clock.now()
                    refused = refused_calls(self.trajectory.steps)
                    # On the grade worker's core when it can take it; here otherwise (same checks, same inputs).
                    remote = None
                    if self.grader is not None:
                        job = GradeJob(task_key(self.task), self.task.start_head, events, writes, now, effects,
                                       refused)
                        remote = await self.grader.grade(self.task, job)
                    scores, error = remote if remote is not None else run_checks(
                        spec.checks, self.task.scenario.check_fns, initial=self.task.initial,
                        final=self._state, bindings=self.task.fresh_bindings(),
                        events=events, now=now, scope=spec.scope, writes=writes, effects=effects,
                        refused=refused,
                    )
                else:
                    scores = []
                last = self.trajectory.steps[-1] if self.trajectory.steps else None
                grade = assemble_grade(
                    spec, self.task.seed, scores, error, truncated=self.truncated,
                    at_limit=self._limit_error() is not None,
                    failed_on_fault=last is not None and last.fault is not None and not last.ok,
                )
            if footer:
                record: dict[str, Any] = {
                    "grade": grade.model_dump(mode="json"), "state_hash": self._head, "steps": self._step,
                    "sim_time": normalize(self._clock.now()),
                }
                graded = self._graded.footer()
                if graded:
                    record["grade_effects"] = graded
                self.trajectory.footer = record
                # The final state's content hash is read only with the trajectory: a served episode
                # that is graded and deleted never pays for it. The state is immutable, so later
                # calls cannot change what it hashes to.
                self.trajectory.defer("content_hash", self._state.content_hash)
            return grade

    async def _grade_effects(self) -> tuple[dict[str, EffectOutcome], str | None]:
        """The grade effects' outcomes for the current state, or the traceback of one that broke."""
        try:
            out, fresh = await self._graded.outcomes(self.task.scenario.grade_effects, self._state,
                                                     self.task.bindings, self.effects)
        except Exception:
            return {}, f"grade effects failed to run:\n{traceback.format_exc()}"
        if fresh and not self._closed and self._stale is None:
            await self._graded.persist(self.store, grade_stream_of(self.stream_id), fresh, self._clock.now())
        return out, None

    async def _append_records(self, records: Sequence[Event]) -> None:
        """Appends runtime records that belong to no step (the episode's end) after the last step."""
        await self._flush()
        now = self._clock.now()
        pending = [self.store.registry.encode(e, now) for e in records]
        digest = sha256_hex(b"\x1e".join(p.payload for p in pending))[:24]
        result, _ = await to_the_end(self.store.enqueue_pending(
            self.stream_id, pending, self._version, command_id=f"{self.stream_id}/{self._writer}/end:{digest}"
        ))
        self._version = result.last_version
        self._head = result.head_hash

    def _write_steps(self) -> list[WriteStep]:
        """The WRITE steps that emitted events, for the scope guard. Reads never count."""
        return [
            WriteStep(rec.index, rec.tool, events)
            for rec, events in zip(self.trajectory.steps, self._step_events, strict=True)
            if events and self.toolkit.spec(rec.tool).kind is ToolKind.WRITE
        ]

    async def fork(self, at_step: int | None = None, *, stream_id: str | None = None) -> Episode:
        """Returns an independent copy of this episode as it was after `at_step` calls.

        The copy gets a new stream holding the same first events, so replaying
        the original's remaining calls on it reproduces the original's hashes.
        Forking at the current step costs O(events so far), not O(world).
        """
        async with self._lock:
            if self.invalid is not None:
                # After a harness error the step counter is ahead of the recorded steps.
                raise EpisodeInvalidError(f"episode {self.stream_id} is invalid after a harness error; it cannot fork")
            await self._flush()
            k = self._step if at_step is None else at_step
            if not 0 <= k <= self._step:
                raise UsageError(f"cannot fork at step {k}: the episode has {self._step} steps")
            child = Episode(self.task, self.store, self.toolkit, self.faults, stream_id=stream_id,
                            durable_reads=self.durable_reads, grader=self.grader)
            version = self._step_versions[k - 1] if k else self._base_version
            if k == self._step:
                child._state = self._state
            else:
                rows = await self.store.read(self.stream_id)
                events = [self.store.registry.decode(r) for r in rows[len(self.task.start_events):version]]
                child._state = self.task.world.projection.fold(self.task.initial, events)
            await self.store.fork_stream(self.stream_id, child.stream_id, version)
            child._version = version
            child._unwritten = []
            if k == self._step:
                child._head = self._head
            else:
                child._head = self.trajectory.steps[k - 1].state_hash if k else self._base_head
            child._step = k
            child._step_events = [list(e) for e in self._step_events[:k]]
            child._step_versions = self._step_versions[:k]
            child._memo = {cid: m for cid, m in self._memo.items() if m.step < k}
            child._clock = SimClock(
                datetime.fromisoformat(self.trajectory.steps[k - 1].sim_time) if k else self.task.start_time
            )
            child.trajectory = Trajectory(
                header=child._header(parent={"stream": self.stream_id, "step": k}),
                steps=copy.deepcopy(self.trajectory.steps[:k]),  # the child's own records
            )
            return child

    async def rebuild_hash(self) -> str:
        """Rebuilds the state from the event log alone and returns its content hash."""
        async with self._lock:
            await self._flush()
            rows = await self.store.read(self.stream_id)
            if rows and rows[-1].hash != self._head:
                raise HarnessError(f"stream head {rows[-1].hash[:12]} differs from live {self._head[:12]}")
            events = [self.store.registry.decode(r) for r in rows]
            state = self.task.world.projection.fold(self.task.world.state, events)
            return state.content_hash()

    async def close(self, *, end: bool = False) -> None:
        """Writes any pending start events and closes the episode. Idempotent.

        Args:
            end: Also record in the log that the episode ended for good, so no process can
                resume it (`Environment.resume` refuses it). A plain close leaves it resumable.
        """
        async with self._lock:
            if self._closed:
                return
            if self.invalid is None and self._stale is None:
                await self._flush()
                if end:
                    await self._append_records([EpisodeEnded()])
            self._closed = True

    def restore(self, rows: Sequence[RecordedEvent]) -> None:
        """Continues this fresh episode from its stream's rows (used by `Environment.resume`).

        Folds the domain events over the task's initial state and rebuilds the
        step counter, memo, clock, per-step events and trajectory steps from
        the `StepRecorded` records, exactly as the live calls had left them.

        Raises:
            HarnessError: The rows do not start with this episode's first events.
        """
        if self._step or self._version:
            raise UsageError("only a fresh episode can be restored")
        if len(rows) < self._base_version or rows[self._base_version - 1].hash != self._base_head:
            raise HarnessError(f"stream {self.stream_id} does not start like a {self.task.scenario.ref} "
                               f"seed {self.task.seed} episode of this code version")
        registry = self.store.registry
        tail = [registry.decode(r) for r in rows[len(self.task.start_events):]]
        self._state = self.task.world.projection.fold(self.task.initial, tail)
        self._version, self._head, self._unwritten = len(rows), rows[-1].hash, []
        for out, refs, head, version in logged_steps(rows[self._base_version:], tail[1:]):
            self._note(out, refs, head, version)
            self._clock = SimClock(datetime.fromisoformat(out.sim_time))
        self._step = len(self.trajectory.steps)
        self.truncated = self._limit_error() is not None

    async def restore_grades(self) -> None:
        """Takes back the grade effects recorded for this episode (with `restore`, by `Environment.resume`)."""
        await self._graded.restore(self.store, grade_stream_of(self.stream_id))

    # internals ---------------------------------------------------------------
    def _header(self, parent: dict[str, Any] | None) -> dict[str, Any]:
        task = self.task
        header = {
            "format": FORMAT,
            "scenario": task.scenario.ref,
            "seed": task.seed,
            "world": task.world.profile.name,
            "world_hash": task.world.world_hash,
            "code_version": task.world.code_version,
            "bindings_hash": task.bindings_hash,
            "stream_id": self.stream_id,
            "parent": parent,
            "faults": None if self.faults is None else self.faults.model_dump(mode="json"),
            "instructions": task.instructions,
            "tools": list(self.toolkit.allowed),
        }
        if task.difficulty.changed:  # only off the file's own level: other headers stay as they were
            header["difficulty"] = dict(task.difficulty.changed)
        return header

    def _limit_error(self) -> ToolError | None:
        limits = self.task.scenario.spec.limits
        if self._step >= limits.max_steps:
            return ToolError("episode_closed", f"step limit of {limits.max_steps} calls reached")
        if self._clock.now() >= self._deadline:
            return ToolError("episode_closed", "the simulated time budget is used up")
        return None

    def _step_rng(self, step: int) -> random.Random:
        return self.task.seed_tree.child(f"step:{step}").random("tool")

    def _outcome(self, step: int, cid: str, tool: str, args: Any, *, ok: bool, sim_time: str, result: Any = None,
                 error: dict[str, Any] | None = None, fingerprint: str = "", fault: str | None = None,
                 replayed: bool = False, events: Sequence[Event] = (),
                 effect: EffectCompleted | None = None) -> StepOutcome:
        return StepOutcome(
            index=step, call_id=cid, tool=tool if isinstance(tool, str) else repr(tool),
            # A JSON copy: the caller may reuse or mutate its args object after the call.
            args=recordable_args(args), fingerprint=fingerprint, ok=ok, result=result, error=error,
            fault=fault, replayed=replayed, sim_time=sim_time, events=tuple(events),
            effect=None if effect is None else record_view(effect),
        )

    async def _run(self, step: int, cid: str, tool: str, args: Any, *, explicit: bool) -> StepOutcome:
        """Runs one call to its outcome (a lost response decided here, before anything is recorded)."""
        spec = self.toolkit.spec(self.toolkit.resolve(tool))
        parsed = self.toolkit.parse_args(spec, args)
        # Only explicit call ids can be retries. Compared only within this episode, so pydantic's
        # (deterministic) JSON is canonical enough.
        fingerprint = sha256_hex(spec.name.encode() + b"\x1f" + parsed.model_dump_json().encode()) if explicit else ""
        now = self._clock.now()
        after = self._clock.copy()
        after.advance(spec.sim_cost)
        memo = self._memo.get(cid) if explicit else None
        if memo is not None:
            if memo.fingerprint != fingerprint:
                raise ToolError(
                    "conflict", f"call_id {cid!r} was already used with different arguments",
                    details={"fields": ["call_id"], "call_id": cid},
                )
            out = self._outcome(step, cid, spec.name, args, ok=True, result=copy_json(memo.result),
                                sim_time=normalize(after.now()), replayed=True)
            await self._commit(out, [], now, after)
            return out
        fault = decide_fault(self.faults, self.task.seed, step, spec.name, spec.kind)
        if fault is not None and fault != "lost_response":
            retry_after = self.faults.retry_after_s if self.faults else 0.0
            if fault == "rate_limited":
                after.advance(retry_after)
            out = self._outcome(step, cid, spec.name, args, ok=False, fault=fault, sim_time=normalize(after.now()),
                                error=fault_error(fault, spec.name, retry_after).to_dict())
            injected = FaultInjected(step=step, tool=spec.name, call_id=cid, fault=fault,
                                     retry_after_s=retry_after if fault == "rate_limited" else None)
            await self._commit(out, [injected], now, after, queued=spec.kind is ToolKind.READ)
            return out
        ctx = ToolContext(self._state, now, self.task.world.projection, lambda: self._step_rng(step), spec.kind,
                          ties=self.task.tie_salt)
        result = spec.handler(ctx, parsed)
        done: EffectCompleted | None = None
        if spec.effect:
            done, completed = await self._effect(step, spec.name, result, ctx, after)
            if isinstance(completed, ToolError):
                out = self._outcome(step, cid, spec.name, args, ok=False, error=completed.to_dict(),
                                    sim_time=normalize(after.now()), effect=done)
                await self._commit(out, [done], now, after)  # all or nothing: its events go, its outcome stays
                return out
            result = completed
        if not isinstance(result, spec.result_model):
            raise HarnessError(f"{spec.name} returned {type(result).__name__}, not {spec.result_model.__name__}")
        events = list(ctx.events)
        effect_log = [] if done is None else [done]
        value = result.model_dump(mode="json")
        if fault == "lost_response":
            # The write commits, but the agent sees a timeout: decided now, recorded once.
            out = self._outcome(step, cid, spec.name, args, ok=False, result=value, fingerprint=fingerprint,
                                error=fault_error("lost_response", spec.name, 0.0).to_dict(), fault=fault,
                                sim_time=normalize(after.now()), events=events, effect=done)
            log: list[Event] = [*events, *effect_log,
                                FaultInjected(step=step, tool=spec.name, call_id=cid, fault=fault)]
        else:
            out = self._outcome(step, cid, spec.name, args, ok=True, result=value, fingerprint=fingerprint,
                                sim_time=normalize(after.now()), events=events, effect=done)
            log = [*events, *effect_log]
        await self._commit(out, log, now, after, state=ctx.state,
                           queued=spec.kind is ToolKind.READ and not log and ctx.state is self._state)
        return out

    async def _effect(self, step: int, tool: str, request: Any, ctx: ToolContext,
                      after: SimClock) -> tuple[EffectCompleted, BaseModel | ToolError]:
        """Gets an effect's outcome (run off the loop, or recorded), moves `after` by its cost, completes it.

        The outcome is awaited to its end even if the caller is cancelled meanwhile (re-raised once the
        step is recorded): work that ran is never lost, so a retry by call_id returns its result.
        """
        if not isinstance(request, Effect):
            raise HarnessError(f"{tool} is an effect tool but returned {type(request).__name__}")
        outcome, cancelled = await to_the_end(asyncio.ensure_future(self.effects.outcome(step, request)))
        self._cancel_pending = self._cancel_pending or cancelled
        after.advance(timedelta(seconds=request.cost_s))  # a declared cost, never the wall time it took
        done = effect_record(step, tool, request, outcome)
        try:
            return done, request.complete(ctx, outcome)
        except ToolError as err:
            return done, err

    async def _commit(self, out: StepOutcome, log: Sequence[Event], now: datetime, clock: SimClock,
                      state: State | None = None, *, queued: bool = False) -> None:
        """Appends a step's events and its `StepRecorded` in one commit, then records the step once.

        The step's domain events come first in `log`; any unwritten start events go before them.

        Args:
            queued: The step changed nothing (a READ): unless `durable_reads`, it is acknowledged
                once its append is queued, not committed. The store commits appends in queue order,
                so the episode's next write, grade, fork or close waits for it (`_settle`), and a
                crash can lose only the records of the reads since the last write, never a write.
        """
        registry = self.store.registry
        skip = len(self._unwritten)
        record = out.to_event()
        batch = [*log, record]
        # The step's record is built here through its constructor: one validation is enough.
        pending = [*self._unwritten, *(registry.encode(e, now) for e in log),
                   registry.encode(record, now, revalidate=False)]
        # Unique per step and content: a store-level retry of this very append is deduplicated, while
        # a different step written by another process at this version collides on expected_version.
        digest = sha256_hex(b"\x1e".join(p.payload for p in pending))[:24]
        write = self.store.enqueue_pending(
            self.stream_id, pending, self._version, command_id=f"{self.stream_id}/{self._writer}/{out.index}:{digest}"
        )
        write.add_done_callback(_observe)
        if queued and not self.durable_reads and not out.events:
            version, head = self._chain(pending)
            self._inflight.append((write, version, head))
            self._unwritten = []
            self._clock = clock
            self._version = version
            self._head = head
            self._note(out, [], head, version)
            return
        await self._settle()
        result, cancelled = await to_the_end(write)
        self._cancel_pending = self._cancel_pending or cancelled  # re-raised by `call()` once recorded
        self._unwritten = []
        positions = list(result.positions)[skip:]
        first = result.last_version - len(batch) + 1
        refs = [[type(e).event_type, first + i, positions[i]] for i, e in enumerate(out.events)]
        if state is not None:
            self._state = state
        self._clock = clock
        self._version = result.last_version
        self._head = result.head_hash
        self._note(out, refs, result.head_hash, result.last_version)

    def _chain(self, pending: Sequence[PendingEvent]) -> tuple[int, str]:
        """The version and head hash that appending `pending` after this episode's head will produce."""
        # Unwritten start events are already in the head (the task hashed them): chain what follows them.
        start = len(self._unwritten)
        version, head = (self._base_version if start else self._version), self._head
        for p in pending[start:]:
            version += 1
            head = chain_hash(head, version, p.event_type, p.schema_version, p.sim_time, p.payload)
        return version, head

    async def _settle(self) -> None:
        """Waits for the queued READ appends, and checks each wrote what this episode recorded.

        Raises:
            ConcurrencyError: Another writer moved the stream first (this copy is stale).
            HarnessError: A queued append wrote another chain than the one recorded.
        """
        while self._inflight:
            write, version, head = self._inflight[0]
            result, cancelled = await to_the_end(write)
            self._cancel_pending = self._cancel_pending or cancelled
            del self._inflight[0]
            if result.last_version != version or result.head_hash != head:
                raise HarnessError(f"queued append of {self.stream_id} wrote version {result.last_version} "
                                   f"({result.head_hash[:12]}), not {version} ({head[:12]})")

    def _is_read(self, tool: str) -> bool:
        """Whether `tool` names one of this episode's READ tools."""
        spec = self.toolkit.allowed.get(tool)
        return spec is not None and spec.kind is ToolKind.READ

    def _note(self, out: StepOutcome, refs: list[list[Any]], head: str, version: int) -> None:
        """Records a committed step: the one place the per-step structures grow."""
        self._step_events.append(list(out.events))
        self._step_versions.append(version)
        self.trajectory.steps.append(out.trajectory_step(refs, head))
        memo = out.memo_result
        if memo is not None:
            # Shared with the trajectory step: both are the episode's own, and a retry gets a copy.
            self._memo[out.call_id] = _CallMemo(out.fingerprint, out.index, memo)

    async def _flush(self) -> None:
        await self._settle()
        if self._unwritten:
            result, cancelled = await to_the_end(
                self.store.enqueue_pending(self.stream_id, self._unwritten, self._version)
            )
            if result.head_hash != self._head:
                raise HarnessError("start events hashed differently in the store than in the task")
            self._unwritten = []
            self._version = result.last_version
            if cancelled:
                raise asyncio.CancelledError

    def _invalid_footer(self, attribution: Attribution, error: str) -> dict[str, Any]:
        return {
            "grade": {"scenario": self.task.scenario.ref, "seed": self.task.seed, "score": None,
                      "goal_score": None, "violations": [],
                      "checks": [], "attribution": attribution, "valid": False,
                      "truncated": self.truncated, "error": error},
            "state_hash": self._head, "steps": self._step,
        }
