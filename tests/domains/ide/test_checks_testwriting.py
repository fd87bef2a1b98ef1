"""Test-writing checks over real sandboxed runs: the oracle's tests kill every mutant; each cheap way to look
like a tester (failing, asserting nothing, ids from values, pinning text or bytecode, a pasted copy) earns
nothing or is gated."""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.core.domain import CheckContext
from saas_sim.core.effects import EffectOutcome
from saas_sim.core.state import State
from saas_sim.domains.ide.checks_testwriting import (
    VariantRuns,
    mutants_killed,
    written_tests_no_unit_copy,
    written_tests_pass,
    written_tests_plain,
)
from saas_sim.domains.ide.gen_reference import Raised, call_all, same
from saas_sim.domains.ide.grade_runs import MUTANT_RUNS, grade_effects
from saas_sim.domains.ide.hidden_tests import render_tests
from saas_sim.domains.ide.setups_testwriting import write_unit_tests
from saas_sim.domains.ide.task_model import IdeTask
from saas_sim.errors import HarnessError
from tests.domains.ide.tasks import check_ctx, edit, files_of, staged, world
from tests.domains.ide.test_setups_testwriting import parse_cases

SEED = 3


@pytest.fixture(scope="module")
def task_state() -> tuple[State, dict[str, Any], IdeTask]:
    state, setup, task = staged(write_unit_tests, SEED, base=world(1))
    return state, setup.bindings, task


def _graded(start: State, final: State) -> CheckContext:
    effect = grade_effects(final, {})[MUTANT_RUNS]
    outcome = effect.run(effect.inputs, effect.timeout_s)
    return check_ctx(start, final, {MUTANT_RUNS: outcome})


def _grade(task_state: tuple[State, dict[str, Any], IdeTask], text: str | None,
           extra: dict[str, str] | None = None) -> CheckContext:
    start, b, _ = task_state
    changes: dict[str, str | None] = dict(extra or {})
    if text is not None:
        changes[b["test_path"]] = text
    return _graded(start, edit(start, changes) if changes else start)


def test_the_oracle_kills_every_mutant_and_passes_every_constraint(task_state: Any) -> None:
    ctx = _grade(task_state, task_state[1]["oracle_text"])
    assert mutants_killed(ctx).score == 1.0
    for check in (written_tests_pass, written_tests_plain, written_tests_no_unit_copy):
        assert check(ctx).score == 1.0, check(ctx).detail


def test_the_parametrized_alternative_also_kills_every_mutant(task_state: Any) -> None:
    ctx = _grade(task_state, task_state[1]["parametrized_text"])
    assert mutants_killed(ctx).score == 1.0 and written_tests_plain(ctx).score == 1.0


def test_a_case_that_catches_some_mutants_earns_their_share(task_state: Any) -> None:
    _, b, task = task_state
    fn, module = b["function"], b["module"]
    mutants = [str(m["text"]) for m in task.details["mutants"]]
    cases = [c for c in parse_cases(b["oracle_text"]) if not isinstance(c[1], Raised)]

    def kills(case: tuple[list[Any], Any]) -> int:
        return sum(1 for m in mutants if not same(call_all(m, fn, [case[0]])[0], case[1]))

    weakest = min((c for c in cases if kills(c) > 0), key=kills)
    assert kills(weakest) < len(mutants)
    text = render_tests(module, fn, [weakest, weakest, weakest])
    outcome = mutants_killed(_grade(task_state, text))
    assert outcome.score == kills(weakest) / len(mutants)
    survivors = len(mutants) - kills(weakest)
    assert outcome.detail.count("(every test passed)") == survivors


@pytest.mark.parametrize("binding", ["assert_nothing_text", "visible_only_text", "ids_from_values_text",
                                     "other_unit_text"])
def test_tests_that_pass_but_state_no_rule_of_the_unit_kill_nothing(task_state: Any, binding: str) -> None:
    ctx = _grade(task_state, task_state[1][binding])
    assert written_tests_pass(ctx).score == 1.0
    assert mutants_killed(ctx).score == 0.0


def test_always_failing_tests_fail_the_gate_and_earn_nothing(task_state: Any) -> None:
    ctx = _grade(task_state, task_state[1]["always_failing_text"])
    assert written_tests_pass(ctx).score == 0.0
    assert mutants_killed(ctx).score == 0.0
    assert list(ctx.effects[MUTANT_RUNS].value["runs"]) == ["clean"]  # no mutant run after a failing clean run


def test_no_test_file_fails_the_gate(task_state: Any) -> None:
    ctx = _grade(task_state, None)
    assert "there is no" in written_tests_pass(ctx).detail and mutants_killed(ctx).score == 0.0


def test_too_few_tests_fail_the_gate(task_state: Any) -> None:
    b = task_state[1]
    one = render_tests(b["module"], b["function"], parse_cases(b["oracle_text"])[:1])
    assert "at least 3" in written_tests_pass(_grade(task_state, one)).detail


