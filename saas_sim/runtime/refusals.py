"""The calls a tool refused, as the grade sees them (`CheckContext.refused`).

A refused call writes no domain event, so checks that read only the diff cannot
see it. Yet an attempt can itself break a rule: enrolling an unsubscribed
contact is a breach even when the CRM's guard stops it, and a policy that
tries every forbidden write and lets the guard filter them must not be paid
as if it had judged each one. The grade therefore gets the refused calls.

What the checks read is a pure function of the recorded steps: the tool, the
arguments in their canonical form, and the error's code and details, all of
which a resumed or replayed episode reads back unchanged. Failures caused by an
injected fault are left out: the agent did not choose them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

from saas_sim.core.canonical import normalize
from saas_sim.core.domain import RefusedCall
from saas_sim.runtime.arg_bounds import MAX_ARGS_BYTES, MAX_DEPTH, json_text_depth
from saas_sim.runtime.trajectory import StepRecord

__all__ = ["refused_calls"]


def refused_calls(steps: Iterable[StepRecord]) -> tuple[RefusedCall, ...]:
    """Returns the steps a tool refused (failed without an injected fault), in step order."""
    return tuple(
        RefusedCall(step=s.index, tool=s.tool, args=_args_object(s.args), code=str(s.error.get("code", "")),
                    details=normalize(dict(s.error.get("details") or {})))
        for s in steps
        if not s.ok and s.fault is None and s.error is not None
    )


def _args_object(raw: Any) -> Mapping[str, Any]:
    """The arguments as a JSON object in canonical form, or an empty one when they were not an object.

    Arguments sent as JSON text are parsed only within the bounds the toolkit enforces, and
    without NaN, Infinity or an overflowing float (args holding them are recorded as such text), so no recorded
    payload can break a grade.
    """
    if isinstance(raw, str):
        if len(raw) > MAX_ARGS_BYTES or json_text_depth(raw) > MAX_DEPTH:
            return {}
        try:
            raw = json.loads(raw or "{}", parse_constant=_not_a_number, parse_float=_finite)
        except ValueError:
            return {}
    if not isinstance(raw, Mapping):
        return {}
    value = normalize(raw)
    return value if isinstance(value, dict) else {}


def _not_a_number(token: str) -> Any:
    """Refuses `NaN` and `Infinity`, which no canonical form holds (the args then read as empty)."""
    raise ValueError(f"{token} is not a JSON number")


def _finite(token: str) -> float:
    """Reads a JSON float, refusing one too large to be finite (`1e999`), like `_not_a_number`."""
    value = float(token)
    if not math.isfinite(value):
        raise ValueError(f"{token} is not a finite number")
    return value
