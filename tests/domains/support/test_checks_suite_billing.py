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
DOWNGRADE = "suite/seat-downgrade-prorated-refund"
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
    for ref in (REF, WRONG_CHARGE, DOWNGRADE):
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


RULE = ("Hello {customer.first_name}, our billing rules charge {code_fee.rate_bp} basis points of the overdue balance "
        "for each started 30-day period after a {code_fee.grace_days}-day grace period, up to a maximum of "
        "{code_fee.cap} USD. Your invoice {invoice} ({code_fee.balance} USD, {code_fee.days_late} days late) had a "
        "late fee of {fee} USD, {code_fee.period_fee} USD for each of {code_fee.periods} periods, but we charged "
        "{charged} USD on #{order.number}. I have refunded the difference of {excess} USD.")


@pytest.mark.parametrize("seed", [0, 1])
async def test_the_codes_cap_and_period_fee_stated_are_true_figures(suite_env: Environment, seed: int) -> None:
    reply = {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": RULE}}
    note = {"tool": "crm.log_activity", "args": {"kind": "note", "contact_id": "{customer.crm_contact_id}",
                                                 "subject": "Late fee", "body": "Fee capped at {code_fee.cap} USD; "
                                                 "due {fee} USD, refunded {excess} USD."}}
    grade = await scripted_grade(suite_env, REF, seed, [REFUND, reply, note])
    assert grade.score == 1.0, grade.violations


@pytest.mark.parametrize("said", [
    "I have refunded {code_fee.cap} USD on #{order.number}.",  # a true cap is no refund
    "The rules cap the fee at {code_fee.cap} USD, and a second cap of 1.37 USD applies.",  # a figure of no rule
])
async def test_a_true_figure_as_the_refund_or_a_figure_of_no_rule_is_still_false(suite_env: Environment,
                                                                                  said: str) -> None:
    reply = {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": (
        "Hi {customer.first_name}, the late fee for invoice {invoice} was {fee} USD. " + said)}}
    grade = await scripted_grade(suite_env, REF, 1, [REFUND, reply, NOTE])
    assert grade.score == 0.0 and "replies_truthful" in {v.name for v in grade.violations}


@pytest.mark.parametrize("seed", [1, 2])
async def test_the_price_lists_per_seat_prices_stated_are_true_figures(suite_env: Environment, seed: int) -> None:
    approval = {"tool": "support.request_approval", "args": {
        "kind": "refund", "order_id": "{order.id}", "amount": "{proration.refund}", "ticket_id": "{ticket.id}",
        "reason": "Prorated seat-downgrade refund above agent limit."}, "save_as": "approval"}
    refund = {"tool": "support.issue_refund", "args": {
        "order_id": "{order.id}", "line_id": "{line.id}", "amount": "{proration.refund}", "reason": "other",
        "ticket_id": "{ticket.id}", "approval_id": "{approval.id}"}}
    body = ("Hi {customer.first_name}, your plan has {proration.remaining} whole month(s) left. At "
            "{proration.old_seats} seats our price list charges {proration.old_seat_price} USD per seat per month, "
            "so those months cost {proration.old_left} USD; at {proration.new_seats} seats it is "
            "{proration.new_seat_price} USD per seat per month, so {proration.new_left} USD. I have refunded the "
            "difference of {proration.refund} USD on #{order.number}.")
    reply = {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body}}
    deal = {"tool": "crm.update_deal", "args": {
        "deal_id": "{deal.id}", "amount": "{proration.new_value}",
        "next_step": "{proration.new_seats} seats at {proration.new_seat_price} USD: {proration.new_value} USD"}}
    grade = await scripted_grade(suite_env, DOWNGRADE, seed, [approval, refund, reply, deal])
    assert grade.score == 1.0, grade.violations
