"""What the agent observes for one call: `CallResult`, with a typed `CallError`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, cast

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


_UNDECODED: Any = object()
"""`CallResult`'s value before its first read: decoded from `value_text` then."""


class CallResult:
    """What the agent observes for one call: a value or a structured error.

    Immutable, and unhashable (its value may be a dict); equal when every attribute but `value_text` is.

    Attributes:
        ok: True when `value` holds the tool's result.
        value: The result as JSON-ready data. Built from `value_text` when it is first read, so an
            adapter that sends the text as it is never decodes it.
        error: The structured error when not ok.
        call_id: The call's idempotency key.
        step: The step number the call was recorded as.
        fault: The injected fault, if any (for analysis; agents see only `error`).
        done: Whether the episode takes no further call (closed, invalid, or out of budget).
        truncated: Whether a step or sim-time limit ended the episode.
        value_text: `value` as the JSON text the log recorded, when ok (adapters send it as it is).
    """

    __slots__ = ("_value", "call_id", "done", "error", "fault", "ok", "step", "truncated", "value_text")

    _value: Any
    ok: bool
    error: CallError | None
    call_id: str
    step: int
    fault: str | None
    done: bool
    truncated: bool
    value_text: str | None

    def __init__(self, ok: bool, value: Any, error: CallError | None, call_id: str, step: int,
                 fault: str | None = None, done: bool = False, truncated: bool = False,
                 value_text: str | None = None) -> None:
        for name, item in (("ok", ok), ("_value", value), ("error", error), ("call_id", call_id), ("step", step),
                           ("fault", fault), ("done", done), ("truncated", truncated), ("value_text", value_text)):
            object.__setattr__(self, name, item)

    @classmethod
    def of_text(cls, value_text: str, call_id: str, step: int, fault: str | None = None, *, done: bool = False,
                truncated: bool = False) -> CallResult:
        """An ok result whose value is decoded from `value_text` (JSON) when first read.

        Every read of such a result's `value` gets the same object, decoded once: the result owns it.
        """
        return cls(True, _UNDECODED, None, call_id, step, fault, done, truncated, value_text)

    @property
    def value(self) -> Any:
        """The result as JSON-ready data (None when not ok)."""
        if self._value is _UNDECODED:
            object.__setattr__(self, "_value", json.loads(cast("str", self.value_text)))
        return self._value

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: a CallResult is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: a CallResult is immutable")

    def _key(self) -> tuple[Any, ...]:
        return (self.ok, self.value, self.error, self.call_id, self.step, self.fault, self.done, self.truncated)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CallResult):
            return NotImplemented
        return self._key() == other._key()

    def __repr__(self) -> str:
        return (f"CallResult(ok={self.ok!r}, value={self.value!r}, error={self.error!r}, call_id={self.call_id!r}, "
                f"step={self.step!r}, fault={self.fault!r}, done={self.done!r}, truncated={self.truncated!r})")

    def to_dict(self) -> dict[str, Any]:
        """Returns the observation as JSON-ready data."""
        if self.ok:
            return {"ok": True, "value": self.value}
        return {"ok": False, "error": None if self.error is None else self.error.to_dict()}
