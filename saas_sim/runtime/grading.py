"""Grades: a named vector of check scores, a capped scalar, and an attribution.

The contract (docs/grading.md): a scenario's checks are goals or constraints.

* `goal_score` is the weighted mean of the goal scores. It is never clipped
  to 0/1: partial, correct work earns partial credit in proportion.
* A constraint is a gate. Its check scores 1.0 when it held; anything less is
  a violation, listed in `violations` with its detail and cap.
* The scope guard (saas_sim/runtime/scope.py) runs as a constraint named
  `scope` when the scenario declares a guarded scope.
* `score = min(goal_score, cap of every violated constraint)`.

The attribution is exactly one of:

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

from saas_sim.core.domain import CheckContext, CheckFn, CheckOutcome, RefusedCall
from saas_sim.core.effects import EffectOutcome
from saas_sim.core.events import Event
from saas_sim.core.state import State
from saas_sim.runtime.scope import WriteStep, render_scope, scope_guard
from saas_sim.scenarios.model import SCOPE_CHECK, CheckSpec, ScenarioFile, ScopeSpec
from saas_sim.scenarios.templating import render

__all__ = [
    "Attribution", "CheckKind", "CheckScore", "Grade", "Violation", "assemble_grade", "attribute", "combine",
    "run_checks", "weighted",
]

CheckKind = Literal["goal", "constraint"]

Attribution = Literal[
    "success", "agent_failure", "step_limit", "injected_fault", "harness_error", "verifier_error"
]


class CheckScore(BaseModel):
    """One check's verdict.

    Attributes:
        name: The check's name (`scope` for the scope guard).
        kind: `goal` (weighted, partial credit) or `constraint` (a gate).
        weight: The goal's weight; ignored for constraints.
        cap: A constraint's cap on the scalar when violated; None for goals.
        score: In [0, 1]; a constraint scoring below 1.0 is violated.
        detail: What the check found, for people.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    kind: CheckKind = "goal"
    weight: float
    cap: float | None = None
    score: float
    detail: str

    @property
    def violated(self) -> bool:
        """True for a constraint that did not fully hold."""
        return self.kind == "constraint" and self.score < 1.0


