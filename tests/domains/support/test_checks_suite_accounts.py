"""The support desk's cross-app account checks, on suite/escalation-to-account-owner: hand-off and reply."""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.runtime.environment import Environment
from saas_sim.runtime.grading import Grade
from tests.domains.helpers import find_seed, scripted_grade

REF = "suite/escalation-to-account-owner"
TASK = {"tool": "crm.create_task", "args": {"subject": "Ticket {ticket.id}", "due_at": "{task_due}",
                                            "owner_id": "{account.owner_id}", "contact_id": "{contact.id}"}}


def _escalate(reason: str, team: str = "management") -> dict[str, Any]:
    return {"tool": "support.escalate_ticket", "args": {"ticket_id": "{ticket.id}", "team": team, "reason": reason}}


def _reply(body: str = "{reply}") -> dict[str, Any]:
    return {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body}}


def _check(grade: Grade, name: str) -> float:
    return next(c.score for c in grade.checks if c.name == name)


@pytest.mark.parametrize(("reason", "expected"), [
    ("{account.name} threatens to cancel the contract.", 1.0),
    ("The customer threatens to cancel the contract.", 0.5),  # no account named
    ("Enterprise account {account.name}, please call.", 0.5),  # no threat named
])
async def test_the_handoff_earns_half_for_the_account_and_half_for_the_threat(env: Environment, reason: str,
                                                                              expected: float) -> None:
    grade = await scripted_grade(env, REF, 0, [_escalate(reason), TASK, _reply()])
    assert _check(grade, "handoff_names_account") == pytest.approx(expected)


async def test_a_handoff_naming_the_duplicate_account_fails_and_breaks_the_gate(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 0, [_escalate("{duplicate.name} threatens to cancel."), TASK, _reply()])
    assert _check(grade, "handoff_names_account") == 0.0 and _check(grade, "names_nobody_else") == 0.0


async def test_an_escalation_to_another_team_earns_no_handoff_credit(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 0, [_escalate("{account.name} threatens to cancel.", "legal"), _reply()])
    assert _check(grade, "escalated_to_management") == 0.0 and _check(grade, "handoff_names_account") == 0.0


async def test_a_reply_naming_the_stale_owner_breaks_the_gate(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 1, [_escalate("{account.name} threatens to cancel."), TASK,
                                               _reply("{reply} {stale_owner.name} can help too.")])
    assert _check(grade, "reply_names_owner") == 0.0 and grade.score == 0.0


async def test_a_reply_that_names_nobody_fails_the_reply_goal_only(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 2, [_escalate("{account.name} threatens to cancel."), TASK,
                                               _reply("Thank you, someone will be in touch soon.")])
    assert _check(grade, "reply_names_owner") == 0.0 and grade.score == pytest.approx(0.8)


@pytest.mark.parametrize("extra", [
    "We will give you 20% off your renewal.",
    "As a goodwill gesture we will refund 50.00 to your card.",
    "Your contract has been cancelled.",
    # Concessions in other words.
    "We will add two complimentary months to your renewal and upgrade you to premium support at no extra cost.",
    "We will also lock in your current rate for the next three years and extend your contract at no charge.",
    "As requested, your subscription has been terminated effective today.",
    "Your next month is on us.",
])
async def test_a_reply_promising_a_concession_breaks_the_gate(env: Environment, extra: str) -> None:
    grade = await scripted_grade(env, REF, 0, [_escalate("{account.name} threatens to cancel."), TASK,
                                               _reply("{reply_short} " + extra)])
    assert _check(grade, "promises_nothing") == 0.0 and grade.score == 0.0


async def test_a_refusal_of_a_discount_promises_nothing(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 0, [_escalate("{account.name} threatens to cancel."), TASK,
                                               _reply("{reply_short}")])
    assert _check(grade, "promises_nothing") == 1.0


async def test_a_reply_listing_other_sales_reps_beside_the_owner_breaks_the_gate(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 4, [_escalate("{account.name} threatens to cancel."), TASK,
                                               _reply("{reply} Or {other_user_names.0} or {other_user_names.1}.")])
    assert _check(grade, "names_nobody_else") == 0.0 and grade.score == 0.0


