"""Leave cover: each task to the exact instant on the first working day after the leave, nothing else moved."""

from __future__ import annotations

import random
from datetime import date, datetime
from typing import Any

from saas_sim.core.domain import SetupContext
from saas_sim.core.ids import IdFactory
from saas_sim.core.state import State
from saas_sim.domains.crm import setups_leave
from saas_sim.domains.crm.state import PROJECTION, TASKS
from saas_sim.runtime.environment import Environment
from tests.domains.crm.conftest import EPOCH
from tests.domains.helpers import scripted_grade

REF = "crm/cover-tasks-during-leave"


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_the_leave_ends_before_a_weekend_and_tasks_keep_their_time(world: State) -> None:
    for seed in range(6):
        ctx = SetupContext(state=world, params={}, rng=random.Random(seed), now=EPOCH,
                           ids=IdFactory({"tsk": 100000}))
        setup = setups_leave.leave_cover(ctx)
        state, b = PROJECTION.fold(world, setup.events), setup.bindings
        assert date.fromisoformat(b["end"]).weekday() in (4, 5)
        back = date.fromisoformat(b["return_day"])
        assert back.weekday() == 0
        for move in b["moves"]:
            task = state.get(TASKS, move["task_id"])
            assert task is not None and task.status == "open"
            assert b["start"] <= task.due_at.date().isoformat() <= b["end"]
            assert _when(move["due_at"]).date() == back and _when(move["due_at"]).time() == task.due_at.time()
        rep_tasks = [t for t in state.table(TASKS) if t.owner_id == b["user"]["id"] and t.status == "open"
                     and b["start"] <= t.due_at.date().isoformat() <= b["end"]]
        assert sorted(t.id for t in rep_tasks) == sorted(b["moved_ids"])


def _moves(key: str) -> list[dict[str, Any]]:
    return [{"tool": "crm.reschedule_task",
             "args": {"task_id": f"{{{key}.{k}.task_id}}", "due_at": f"{{{key}.{k}.due_at}}"}} for k in range(3)]


async def test_partial_moves_earn_partial_credit_and_the_wrong_hour_none(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 2, _moves("moves")[:2])
    assert grade.score == 2 / 3
    assert (await scripted_grade(env, REF, 2, _moves("nine_am_moves"))).score == 0.0


async def test_moving_a_task_outside_the_leave_is_a_violation(env: Environment) -> None:
    edge = {"tool": "crm.reschedule_task", "args": {"task_id": "{edge_moves.0.task_id}",
                                                     "due_at": "{edge_moves.0.due_at}"}}
    grade = await scripted_grade(env, REF, 3, [*_moves("moves"), edge])
    assert "nothing_else_rescheduled" in [v.name for v in grade.violations] and grade.score == 0.0
