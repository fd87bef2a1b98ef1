"""Seeded fault injection.

Each decision is a pure function of (episode seed, step, tool): the same
episode with the same calls gets the same faults in any process. Faults are
off unless a scenario or a caller passes a `FaultProfile`.

* `rate_limited`: a 429 with `retry_after_s` in sim time; the call did nothing,
  and the sim clock moves past the retry-after.
* `unavailable`: a 503; the call did nothing.
* `timeout`: the call did nothing, and the agent saw a timeout.
* `lost_response` (WRITE only): the write committed, but the agent saw a
  timeout. Retrying with the same `call_id` returns the original result and
  writes nothing.
"""

from __future__ import annotations

import hashlib
from typing import Literal

from saas_sim.core.tools import ToolKind
from saas_sim.errors import ToolError
from saas_sim.scenarios.model import FaultProfile

__all__ = ["FaultKind", "decide_fault", "fault_error"]

FaultKind = Literal["rate_limited", "unavailable", "timeout", "lost_response"]
_ORDER: tuple[FaultKind, ...] = ("rate_limited", "unavailable", "timeout", "lost_response")


def _uniform(seed: int, step: int, tool: str) -> float:
    digest = hashlib.sha256(f"fault:{seed}:{step}:{tool}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def decide_fault(
    profile: FaultProfile | None, seed: int, step: int, tool: str, kind: ToolKind
) -> FaultKind | None:
    """Returns the fault injected into this call, or None."""
    if profile is None:
        return None
    rates = profile.read if kind is ToolKind.READ else profile.write
    u = _uniform(seed, step, tool)
    edge = 0.0
    for fault in _ORDER:
        edge += getattr(rates, fault)
        if u < edge:
            return fault
    return None


def fault_error(fault: FaultKind, tool: str, retry_after_s: float) -> ToolError:
    """Returns the error an agent observes for an injected fault."""
    if fault == "rate_limited":
        return ToolError(
            "rate_limited", f"rate limit exceeded for {tool}; retry after {retry_after_s:g}s",
            details={"retry_after_s": retry_after_s},
        )
    if fault == "unavailable":
        return ToolError("unavailable", "service temporarily unavailable (503); retry the call")
    return ToolError(
        "timeout", "the request timed out; the outcome is unknown. Retry with the same call_id",
    )
