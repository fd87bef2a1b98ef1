"""One step's outcome: a single value, recorded once, from which every per-step structure derives.

The live call path builds a `StepOutcome` before anything is written; the log
keeps it as a `StepRecorded` event in the same commit as the step's own
events; a resumed episode reads it back. The trajectory step, the call
memo and the agent's observation are all views of it, so they cannot drift.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from saas_sim.core.canonical import normalize
from saas_sim.core.events import Event
from saas_sim.runtime.call_result import CallError, CallResult
from saas_sim.runtime.records import StepRecorded
from saas_sim.runtime.trajectory import StepRecord

__all__ = ["StepOutcome"]


@dataclass(frozen=True, slots=True)
class StepOutcome:
    """What one call did and what its agent observed.

    Attributes:
        index: The 0-based step number.
        call_id: The call's idempotency key.
        tool: The resolved tool name (or the name as called).
        args: The arguments as recorded (`recordable_args`).
        fingerprint: The (tool, parsed args) hash for explicit call ids, else "".
        ok: Whether the agent got a value.
        result: The tool's result; kept for a lost response too (its retry returns it).
        error: The structured error the agent saw, if any.
        fault: The injected fault, if any.
        replayed: True when the call repeated an earlier call_id's result.
        sim_time: The simulated instant after the call (UTC ISO).
        events: The domain events the tool emitted.
        effect: For an effect tool, the effect's kind, request key and outcome (`effects.record_view`).
    """

    index: int
    call_id: str
    tool: str
    args: Any
    fingerprint: str
    ok: bool
    result: Any
    error: dict[str, Any] | None
    fault: str | None
    replayed: bool
    sim_time: str
    events: tuple[Event, ...] = ()
    effect: dict[str, Any] | None = None
    result_text: str = field(default="", compare=False, repr=False)

    def __post_init__(self) -> None:
        # Encoded once: the log's record keeps this text, and each observation decodes its own copy.
        if not self.result_text:
            object.__setattr__(self, "result_text", _text(self.result))

    @property
    def memo_result(self) -> Any | None:
        """The result a retry with this call_id returns, or None when the call is not retryable by id."""
        if not self.fingerprint or self.replayed or self.result is None:
            return None
        return self.result

    def to_event(self) -> StepRecorded:
        """The log's record of this step (its domain events are appended beside it)."""
        return StepRecorded(
            # The args as a written trajectory keeps them (normalized, sorted keys): replaying a file
            # re-issues that form, and its chain hash must equal the original's.
            index=self.index, call_id=self.call_id, tool=self.tool, args=_text(normalize(self.args), sort_keys=True),
            fingerprint=self.fingerprint,
            ok=self.ok, result=self.result_text, error=_text(self.error), fault=self.fault, replayed=self.replayed,
            sim_time=self.sim_time,
        )

    @classmethod
    def from_event(cls, rec: StepRecorded, events: tuple[Event, ...],
                   effect: dict[str, Any] | None = None) -> StepOutcome:
        """Reads a step back from the log."""
        return cls(
            index=rec.index, call_id=rec.call_id, tool=rec.tool, args=json.loads(rec.args),
            fingerprint=rec.fingerprint, ok=rec.ok, result=json.loads(rec.result), error=json.loads(rec.error),
            fault=rec.fault, replayed=rec.replayed,
            sim_time=rec.sim_time, events=events, effect=effect, result_text=rec.result,
        )

    def trajectory_step(self, event_refs: list[list[Any]], state_hash: str) -> StepRecord:
        """The trajectory's step. It shares this outcome's values: the episode made them and owns them,
        and the agent only ever gets copies (`observation`), so nothing it holds can rewrite them."""
        return StepRecord(
            index=self.index, call_id=self.call_id, tool=self.tool, args=self.args, ok=self.ok,
            result=self.result if self.ok else None, error=self.error, events=event_refs,
            state_hash=state_hash, sim_time=self.sim_time, fault=self.fault, replayed=self.replayed,
            effect=self.effect,
        )

    def observation(self, *, done: bool, truncated: bool) -> CallResult:
        """What the agent observes: its own copy of the value (decoded from the recorded text) or the error."""
        if self.ok:
            return CallResult.of_text(self.result_text, self.call_id, self.index, self.fault, done=done,
                                      truncated=truncated)
        error = None if self.error is None else CallError.from_dict(self.error)
        return CallResult(False, None, error, self.call_id, self.index, self.fault, done=done, truncated=truncated)


# Built once: `json.dumps` with options builds a new encoder on every call.
_ENCODERS = {
    sort_keys: json.JSONEncoder(ensure_ascii=True, sort_keys=sort_keys, allow_nan=False) for sort_keys in (False, True)
}


def _text(value: Any, *, sort_keys: bool = False) -> str:
    """JSON text that reads back to the very same value (ASCII, so lone surrogates survive)."""
    return _ENCODERS[sort_keys].encode(value)
