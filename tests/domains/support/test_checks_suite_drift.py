"""The support desk's name-drift check, on suite/renamed-account-ticket-log: the reply names the current name."""

from __future__ import annotations

import pytest

from saas_sim.runtime.environment import Environment
from saas_sim.runtime.grading import Grade
from tests.domains.helpers import scripted_grade

REF = "suite/renamed-account-ticket-log"
NOTE = {"tool": "crm.log_activity", "args": {"kind": "note", "deal_id": "{deal.id}", "subject": "Ticket {ticket.id}"}}


def _reply(body: str) -> dict[str, object]:
    return {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body}}


def _check(grade: Grade, name: str) -> float:
    return next(c.score for c in grade.checks if c.name == name)


async def test_a_reply_naming_the_current_name_passes(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 0, [NOTE, _reply("Hi, noted for {account.name}.")])
    assert _check(grade, "reply_names_current_name") == 1.0 and grade.score == pytest.approx(1.0)


async def test_a_reply_with_the_old_name_only_misses_the_goal(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 1, [NOTE, _reply("Hi, noted for {account.old_name}.")])
    assert _check(grade, "reply_names_current_name") == 0.0


async def test_a_reply_naming_the_look_alike_breaks_the_gate(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 2, [NOTE, _reply("Hi, {account.name} and {look_alike.name} are noted.")])
    assert _check(grade, "names_no_look_alike") == 0.0 and grade.score == 0.0
