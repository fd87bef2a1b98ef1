"""Checks over the hidden test run: fail-to-pass and pass-to-pass fractions.

They read the staged task (`hidden.ide.task`) and the outcome of the grade effect
`ide.hidden_tests` (a `RunReport`, run by grade_runs.py on the final tree with the
protected paths restored and the hidden tests added; for a task with hidden cases, the report of
their calls and the report of the other selected tests, the cases judged here). A test id without a
result counts as failed, and so does a skipped one; a run the grader found tampered with, or that
timed out or hit a limit, passes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.core.effects import EffectOutcome
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.sandbox import strict_equal
from saas_sim.domains.ide.state import TASK
from saas_sim.domains.ide.task_model import HiddenCall, IdeTask, task_of
from saas_sim.errors import HarnessError

__all__ = ["HIDDEN_RUN", "HiddenRun", "fail_to_pass", "hidden_run", "pass_to_pass", "read_hidden_run", "staged_task"]

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
    return task_of(staged.task)


def hidden_run(ctx: CheckContext) -> HiddenRun:
    """The grading run's outcome.

    A run of hidden cases (`{"calls": ..., "pytest": ...}`) is judged here: each case passes when every
    one of its calls gave the case's expected value (strict types) or raised its builtin exception.

    Raises:
        HarnessError: The runtime gave no `ide.hidden_tests` outcome (the grading machinery is broken).
    """
    outcome = ctx.effects.get(HIDDEN_RUN)
    if outcome is None:
        raise HarnessError(f"the grade has no {HIDDEN_RUN} outcome")
    return read_hidden_run(staged_task(ctx), outcome)


def read_hidden_run(task: IdeTask, outcome: EffectOutcome) -> HiddenRun:
    """A hidden run's outcome, read for `task` (see `hidden_run`).

    Raises:
        HarnessError: The outcome is malformed (the grading machinery is broken).
    """
    value = outcome.value
    if not isinstance(value, dict):
        raise HarnessError(f"malformed {HIDDEN_RUN} outcome")
    if "calls" not in value:
        return _report_run(value, timed_out=outcome.status == "timeout")
    called = value["calls"]
    tested = value.get("pytest")
    if not isinstance(called, dict) or not isinstance(tested, dict | None):
        raise HarnessError(f"malformed {HIDDEN_RUN} outcome")
    calls = _report_run(called, timed_out=False)
    runs = [calls] if tested is None else [calls, _report_run(tested, timed_out=False)]
    void = "the grading run hit its wall timeout" if outcome.status == "timeout" else next(
        (r.void for r in runs if r.void), "")
    tests = {**(runs[1].tests if len(runs) > 1 else {}), **_case_outcomes(task, calls.results)}
    return HiddenRun(tests, void, [], calls.sandbox)


def _report_run(value: Mapping[str, object], *, timed_out: bool) -> HiddenRun:
    """One run report (a `RunReport` as JSON) as the checks judge it."""
    sandbox = str(value.get("sandbox") or "bwrap")
    if timed_out:
        return HiddenRun({}, "the grading run hit its wall timeout", [], sandbox)
    status = value.get("status")
    tamper = value.get("tamper") or []
    void = ""
    if status in ("timeout", "resource_limit"):
        void = f"the grading run ended with {status} ({value.get('limit') or 'wall clock'})"
    elif tamper:
        void = f"the grader found tampering: {', '.join(str(t) for t in tamper)}"  # type: ignore[attr-defined]
    tests = value.get("tests") or {}
    results = value.get("results") or []
    if not isinstance(tests, dict) or not isinstance(results, list):
        raise HarnessError(f"malformed {HIDDEN_RUN} outcome")
    return HiddenRun({str(k): str(v) for k, v in tests.items()}, void,
                     [r for r in results if isinstance(r, dict)], sandbox)


def _case_outcomes(task: IdeTask, results: list[Mapping[str, object]]) -> dict[str, str]:
    """Each hidden case's outcome from its calls' results (in the cases' order): `passed` or `failed`."""
    out: dict[str, str] = {}
    k = 0
    for case in task.hidden_cases:
        good = True
        for call in case.calls:
            got = results[k] if k < len(results) else {}
            k += 1
            good = good and _call_matches(call, got)
        out[case.id] = "passed" if good else "failed"
    return out


def _call_matches(call: HiddenCall, got: Mapping[str, object]) -> bool:
    """Whether one call gave what it must: its builtin exception, or its expected value (or item) exactly."""
    if call.raises is not None:
        raised = got.get("raised")
        return "value" not in got and isinstance(raised, list) and call.raises in raised
    if "value" not in got:
        return False
    value = got["value"]
    if call.item is not None:
        fields = value.get("__dict__") if isinstance(value, dict) else None
        if not isinstance(fields, dict) or call.item not in fields:
            return False
        value = fields[call.item]
    return strict_equal(value, call.expected)  # type: ignore[arg-type]


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
