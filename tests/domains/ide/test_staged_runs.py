"""Every refactor, flaky and config task staged by D's setups truly fails first and passes with its fix.

Runs the hidden tests in the real sandbox (sandbox.run_pytest, hidden files served from memory): on the
staged tree every fail-to-pass test fails and every pass-to-pass test passes; on the oracle's tree all pass.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from saas_sim.domains.ide.sandbox import run_pytest
from saas_sim.domains.ide.setups_config import build_stale_import
from saas_sim.domains.ide.setups_flaky import build_clock, build_order, build_random
from saas_sim.domains.ide.setups_refactor import Staged, build_move, build_rename

_ROOT = {"acme/__init__.py": '"""Acme."""\n'}


def _flaky_fix(staged: Staged) -> dict[str, str]:
    b = staged.bindings
    path = str(b["module"])
    text = staged.files[path]
    k = 0
    while f"old_{k}" in b:
        text = text.replace(str(b[f"old_{k}"]), str(b[f"new_{k}"]))
        k += 1
    return {path: text}


CASES: list[tuple[str, Callable[[random.Random], Staged], Callable[[Staged], dict[str, str]]]] = [
    ("rename", build_rename, lambda s: s.oracle),
    ("move", build_move, lambda s: s.oracle),
    ("stale_import", build_stale_import, lambda s: s.oracle),
    ("random", build_random, _flaky_fix),
    ("order", build_order, _flaky_fix),
    ("clock", build_clock, _flaky_fix),
]


def _outcomes(files: dict[str, str], staged: Staged) -> dict[str, str]:
    task = staged.task
    report = run_pytest(files, selection=task.fail_to_pass + task.pass_to_pass, timeout_s=60,
                        extra_files=task.hidden_files, hidden=True)
    return dict(report.tests)


@pytest.mark.parametrize(("name", "build", "fix"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("seed", [0, 7])
def test_fail_to_pass_fails_on_the_staged_tree_and_passes_with_the_fix(
        name: str, build: Callable[[random.Random], Staged], fix: Callable[[Staged], dict[str, str]],
        seed: int) -> None:
    staged = build(random.Random(seed))
    before = _outcomes({**_ROOT, **staged.files}, staged)
    assert [t for t in staged.task.fail_to_pass if before.get(t) == "passed"] == []
    assert [t for t in staged.task.pass_to_pass if before.get(t) != "passed"] == []
    after = _outcomes({**_ROOT, **staged.files, **fix(staged)}, staged)
    assert [t for t in staged.task.fail_to_pass + staged.task.pass_to_pass if after.get(t) != "passed"] == []
