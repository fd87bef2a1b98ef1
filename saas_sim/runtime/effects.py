"""Running effects: off the event loop, with a wall timeout, once; replays use the recorded outcome.

A live call runs its effect's blocking runner in a worker thread
(`anyio.to_thread.run_sync`), so the loop keeps serving other episodes while
tests run. The runner enforces `timeout_s` itself (a subprocess runner kills
its child); a runner that overstays by `GRACE_S` anyway is abandoned and the
outcome is `timeout`, recorded like any other, so it replays exactly.

Effects get their own pool of `EFFECT_THREADS` worker threads per event loop
(an anyio `RunVar`), not anyio's default 40: measured with 100 concurrent
subprocess effects on 2 cores, 40 threads starting children at once starve the
loop of the GIL (1.4 s worst tick lag), while 4 keep it under 30 ms and
finish sooner. More concurrent effects queue for a thread.

`RecordedOutcomes` is what replay uses instead: the outcomes a trajectory
recorded, by step. With `rerun=True` (`saas-sim replay --rerun-effects`) it
also runs each effect again and keeps every difference as an
`EffectMismatch`, while the replay itself still folds the recorded outcome.
"""

from __future__ import annotations

import json
import os
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread
from anyio.lowlevel import RunVar

from saas_sim.core.effects import Effect, EffectOutcome
from saas_sim.errors import HarnessError
from saas_sim.runtime.records import EffectCompleted, GradeEffectCompleted
from saas_sim.runtime.trajectory import StepRecord

__all__ = [
    "EFFECT_THREADS", "GRACE_S", "EffectMismatch", "LiveOutcomes", "RecordedOutcomes", "effect_record",
    "grade_effect_record", "record_view", "run_effect",
]

GRACE_S = 5.0
"""How long past its own timeout a runner may take before the runtime abandons it."""

EFFECT_THREADS = min(8, 2 * (os.cpu_count() or 1))
"""How many effects run at once per event loop (worker threads); the rest wait for one."""

_LIMITER: RunVar[anyio.CapacityLimiter] = RunVar("saas_sim_effect_limiter")


def _limiter() -> anyio.CapacityLimiter:
    """This event loop's effect pool (one per loop, as anyio keeps its default one)."""
    try:
        return _LIMITER.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(EFFECT_THREADS)
        _LIMITER.set(limiter)
        return limiter


async def run_effect(effect: Effect[Any]) -> EffectOutcome:
    """Runs an effect's work in a worker thread and returns its outcome.

    Raises:
        HarnessError: The runner returned something other than an `EffectOutcome`.
        Exception: Whatever the runner raised; the caller treats it as a harness bug.
    """
    inputs = dict(effect.inputs)
    # The wall timeout starts once a thread is ours: waiting in the queue is never a timeout.
    async with _limiter():
        with anyio.move_on_after((effect.timeout_s if effect.wait_s is None else effect.wait_s) + GRACE_S):
            # Abandoned on timeout: a thread cannot be interrupted, and the loop must not wait for it.
            outcome = await anyio.to_thread.run_sync(effect.run, inputs, effect.timeout_s, abandon_on_cancel=True,
                                                     limiter=anyio.CapacityLimiter(1))
            if not isinstance(outcome, EffectOutcome):
                raise HarnessError(f"effect {effect.kind} returned {type(outcome).__name__}, not EffectOutcome")
            return outcome
    return EffectOutcome.timeout(effect.timeout_s)


def effect_record(step: int, tool: str, effect: Effect[Any], outcome: EffectOutcome) -> EffectCompleted:
    """The log's record of an effect's outcome."""
    data = outcome.model_dump(mode="json")
    return EffectCompleted(step=step, tool=tool, kind=effect.kind, key=effect.key(), status=outcome.status,
                           outcome=json.dumps(data, ensure_ascii=True, sort_keys=True, allow_nan=False))


