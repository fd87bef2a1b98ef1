"""The name-drift checks, on suite/renamed-account-ticket-log: the ticket logged on the renamed account and its deal."""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.runtime.environment import Environment
from saas_sim.runtime.grading import Grade
from tests.domains.helpers import scripted_grade

REF = "suite/renamed-account-ticket-log"
REPLY = {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": "{reply}"}}


def _note(**link: str) -> dict[str, Any]:
    return {"tool": "crm.log_activity", "args": {"kind": "note", "subject": "Ticket {ticket.id}", **link}}


def _check(grade: Grade, name: str) -> float:
    return next(c.score for c in grade.checks if c.name == name)


async def test_notes_on_the_account_and_its_deal_and_the_reply_score_full(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 0, [_note(contact_id="{contact.id}"), _note(deal_id="{deal.id}"), REPLY])
    assert grade.score == pytest.approx(1.0)


async def test_a_note_on_the_contact_only_misses_the_deal(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 1, [_note(contact_id="{contact.id}"), REPLY])
    assert _check(grade, "logged_on_account") == 1.0 and _check(grade, "logged_on_open_deal") == 0.0


async def test_a_note_that_does_not_name_the_ticket_counts_for_nothing(env: Environment) -> None:
    note = {"tool": "crm.log_activity", "args": {"kind": "note", "deal_id": "{deal.id}", "subject": "Customer request"}}
    grade = await scripted_grade(env, REF, 2, [note, REPLY])
    assert _check(grade, "logged_on_account") == 0.0 and _check(grade, "logged_on_open_deal") == 0.0


async def test_a_note_on_the_look_alike_breaks_the_gate(env: Environment) -> None:
    steps = [_note(deal_id="{deal.id}"), _note(deal_id="{look_alike.deal_id}"), REPLY]
    grade = await scripted_grade(env, REF, 3, steps)
    assert _check(grade, "notes_only_on_the_account") == 0.0 and grade.score == 0.0


async def test_renaming_the_account_back_breaks_the_gate(env: Environment) -> None:
    rename = {"tool": "crm.update_account", "args": {"account_id": "{account.id}", "name": "{account.old_name}"}}
    grade = await scripted_grade(env, REF, 4, [_note(deal_id="{deal.id}"), rename, REPLY])
    assert _check(grade, "account_keeps_name") == 0.0 and grade.score == 0.0
