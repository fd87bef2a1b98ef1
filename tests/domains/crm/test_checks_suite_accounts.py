"""The CRM's cross-app account checks, on suite/escalation-to-account-owner: the owner's task about the ticket."""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.runtime.environment import Environment
from saas_sim.runtime.grading import Grade
from tests.domains.helpers import scripted_grade

REF = "suite/escalation-to-account-owner"
HANDOFF = [
    {"tool": "support.escalate_ticket", "args": {"ticket_id": "{ticket.id}", "team": "management",
                                                 "reason": "{account.name} threatens to cancel."}},
    {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": "{reply}"}},
]


def _task(**args: Any) -> dict[str, Any]:
    base = {"subject": "Call about ticket {ticket.id}", "due_at": "{task_due}", "owner_id": "{account.owner_id}",
            "contact_id": "{contact.id}"}
    return {"tool": "crm.create_task", "args": {k: v for k, v in {**base, **args}.items() if v is not None}}


def _check(grade: Grade, name: str) -> float:
    return next(c.score for c in grade.checks if c.name == name)


async def test_the_owners_task_on_the_customer_about_the_ticket_in_time_scores_full(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 0, [*HANDOFF, _task()])
    assert _check(grade, "owner_task") == 1.0 and grade.score == pytest.approx(1.0)


async def test_a_task_that_does_not_name_the_ticket_earns_nothing(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 0, [*HANDOFF, _task(subject="Retention call")])
    assert _check(grade, "owner_task") == 0.0


@pytest.mark.parametrize(("args", "expected"), [
    ({"due_at": "2026-03-04T09:00:00Z"}, 0.75),  # two days later: past the 24 hours
    ({"contact_id": None}, 0.75),  # on no contact
])
async def test_a_late_or_unlinked_task_gets_partial_credit(env: Environment, args: dict[str, Any],
                                                           expected: float) -> None:
    grade = await scripted_grade(env, REF, 0, [*HANDOFF, _task(**args)])
    assert _check(grade, "owner_task") == pytest.approx(expected)
    assert grade.score is not None and grade.score < 1.0


@pytest.mark.parametrize("owner", ["{stale_owner.id}", "{duplicate.owner_id}"])
async def test_a_task_for_the_stale_or_duplicate_owner_breaks_the_gate(env: Environment, owner: str) -> None:
    grade = await scripted_grade(env, REF, 1, [*HANDOFF, _task(owner_id=owner)])
    assert _check(grade, "tasks_only_for_owner") == 0.0 and grade.score == 0.0


async def test_the_default_owner_of_a_task_on_the_contact_is_the_stale_one(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 2, [*HANDOFF, _task(owner_id=None)])
    assert _check(grade, "owner_task") == 0.0 and grade.score == 0.0


async def test_a_task_on_the_duplicate_accounts_namesake_breaks_the_gate(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 3, [*HANDOFF, _task(contact_id="{duplicate.contact_id}")])
    assert _check(grade, "tasks_only_for_owner") == 0.0
