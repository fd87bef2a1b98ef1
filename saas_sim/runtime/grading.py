"""Grades: a named vector of check scores, a weighted scalar, and an attribution.

The scalar is the weighted mean of the check scores. It is never clipped to
0/1: partial credit is the point. The attribution is exactly one of:

* `success`: the score reached the scenario's success threshold;
* `agent_failure`: the agent finished below the threshold;
* `step_limit`: the episode was truncated by its step or sim-time budget;
* `injected_fault`: the agent stopped right after an injected fault;
* `harness_error`: the harness failed during a call (the episode is invalid);
* `verifier_error`: a check failed to evaluate (the episode is invalid).

Invalid episodes carry no reward: `score` is None, never 0.
"""

from __future__ import annotations

import traceback
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from saas_sim.core.domain import CheckContext, CheckFn, CheckOutcome
from saas_sim.core.events import Event
from saas_sim.core.state import State
from saas_sim.scenarios.model import CheckSpec
from saas_sim.scenarios.templating import render

__all__ = ["Attribution", "CheckScore", "Grade", "run_checks"]

Attribution = Literal[
    "success", "agent_failure", "step_limit", "injected_fault", "harness_error", "verifier_error"
]


class CheckScore(BaseModel):
    """One check's verdict."""

    model_config = ConfigDict(frozen=True)

    name: str
    weight: float
    score: float
    detail: str


class Grade(BaseModel):
    """The verdict on an episode.

    Attributes:
        scenario: `id@version`.
        seed: The episode seed.
        score: The weighted mean of the check scores, in [0, 1]; None when invalid.
        checks: Every check's score, in file order.
        attribution: Why the episode ended as it did.
        valid: False for harness and verifier errors; such episodes carry no reward.
        truncated: Whether a step or sim-time limit ended the episode.
        error: The traceback of a harness or verifier error.
    """

    model_config = ConfigDict(frozen=True)

    scenario: str
    seed: int
    score: float | None
    checks: list[CheckScore]
    attribution: Attribution
    valid: bool
    truncated: bool
    error: str | None = None

    @property
    def vector(self) -> dict[str, float]:
        """The check scores by name."""
        return {c.name: c.score for c in self.checks}


def run_checks(
    specs: Sequence[CheckSpec],
    fns: Mapping[str, CheckFn],
    *,
    initial: State,
    final: State,
    bindings: Mapping[str, Any],
    events: Sequence[Event],
    now: datetime,
) -> tuple[list[CheckScore], str | None]:
    """Runs every check. Returns the scores, or the traceback of the first check that broke."""
    ctx = CheckContext(initial=initial, final=final, bindings=bindings, events=events, now=now)
    scores: list[CheckScore] = []
    for spec in specs:
        try:
            params = render(spec.params, bindings)
            outcome = fns[spec.name](ctx, **params)
            if not isinstance(outcome, CheckOutcome):
                raise TypeError(f"check {spec.name} returned {type(outcome).__name__}, not CheckOutcome")
            if not 0.0 <= outcome.score <= 1.0:
                raise ValueError(f"check {spec.name} scored {outcome.score}, outside [0, 1]")
            # Inside the try: a malformed outcome (a detail that is not text, say) is the check's
            # bug, so it must end as a verifier error, not as an exception out of `grade()`.
            score = CheckScore(name=spec.name, weight=spec.weight, score=outcome.score, detail=outcome.detail)
        except Exception:
            return scores, f"check {spec.name!r} failed to evaluate:\n{traceback.format_exc()}"
        scores.append(score)
    return scores, None


def weighted(scores: Sequence[CheckScore]) -> float:
    """Returns the weighted mean of check scores."""
    total = sum(s.weight for s in scores)
    return sum(s.weight * s.score for s in scores) / total if total else 0.0
