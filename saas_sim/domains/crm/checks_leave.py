"""Checks over tasks moved for a rep's leave: each to its exact new instant, nothing else touched."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.state import TASKS

__all__ = ["only_tasks_moved", "tasks_moved"]


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@kit.check
def tasks_moved(ctx: CheckContext, moves: Sequence[Mapping[str, str]]) -> CheckOutcome:
    """Share of `moves` (`task_id`, `due_at`) whose task is open and due exactly at its new instant.

    The right day at another hour is a wrong appointment, not half of one: it scores nothing.
    """
    done: list[str] = []
    wrong: list[str] = []
    for move in moves:
        task = ctx.final.get(TASKS, move["task_id"])
        ok = task is not None and task.status == "open" and task.due_at == _instant(move["due_at"])
        (done if ok else wrong).append(move["task_id"])
    score = len(done) / len(moves) if moves else 0.0
    return CheckOutcome(score, f"moved right: {done}; not: {wrong}")


@kit.check
def only_tasks_moved(ctx: CheckContext, allowed: Sequence[str]) -> CheckOutcome:
    """No task other than `allowed` changed, none was created, and the allowed ones stay open (a constraint).

    Completing a task nobody did, or moving a task outside the leave, rewrites a
    colleague's calendar; a new task instead of the moved one leaves the old one due.
    """
    problems = [f"{i} created" for i in sorted(t.id for t in ctx.created(TASKS))]
    for task_id, before, after in ctx.changed(TASKS):
        if before is None:
            continue
        if task_id not in allowed:
            problems.append(f"{task_id} (not due during the leave) changed")
        elif after is None or after.status != "open":
            problems.append(f"{task_id} is no longer open")
    return CheckOutcome.of(not problems, "; ".join(problems[:6]) or "only the leave's tasks moved")
