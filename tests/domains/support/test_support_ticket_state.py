"""The ticket's own state and the refund's records are part of the work, not just the money and the reply.

Each case is an attack that scored 1.0 before: the fix done but the ticket never solved (or set pending),
solved before the customer confirmed, a refund recorded with a false line, reason or ticket, an approval
for more than was refunded, and the kept ticket's routing changed after a merge.
"""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.runtime.environment import Environment
from tests.domains.helpers import scripted_grade, scripted_scores

DAMAGED = "support/refund-damaged-item"
SOLVE = {"tool": "support.set_ticket_status", "args": {"ticket_id": "{ticket.id}", "status": "solved"}}
PENDING = {"tool": "support.set_ticket_status", "args": {"ticket_id": "{ticket.id}", "status": "pending"}}
REPLY = {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": "{refund_reply}"}}


def _refund(**extra: Any) -> dict[str, Any]:
    args = {"order_id": "{order.id}", "line_id": "{line.id}", "amount": "{amount}", "reason": "damaged",
            "ticket_id": "{ticket.id}"}
    args.update(extra)
    return {"tool": "support.issue_refund", "args": {k: v for k, v in args.items() if v is not None}}


async def test_the_fix_solved_after_the_confirmation_scores_full(env: Environment) -> None:
    assert await scripted_scores(env, DAMAGED, [0, 1], [_refund(), REPLY, SOLVE]) == [1.0, 1.0]


@pytest.mark.parametrize("tail", [[], [PENDING]], ids=["left_open", "left_pending"])
async def test_the_fix_without_solving_earns_only_the_work_done(env: Environment, tail: list[dict[str, Any]]) -> None:
    grade = await scripted_grade(env, DAMAGED, 0, [_refund(), REPLY, *tail])
    assert grade.score == pytest.approx(9 / 12)
    failed = {c.name for c in grade.checks if c.score < 1}
    assert failed == {"solved_after_confirmation"}


@pytest.mark.parametrize("steps", [
    [SOLVE, _refund(), REPLY, SOLVE],
    [SOLVE, _refund(), REPLY],
    [_refund(), SOLVE, REPLY],
], ids=["solved_first_then_again", "solved_first_only", "solved_before_the_reply"])
async def test_solving_before_the_customer_confirms_breaks_policy_rule_1(
        env: Environment, steps: list[dict[str, Any]]) -> None:
    grade = await scripted_grade(env, DAMAGED, 0, steps)
    assert grade.score == 0.0
    assert next(c for c in grade.checks if c.name == "not_solved_early").score == 0.0


@pytest.mark.parametrize("ref", [
    "support/answer-howto-from-kb", "support/ask-for-order-number", "support/partial-refund-and-replacement",
    "support/quoted-order-not-theirs", "support/refund-damaged-item", "support/refund-duplicate-charge",
    "support/refund-foreign-language", "support/refund-price-drop", "support/refund-rest-after-earlier-fix",
    "support/refund-shipping-late-delivery", "support/refund-with-approval", "support/refund-with-lost-responses",
])
async def test_every_scenario_that_asks_to_solve_reads_the_final_status(env: Environment, ref: str) -> None:
    names = {c.name: c for c in env.scenario(ref).spec.checks}
    assert names["solved_after_confirmation"].kind != "constraint"
    assert names["not_solved_early"].kind == "constraint"


async def test_a_damage_refund_recorded_as_not_delivered_is_a_false_record(env: Environment) -> None:
    grade = await scripted_grade(env, DAMAGED, 0, [_refund(reason="not_delivered", ticket_id=None), REPLY, SOLVE])
    assert grade.score == 0.0
    assert next(c for c in grade.checks if c.name == "refunds_recorded_truly").score == 0.0
    # The ticket link is optional in the tool: an unlinked but true refund still scores.
    assert await scripted_scores(env, DAMAGED, [0], [_refund(ticket_id=None), REPLY, SOLVE]) == [1.0]


async def test_a_shipping_fee_booked_on_a_product_line_is_a_false_record(env: Environment) -> None:
    steps = [
        {"tool": "support.get_order", "args": {"order_id": "{order.id}"}, "save_as": "late"},
        {"tool": "support.issue_refund", "args": {"order_id": "{order.id}", "line_id": "{late.lines.0.id}",
                                                  "amount": "{amount}", "reason": "goodwill",
                                                  "ticket_id": "{ticket.id}"}},
        REPLY, SOLVE,
    ]
    assert await scripted_scores(env, "support/refund-shipping-late-delivery", [0, 1], steps) == [0.0, 0.0]


async def test_an_approval_for_more_than_the_refund_fails_the_approved_refund(env: Environment) -> None:
    ref = "support/refund-with-approval"
    approve = {"tool": "support.request_approval", "save_as": "approval", "args": {
        "kind": "refund", "order_id": "{order.id}", "amount": "{order.total}", "ticket_id": "{ticket.id}",
        "reason": "Damaged units of {line.name}, above the agent refund limit."}}
    grade = await scripted_grade(env, ref, 0, [approve, _refund(approval_id="{approval.id}"), REPLY, SOLVE])
    assert grade.score == 0.0
    failed = {c.name for c in grade.checks if c.score < 1}
    assert {"approved_refund_correct", "refunds_recorded_truly"} <= failed


async def test_the_kept_ticket_keeps_its_priority_and_assignee_after_a_merge(env: Environment) -> None:
    ref = "support/merge-duplicate-tickets"
    merge = {"tool": "support.merge_tickets", "args": {"target_id": "{keep.id}",
                                                       "source_ids": ["{dup1.id}", "{dup2.id}"]}}
    reply = {"tool": "support.send_reply", "args": {"ticket_id": "{keep.id}", "body": (
        "Hi {customer.first_name}, you wrote to us several times about the {line.name}, so I have merged your "
        "requests into this one ticket. Our returns team will follow up here.")}}
    assert await scripted_scores(env, ref, [0], [merge, reply]) == [1.0]
    for change in ({"tool": "support.set_ticket_priority", "args": {"ticket_id": "{keep.id}", "priority": "low"}},
                   {"tool": "support.assign_ticket", "args": {"ticket_id": "{keep.id}", "assignee_id": "agt_000008"}}):
        grade = await scripted_grade(env, ref, 0, [merge, reply, change])
        assert grade.score == 0.0, change
        assert next(c for c in grade.checks if c.name == "ticket_fields_kept").score == 0.0


async def test_the_agent_may_take_its_own_ticket(env: Environment) -> None:
    take = {"tool": "support.assign_ticket", "args": {"ticket_id": "{ticket.id}", "assignee_id": "agt_000001"}}
    assert await scripted_scores(env, DAMAGED, [0], [take, _refund(), REPLY, SOLVE]) == [1.0]


async def test_a_replacement_with_a_false_reason_is_a_false_record(env: Environment) -> None:
    ref = "support/partial-refund-and-replacement"
    refund = {"tool": "support.issue_refund", "args": {"order_id": "{order.id}", "line_id": "{missing.id}",
                                                       "amount": "{amount}", "reason": "missing_item",
                                                       "ticket_id": "{ticket.id}"}}
    reply = {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": (
        "Hi {customer.first_name}, for order #{order.number}: {broken_qty} replacement {broken.name} are on their "
        "way and {amount} {order.currency} for the {missing.name} is refunded.")}}

    def replace(**extra: Any) -> dict[str, Any]:
        args = {"order_id": "{order.id}", "line_id": "{broken.id}", "quantity": "{broken_qty}", "reason": "damaged",
                "ticket_id": "{ticket.id}", **extra}
        return {"tool": "support.create_replacement", "args": {k: v for k, v in args.items() if v is not None}}

    assert await scripted_scores(env, ref, [0], [replace(), refund, reply, SOLVE]) == [1.0]
    assert await scripted_scores(env, ref, [0], [replace(reason="wrong_item"), refund, reply, SOLVE]) == [0.0]
