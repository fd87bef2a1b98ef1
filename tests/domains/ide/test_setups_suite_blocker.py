"""The blocker setup stages a format_cents() bug and binds an amount the buggy code shows wrong."""

from __future__ import annotations

import pytest

from saas_sim.core.state import State
from saas_sim.domains.ide.gen_reference import load_namespace
from saas_sim.domains.ide.setups_suite_blocker import MONEY_PATH, money_display_bug
from saas_sim.domains.ide.state import PROJECTION
from saas_sim.domains.ide.workspace import tree_files
from saas_sim.errors import ScenarioError
from tests.domains.ide.tasks import world
from tests.domains.suite_world import run_setup


@pytest.fixture(scope="module")
def state() -> State:
    return world(3)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_bound_amount_shows_wrong_on_the_mutant_and_right_on_the_clean_module(state: State, seed: int) -> None:
    out = run_setup(money_display_bug, state, seed, {})
    bug = out.bindings["bug"]
    clean = load_namespace(tree_files(state)[MONEY_PATH])
    mutant = load_namespace(tree_files(PROJECTION.fold(state, out.events))[MONEY_PATH])
    assert clean["format_cents"](bug["cents"]) == bug["correct"]
    assert mutant["format_cents"](bug["cents"]) == bug["shown"] != bug["correct"]
    assert bug["dollars"] == f"{bug['cents'] // 100}.{bug['cents'] % 100:02d}"
    assert out.bindings["module_path"] == MONEY_PATH and out.bindings["function"] == "format_cents"


def test_seeds_draw_different_amounts(state: State) -> None:
    amounts = {run_setup(money_display_bug, state, seed, {}).bindings["bug"]["cents"] for seed in range(4)}
    assert len(amounts) > 1


def test_a_world_without_the_money_module_is_a_scenario_error() -> None:
    with pytest.raises(ScenarioError, match=r"acme/utils/money\.py"):
        run_setup(money_display_bug, State(), 0, {})
