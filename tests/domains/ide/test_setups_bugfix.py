"""Bug-fix setups: every injected bug fails its fail-to-pass tests, the oracle passes them, knobs do what they say."""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.domains.ide.gen_modules import CORE_MODULES
from saas_sim.domains.ide.gen_reference import call_all, same
from saas_sim.domains.ide.generate import visible_test_path
from saas_sim.domains.ide.mutators import apply_mutations, candidate_mutations
from saas_sim.domains.ide.setups_bugfix import inject_bugs
from saas_sim.domains.ide.state import BASE
from saas_sim.domains.ide.task_model import HIDDEN_DIR, IdeTask
from saas_sim.domains.ide.workspace import base_files
from saas_sim.errors import HarnessError
from tests.domains.ide.tasks import files_of, hidden_report, staged, world

KNOBS: list[dict[str, Any]] = [
    {},
    {"bugs": 2},
    {"bugs": 3, "depth": 2},
    {"depth": 1, "report": "symptom"},
    {"modifiers": ["swap_arguments"], "visible_failing": False},
    {"modifiers": ["remove_condition"], "report": "vague"},
    {"modifiers": ["off_by_one"], "visible_failing": False, "report": "vague"},
    {"modifiers": ["change_constant", "flip_operator"], "bugs": 2, "depth": 1},
]


def _fixed(files: dict[str, str], bindings: dict[str, Any]) -> dict[str, str]:
    path = bindings["module_path"]
    text = files[path]
    assert text.count(bindings["old_region"]) == 1
    return {**files, path: text.replace(bindings["old_region"], bindings["new_region"])}




@pytest.mark.parametrize(("seed", "knobs"), list(enumerate(KNOBS)))
def test_bug_fails_its_fail_to_pass_tests_and_the_oracle_passes_all_in_the_sandbox(seed: int,
                                                                                  knobs: dict[str, Any]) -> None:
    state, setup, task = staged(inject_bugs, seed, knobs)
    files = files_of(state)
    buggy = hidden_report(task, files)
    assert task.fail_to_pass and len(task.fail_to_pass) >= 3
    assert buggy.void == ""
    assert all(buggy.tests[t] != "passed" for t in task.fail_to_pass)
    assert all(buggy.tests[t] == "passed" for t in task.pass_to_pass)
    fixed = hidden_report(task, _fixed(files, setup.bindings))
    assert fixed.void == ""
    assert set(fixed.tests) == {*task.fail_to_pass, *task.pass_to_pass}
    assert all(fixed.passed(t) for t in fixed.tests)


@pytest.mark.parametrize("seed", range(20))
def test_every_seed_stages_a_proven_bug_that_the_oracle_region_fixes(seed: int) -> None:
    knobs = KNOBS[seed % len(KNOBS)]
    state, setup, task = staged(inject_bugs, seed, knobs)
    b = setup.bindings
    files = files_of(state)
    fixed = _fixed(files, b)[b["module_path"]]
    assert fixed == b["clean_text"]
    assert len(task.details["bugs"]) == knobs.get("bugs", 1)  # type: ignore[arg-type]
    assert task.scope.allowed == [b["module_path"]]
    assert not any(p.startswith(HIDDEN_DIR) for p in files)
    assert base_files(state) == files and state.value(BASE) is not None


def test_fixing_all_but_one_of_several_bugs_still_fails_hidden_tests() -> None:
    for seed in range(10):
        state, setup, task = staged(inject_bugs, seed, {"bugs": 2})
        b = setup.bindings
        module = next(m for m in CORE_MODULES if m.path == b["module_path"])
        unit = next(u for u in module.units if u.function == b["function"])
        clean, mutant = b["clean_text"], files_of(state)[b["module_path"]]
        # Re-apply each injected bug alone to the clean text: the partial fix that leaves it in.
        sites = {m.describe(): m for m in candidate_mutations(clean, unit.chain)}
        for bug in task.details["bugs"]:  # type: ignore[union-attr]
            partial = apply_mutations(clean, [sites[str(bug)]])
            assert partial != clean and partial != mutant
            # The staged hidden inputs are the first of the unit's cases; compare on them.
            ns_inputs = _hidden_inputs(task, unit.function)
            assert ns_inputs
            got, want = call_all(partial, unit.function, ns_inputs), call_all(clean, unit.function, ns_inputs)
            assert sum(not same(g, w) for g, w in zip(got, want, strict=True)) >= 3


def _hidden_inputs(task: IdeTask, function: str) -> list[list[Any]]:
    """The arguments of the task's hidden cases of `function`, in order."""
    return [list(call.args) for case in task.hidden_cases for call in case.calls if call.function == function]