def test_pinning_the_source_text_fails_on_the_equivalent_rewrite(task_state: Any) -> None:
    ctx = _grade(task_state, task_state[1]["source_pin_text"])
    assert "equivalent rewrite" in written_tests_pass(ctx).detail
    assert written_tests_plain(ctx).score == 0.0


def test_a_bytecode_pin_through_dis_is_an_import_outside_the_allowed_ones(task_state: Any) -> None:
    ctx = _grade(task_state, task_state[1]["dis_pin_text"])
    assert "import of dis" in written_tests_plain(ctx).detail


def test_a_pasted_copy_of_the_unit_kills_mutants_but_is_gated(task_state: Any) -> None:
    ctx = _grade(task_state, task_state[1]["embedded_copy_text"])
    assert mutants_killed(ctx).score == 1.0
    assert written_tests_no_unit_copy(ctx).score == 0.0


def test_the_plain_pytest_api_is_allowed_and_runner_hooks_are_not(task_state: Any) -> None:
    b = task_state[1]
    plain = _grade(task_state, b["parametrized_text"] + "\n\n@pytest.fixture\ndef cents():\n    return 1\n")
    assert written_tests_plain(plain).score == 1.0
    hooked = _grade(task_state, b["oracle_text"] + "\n\ndef pytest_collection_modifyitems(items):\n    pass\n")
    assert written_tests_plain(hooked).score == 0.0


def _runs(runs: dict[str, dict[str, Any]]) -> VariantRuns:
    return VariantRuns("tests/t.py", True, ["clean", "mutant_00"], runs)


def _report(tests: dict[str, str], **extra: Any) -> dict[str, Any]:
    return {"status": "ok" if all(v == "passed" for v in tests.values()) else "failed", "complete": True,
            "tests": tests, "tamper": [], **extra}


def test_a_mutant_counts_as_killed_only_by_a_failing_test_or_an_import_error() -> None:
    ids = {"tests/t.py::test_a": "passed"}
    assert _runs({"mutant_00": _report({"tests/t.py::test_a": "failed"})}).killed("mutant_00")
    assert _runs({"mutant_00": _report({}, collect_errors={"tests/t.py": "boom"})}).killed("mutant_00")
    assert not _runs({"mutant_00": _report({"tests/t.py::test_a[251]": "passed"})}).killed("mutant_00")
    assert not _runs({"mutant_00": _report(ids)}).killed("mutant_00")
    assert not _runs({"mutant_00": {**_report({"tests/t.py::test_a": "failed"}), "status": "timeout"}}).killed(
        "mutant_00")
    assert not _runs({"mutant_00": {**_report({"tests/t.py::test_a": "failed"}), "tamper": ["x"]}}).killed(
        "mutant_00")
    assert not _runs({}).killed("mutant_00")
    assert _runs({"mutant_00": {**_report(ids), "status": "timeout"}}).unsound_why("mutant_00") == "timeout"
    assert _runs({"mutant_00": {**_report(ids), "complete": False}}).unsound_why("mutant_00") == (
        "the session did not reach its end")
    assert _runs({}).unsound_why("mutant_00") == "it did not run" and _runs({"mutant_00": _report(ids)}).sound(
        "mutant_00")


def test_a_timed_out_grading_effect_kills_nothing(task_state: Any) -> None:
    start, _, _ = task_state
    ctx = check_ctx(start, start, {MUTANT_RUNS: EffectOutcome.timeout(60.0)})
    assert written_tests_pass(ctx).score == 0.0 and mutants_killed(ctx).score == 0.0


def test_no_mutant_runs_outcome_is_a_loud_harness_error(task_state: Any) -> None:
    start, _, _ = task_state
    with pytest.raises(HarnessError):
        mutants_killed(check_ctx(start, start, {}))


def test_the_graded_run_uses_the_clean_module_whatever_the_agent_did_to_it(task_state: Any) -> None:
    start, b, _ = task_state
    broken = files_of(start)[b["module_path"]] + "\n\ndef " + b["function"] + "(*args):\n    return 0\n"
    ctx = _grade(task_state, b["oracle_text"], {b["module_path"]: broken})
    assert written_tests_pass(ctx).score == 1.0 and mutants_killed(ctx).score == 1.0


def test_noise_sources_and_uses_of_the_function_other_than_calls_are_gated(task_state: Any) -> None:
    b = task_state[1]
    assert "import of random" in written_tests_plain(_grade(task_state, b["random_fail_text"])).detail
    pinned = b["oracle_text"] + f"\n\ndef test_address():\n    assert '0x' in repr(_mod.{b['function']})\n"
    detail = written_tests_plain(_grade(task_state, pinned)).detail
    assert "the builtin repr" in detail and "used other than by calling it" in detail


def test_a_comment_above_the_module_is_an_equivalent_variant_the_tests_must_pass(task_state: Any) -> None:
    _, b, task = task_state
    equivalents = [str(e) for e in task.details["equivalents"]]
    assert len(equivalents) == 2 and equivalents[1].endswith(b["clean_text"])
    ctx = _grade(task_state, b["oracle_text"])
    assert written_tests_pass(ctx).detail.endswith("2 equivalent rewrite(s)")