class Violation(BaseModel):
    """A violated constraint, as the grade lists it.

    Attributes:
        name: The constraint's name.
        detail: What was violated, for people.
        cap: The cap it puts on the scalar.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    detail: str
    cap: float


class Grade(BaseModel):
    """The verdict on an episode.

    Attributes:
        scenario: `id@version`.
        seed: The episode seed.
        score: `min(goal_score, caps of the violations)`, in [0, 1]; None when invalid.
        goal_score: The weighted mean of the goal scores; None when invalid.
        violations: The violated constraints, in check order (the scope guard last).
        checks: Every check's score, in file order, then the scope guard.
        attribution: Why the episode ended as it did.
        valid: False for harness and verifier errors; such episodes carry no reward.
        truncated: Whether a step or sim-time limit ended the episode.
        error: The traceback of a harness or verifier error.
    """

    model_config = ConfigDict(frozen=True)

    scenario: str
    seed: int
    score: float | None
    goal_score: float | None = None
    violations: list[Violation] = []
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
    scope: ScopeSpec | None = None,
    writes: Sequence[WriteStep] = (),
    effects: Mapping[str, EffectOutcome] | None = None,
    refused: Sequence[RefusedCall] = (),
) -> tuple[list[CheckScore], str | None]:
    """Runs every check, then the scope guard when `scope` is guarded.

    Args:
        specs: The scenario's checks, goals and constraints.
        fns: The check functions by check name.
        initial: The task's initial state.
        final: The state at grading time.
        bindings: The setup's bindings (the templates' values).
        events: The events the agent's calls emitted, in order.
        now: The simulated instant at grading.
        scope: The scenario's scope; None or `unguarded` runs no guard.
        writes: The WRITE steps and their events, for the scope guard.
        effects: The outcomes of the grade effects, by name (`CheckContext.effects`).
        refused: The calls a tool refused, in order (`CheckContext.refused`).

    Returns:
        The scores, or the traceback of the first check that broke (a verifier error).
    """
    ctx = CheckContext(initial=initial, final=final, bindings=bindings, events=events, now=now,
                       effects=dict(effects or {}), refused=tuple(refused))
    scores: list[CheckScore] = []
    for spec in specs:
        try:
            params = render(spec.params, bindings)
            outcome = fns[spec.name](ctx, **params)
            score = _scored(spec.name, outcome, spec.kind, spec.weight, spec.cap if spec.kind == "constraint" else None)
        except Exception:
            return scores, f"check {spec.name!r} failed to evaluate:\n{traceback.format_exc()}"
        scores.append(score)
    if scope is not None and scope.allow is not None:
        try:
            outcome = scope_guard(render_scope(scope, bindings), initial, writes)
            scores.append(_scored(SCOPE_CHECK, outcome, "constraint", 1.0, scope.cap))
        except Exception:
            return scores, f"check {SCOPE_CHECK!r} failed to evaluate:\n{traceback.format_exc()}"
    return scores, None


def _scored(name: str, outcome: object, kind: CheckKind, weight: float, cap: float | None) -> CheckScore:
    """Validates a check's outcome into its score. A malformed outcome is the check's bug."""
    if not isinstance(outcome, CheckOutcome):
        raise TypeError(f"check {name} returned {type(outcome).__name__}, not CheckOutcome")
    if not 0.0 <= outcome.score <= 1.0:
        raise ValueError(f"check {name} scored {outcome.score}, outside [0, 1]")
    # Built here, inside the caller's try: a detail that is not text, say, must end as a verifier
    # error, not as an exception out of `grade()`.
    return CheckScore(name=name, kind=kind, weight=weight, cap=cap, score=outcome.score, detail=outcome.detail)


def weighted(scores: Sequence[CheckScore]) -> float:
    """Returns the weighted mean of check scores (0.0 for none)."""
    total = sum(s.weight for s in scores)
    return sum(s.weight * s.score for s in scores) / total if total else 0.0


def combine(scores: Sequence[CheckScore]) -> tuple[float, float, list[Violation]]:
    """Returns `(score, goal_score, violations)` for a valid episode's check scores.

    The goal score is the weighted mean of the goals; every violated constraint
    caps the scalar at its cap, so `score = min(goal_score, caps)`.
    """
    goal_score = weighted([s for s in scores if s.kind == "goal"])
    violations = [
        Violation(name=s.name, detail=s.detail, cap=s.cap if s.cap is not None else 0.0)
        for s in scores if s.violated
    ]
    return min([goal_score, *(v.cap for v in violations)]), goal_score, violations


def attribute(score: float, threshold: float, *, truncated: bool, at_limit: bool, failed_on_fault: bool) -> Attribution:
    """Names why a valid episode scored what it did: success, or the most specific cause of failure.

    Args:
        score: The scalar score.
        threshold: The scenario's success threshold.
        truncated: The episode hit its step or time budget.
        at_limit: The budget is used up now (the next call would be refused).
        failed_on_fault: The last call failed on an injected fault.
    """
    if score >= threshold - 1e-9:
        return "success"
    if truncated or at_limit:
        return "step_limit"
    if failed_on_fault:
        return "injected_fault"
    return "agent_failure"


def assemble_grade(
    spec: ScenarioFile, seed: int, scores: list[CheckScore], error: str | None, *,
    truncated: bool, at_limit: bool, failed_on_fault: bool,
) -> Grade:
    """The grade of a valid episode's check scores, or a verifier error's invalid grade (no reward)."""
    if error is not None:
        return Grade(scenario=spec.ref, seed=seed, score=None, checks=scores, attribution="verifier_error",
                     valid=False, truncated=truncated, error=error)
    score, goal_score, violations = combine(scores)
    attribution = attribute(score, spec.success_threshold, truncated=truncated, at_limit=at_limit,
                            failed_on_fault=failed_on_fault)
    return Grade(scenario=spec.ref, seed=seed, score=score, goal_score=goal_score, violations=violations,
                 checks=scores, attribution=attribution, valid=True, truncated=truncated)