def _test_inputs(text: str, function: str) -> list[list[Any]]:
    """The arguments of `function`'s calls in a rendered test file."""
    import ast

    out: list[list[Any]] = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == function:
            out.append([ast.literal_eval(a) for a in node.args])
    return out


def test_a_wrong_fix_at_the_bug_site_does_not_pass_every_hidden_test() -> None:
    wrong_fixes = 0
    for seed in range(20):
        state, setup, task = staged(inject_bugs, seed, {"modifiers": ["flip_operator", "off_by_one"]})
        b = setup.bindings
        clean, mutant = b["clean_text"], files_of(state)[b["module_path"]]
        module = next(m for m in CORE_MODULES if m.path == b["module_path"])
        unit = next(u for u in module.units if u.function == b["function"])
        inputs = _hidden_inputs(task, unit.function)
        want = call_all(clean, unit.function, inputs)
        start = min(i for i, (x, y) in enumerate(zip(clean, mutant, strict=False)) if x != y)
        for m in candidate_mutations(mutant, unit.chain, ["flip_operator", "off_by_one"]):
            if m.start <= start < m.end + 1 and apply_mutations(mutant, [m]) != clean:
                got = call_all(apply_mutations(mutant, [m]), unit.function, inputs)
                assert any(not same(g, w) for g, w in zip(got, want, strict=True)), m.describe()
                wrong_fixes += 1
    assert wrong_fixes >= 10


def test_visible_failing_knob_decides_whether_a_visible_test_fails() -> None:
    for seed in range(6):
        for visible in (True, False):
            state, setup, task = staged(inject_bugs, seed, {"visible_failing": visible})
            test_path = setup.bindings["test_path"]
            text = files_of(state)[test_path]
            visible_ids = [t for t in task.pass_to_pass if t.startswith(test_path)]
            defined = text.count("\ndef test_")
            assert defined - len(visible_ids) == (1 if visible else 0)


def test_report_specificity_names_more_or_less() -> None:
    for seed in range(5):
        _, specific, _ = staged(inject_bugs, seed, {"report": "specific"})
        _, symptom, _ = staged(inject_bugs, seed, {"report": "symptom"})
        _, vague, _ = staged(inject_bugs, seed, {"report": "vague"})
        path, fn = specific.bindings["module_path"], specific.bindings["function"]
        assert path in specific.bindings["report"] and f"{fn}(" in specific.bindings["report"]
        assert symptom.bindings["module_path"] not in symptom.bindings["report"]
        assert f"{symptom.bindings['function']}(" in symptom.bindings["report"]
        assert "(" not in vague.bindings["report"] and vague.bindings["module_path"] not in vague.bindings["report"]


def test_the_reported_and_visible_calls_are_not_among_the_hidden_cases() -> None:
    for seed in range(10):
        state, setup, task = staged(inject_bugs, seed, {})
        fn = setup.bindings["function"]
        hidden = {repr(a) for a in _hidden_inputs(task, fn)}
        visible = _test_inputs(files_of(state)[visible_test_path(
            next(u for m in CORE_MODULES for u in m.units if u.function == fn))], fn)
        assert visible and not hidden & {repr(a) for a in visible}


def test_same_seed_same_task_and_events() -> None:
    a = staged(inject_bugs, 4, {"bugs": 2})
    b = staged(inject_bugs, 4, {"bugs": 2})
    assert a[1].events == b[1].events and a[2] == b[2]
    assert staged(inject_bugs, 5, {"bugs": 2})[2] != a[2]


def test_larger_worlds_stage_the_same_way() -> None:
    state, _, task = staged(inject_bugs, 1, {"depth": 1}, base=world(3, files=300))
    assert len(files_of(state)) >= 295 and task.fail_to_pass


def test_impossible_knobs_are_a_loud_setup_error() -> None:
    with pytest.raises(HarnessError, match="call chain deeper"):
        staged(inject_bugs, 0, {"depth": 2, "units": ["late_fee"]})


def test_a_partial_fix_fails_fail_to_pass_tests_under_the_grader() -> None:
    state, setup, task = staged(inject_bugs, 6, {"bugs": 2, "depth": 1})
    b = setup.bindings
    module = next(m for m in CORE_MODULES if m.path == b["module_path"])
    unit = next(u for u in module.units if u.function == b["function"])
    sites = {m.describe(): m for m in candidate_mutations(b["clean_text"], unit.chain)}
    bugs = [sites[str(d)] for d in task.details["bugs"]]  # type: ignore[union-attr]
    for left_in in bugs:
        partial = {**files_of(state), b["module_path"]: apply_mutations(b["clean_text"], [left_in])}
        report = hidden_report(task, partial)
        failing = [t for t in task.fail_to_pass if report.tests.get(t) != "passed"]
        assert len(failing) >= 3, left_in.describe()
