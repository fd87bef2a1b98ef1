"""The IDE's grade effects: the hidden tests, run once at grade time in a separate sandbox run.

`grade_effects(final_state, bindings)` returns `{"ide.hidden_tests": Effect}` for a staged task that has
something hidden to run, else `{}`. The run sees the graded tree (`graded_files`):

1. the final tree with every protected path restored from the base: a protected base file gets its base
   text back, and a protected path the base lacks is removed (an agent's new `conftest.py`, `.pth`,
   `sitecustomize.py`, pytest configuration, test edits, or anything under the hidden folder);
2. for repo tasks, the hidden test files added, served from the worker's memory (on disk they are
   placeholders) and run with the explicit sorted selection fail_to_pass + pass_to_pass under the
   grader-owned plugin and pipe (sandbox.run_pytest): a missing result is failed, tamper fails all;
3. for function tasks, `module.function(*args)` called on the hidden inputs (sandbox.call_function),
   the values compared by the checks out of process with strict types;
4. for tasks with hidden cases (bug fixes), the cases' calls made in one sandboxed process, in an order
   drawn from the cases (secret from the agent's code; sandbox.call_functions), and the rest of the
   selection (the visible tests) under pytest as in 2; the outcome's value is `{"calls": RunReport,
   "pytest": RunReport | None}` (the calls' results back in the cases' order), and the checks compare
   them with the cases' expected values out of process, so no expected value reaches the agent's code.

The outcome's value is the `RunReport` as JSON (checks_tests.hidden_run reads it; it names the sandbox
and the profile hash). The request's key is the graded tree's hash and the selection or inputs, not the
host's sandbox, so a regrade, a resume elsewhere, a replay or a fork that reaches the same tree reuses
the recorded outcome; the sandbox's own cache adds the profile and interpreter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import JsonValue

from saas_sim.core.canonical import stable_hash
from saas_sim.core.effects import Effect, EffectOutcome
from saas_sim.core.rng import SeedTree
from saas_sim.core.state import State
from saas_sim.core.tools import ToolContext
from saas_sim.domains.ide import sandbox
from saas_sim.domains.ide.sandbox.runner import files_key
from saas_sim.domains.ide.state import TASK
from saas_sim.domains.ide.task_model import HIDDEN_DIR, IdeTask, task_of
from saas_sim.domains.ide.workspace import base_files, tree_files
from saas_sim.errors import HarnessError

__all__ = [
    "GRADE_COST_S", "GRADE_TIMEOUT_S", "HIDDEN_RUN", "MUTANT_RUNS", "MUTANT_TIMEOUT_S", "grade_effects", "graded_files",
    "hidden_effect", "mutant_variants", "report_outcome",
]

HIDDEN_RUN = "ide.hidden_tests"
"""The name of the grade effect (checks read `ctx.effects[HIDDEN_RUN]`)."""

GRADE_TIMEOUT_S = 60.0
"""The wall timeout of a grading run; past it the run is a recorded timeout that passes nothing."""

GRADE_COST_S = 0.0
"""Grading takes no simulated time: it happens after the episode."""

MUTANT_RUNS = "ide.mutant_runs"
"""The grade effect of a test-writing task: the agent's tests run on the clean module, its equivalent
rewrites and each mutant (checks_testwriting reads it)."""

MUTANT_TIMEOUT_S = 20.0
"""The wall timeout of one run of the agent's tests on one variant of the module (a few small tests need
well under a second)."""

_RUNTIME_SLACK_S = 10.0
"""The runtime's own wall budget goes beyond the sandbox's, so the sandbox's kill always comes first."""


def graded_files(final: Mapping[str, str], base: Mapping[str, str], task: IdeTask) -> dict[str, str]:
    """The tree the grader runs: `final` with every protected path restored from `base`.

    Paths under the hidden folder are protected whatever the task's globs say.
    """

    def protected(path: str) -> bool:
        return task.is_protected(path) or path == HIDDEN_DIR or path.startswith(HIDDEN_DIR + "/")

    out = {p: t for p, t in final.items() if not protected(p)}
    out.update({p: t for p, t in base.items() if protected(p)})
    return dict(sorted(out.items()))