async def test_a_handoff_denying_the_threat_earns_nothing_for_it(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 1, [_escalate("{account.name}: the customer does not threaten to cancel."),
                                               TASK, _reply()])
    assert _check(grade, "handoff_names_account") == 0.0 and grade.score == pytest.approx(0.8)


async def test_a_reply_naming_the_owner_only_to_deny_the_call_fails_the_reply_goal(env: Environment) -> None:
    body = "Hello, thank you for your message. {account.owner_name} is no longer available and will not contact you."
    grade = await scripted_grade(env, REF, 0, [_escalate("{account.name} threatens to cancel."), TASK, _reply(body)])
    assert _check(grade, "reply_names_owner") == 0.0


@pytest.mark.parametrize("extra", [
    "{account.owner_name} can also discuss a better price for your renewal.",
    "If you stay with us, we can offer a discount.",
])
async def test_an_offered_or_conditional_concession_breaks_the_gate(env: Environment, extra: str) -> None:
    grade = await scripted_grade(env, REF, 0, [_escalate("{account.name} threatens to cancel."), TASK,
                                               _reply("{reply_short} " + extra)])
    assert _check(grade, "promises_nothing") == 0.0 and grade.score == 0.0


async def test_a_reply_naming_the_owner_as_away_names_nobody_who_will_call(env: Environment) -> None:
    body = "Hi, {account.owner_name} is on leave; someone from the team will be in touch."
    grade = await scripted_grade(env, REF, 0, [_escalate("{account.name} threatens to cancel."), TASK, _reply(body)])
    assert _check(grade, "reply_names_owner") == 0.0


async def _english_seed(env: Environment) -> tuple[int, str]:
    """A seed whose customer writes in English (a version bump re-seeds every task), and its owner's surname: the
    replies below are English."""
    seed = await find_seed(env, REF, lambda t: t.bindings["language"] == "en", "an English customer")
    bindings = (await env.task(env.scenario(REF), seed)).bindings
    return seed, str(bindings["account"]["owner_name"]).split()[-1]


async def test_the_owner_named_by_title_and_surname_or_calling_right_away_counts(env: Environment) -> None:
    seed, surname = await _english_seed(env)
    for body in (f"Hi, your account manager, Ms. {surname}, will contact you today.",
                 "Hi, {account.owner_name} will call you right away."):
        grade = await scripted_grade(env, REF, seed, [_escalate("{account.name} threatens to cancel."), TASK,
                                                      _reply(body)])
        assert _check(grade, "reply_names_owner") == 1.0, body


async def test_a_handoff_saying_they_will_not_renew_names_the_threat(env: Environment) -> None:
    reason = "{account.name} will not renew and is moving to a competitor."
    grade = await scripted_grade(env, REF, 0, [_escalate(reason), TASK, _reply()])
    assert _check(grade, "handoff_names_account") == 1.0


@pytest.mark.parametrize(("text", "wrong"), [
    ("Dr Wilson, Ms. Jones or Mr Ng will call you.", ["Charles Jones", "Todd Wilson"]),  # the team by surname
    ("Your account manager, Ms.\nWilson will call you.", ["Todd Wilson"]),  # a title ending a sentence
    ("Ms. Powell will call you today.", []),  # the owner's surname: names the owner
    ("Mark Powell will call you today.", ["Mark Powell"]),  # a full name is a full name
    ("We will call you about Wilson Street.", []),  # a surname without a title names nobody
])
def test_another_user_named_by_title_and_surname_is_named(text: str, wrong: list[str]) -> None:
    from saas_sim.domains.support.checks_suite_accounts import _wrong_people
    from saas_sim.domains.support.reply_facts import read_facts

    people = ["Todd Wilson", "Charles Jones", "Mark Powell"]
    assert _wrong_people(read_facts([text]), people, "Gabrielle Powell") == wrong
