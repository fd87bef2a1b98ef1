"""The IDE policy names every default protected path and what counts."""

from __future__ import annotations

import pytest

from saas_sim.domains.ide import DOMAIN
from saas_sim.domains.ide.policy import POLICY
from saas_sim.domains.ide.task_model import PROTECTED_GLOBS


@pytest.mark.parametrize("glob", PROTECTED_GLOBS)
def test_the_policy_names_each_default_protected_path(glob: str) -> None:
    # `tests/*`, `**/conftest.py`, `*.pth`: the policy names the file or folder the glob protects.
    name = glob.replace("**/", "").replace("/**", "/").replace("/*", "/").lstrip("*")
    assert name in POLICY, f"policy.md does not name {glob} ({name})"


def test_the_policy_says_hidden_tests_decide_and_names_the_tools_it_relies_on() -> None:
    assert "hidden tests" in POLICY
    for tool in ("ide.run_tests", "ide.run_python", "ide.undo_edit", "ide.submit"):
        assert tool in POLICY
    assert DOMAIN.policy == POLICY


def test_rules_are_numbered_in_order() -> None:
    numbers = [int(line.split(".", 1)[0]) for line in POLICY.splitlines() if line[:1].isdigit()]
    assert numbers == list(range(1, len(numbers) + 1))
