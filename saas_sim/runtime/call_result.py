"""What the agent observes for one call: `CallResult`, with a typed `CallError`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from saas_sim.errors import ToolError

__all__ = ["CallError", "CallResult"]


@dataclass(frozen=True, slots=True)
class CallError:
    """The structured error an agent observes.

    Attributes:
        code: The machine-readable error code (`not_found`, `rate_limited`, ...).
        message: A human-readable explanation written for the agent.
        retryable: Whether repeating the same call may succeed.
        details: Structured context, such as field paths.
    """

    code: str
    message: str
    retryable: bool
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CallError:
        """Builds the error from its `{code, message, retryable, details}` form (a private copy)."""
        from saas_sim.runtime.recorded_args import copy_json

        return cls(str(data["code"]), str(data["message"]), bool(data["retryable"]),
                   copy_json(dict(data.get("details") or {})))

    @classmethod
    def of(cls, err: ToolError) -> CallError:
        """Builds the error from a raised `ToolError`."""
        return cls.from_dict(err.to_dict())

    def to_dict(self) -> dict[str, Any]:
        """Returns `{code, message, retryable, details}` as JSON-ready data (a copy)."""
        from saas_sim.runtime.recorded_args import copy_json

        return {"code": self.code, "message": self.message, "retryable": self.retryable,
                "details": copy_json(self.details)}


@dataclass(frozen=True, slots=True)
class CallResult:
    """What the agent observes for one call: a value or a structured error.

    Attributes:
        ok: True when `value` holds the tool's result.
        value: The result as JSON-ready data.
        error: The structured error when not ok.
        call_id: The call's idempotency key.
        step: The step number the call was recorded as.
        fault: The injected fault, if any (for analysis; agents see only `error`).
        done: Whether the episode takes no further call (closed, invalid, or out of budget).
        truncated: Whether a step or sim-time limit ended the episode.
        value_text: `value` as the JSON text the log recorded, when ok (adapters send it as it is).
    """

    ok: bool
    value: Any
    error: CallError | None
    call_id: str
    step: int
    fault: str | None = None
    done: bool = False
    truncated: bool = False
    value_text: str | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """Returns the observation as JSON-ready data."""
        if self.ok:
            return {"ok": True, "value": self.value}
        return {"ok": False, "error": None if self.error is None else self.error.to_dict()}
