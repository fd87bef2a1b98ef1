"""The blocker reply checks, on suite/deal-blocked-by-bug: how the amount shows now, and no promise."""

from __future__ import annotations

import pytest

from saas_sim.runtime.environment import Environment
from saas_sim.runtime.grading import Grade
from tests.domains.helpers import scripted_grade

REF = "suite/deal-blocked-by-bug"


def _reply(body: str) -> list[dict[str, object]]:
    return [{"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body}}]


def _check(grade: Grade, name: str) -> float:
    return next(c.score for c in grade.checks if c.name == name)


async def test_the_fixed_rendering_and_an_affirmed_fix_pass(env: Environment) -> None:
    body = "We fixed the bug: {bug.dollars} dollars now shows as {bug.correct}."
    grade = await scripted_grade(env, REF, 0, _reply(body))
    assert _check(grade, "reply_states_fix") == 1.0 and _check(grade, "no_promise") == 1.0


@pytest.mark.parametrize(("body", "score"), [
    ("Your {bug.dollars} dollars now shows as {bug.correct}.", 0.5),  # right rendering, no fix affirmed
    ("We fixed the bug: it showed {bug.shown}.", 0.0),  # the customer's own words back
    ("We have not fixed it yet, {bug.correct} is what it should show.", 0.5),
    ("We fixed the bug.", 0.0),
])
async def test_a_reply_without_the_fixed_rendering_or_fix_earns_less(env: Environment, body: str, score: float) -> None:
    grade = await scripted_grade(env, REF, 1, _reply(body))
    assert _check(grade, "reply_states_fix") == score


@pytest.mark.parametrize("tail", [
    "The release goes out by Friday.",
    "It will be live within 3 days.",
    "We will give you a 10% discount.",
    "We refunded 50.00 USD to you.",
    "Your next invoice on 2026-04-01 will be right.",
])
async def test_a_date_a_deadline_or_money_breaks_the_gate(env: Environment, tail: str) -> None:
    grade = await scripted_grade(env, REF, 2, _reply("We fixed the bug: it shows {bug.correct} now. " + tail))
    assert _check(grade, "no_promise") == 0.0 and grade.score == 0.0


async def test_a_reply_quoting_the_customers_wrong_rendering_back_promises_nothing(env: Environment) -> None:
    body = "We fixed the bug: your {bug.dollars} dollars used to show as {bug.shown} and now shows as {bug.correct}."
    grade = await scripted_grade(env, REF, 0, _reply(body))
    assert _check(grade, "no_promise") == 1.0 and _check(grade, "reply_states_fix") == 1.0


async def test_a_general_remark_about_fixing_affirms_no_fix(env: Environment) -> None:
    body = ("We are looking into whether {bug.correct} is right for your {bug.dollars} dollars. Our team fixes "
            "issues like this regularly.")
    grade = await scripted_grade(env, REF, 0, _reply(body))
    assert _check(grade, "reply_states_fix") == 0.5
