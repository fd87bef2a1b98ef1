"""An episode: one isolated attempt at one task.

The life of a call (ARCHITECTURE.md section 3):

1. The episode's lock is taken: calls on one episode are serialized, and
   their order is the recorded step order.
2. The tool is looked up in the scenario's action space, and the arguments
   are validated by its pydantic model. Failures are `ToolError`s.
3. A repeated `call_id` with the same arguments returns the original result
   and writes nothing.
4. The fault injector decides, from (seed, step, tool), whether the call gets
   an injected fault; the decision is recorded as an event.
5. The handler reads the *current* state and decides events.
6. The events are appended with `expected_version` and the call's command id.
7. The state and the chain hash move on, the step is recorded, and only then
   is the result returned: read-your-writes, always.

Anything but a `ToolError` is a harness bug: the episode is marked invalid,
the traceback is kept in the trajectory, and a `HarnessError` is raised. It is
never turned into an observation or a reward.
"""

from __future__ import annotations

import asyncio
import copy
import json
import math
import random
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from saas_sim.core.canonical import normalize, sha256_hex
from saas_sim.core.clock import SimClock
from saas_sim.core.events import Event, PendingEvent
from saas_sim.core.ids import unique_token
from saas_sim.core.state import State
from saas_sim.core.store import EventStore
from saas_sim.core.tools import ToolContext, ToolKind, ToolSpec
from saas_sim.errors import HarnessError, ToolError, UsageError
from saas_sim.runtime.arg_bounds import not_json
from saas_sim.runtime.faults import decide_fault, fault_error
from saas_sim.runtime.grading import Attribution, Grade, combine, run_checks
from saas_sim.runtime.records import FaultInjected
from saas_sim.runtime.scope import WriteStep
from saas_sim.runtime.task import TaskInstance
from saas_sim.runtime.toolkit import Toolkit
from saas_sim.runtime.trajectory import FORMAT, StepRecord, Trajectory
from saas_sim.scenarios.model import FaultProfile

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["AUTO_CALL_ID", "CallResult", "Episode", "reissued_call_id"]

AUTO_CALL_ID = "auto:"
"""The prefix of generated call ids. A generated id is never treated as a retry."""