def grade_effect_record(name: str, effect: Effect[Any], outcome: EffectOutcome) -> GradeEffectCompleted:
    """The log's record of a grade effect's outcome."""
    data = outcome.model_dump(mode="json")
    return GradeEffectCompleted(name=name, kind=effect.kind, key=effect.key(), status=outcome.status,
                                outcome=json.dumps(data, ensure_ascii=True, sort_keys=True, allow_nan=False))


def record_view(rec: EffectCompleted | GradeEffectCompleted) -> dict[str, Any]:
    """What a trajectory step shows of its effect: kind, key and outcome."""
    return {"kind": rec.kind, "key": rec.key, "outcome": json.loads(rec.outcome)}


class LiveOutcomes:
    """Runs every effect for real: the live path, and the one counter of effect runs."""

    def __init__(self) -> None:
        self.runs = 0

    async def outcome(self, step: int, effect: Effect[Any]) -> EffectOutcome:
        """Returns the outcome of `effect` at `step`."""
        self.runs += 1
        return await run_effect(effect)

    async def grade_outcome(self, name: str, effect: Effect[Any]) -> EffectOutcome:
        """Returns the outcome of the grade effect `name`."""
        self.runs += 1
        return await run_effect(effect)


@dataclass(frozen=True)
class EffectMismatch:
    """An effect whose re-run outcome differs from the recorded one."""

    step: int
    kind: str
    recorded: EffectOutcome
    rerun: EffectOutcome

    def describe(self) -> str:
        """One line naming the step (or the grade, step -1), for the audit's report."""
        where = "grade" if self.step < 0 else f"step {self.step}"
        return (f"{where}: nondeterministic effect {self.kind}: recorded "
                f"{self.recorded.model_dump(mode='json')}, re-run {self.rerun.model_dump(mode='json')}")


class RecordedOutcomes(LiveOutcomes):
    """Recorded outcomes, by step: replay folds them instead of running the effects.

    A step without a recorded outcome for the very same request (kind and
    inputs) runs for real; the replay's comparison then shows the difference.

    Args:
        by_step: The trajectory steps' `effect` views, by step index.
        rerun: Also run each effect again and keep the differing outcomes in `mismatches`.
    """

    def __init__(self, by_step: Mapping[int, Mapping[str, Any]], *, rerun: bool = False,
                 graded: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        super().__init__()
        self.by_step = dict(by_step)
        self.graded = dict(graded or {})
        self.rerun = rerun
        self.mismatches: list[EffectMismatch] = []

    @classmethod
    def of(cls, steps: Sequence[StepRecord], *, rerun: bool = False,
           footer: Mapping[str, Any] | None = None) -> RecordedOutcomes:
        """Reads the outcomes recorded in a trajectory's steps and, from its footer, its grade effects."""
        graded = (footer or {}).get("grade_effects") or {}
        return cls({s.index: s.effect for s in steps if s.effect is not None}, rerun=rerun, graded=graded)

    async def grade_outcome(self, name: str, effect: Effect[Any]) -> EffectOutcome:
        """The recorded outcome of a grade effect (re-run too when auditing), or a live run."""
        return await self._read_back(self.graded.get(name), -1, effect, super().grade_outcome(name, effect))

    async def outcome(self, step: int, effect: Effect[Any]) -> EffectOutcome:
        """The recorded outcome of this step's effect (re-run too when auditing), or a live run."""
        return await self._read_back(self.by_step.get(step), step, effect, super().outcome(step, effect))

    async def _read_back(self, rec: Mapping[str, Any] | None, step: int, effect: Effect[Any],
                         live: Coroutine[Any, Any, EffectOutcome]) -> EffectOutcome:
        """`rec`'s outcome when it records this very request (after `live` too, when auditing), else `live`'s."""
        if rec is None or rec.get("key") != effect.key():
            return await live
        recorded = EffectOutcome.model_validate(rec["outcome"])
        if not self.rerun:
            live.close()  # never awaited: nothing runs
            return recorded
        fresh = await live
        if fresh != recorded:
            self.mismatches.append(EffectMismatch(step, effect.kind, recorded, fresh))
        return recorded
