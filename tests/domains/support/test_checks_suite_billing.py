"""Grades of the support desk's cross-app billing scenarios: the right money, reply and CRM note, in every product."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from saas_sim.runtime.environment import Environment
from tests.domains.helpers import ROOT, scripted_grade

REF = "suite/late-fee-dispute"
WRONG_CHARGE = "suite/wrong-charge-fix-and-refund"
REFUND = {"tool": "support.issue_refund", "args": {"order_id": "{order.id}", "line_id": "{line.id}",
                                                   "amount": "{excess}", "reason": "other", "ticket_id": "{ticket.id}"}}
REPLY = {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": "{refund_reply}"}}
NOTE = {"tool": "crm.log_activity", "args": {"kind": "note", "contact_id": "{customer.crm_contact_id}",
                                             "subject": "Late fee: refunded {excess} USD"}}


@pytest.fixture
async def suite_env(tmp_path: Path) -> AsyncIterator[Environment]:
    """An environment whose catalog is this scenario alone (on the built-in domains and world profiles)."""
    from saas_sim.domains import builtin_domains

    (tmp_path / "suite").mkdir()
    for ref in (REF, WRONG_CHARGE):
        shutil.copy(ROOT / "scenarios" / f"{ref}.yaml", tmp_path / "suite")
    async with Environment("sqlite+aiosqlite:///:memory:", builtin=False, scenario_dirs=[tmp_path],
                           seeds_dirs=[ROOT / "seeds"], domains=dict(builtin_domains()).values()) as env:
        yield env


async def test_the_excess_refunded_stated_and_noted_scores_full(suite_env: Environment) -> None:
    grade = await scripted_grade(suite_env, REF, 2, [REFUND, REPLY, NOTE])
    assert grade.score == 1.0


async def test_a_reply_without_the_due_fee_or_the_note_earns_part(suite_env: Environment) -> None:
    bare = {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": (
        "Hi {customer.first_name}, I refunded {excess} USD of charge #{order.number}.")}}
    no_fee = await scripted_grade(suite_env, REF, 2, [REFUND, bare, NOTE])
    assert 0.8 < no_fee.score < 1.0
    assert next(c for c in no_fee.checks if c.name == "reply_states_due_fee").score == 0.0
    no_note = await scripted_grade(suite_env, REF, 2, [REFUND, REPLY])
    assert no_note.score == pytest.approx(9 / 11)  # the note weighs 2 of 11


@pytest.mark.parametrize("wrong", ["whole_fee", "namesake_note", "earlier_invoice", "code_edit", "false_reply"])
async def test_wrong_work_in_any_product_fails(suite_env: Environment, wrong: str) -> None:
    steps = {
        "whole_fee": [{**REFUND, "args": {**REFUND["args"], "amount": "{charged}"}}, REPLY, NOTE],
        "namesake_note": [REFUND, REPLY, {"tool": "crm.log_activity", "args": {
            "kind": "note", "deal_id": "{namesake.deal_id}", "subject": "Late fee: refunded {excess} USD"}}],
        "earlier_invoice": [{**REFUND, "args": {**REFUND["args"], "order_id": "{other_order.id}",
                                                "line_id": "{other_order.line_id}"}}, REPLY, NOTE],
        "code_edit": [REFUND, REPLY, NOTE, {"tool": "ide.insert_text", "args": {
            "path": "{code_fee.path}", "line": 0, "text": "# reviewed\n"}}],
        "false_reply": [REPLY, NOTE],
    }[wrong]
    grade = await scripted_grade(suite_env, REF, 4, steps)
    assert grade.score <= 0.2, (wrong, grade.violations)


async def test_reply_states_figures_pays_per_stated_figure(suite_env: Environment) -> None:
    half = {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": "The fee due was {fee} USD."}}
    grade = await scripted_grade(suite_env, REF, 1, [half])
    assert next(c for c in grade.checks if c.name == "reply_states_due_fee").score == 1.0
    assert grade.score == pytest.approx(1 / 11)  # the figure's own weight: no refund, no note


async def test_a_wrong_charge_is_fixed_refunded_and_noted_or_it_fails(suite_env: Environment) -> None:
    fix = {"tool": "ide.edit_file", "args": {"path": "{module_path}", "old_str": "{old_region}",
                                             "new_str": "{new_region}"}}
    note = {"tool": "crm.log_activity", "args": {"kind": "note", "contact_id": "{customer.crm_contact_id}",
                                                 "subject": "Overcharge refunded: {excess} USD"}}
    good = await scripted_grade(suite_env, WRONG_CHARGE, 2, [fix, REFUND, REPLY, note])
    assert good.score == 1.0
    twice = await scripted_grade(suite_env, WRONG_CHARGE, 2, [fix, REFUND, REFUND, note])
    assert twice.score == 0.0
    unfixed = await scripted_grade(suite_env, WRONG_CHARGE, 2, [REFUND, REPLY, note])
    assert unfixed.score == pytest.approx(0.5)  # the money, reply and note are half; the fix is the other


@pytest.mark.parametrize("extra", [
    "I have also waived all future late fees on your account.",
    "To make up for it, we will give you 10% off your next renewal.",
    "I have also removed late fees from your account going forward, and your next invoice is on us.",
])
async def test_a_refund_reply_that_waives_or_discounts_more_breaks_the_gate(suite_env: Environment,
                                                                            extra: str) -> None:
    reply = {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": "{refund_reply} " + extra}}
    grade = await scripted_grade(suite_env, REF, 1, [REFUND, reply, NOTE])
    assert grade.score == 0.0 and "concedes_nothing" in {v.name for v in grade.violations}


async def test_the_due_fee_stated_only_to_deny_it_is_not_stated(suite_env: Environment) -> None:
    body = ("I have refunded {excess} USD. Note: {fee} USD is not the fee that was due; the rules allowed "
            "{charged} USD.")
    reply = {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body}}
    grade = await scripted_grade(suite_env, REF, 1, [REFUND, reply, NOTE])
    assert next(c.score for c in grade.checks if c.name == "reply_states_due_fee") == 0.0