def reissued_call_id(recorded: str) -> str | None:
    """Returns the call_id to pass when re-issuing a recorded call (None for a generated one)."""
    return None if recorded.startswith(AUTO_CALL_ID) else recorded

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class CallResult:
    """What the agent observes for one call: a value or a structured error.

    Attributes:
        ok: True when `value` holds the tool's result.
        value: The result as JSON-ready data.
        error: `{code, message, retryable, details}` when not ok.
        call_id: The call's idempotency key.
        step: The step number the call was recorded as.
        fault: The injected fault, if any (for analysis; agents see only `error`).
    """

    ok: bool
    value: Any
    error: dict[str, Any] | None
    call_id: str
    step: int
    fault: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Returns the observation as JSON-ready data."""
        if self.ok:
            return {"ok": True, "value": self.value}
        return {"ok": False, "error": self.error}


@dataclass(frozen=True, slots=True)
class _CallMemo:
    """A successful call, kept for retries with its call_id.

    It holds the frozen result model, never a dict an agent was handed: what an
    agent does with its observation cannot change what a retry returns.
    """

    fingerprint: str
    step: int
    result: BaseModel


def _copy_json(value: Any) -> Any:
    """Copies JSON-ready data (dicts and lists; the leaves are immutable)."""
    kind = type(value)
    if kind is dict:
        return {k: _copy_json(v) for k, v in value.items()}
    if kind is list:
        return [_copy_json(v) for v in value]
    return value


def _plain_json(value: Any) -> Any:
    """Returns a faithful JSON-ready deep copy of call arguments, or raises TypeError/ValueError.

    Faithful, not canonical: `Decimal("12.50")` stays "12.50" (the tool would echo
    it back that way), and nothing aliases the caller's objects.
    """
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("non-finite number")
        return value
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError("non-finite number")
        return str(value)
    if isinstance(value, Mapping):
        return {k if isinstance(k, str) else json.dumps(_plain_json(k)): _plain_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain_json(v) for v in value]
    if isinstance(value, set | frozenset):
        return [_plain_json(v) for v in sorted(value)]
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Enum):
        return _plain_json(value.value)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    raise TypeError(f"{type(value).__name__} is not JSON")


def _recordable_args(args: Any) -> Any:
    """Returns the arguments as the trajectory keeps them: JSON, a copy, and replayable.

    Replaying the recorded value must give the agent the same observation as the
    original call: bytes that held JSON are kept as that text, a tuple or a
    Mapping as the list or object they were, and anything with NaN or non-JSON
    leaves as the JSON text the argument parser would have seen.
    """
    if args is None or isinstance(args, str):
        return args
    if isinstance(args, bytes):
        try:
            return args.decode("utf-8")
        except UnicodeDecodeError:
            return repr(args)
    try:
        return _plain_json(args)
    except (TypeError, ValueError, RecursionError):
        pass
    try:
        return json.dumps(args, default=repr)
    except (TypeError, ValueError, RecursionError):
        return repr(args)


class Episode:
    """One isolated attempt at a task. Start one with `Environment.start`.

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
    ) -> None:
        self.task = task
        self.store = store
        self.toolkit = toolkit
        self.faults = faults
        self.stream_id = stream_id or f"ep:{task.scenario.ref}:{task.seed}:{unique_token()}"
        self._lock = asyncio.Lock()
        self._state: State = task.initial
        self._clock = SimClock(task.start_time)
        self._deadline = task.start_time + timedelta(seconds=task.scenario.spec.limits.sim_time_s)
        self._version = 0
        self._head = task.start_head
        self._unwritten: list[PendingEvent] = list(task.start_events)
        self._step = 0
        self._memo: dict[str, _CallMemo] = {}
        self._step_events: list[list[Event]] = []
        self._step_versions: list[int] = []
        self._closed = False
        self._cancel_pending = False
        self.truncated = False
        self.invalid: str | None = None
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

    async def call(self, tool: str, args: Any = None, call_id: str | None = None) -> CallResult:
        """Calls a tool and returns what the agent observes.

        Args:
            tool: The tool name (`crm.get_deal`, or its wire form `crm__get_deal`).
            args: The arguments: a mapping or a JSON string.
            call_id: An idempotency key. Retrying with the same key and arguments
                returns the original result and writes nothing. Without one the
                call gets `auto:<step>`, which is never treated as a retry; keys
                starting with `auto:` are reserved for that.

        Raises:
            HarnessError: The harness failed; the episode is now invalid.
            UsageError: The episode was closed, `call_id` is neither a str nor None, or `args`
                is not JSON data (bytes or other objects inside, non-str keys, cycles); no step
                is recorded then.
            asyncio.CancelledError: The caller was cancelled. A call that had started
                writing is still finished and recorded first, so a retry with its
                call_id returns its result, as after a lost response.
        """
        if call_id is not None and not isinstance(call_id, str):
            # Never swap a bad key for a fresh `step-<n>`: a retry with "the same" key would
            # then apply a write twice.
            raise UsageError(f"call_id must be a str or None, got {type(call_id).__name__}")
        if call_id is not None and call_id.startswith(AUTO_CALL_ID):
            raise UsageError(f"call_id {call_id!r}: the prefix {AUTO_CALL_ID!r} is reserved for generated ids")
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
                raise HarnessError(f"episode {self.stream_id} is invalid after a harness error")
            limit = self._limit_error()
            if limit is not None:
                self.truncated = True
                return CallResult(False, None, limit.to_dict(), call_id or f"{AUTO_CALL_ID}{self._step}", self._step)
            step = self._step
            self._step += 1
            explicit = bool(call_id)
            cid = call_id if call_id else f"{AUTO_CALL_ID}{step}"
            try:
                result = await self._run(step, cid, tool, args, explicit=explicit)
            except ToolError as err:
                resolved = self.toolkit.resolve(tool)
                name = resolved if isinstance(resolved, str) else tool
                result = self._record(step, cid, name, args, None, err, [], None)
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
            return result

    async def grade(self, *, footer: bool = True) -> Grade:
        """Judges the final state against the scenario's checks. Never raises for a check bug.

        A check that breaks yields `attribution="verifier_error"`, `valid=False`
        and `score=None`: an invalid episode carries no reward.

        Args:
            footer: Whether to write the trajectory's footer. Its full content hash
                costs O(world), so the self-audit's throw-away forks pass False.
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
                scores, error = run_checks(
                    spec.checks, self.task.scenario.check_fns, initial=self.task.initial,
                    final=self._state, bindings=copy.deepcopy(self.task.bindings),
                    events=[e for evs in self._step_events for e in evs], now=self._clock.now(),
                    scope=spec.scope, writes=self._write_steps(),
                )
                if error is not None:
                    grade = Grade(
                        scenario=spec.ref, seed=self.task.seed, score=None, checks=scores,
                        attribution="verifier_error", valid=False, truncated=self.truncated, error=error,
                    )
                else:
                    score, goal_score, violations = combine(scores)
                    grade = Grade(
                        scenario=spec.ref, seed=self.task.seed, score=score, goal_score=goal_score,
                        violations=violations, checks=scores,
                        attribution=self._attribution(score, spec.success_threshold), valid=True,
                        truncated=self.truncated,
                    )
            if footer:
                self.trajectory.footer = {
                    "grade": grade.model_dump(mode="json"), "state_hash": self._head,
                    "content_hash": self._state.content_hash(), "steps": self._step,
                    "sim_time": normalize(self._clock.now()),
                }
            return grade

    def _write_steps(self) -> list[WriteStep]:
        """The WRITE steps that emitted events, for the scope guard. Reads never count."""
        return [
            WriteStep(rec.index, rec.tool, events)
            for rec, events in zip(self.trajectory.steps, self._step_events, strict=True)
            if events and self.toolkit.spec(rec.tool).kind is ToolKind.WRITE
        ]

    async def fork(self, at_step: int | None = None) -> Episode:
        """Returns an independent copy of this episode as it was after `at_step` calls.

        The copy gets a new stream holding the same first events, so replaying
        the original's remaining calls on it reproduces the original's hashes.
        Forking at the current step costs O(events so far), not O(world).
        """
        async with self._lock:
            if self.invalid is not None:
                # After a harness error the step counter is ahead of the recorded steps.
                raise HarnessError(f"episode {self.stream_id} is invalid after a harness error; it cannot fork")
            await self._flush()
            k = self._step if at_step is None else at_step
            if not 0 <= k <= self._step:
                raise UsageError(f"cannot fork at step {k}: the episode has {self._step} steps")
            child = Episode(self.task, self.store, self.toolkit, self.faults)
            version = self._step_versions[k - 1] if k else len(self.task.start_events)
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
                child._head = self.trajectory.steps[k - 1].state_hash if k else self.task.start_head
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

    async def close(self) -> None:
        """Writes any pending start events and closes the episode. Idempotent."""
        async with self._lock:
            if self._closed:
                return
            if self.invalid is None:
                await self._flush()
            self._closed = True

    # internals ---------------------------------------------------------------
    def _header(self, parent: dict[str, Any] | None) -> dict[str, Any]:
        task = self.task
        return {
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

    def _limit_error(self) -> ToolError | None:
        limits = self.task.scenario.spec.limits
        if self._step >= limits.max_steps:
            return ToolError("episode_closed", f"step limit of {limits.max_steps} calls reached")
        if self._clock.now() >= self._deadline:
            return ToolError("episode_closed", "the simulated time budget is used up")
        return None

    def _step_rng(self, step: int) -> random.Random:
        return self.task.seed_tree.child(f"step:{step}").random("tool")

    async def _run(self, step: int, cid: str, tool: str, args: Any, *, explicit: bool) -> CallResult:
        spec = self.toolkit.spec(self.toolkit.resolve(tool))
        parsed = self.toolkit.parse_args(spec, args)
        # Only explicit call ids can be retries. Compared only within this episode, so pydantic's
        # (deterministic) JSON is canonical enough.
        fingerprint = sha256_hex(spec.name.encode() + b"\x1f" + parsed.model_dump_json().encode()) if explicit else ""
        memo = self._memo.get(cid) if explicit else None
        if memo is not None:
            if memo.fingerprint != fingerprint:
                raise ToolError(
                    "conflict", f"call_id {cid!r} was already used with different arguments",
                    details={"call_id": cid},
                )
            self._clock.advance(spec.sim_cost)
            value = memo.result.model_dump(mode="json")
            return self._record(step, cid, spec.name, args, value, None, [], None, replayed=True,
                                handed=memo.result.model_dump(mode="json"))
        now = self._clock.now()
        fault = decide_fault(self.faults, self.task.seed, step, spec.name, spec.kind)
        if fault is not None and fault != "lost_response":
            retry_after = self.faults.retry_after_s if self.faults else 0.0
            await self._append([FaultInjected(step=step, tool=spec.name, call_id=cid, fault=fault,
                                              retry_after_s=retry_after if fault == "rate_limited" else None)],
                               now, f"{cid}\x1ffault:{step}")
            self._clock.advance(spec.sim_cost)
            if fault == "rate_limited":
                self._clock.advance(retry_after)
            err = fault_error(fault, spec.name, retry_after)
            return self._record(step, cid, spec.name, args, None, err, [], fault)
        ctx = ToolContext(self._state, now, self.task.world.projection, lambda: self._step_rng(step), spec.kind)
        result = spec.handler(ctx, parsed)
        if not isinstance(result, spec.result_model):
            raise HarnessError(f"{spec.name} returned {type(result).__name__}, not {spec.result_model.__name__}")
        value = result.model_dump(mode="json")
        events = list(ctx.events)
        positions: list[int] = []
        if events or fault is not None:
            log = events if fault is None else [*events, FaultInjected(step=step, tool=spec.name, call_id=cid,
                                                                       fault=fault)]
            positions = (await self._append(log, now, cid))[: len(events)]
        self._state = ctx.state
        self._clock.advance(spec.sim_cost)
        out = self._record(step, cid, spec.name, args, value, None, events, fault, positions=positions,
                           handed=result.model_dump(mode="json"))
        if explicit:
            self._memo[cid] = _CallMemo(fingerprint, step, result)
        if fault == "lost_response":
            return self._record_lost(out, spec.name)
        return out

    def _record_lost(self, out: CallResult, tool: str) -> CallResult:
        err = fault_error("lost_response", tool, 0.0)
        rec = self.trajectory.steps[-1]
        rec.ok, rec.result, rec.error = False, None, err.to_dict()
        return CallResult(False, None, _copy_json(err.to_dict()), out.call_id, out.step, "lost_response")

    async def _append(self, events: Sequence[Event], now: datetime, cid: str) -> list[int]:
        """Appends a call's events (after any unwritten start events); returns their global positions."""
        registry = self.store.registry
        skip = len(self._unwritten)
        pending = [*self._unwritten, *(registry.encode(e, now) for e in events)]
        result, cancelled = await self._to_the_end(self.store.enqueue_pending(
            self.stream_id, pending, self._version, command_id=f"{self.stream_id}/{cid}"
        ))
        self._cancel_pending = self._cancel_pending or cancelled  # re-raised by `call()` once recorded
        self._unwritten = []
        self._version = result.last_version
        self._head = result.head_hash
        return list(result.positions)[skip:]

    async def _flush(self) -> None:
        if self._unwritten:
            result, cancelled = await self._to_the_end(
                self.store.enqueue_pending(self.stream_id, self._unwritten, self._version)
            )
            if result.head_hash != self._head:
                raise HarnessError("start events hashed differently in the store than in the task")
            self._unwritten = []
            self._version = result.last_version
            if cancelled:
                raise asyncio.CancelledError

    @staticmethod
    async def _to_the_end(write: asyncio.Future[T]) -> tuple[T, bool]:
        """Awaits a store write to its outcome, even if the caller is cancelled meanwhile.

        A queued append commits whatever its caller does. Abandoning it at a
        cancellation (an adapter's timeout, a client that went away) would leave
        the live state, version, head and trajectory behind the log: the episode
        would be graded on a state its own log contradicts. So the write is
        shielded and awaited to its end; the second value tells whether the
        caller was cancelled, for it to re-raise once its bookkeeping is done.
        """
        cancelled = False
        while True:
            try:
                return await asyncio.shield(write), cancelled
            except asyncio.CancelledError:
                if write.cancelled():  # the write itself was cancelled (loop shutdown): nothing to finish
                    raise
                cancelled = True

    def _record(
        self, step: int, cid: str, tool: str, args: Any, value: Any, err: ToolError | None,
        events: list[Event], fault: str | None, *, replayed: bool = False, positions: Sequence[int] = (),
        handed: Any = None,
    ) -> CallResult:
        """Records a step; returns the observation, with `handed` (or a copy of `value`) as its value."""
        self._step_events.append(events)
        self._step_versions.append(self._version + len(self._unwritten))
        first = self._version - len(positions) + 1 - (1 if positions and fault else 0)
        self.trajectory.steps.append(StepRecord(
            index=step, call_id=cid, tool=tool if isinstance(tool, str) else repr(tool),
            # A JSON copy: the caller may reuse or mutate its args object after the call.
            args=_recordable_args(args),
            ok=err is None, result=value, error=None if err is None else err.to_dict(),
            events=[
                [type(e).event_type, first + i, pos]
                for i, (e, pos) in enumerate(zip(events, positions, strict=True))
            ],
            state_hash=self._head, sim_time=normalize(self._clock.now()), fault=fault, replayed=replayed,
        ))
        # The agent gets its own copy of the observation: mutating it must not rewrite the record.
        if err is not None:
            return CallResult(False, None, _copy_json(err.to_dict()), cid, step, fault)
        return CallResult(True, _copy_json(value) if handed is None else handed, None, cid, step, fault)

    def _attribution(self, score: float, threshold: float) -> Attribution:
        if score >= threshold - 1e-9:
            return "success"
        if self.truncated or self._limit_error() is not None:
            return "step_limit"
        last = self.trajectory.steps[-1] if self.trajectory.steps else None
        if last is not None and last.fault is not None and not last.ok:
            return "injected_fault"
        return "agent_failure"

    def _invalid_footer(self, attribution: Attribution, error: str) -> dict[str, Any]:
        return {
            "grade": {"scenario": self.task.scenario.ref, "seed": self.task.seed, "score": None,
                      "goal_score": None, "violations": [],
                      "checks": [], "attribution": attribution, "valid": False,
                      "truncated": self.truncated, "error": error},
            "state_hash": self._head, "steps": self._step,
        }
