"""Scenarios with several setup steps: each sees what the earlier ones staged, through their bindings."""

from __future__ import annotations

from pathlib import Path

import pytest

from saas_sim.errors import ScenarioError
from tests.runtime.conftest import GOOD_SCENARIO, env_with_scenario
from tests.runtime.notes_domain import NOTES

TWO_STEPS = GOOD_SCENARIO.replace(
    "setup: {fn: notes.pick_note}",
    'setup: [{fn: notes.stage_note, params: {title: "Staged note"}},'
    ' {fn: notes.pick_titled, params: {title: "{staged.title}"}}]',
)


async def test_a_later_setup_step_sees_the_state_and_bindings_of_an_earlier_one(tmp_path: Path) -> None:
    assert TWO_STEPS != GOOD_SCENARIO
    async with env_with_scenario(tmp_path, TWO_STEPS) as env:
        task = await env.task("notes/archive-and-follow-up", 3)
    assert task.bindings["note"]["id"] == task.bindings["staged"]["id"]
    assert task.bindings["note"]["title"] == "Staged note"
    assert task.initial.table(NOTES).get(task.bindings["staged"]["id"]) is not None
    # EpisodeStarted, then the one staged event: nothing staged twice.
    assert len(task.start_events) == 2


async def test_steps_that_bind_one_name_twice_are_a_scenario_error(tmp_path: Path) -> None:
    one = "setup: {fn: notes.pick_note}"
    twice = GOOD_SCENARIO.replace(one, "setup: [{fn: notes.pick_note}, {fn: notes.pick_note}]")
    async with env_with_scenario(tmp_path, twice) as env:
        with pytest.raises(ScenarioError, match="rebinds"):
            await env.task("notes/archive-and-follow-up", 0)


async def test_one_step_in_a_list_is_the_same_task_as_the_step_alone(tmp_path: Path) -> None:
    listed = GOOD_SCENARIO.replace("setup: {fn: notes.pick_note}", "setup: [{fn: notes.pick_note}]")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    async with env_with_scenario(tmp_path / "a", GOOD_SCENARIO) as a, env_with_scenario(tmp_path / "b", listed) as b:
        ta, tb = await a.task("notes/archive-and-follow-up", 5), await b.task("notes/archive-and-follow-up", 5)
    assert ta.bindings == tb.bindings
    assert ta.start_head == tb.start_head


async def test_fresh_bindings_are_equal_to_the_tasks_and_share_nothing_with_them(tmp_path: Path) -> None:
    async with env_with_scenario(tmp_path, TWO_STEPS) as env:
        task = await env.task("notes/archive-and-follow-up", 3)
    first, second = task.fresh_bindings(), task.fresh_bindings()
    assert first == second == task.bindings
    first["staged"]["title"] = "changed in place by a check"
    first["added"] = 1
    assert task.bindings["staged"]["title"] == "Staged note"
    assert "added" not in task.bindings
    assert task.fresh_bindings() == second
