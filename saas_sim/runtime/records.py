"""The runtime's own events: how an episode started, its faults, and each recorded step.

A fork is recorded in its trajectory header, not in its stream: the fork's log
must chain exactly like the original's.

They live in every episode stream beside the domain events, so the log alone
tells how an episode began and which observations were injected. They leave
the domain state untouched.
"""

from __future__ import annotations

from typing import Any

from pydantic import SerializerFunctionWrapHandler, model_serializer

from saas_sim.core.events import Event, event
from saas_sim.core.state import Projection, State

__all__ = [
    "RUNTIME_PROJECTION",
    "EffectCompleted",
    "EpisodeConfigured",
    "EpisodeEnded",
    "EpisodeStarted",
    "FaultInjected",
    "GradeEffectCompleted",
    "StepRecorded",
]


@event("runtime.EpisodeStarted")
class EpisodeStarted(Event):
    """An episode began from a world snapshot.

    Attributes:
        difficulty: The difficulty knobs whose values differ from the scenario file's own level
            (`Difficulty.changed`); None at the file's own level, and then absent from the payload, so
            every episode of a file's own level logs what it always did.
    """

    scenario: str
    seed: int
    world_hash: str
    bindings_hash: str
    faults_enabled: bool
    difficulty: dict[str, Any] | None = None

    @model_serializer(mode="wrap")
    def _omit_default_difficulty(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("difficulty") is None:
            data.pop("difficulty", None)
        return data


@event("runtime.FaultInjected")
class FaultInjected(Event):
    """The fault injector decided this call's observation."""

    step: int
    tool: str
    call_id: str
    fault: str
    retry_after_s: float | None = None


@event("runtime.EpisodeConfigured")
class EpisodeConfigured(Event):
    """How this episode runs its task: the fault profile it was started with (None: faults off).

    Written once per stream, right after the task's shared first events, so
    `Environment.resume` can continue the episode with the same faults.
    """

    faults: dict[str, Any] | None


@event("runtime.StepRecorded")
class StepRecorded(Event):
    """One call as the agent observed it, appended with the call's own events in one commit.

    It holds everything a resumed episode needs to continue exactly: the
    memo of explicit call ids (fingerprint and result), the sim time, and
    what the trajectory step shows.

    Attributes:
        index: The 0-based step number.
        call_id: The call's idempotency key (`auto:<step>` when generated).
        tool: The resolved tool name (or the name as called, if unknown).
        args: The arguments as the trajectory records them, as ASCII JSON text.
        fingerprint: The hash of (tool, parsed args) for explicit call ids, else "".
        ok: Whether the agent got a value.
        result: The tool's result as ASCII JSON text (also for a lost response, whose agent saw an error).
        error: The structured error the agent saw, as ASCII JSON text (`null` for none).
        fault: The injected fault, if any.
        replayed: True when the call repeated an earlier call_id's result.
        sim_time: The simulated instant after the call (UTC ISO).
    """

    index: int
    call_id: str
    tool: str
    # JSON text with \u escapes: an agent's lone surrogate must survive a store that keeps UTF-8.
    args: str = "null"
    fingerprint: str = ""
    ok: bool
    result: str = "null"
    error: str = "null"
    fault: str | None = None
    replayed: bool = False
    sim_time: str


@event("runtime.EffectCompleted")
class EffectCompleted(Event):
    """A call's effect ran (once, live) and this is its outcome; replay, resume and fork read it back.

    Appended in the call's commit, after the events its `complete` step emitted
    and before the step's `StepRecorded`.

    Attributes:
        step: The 0-based step number.
        tool: The tool that requested the effect.
        kind: The effect's kind.
        key: The content key of the request (`Effect.key`).
        status: `ok`, `failed` or `timeout`.
        outcome: The whole `EffectOutcome`, as ASCII JSON text with sorted keys.
    """

    step: int
    tool: str
    kind: str
    key: str
    status: str
    outcome: str


@event("runtime.GradeEffectCompleted")
class GradeEffectCompleted(Event):
    """A grade effect (a hidden test run) ran once, live; a regrade, resume or replay reads it back.

    Appended when `Episode.grade` first needs it, after the episode's last step record.

    Attributes:
        name: The grade effect's name (`ide.hidden_tests`).
        kind: The effect's kind.
        key: The content key of the request (`Effect.key`): a later grade of another tree misses it.
        status: `ok`, `failed` or `timeout`.
        outcome: The whole `EffectOutcome`, as ASCII JSON text with sorted keys.
    """

    name: str
    kind: str
    key: str
    status: str
    outcome: str


@event("runtime.EpisodeEnded")
class EpisodeEnded(Event):
    """The episode's owner ended it for good (an HTTP DELETE): it can no longer be resumed."""


RUNTIME_PROJECTION = Projection("runtime")


def _unchanged(state: State, ev: Event) -> State:
    """Runtime records describe the episode, not the world: folding one leaves the state as it is."""
    return state


for _record in (EpisodeStarted, EpisodeConfigured, FaultInjected, StepRecorded, EffectCompleted,
                GradeEffectCompleted, EpisodeEnded):
    RUNTIME_PROJECTION.on(_record)(_unchanged)
