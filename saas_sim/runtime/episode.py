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
import random
import traceback
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from saas_sim.core.canonical import normalize, sha256_hex
from saas_sim.core.clock import SimClock
from saas_sim.core.events import Event, PendingEvent
from saas_sim.core.ids import unique_token
from saas_sim.core.state import State
from saas_sim.core.store import EventStore
from saas_sim.core.tools import ToolContext, ToolSpec
from saas_sim.errors import HarnessError, ToolError, UsageError
from saas_sim.runtime.faults import decide_fault, fault_error
from saas_sim.runtime.grading import Attribution, Grade, run_checks, weighted
from saas_sim.runtime.records import FaultInjected
from saas_sim.runtime.task import TaskInstance
from saas_sim.runtime.toolkit import Toolkit
from saas_sim.runtime.trajectory import FORMAT, StepRecord, Trajectory
from saas_sim.scenarios.model import FaultProfile

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["CallResult", "Episode"]


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


@dataclass(slots=True)
class _CallMemo:
    fingerprint: str
    result: CallResult


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
        """True once the episode was truncated, invalidated or closed."""
        return self._closed or self.truncated or self.invalid is not None

    async def call(self, tool: str, args: Any = None, call_id: str | None = None) -> CallResult:
        """Calls a tool and returns what the agent observes.

        Args:
            tool: The tool name (`crm.get_deal`, or its wire form `crm__get_deal`).
            args: The arguments: a mapping or a JSON string.
            call_id: An idempotency key. Retrying with the same key and arguments
                returns the original result and writes nothing. Defaults to
                `step-<n>`.

        Raises:
            HarnessError: The harness failed; the episode is now invalid.
            UsageError: The episode was closed.
        """
        async with self._lock:
            if self._closed:
                raise UsageError(f"episode {self.stream_id} is closed")
            if self.invalid is not None:
                raise HarnessError(f"episode {self.stream_id} is invalid after a harness error")
            limit = self._limit_error()
            if limit is not None:
                self.truncated = True
                return CallResult(False, None, limit.to_dict(), call_id or f"step-{self._step}", self._step)
            step = self._step
            self._step += 1
            cid = call_id if isinstance(call_id, str) and call_id else f"step-{step}"
            try:
                return await self._run(step, cid, tool, args)
            except ToolError as err:
                return self._record(step, cid, tool, args, None, err, [], None)
            except Exception as exc:
                self.invalid = traceback.format_exc()
                self.trajectory.footer = self._invalid_footer("harness_error", self.invalid)
                raise HarnessError(f"harness error during {tool!r} (step {step}): {exc!r}") from exc

    async def grade(self) -> Grade:
        """Judges the final state against the scenario's checks. Never raises for a check bug.

        A check that breaks yields `attribution="verifier_error"`, `valid=False`
        and `score=None`: an invalid episode carries no reward.
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
                scores, error = run_checks(
                    spec.checks, self.task.scenario.check_fns, initial=self.task.initial,
                    final=self._state, bindings=self.task.bindings,
                    events=[e for evs in self._step_events for e in evs], now=self._clock.now(),
                )
                if error is not None:
                    grade = Grade(
                        scenario=spec.ref, seed=self.task.seed, score=None, checks=scores,
                        attribution="verifier_error", valid=False, truncated=self.truncated, error=error,
                    )
                else:
                    score = weighted(scores)
                    grade = Grade(
                        scenario=spec.ref, seed=self.task.seed, score=score, checks=scores,
                        attribution=self._attribution(score, spec.success_threshold), valid=True,
                        truncated=self.truncated,
                    )
            self.trajectory.footer = {
                "grade": grade.model_dump(mode="json"), "state_hash": self._head,
                "content_hash": self._state.content_hash(), "steps": self._step,
                "sim_time": normalize(self._clock.now()),
            }
            return grade

    async def fork(self, at_step: int | None = None) -> Episode:
        """Returns an independent copy of this episode as it was after `at_step` calls.

        The copy gets a new stream holding the same first events, so replaying
        the original's remaining calls on it reproduces the original's hashes.
        Forking at the current step costs O(events so far), not O(world).
        """
        async with self._lock:
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
            child._memo = {cid: m for cid, m in self._memo.items() if m.result.step < k}
            child._clock = SimClock(
                datetime.fromisoformat(self.trajectory.steps[k - 1].sim_time) if k else self.task.start_time
            )
            child.trajectory = Trajectory(
                header=child._header(parent={"stream": self.stream_id, "step": k}),
                steps=list(self.trajectory.steps[:k]),
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

    async def _run(self, step: int, cid: str, tool: str, args: Any) -> CallResult:
        spec = self.toolkit.spec(self.toolkit.resolve(tool))
        parsed = self.toolkit.parse_args(spec, args)
        # Compared only within this episode, so pydantic's (deterministic) JSON is canonical enough.
        fingerprint = sha256_hex(spec.name.encode() + b"\x1f" + parsed.model_dump_json().encode())
        memo = self._memo.get(cid)
        if memo is not None:
            if memo.fingerprint != fingerprint:
                raise ToolError(
                    "conflict", f"call_id {cid!r} was already used with different arguments",
                    details={"call_id": cid},
                )
            self._clock.advance(spec.sim_cost)
            return self._record(step, cid, spec.name, args, memo.result.value, None, [], None, replayed=True)
        now = self._clock.now()
        fault = decide_fault(self.faults, self.task.seed, step, spec.name, spec.kind)
        if fault is not None and fault != "lost_response":
            retry_after = self.faults.retry_after_s if self.faults else 0.0
            await self._append([FaultInjected(step=step, tool=spec.name, call_id=cid, fault=fault,
                                              retry_after_s=retry_after if fault == "rate_limited" else None)],
                               now, f"{cid}#fault{step}")
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
        out = self._record(step, cid, spec.name, args, value, None, events, fault, positions=positions)
        self._memo[cid] = _CallMemo(fingerprint, out if fault is None else CallResult(
            True, value, None, cid, step, fault))
        if fault == "lost_response":
            return self._record_lost(out, spec.name)
        return out

    def _record_lost(self, out: CallResult, tool: str) -> CallResult:
        err = fault_error("lost_response", tool, 0.0)
        rec = self.trajectory.steps[-1]
        rec.ok, rec.result, rec.error = False, None, err.to_dict()
        return CallResult(False, None, err.to_dict(), out.call_id, out.step, "lost_response")

    async def _append(self, events: Sequence[Event], now: datetime, cid: str) -> list[int]:
        """Appends a call's events (after any unwritten start events); returns their global positions."""
        registry = self.store.registry
        skip = len(self._unwritten)
        pending = [*self._unwritten, *(registry.encode(e, now) for e in events)]
        result = await self.store.append_pending(
            self.stream_id, pending, self._version, command_id=f"{self.stream_id}/{cid}"
        )
        self._unwritten = []
        self._version = result.last_version
        self._head = result.head_hash
        return list(result.positions)[skip:]

    async def _flush(self) -> None:
        if self._unwritten:
            result = await self.store.append_pending(self.stream_id, self._unwritten, self._version)
            if result.head_hash != self._head:
                raise HarnessError("start events hashed differently in the store than in the task")
            self._unwritten = []
            self._version = result.last_version

    def _record(
        self, step: int, cid: str, tool: str, args: Any, value: Any, err: ToolError | None,
        events: list[Event], fault: str | None, *, replayed: bool = False, positions: Sequence[int] = (),
    ) -> CallResult:
        self._step_events.append(events)
        self._step_versions.append(self._version + len(self._unwritten))
        first = self._version - len(positions) + 1 - (1 if positions and fault else 0)
        self.trajectory.steps.append(StepRecord(
            index=step, call_id=cid, tool=tool if isinstance(tool, str) else repr(tool),
            args=args if isinstance(args, str | dict | list | None) else repr(args),
            ok=err is None, result=value, error=None if err is None else err.to_dict(),
            events=[
                [type(e).event_type, first + i, pos]
                for i, (e, pos) in enumerate(zip(events, positions, strict=True))
            ],
            state_hash=self._head, sim_time=normalize(self._clock.now()), fault=fault, replayed=replayed,
        ))
        if err is not None:
            return CallResult(False, None, err.to_dict(), cid, step, fault)
        return CallResult(True, value, None, cid, step, fault)

    def _attribution(self, score: float, threshold: float) -> Attribution:
        if score >= threshold - 1e-9:
            return "success"
        if self.truncated:
            return "step_limit"
        last = self.trajectory.steps[-1] if self.trajectory.steps else None
        if last is not None and last.fault is not None and not last.ok:
            return "injected_fault"
        return "agent_failure"

    def _invalid_footer(self, attribution: Attribution, error: str) -> dict[str, Any]:
        return {
            "grade": {"scenario": self.task.scenario.ref, "seed": self.task.seed, "score": None,
                      "checks": [], "attribution": attribution, "valid": False,
                      "truncated": self.truncated, "error": error},
            "state_hash": self._head, "steps": self._step,
        }
