"""Effects: slow or impure work a tool asks the runtime to run off the event loop (ARCHITECTURE.md 7a).

Handlers stay synchronous and pure. A tool whose work is slow or impure (the
IDE runs real tests) returns an `Effect` instead of its result: a pure,
serializable request (`kind`, JSON `inputs`, a wall `timeout_s`, a simulated
`cost_s`), the blocking `run` function that does the work, and a pure
`complete` step that turns the outcome into events and the tool's result::

    @tool("notes.count_words", WRITE)
    def count_words(ctx: ToolContext, args: CountWordsArgs) -> Effect[WordCount]:
        \"\"\"Counts a note's words.\"\"\"
        return Effect("notes.word_count", {"text": note.body}, run=run_counter,
                      complete=lambda ctx, outcome: finish(ctx, note, outcome), timeout_s=10, cost_s=60)

The runtime (saas_sim/runtime/effects.py) runs `run(inputs, timeout_s)` in a
worker thread, records the `EffectOutcome` in the call's commit and then calls
`complete`. Replay, resume, rebuild and fork use the recorded outcome; they
never call `run` again. Core only describes effects; it never runs one.

A runner reports every failure an agent's input can cause (a command that
fails, a timeout) as an outcome with status `failed` or `timeout`. Any
exception it raises is a harness bug: the episode is invalid.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, JsonValue

from saas_sim.core.canonical import stable_hash

if TYPE_CHECKING:
    from saas_sim.core.tools import ToolContext

__all__ = ["Effect", "EffectOutcome", "EffectRunner", "EffectStatus"]

R = TypeVar("R", bound=BaseModel)

EffectStatus = Literal["ok", "failed", "timeout"]


class EffectOutcome(BaseModel):
    """What an effect's work produced: plain JSON, so it can be recorded, compared and replayed.

    Attributes:
        status: `ok`, `failed` (the work ran and reported failure) or `timeout`
            (the wall timeout hit; recorded, so it replays exactly).
        value: The work's output (exit code, stdout, counts...), JSON only.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: EffectStatus
    value: dict[str, JsonValue] = {}

    @classmethod
    def timeout(cls, timeout_s: float) -> EffectOutcome:
        """The outcome of work stopped at its wall timeout."""
        return cls(status="timeout", value={"timeout_s": timeout_s})


EffectRunner = Callable[[Mapping[str, Any], float], EffectOutcome]
"""Does an effect's work: `run(inputs, timeout_s)`. Blocking is fine: it runs in a worker thread."""


@dataclass(frozen=True)
class Effect(Generic[R]):
    """A tool's request for work the runtime runs off the event loop.

    Attributes:
        kind: What work this is (`notes.word_count`); recorded and shown in audits.
        inputs: The work's JSON inputs. With `kind` they are the request's identity.
        run: The blocking runner; called only when no recorded outcome exists.
        complete: Pure: turns the outcome into events (`ctx.emit`) and the tool's result.
            It may raise `ToolError`; the outcome is recorded either way.
        timeout_s: The wall-clock budget of `run`; past it the outcome is `timeout`.
        cost_s: How far the simulated clock moves for the work, beyond the tool's own
            cost, whatever the wall time was.
        wait_s: How long the runtime waits for `run` before it abandons it as a timeout (default
            `timeout_s`). A runner that keeps its own clock, and may take longer in wall time on a
            busy host (the IDE's sandbox), says how long here. Not part of the request.
    """

    kind: str
    inputs: Mapping[str, Any]
    run: EffectRunner = field(compare=False)
    complete: Callable[[ToolContext, EffectOutcome], R] = field(compare=False)
    timeout_s: float = 30.0
    cost_s: float = 60.0
    wait_s: float | None = field(default=None, compare=False)

    def request(self) -> dict[str, Any]:
        """The serializable description of the work (no code): kind, inputs, timeout and cost."""
        return {"kind": self.kind, "inputs": dict(self.inputs), "timeout_s": self.timeout_s, "cost_s": self.cost_s}

    def key(self) -> str:
        """A content key of the request: equal requests have equal keys (for caching and for replay)."""
        return stable_hash(self.request())
