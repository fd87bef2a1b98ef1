"""Checks over the hidden test run: fail-to-pass and pass-to-pass fractions.

They read the staged task (`hidden.ide.task`) and the outcome of the grade effect
`ide.hidden_tests` (a `RunReport`, run by grade_runs.py on the final tree with the
protected paths restored and the hidden tests added). A test id without a result counts as
failed, and so does a skipped one; a run the grader found tampered with, or that timed out
or hit a limit, passes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.state import TASK
from saas_sim.domains.ide.task_model import IdeTask
from saas_sim.errors import HarnessError

__all__ = ["HIDDEN_RUN", "HiddenRun", "fail_to_pass", "hidden_run", "pass_to_pass", "staged_task"]

HIDDEN_RUN = "ide.hidden_tests"
"""The name of the grade effect whose outcome these checks read."""


@dataclass(frozen=True)
class HiddenRun:
    """The part of a grading run the checks judge.

    Attributes:
        tests: Node id -> outcome, as the grader's pipe reported them.
        void: Why nothing in the run counts (timeout, limit, tamper), or "".
        results: A function task's results, one per input (`{"value": ...}` or `{"error": ...}`).
        sandbox: The isolation the grading run had (`bwrap`, or the weaker `unshare`, `rlimits`).
    """

    tests: Mapping[str, str]
    void: str
    results: list[Mapping[str, object]]
    sandbox: str = "bwrap"

    @property
    def weaker(self) -> str:
        """A note for the grade when the run had less than bubblewrap's isolation, else ""."""
        return "" if self.sandbox == "bwrap" else f" (graded in the weaker {self.sandbox} sandbox)"

    def passed(self, test_id: str) -> bool:
        """Whether the test ran and passed (missing, skipped, failed or errored are not)."""
        return not self.void and self.tests.get(test_id) == "passed"


def staged_task(ctx: CheckContext) -> IdeTask:
    """The task the setup staged.

    Raises:
        HarnessError: No task was staged (a scenario uses these checks without an IDE setup).
    """
    staged = ctx.final.value(TASK)
    if staged is None:
        raise HarnessError("no IDE task was staged; the scenario's setup must stage one")
    return IdeTask.model_validate(staged.task)


def hidden_run(ctx: CheckContext) -> HiddenRun:
    """The grading run's outcome.

    Raises:
        HarnessError: The runtime gave no `ide.hidden_tests` outcome (the grading machinery is broken).
    """
    outcome = ctx.effects.get(HIDDEN_RUN)
    if outcome is None:
        raise HarnessError(f"the grade has no {HIDDEN_RUN} outcome")
    value = outcome.value
    sandbox = str(value.get("sandbox") or "bwrap")
    if outcome.status == "timeout":
        return HiddenRun({}, "the grading run hit its wall timeout", [], sandbox)
    status = value.get("status")
    tamper = value.get("tamper") or []
    void = ""
    if status in ("timeout", "resource_limit"):
        void = f"the grading run ended with {status} ({value.get('limit') or 'wall clock'})"
    elif tamper:
        void = f"the grader found tampering: {', '.join(str(t) for t in tamper)}"  # type: ignore[union-attr]
    tests = value.get("tests") or {}
    results = value.get("results") or []
    if not isinstance(tests, dict) or not isinstance(results, list):
        raise HarnessError(f"malformed {HIDDEN_RUN} outcome")
    return HiddenRun({str(k): str(v) for k, v in tests.items()}, void,
                     [r for r in results if isinstance(r, dict)], sandbox)


def _fraction(run: HiddenRun, ids: list[str]) -> tuple[int, list[str]]:
    passed = [i for i in ids if run.passed(i)]
    return len(passed), [i for i in ids if not run.passed(i)]


def _names(ids: list[str], limit: int = 4) -> str:
    shown = ", ".join(i.rsplit("::", 1)[-1] for i in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


@kit.check
def fail_to_pass(ctx: CheckContext) -> CheckOutcome:
    """The fraction of the task's fail-to-pass tests that pass under the grader."""
    task = staged_task(ctx)
    if not task.fail_to_pass:
        raise HarnessError("the task has no fail-to-pass tests")
    run = hidden_run(ctx)
    n, failing = _fraction(run, task.fail_to_pass)
    total = len(task.fail_to_pass)
    why = f"; {run.void}" if run.void else (f"; still failing: {_names(failing)}" if failing else "")
    return CheckOutcome(n / total, f"{n} of {total} fail-to-pass tests pass{why}{run.weaker}")


@kit.check
def pass_to_pass(ctx: CheckContext, regression_cost: float = 0.25, gated: bool = True) -> CheckOutcome:
    """The fraction of pass-to-pass tests still passing, minus `regression_cost` per broken one.

    With `gated`, the credit is scaled by the fail-to-pass fraction: keeping tests green
    earns credit only as far as the task got done (an untouched tree keeps everything green).
    """
    task = staged_task(ctx)
    run = hidden_run(ctx)
    n, broken = _fraction(run, task.pass_to_pass)
    total = len(task.pass_to_pass)
    score = 1.0 if total == 0 else max(0.0, n / total - regression_cost * len(broken))
    detail = f"{n} of {total} pass-to-pass tests still pass"
    if broken:
        detail += f"; broken: {_names(broken)}"
    if run.void:
        detail += f"; {run.void}"
    if gated and task.fail_to_pass:
        done, _ = _fraction(run, task.fail_to_pass)
        factor = done / len(task.fail_to_pass)
        score *= factor
        detail += f"; scaled by the fail-to-pass fraction {factor:.2f}"
    return CheckOutcome(score, detail)
