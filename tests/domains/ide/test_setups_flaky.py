"""Flaky setups are pure, move their cases with the seed, and always have a failing hidden test."""

from __future__ import annotations

import ast
import random
from collections.abc import Callable

import pytest

from saas_sim.domains.ide.setups_flaky import build_clock, build_order, build_random
from saas_sim.domains.ide.setups_refactor import Staged
from saas_sim.domains.ide.task_model import HIDDEN_DIR

BUILDERS: list[Callable[[random.Random], Staged]] = [build_random, build_order, build_clock]


@pytest.mark.parametrize("build", BUILDERS)
def test_the_same_seed_builds_the_same_task(build: Callable[[random.Random], Staged]) -> None:
    a, b = build(random.Random(5)), build(random.Random(5))
    assert a.files == b.files and a.task == b.task


@pytest.mark.parametrize("build", BUILDERS)
def test_every_seed_has_fail_to_pass_tests_in_the_hidden_folder(build: Callable[[random.Random], Staged]) -> None:
    hidden = set()
    for seed in range(20):
        task = build(random.Random(seed)).task
        assert task.fail_to_pass and task.family == "flaky"
        assert all(t.startswith(f"{HIDDEN_DIR}/") for t in task.fail_to_pass)
        assert task.scope.allowed == [task.details["module"]]
        for text in task.hidden_files.values():
            ast.parse(text)
            hidden.add(text)
    assert len(hidden) == 20  # the cases move with the seed


@pytest.mark.parametrize("build", BUILDERS)
def test_staged_files_parse_and_never_include_hidden_tests(build: Callable[[random.Random], Staged]) -> None:
    staged = build(random.Random(2))
    for path, text in staged.files.items():
        assert not path.startswith(HIDDEN_DIR)
        if path.endswith(".py"):
            ast.parse(text)
