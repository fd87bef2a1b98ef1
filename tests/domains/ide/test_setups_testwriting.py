"""Test-writing setups: every mutant is a real, value-changing bug the weak visible tests miss, and the
oracle's cases catch each one."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from saas_sim.domains.ide.gen_reference import Raised, call_all, same
from saas_sim.domains.ide.setups_testwriting import write_unit_tests
from saas_sim.domains.ide.task_model import IdeTask
from saas_sim.errors import HarnessError
from tests.domains.ide.tasks import files_of, staged, world


def parse_cases(text: str) -> list[tuple[list[Any], Any]]:
    """The (args, expected) cases of a file `render_tests` wrote (a raising case's expected is its error name)."""
    out: list[tuple[list[Any], Any]] = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            stmt = node.body[0]
            if isinstance(stmt, ast.With):
                call = stmt.body[0].value  # type: ignore[attr-defined]
                error = ast.unparse(stmt.items[0].context_expr.args[0])  # type: ignore[attr-defined]
                out.append(([ast.literal_eval(a) for a in call.args], Raised(error)))
            else:
                inner, expected = stmt.test.args  # type: ignore[attr-defined]
                out.append(([ast.literal_eval(a) for a in inner.args], ast.literal_eval(expected)))
    return out


def _agree(got: Any, want: Any) -> bool:
    if isinstance(got, Raised) or isinstance(want, Raised):
        return got == want
    return same(got, want)


def _differs(text: str, function: str, cases: list[tuple[list[Any], Any]]) -> bool:
    got = call_all(text, function, [a for a, _ in cases])
    return any(not _agree(g, e) for g, (_, e) in zip(got, cases, strict=True))


@pytest.mark.parametrize("seed", range(12))
def test_every_mutant_is_caught_by_the_oracle_and_missed_by_the_visible_tests(seed: int) -> None:
    state, setup, task = staged(write_unit_tests, seed, base=world(seed % 3))
    files = files_of(state)
    b = setup.bindings
    fn = b["function"]
    oracle = parse_cases(b["oracle_text"])
    visible = parse_cases(files[b["visible_test_path"]])
    clean = files[b["module_path"]]
    assert not _differs(clean, fn, oracle) and not _differs(clean, fn, visible)
    mutants = [str(m["text"]) for m in task.details["mutants"]]  # type: ignore[index, union-attr]
    assert len(mutants) == 5 and len(set(mutants)) == 5
    for mutant in mutants:
        assert _differs(mutant, fn, oracle)
        assert not _differs(mutant, fn, visible)
    for equivalent in task.details["equivalents"]:  # type: ignore[union-attr]
        assert equivalent != clean and not _differs(str(equivalent), fn, oracle)


@pytest.mark.parametrize("seed", range(6))
def test_mutants_raise_exactly_where_the_module_does_so_calling_alone_catches_none(seed: int) -> None:
    _, setup, task = staged(write_unit_tests, seed, base=world(seed % 3))
    fn = setup.bindings["function"]
    inputs = [a for a, _ in parse_cases(setup.bindings["oracle_text"])]
    clean = call_all(setup.bindings["clean_text"], fn, inputs)
    for m in task.details["mutants"]:  # type: ignore[union-attr]
        got = call_all(str(m["text"]), fn, inputs)  # type: ignore[index]
        assert [isinstance(g, Raised) for g in got] == [isinstance(c, Raised) for c in clean]


def test_only_the_new_test_file_is_in_scope_and_every_existing_test_is_protected() -> None:
    state, setup, task = staged(write_unit_tests, 4)
    path = setup.bindings["test_path"]
    assert task.family == "tests" and task.in_scope(path) and not task.is_protected(path)
    existing = [p for p in files_of(state) if p.startswith("tests/")]
    assert existing and all(task.is_protected(p) and not task.in_scope(p) for p in existing)
    assert task.is_protected("tests/conftest.py") and task.is_protected("conftest.py")
    assert not task.in_scope(setup.bindings["module_path"])


def test_knobs_set_the_mutant_count_and_depth_zero_keeps_mutants_in_the_unit_itself() -> None:
    for n in (3, 8):
        _, _, task = staged(write_unit_tests, 1, {"mutants": n, "depth": 2})
        assert len(task.details["mutants"]) == n  # type: ignore[arg-type]
    _, setup, task = staged(write_unit_tests, 1, {"mutants": 3, "depth": 0})
    bugs = [str(m["bug"]) for m in task.details["mutants"]]  # type: ignore[index, union-attr]
    assert task.details["chain"] == [setup.bindings["function"]]
    assert all(f" in {setup.bindings['function']} line " in bug for bug in bugs)


def test_a_seed_moves_the_unit_or_its_cases() -> None:
    texts = {staged(write_unit_tests, seed)[1].bindings["oracle_text"] for seed in range(6)}
    assert len(texts) == 6


def test_an_unknown_unit_is_a_harness_error() -> None:
    with pytest.raises(HarnessError):
        staged(write_unit_tests, 0, {"units": ["no_such_unit"]})


def test_the_staged_task_round_trips() -> None:
    _, _, task = staged(write_unit_tests, 2)
    assert IdeTask.model_validate(task.model_dump(mode="json")) == task


def test_the_mutant_proof_reads_a_raising_case_as_pytest_raises_does() -> None:
    from saas_sim.domains.ide.setups_testwriting import _passes

    # pytest.raises(ArithmeticError) also catches ZeroDivisionError: such a mutant survives that case.
    assert _passes(Raised("ZeroDivisionError"), Raised("ArithmeticError"))
    assert not _passes(Raised("ArithmeticError"), Raised("ZeroDivisionError"))
    assert not _passes(Raised("KeyError"), Raised("ValueError")) and not _passes(3, Raised("ValueError"))
    assert _passes(3, 3) and not _passes(3.0, 3) and not _passes(Raised("ValueError"), 3)


def test_a_mutant_that_survives_the_picked_cases_is_found() -> None:
    from saas_sim.domains.ide.setups_testwriting import _survives

    text = "def f(x):\n    if x > 9:\n        raise ZeroDivisionError\n    return x + 1\n"
    assert _survives(text, "f", [([1], 2), ([10], Raised("ArithmeticError"))])
    assert not _survives(text, "f", [([1], 2), ([2], 4)])


@pytest.mark.parametrize("seed", range(4))
def test_at_the_hard_level_every_mutant_fails_the_oracle_file(seed: int) -> None:
    from saas_sim.domains.ide.setups_testwriting import _survives

    _, setup, task = staged(write_unit_tests, seed, {"mutants": 8, "depth": 2}, base=world(seed % 3))
    fn = setup.bindings["function"]
    oracle = parse_cases(setup.bindings["oracle_text"])
    mutants = [str(m["text"]) for m in task.details["mutants"]]  # type: ignore[index, union-attr]
    assert len(mutants) == 8 and not any(_survives(m, fn, oracle) for m in mutants)