def report_outcome(report: sandbox.RunReport) -> EffectOutcome:
    """A run report as an effect outcome (without its wall time): `timeout` stays a timeout, a limit or a
    failure is `failed`, and the report's own status says which."""
    status = {"ok": "ok", "timeout": "timeout"}.get(report.status, "failed")
    # Wall time stays out: the outcome is recorded in the log, which must be the same on every run.
    return EffectOutcome(status=status, value=report.model_dump(mode="json", exclude={"wall_ms"}))


def _no_complete(ctx: ToolContext, outcome: EffectOutcome) -> Any:
    raise HarnessError("grade effects complete nothing: their outcomes go to the checks")


def mutant_variants(task: IdeTask, base: Mapping[str, str]) -> list[tuple[str, str]]:
    """The module's variants a test-writing task's tests run on, as (name, text), in run order: `clean`
    (the base text), `equivalent_<k>`, then `mutant_<kk>`."""
    details = task.details
    equivalents = details.get("equivalents") or []
    mutants = details.get("mutants") or []
    if not isinstance(equivalents, list) or not isinstance(mutants, list):
        raise HarnessError("malformed test-writing task: equivalents and mutants must be lists")
    out = [("clean", base[str(details["module"])])]
    out += [(f"equivalent_{k}", str(text)) for k, text in enumerate(equivalents)]
    out += [(f"mutant_{k:02d}", str(m["text"])) for k, m in enumerate(mutants) if isinstance(m, dict)]
    return out


def _mutant_runs(task: IdeTask, files: dict[str, str], base: Mapping[str, str]) -> dict[str, Effect[Any]]:
    """One effect running the agent's test file on every variant of the module (graded tree otherwise).

    The runs stop after the first clean or equivalent variant that does not pass: tests that fail on
    correct code earn nothing, so their mutant runs would only cost time.
    """
    module = str(task.details["module"])
    test_path = str(task.details["test_path"])
    variants = mutant_variants(task, base)
    inputs: dict[str, Any] = {"kind": "mutants", "tree": files_key(files), "test_path": test_path,
                              "variants": stable_hash(variants)}

    def run(_: Mapping[str, Any], __: float) -> EffectOutcome:
        runs: dict[str, Any] = {}
        if test_path in files:
            for name, text in variants:
                variant = {**files, module: text}
                report = sandbox.run_pytest(variant, selection=[test_path], timeout_s=MUTANT_TIMEOUT_S)
                runs[name] = report.model_dump(mode="json", exclude={"wall_ms"})
                if not name.startswith("mutant_") and report.status != "ok":
                    break
        return EffectOutcome(status="ok", value={"test_path": test_path, "present": test_path in files,
                                                 "variants": [n for n, _ in variants], "runs": runs})

    budget = len(variants) * (MUTANT_TIMEOUT_S + _RUNTIME_SLACK_S)
    return {MUTANT_RUNS: Effect("ide.mutant_runs", inputs, run=run, complete=_no_complete, timeout_s=budget,
                                cost_s=GRADE_COST_S, wait_s=len(variants) * sandbox.wait_budget_s(MUTANT_TIMEOUT_S))}


