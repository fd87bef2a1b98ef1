"""Refactor setups are pure functions of the rng and move names, sites and values with the seed."""

from __future__ import annotations

import ast
import random

from saas_sim.domains.ide.setups_refactor import build_move, build_rename
from saas_sim.domains.ide.task_model import HIDDEN_DIR


def test_the_same_seed_builds_the_same_task() -> None:
    a, b = build_rename(random.Random(7)), build_rename(random.Random(7))
    assert a.files == b.files and a.task == b.task and a.bindings == b.bindings


def test_seeds_move_the_names_and_the_call_sites() -> None:
    tasks = [build_rename(random.Random(s)) for s in range(20)]
    assert len({(t.bindings["old_name"], t.bindings["new_name"]) for t in tasks}) >= 8
    assert len({tuple(t.bindings["allowed_paths"]) for t in tasks}) >= 8


def test_every_staged_file_parses_and_hidden_tests_stay_hidden() -> None:
    for build in (build_rename, build_move):
        staged = build(random.Random(3))
        for path, text in staged.files.items():
            assert not path.startswith(HIDDEN_DIR)
            if path.endswith(".py"):
                ast.parse(text)
        for path, text in staged.task.hidden_files.items():
            assert path.startswith(f"{HIDDEN_DIR}/")
            ast.parse(text)


def test_test_ids_are_sorted_and_name_the_hidden_file() -> None:
    task = build_move(random.Random(11)).task
    assert task.fail_to_pass == sorted(task.fail_to_pass) and task.pass_to_pass == sorted(task.pass_to_pass)
    assert all(t.startswith(f"{HIDDEN_DIR}/") for t in task.fail_to_pass + task.pass_to_pass)
    assert task.scope.allowed == sorted(task.scope.allowed)


def test_the_oracle_edits_are_bound_in_path_order_and_fit_the_scope() -> None:
    staged = build_rename(random.Random(9), callers=3)
    paths = [staged.bindings[f"edit_{k}_path"] for k in range(4)]
    assert paths == sorted(paths) and "edit_4_path" not in staged.bindings
    assert all(staged.task.in_scope(p) for p in staged.oracle)
    assert 0 < staged.task.scope.oracle_diff_lines < staged.task.scope.max_diff_lines()
