"""The support desk's cross-app incident check, on suite/feature-truth-in-code: the figure from the code."""

from __future__ import annotations

import pytest

from saas_sim.runtime.environment import Environment
from saas_sim.runtime.grading import Grade
from tests.domains.helpers import scripted_grade

REF = "suite/feature-truth-in-code"


def _reply(body: str) -> list[dict[str, object]]:
    return [{"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body}}]


def _check(grade: Grade, name: str) -> float:
    return next(c.score for c in grade.checks if c.name == name)


@pytest.mark.parametrize("body", [
    "Your VIP target is {sla.vip_minutes} minutes.",
    "It is {sla.vip_minutes} min, not {sla.stale_minutes} minutes as the old article says.",  # negated stale
])
async def test_the_codes_figure_is_the_answer(env: Environment, body: str) -> None:
    grade = await scripted_grade(env, REF, 0, _reply(body))
    assert _check(grade, "answer_from_code") == 1.0


@pytest.mark.parametrize("body", [
    "Yes, {sla.stale_minutes} minutes is right.",
    "It is {sla.vip_minutes} minutes, or {sla.stale_minutes} minutes.",
    "It is {sla.standard_minutes} minutes.",
    "VIPs are answered faster.",
])
async def test_the_stale_the_standard_or_no_figure_fails(env: Environment, body: str) -> None:
    grade = await scripted_grade(env, REF, 1, _reply(body))
    assert _check(grade, "answer_from_code") == 0.0 and grade.score == 0.0


async def test_a_conditional_credit_promise_breaks_the_gate(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 2, _reply("{reply} If we miss it, you get 20.00 store credit."))
    assert _check(grade, "promises_nothing") == 0.0 and grade.score == 0.0


@pytest.mark.parametrize("body", [
    "It is {sla.vip_minutes} minutes, or {sla.standard_minutes} minutes at busy times.",
    "Within {sla.vip_minutes} minutes, sometimes 2 hours.",
])
async def test_a_second_target_beside_the_codes_figure_is_a_hedge_that_fails(env: Environment, body: str) -> None:
    grade = await scripted_grade(env, REF, 3, _reply(body))
    assert _check(grade, "answer_from_code") == 0.0 and grade.score == 0.0


async def test_the_codes_figure_alone_still_passes_where_a_hedge_fails(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 3, _reply("A VIP ticket is first answered in {sla.vip_minutes} minutes."))
    assert grade.score == 1.0


@pytest.mark.parametrize("body", [
    "The help centre says {sla.stale_minutes} minutes, but that article is outdated. Our target for your urgent "
    "tickets is {sla.vip_minutes} minutes.",
    "Urgent tickets normally get {sla.standard_minutes} minutes; as a VIP you get a faster target: "
    "{sla.vip_minutes} minutes.",
    "Your VIP first-response target is {sla.vip_hours} hours, that is {sla.vip_minutes} minutes.",
])
async def test_a_reported_or_standard_figure_beside_the_answer_passes(env: Environment, body: str) -> None:
    grade = await scripted_grade(env, REF, 0, _reply(body))
    assert _check(grade, "answer_from_code") == 1.0


@pytest.mark.parametrize("body", [
    "I have forwarded your question (internal reference {sla.vip_minutes}) to our team.",
    "Your target is {sla.vip_minutes} minutes, though it may take up to an hour at busy times.",
    "Your target is {sla.vip_minutes} minutes; the old article's {sla.stale_minutes} minutes still applies at "
    "busy times.",
    "It is {sla.vip_minutes} minutes, or {sla.stale_minutes} minutes per the help centre.",  # a source is no disclaimer
])
async def test_the_figure_as_no_target_or_with_a_hedge_fails(env: Environment, body: str) -> None:
    grade = await scripted_grade(env, REF, 0, _reply(body))
    assert _check(grade, "answer_from_code") == 0.0


@pytest.mark.parametrize("body", [
    "It is {sla.vip_minutes} minutes, or a {sla.stale_minutes}-minute target per the help centre.",
    "It is {sla.vip_minutes} minutes, or 90 seconds at busy times.",
    "It is {sla.vip_minutes} minutes, or up to seven hours at busy times.",
    "It is {sla.vip_minutes} minutes, or twenty-five minutes at busy times.",
    "Es sind {sla.vip_minutes} Minuten, oder sieben Stunden zu Stoßzeiten.",
])
async def test_a_hedge_in_any_unit_or_number_word_fails(env: Environment, body: str) -> None:
    grade = await scripted_grade(env, REF, 1, _reply(body))
    assert _check(grade, "answer_from_code") == 0.0 and grade.score == 0.0


@pytest.mark.parametrize("body", [
    "A VIP ticket is first answered in {sla.vip_minutes} minutes. A second reply follows when there is news.",
    "Your {sla.vip_minutes}-minute target is the VIP one.",
])
async def test_an_ordinal_or_a_hyphenated_answer_is_read_right(env: Environment, body: str) -> None:
    grade = await scripted_grade(env, REF, 1, _reply(body))
    assert _check(grade, "answer_from_code") == 1.0