def _case_run(task: IdeTask, files: dict[str, str], tree_key: str) -> Effect[Any]:
    """The hidden cases' calls, then the other selected tests under pytest, as one grade effect."""
    calls = [(c.module, c.function, c.args) for case in task.hidden_cases for c in case.calls]
    selection = task.pytest_selection()
    hidden = dict(sorted(task.hidden_files.items()))
    inputs: dict[str, Any] = {"kind": "cases", "tree": tree_key, "calls": stable_hash(calls), "selection": selection,
                              "hidden": files_key(hidden)}

    # The calls go in an order secret from the agent's code (drawn from the hidden cases themselves), so a
    # function that counts its calls learns nothing from where it stands ("every other call is a hostile
    # name" would pass every pair of the path-traversal task in its written order).
    order = list(range(len(calls)))
    SeedTree(stable_hash({"cases": [c.model_dump(mode="json") for c in task.hidden_cases], "tree": tree_key})
             ).random("call-order").shuffle(order)

    def run(_: Mapping[str, Any], __: float) -> EffectOutcome:
        report = sandbox.call_functions(files, calls=[calls[i] for i in order], timeout_s=GRADE_TIMEOUT_S,
                                        tree_key=tree_key)
        in_order: list[dict[str, JsonValue]] = [{}] * len(calls)
        for position, i in enumerate(order):
            in_order[i] = report.results[position] if position < len(report.results) else {"error": "no result"}
        called = report_outcome(report.model_copy(update={"results": in_order}))
        tested = None if not selection else report_outcome(sandbox.run_pytest(
            files, selection=selection, extra_files=hidden, hidden=True, timeout_s=GRADE_TIMEOUT_S,
            tree_key=tree_key))
        parts = [p for p in (called, tested) if p is not None]
        status = next((s for s in ("timeout", "failed") if any(p.status == s for p in parts)), "ok")
        return EffectOutcome(status=status, value={"calls": called.value,
                                                   "pytest": None if tested is None else tested.value})

    runs = 1 + bool(selection)
    return Effect("ide.hidden_cases", inputs, run=run, complete=_no_complete,
                  timeout_s=runs * (GRADE_TIMEOUT_S + _RUNTIME_SLACK_S), cost_s=GRADE_COST_S,
                  wait_s=runs * sandbox.wait_budget_s(GRADE_TIMEOUT_S))


def grade_effects(state: State, bindings: Mapping[str, Any]) -> dict[str, Effect[Any]]:
    """The hidden run of the staged task on the final state, or `{}` when the task has nothing hidden to run."""
    staged = state.value(TASK)
    if staged is None:
        return {}
    task = task_of(staged.task)
    files = graded_files(tree_files(state), base_files(state), task)
    if task.family == "tests":
        return _mutant_runs(task, files, base_files(state))
    effect = hidden_effect(task, files)
    return {} if effect is None else {HIDDEN_RUN: effect}


def hidden_effect(task: IdeTask, files: dict[str, str]) -> Effect[Any] | None:
    """The effect that runs `task`'s hidden tests on the graded tree `files`, or None when there are none."""
    tree_key = files_key(files)
    if task.hidden_cases:
        return _case_run(task, files, tree_key)
    if task.function is not None and task.function.inputs:
        spec = task.function
        inputs: dict[str, Any] = {"kind": "call", "tree": tree_key, "module": spec.module,
                                  "function": spec.function, "inputs_hash": stable_hash(spec.inputs)}

        def run_call(_: Mapping[str, Any], __: float) -> EffectOutcome:
            return report_outcome(sandbox.call_function(files, module=spec.module, function=spec.function,
                                                        inputs=spec.inputs, timeout_s=GRADE_TIMEOUT_S,
                                                        tree_key=tree_key))

        return Effect("ide.hidden_calls", inputs, run=run_call, complete=_no_complete,
                      timeout_s=GRADE_TIMEOUT_S + _RUNTIME_SLACK_S, cost_s=GRADE_COST_S,
                      wait_s=sandbox.wait_budget_s(GRADE_TIMEOUT_S))
    selection = sorted(set(task.fail_to_pass) | set(task.pass_to_pass))
    if not selection:
        return None
    hidden = dict(sorted(task.hidden_files.items()))
    inputs = {"kind": "pytest", "tree": tree_key, "selection": selection,
              "hidden": files_key(hidden)}

    def run_tests(_: Mapping[str, Any], __: float) -> EffectOutcome:
        return report_outcome(sandbox.run_pytest(files, selection=selection, extra_files=hidden, hidden=True,
                                                 timeout_s=GRADE_TIMEOUT_S, tree_key=tree_key))

    return Effect("ide.hidden_tests", inputs, run=run_tests, complete=_no_complete,
                  timeout_s=GRADE_TIMEOUT_S + _RUNTIME_SLACK_S, cost_s=GRADE_COST_S,
                  wait_s=sandbox.wait_budget_s(GRADE_TIMEOUT_S))
