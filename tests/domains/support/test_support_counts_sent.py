"""A count of goods sent is read from "a new X" as from "1 X": a correct report of one replaced unit scores full."""

from __future__ import annotations

from typing import Any

from saas_sim.runtime.environment import Environment
from tests.domains.helpers import find_seeds, scripted_scores

SCENARIO = "support/partial-refund-and-replacement"


async def _broken(env: Environment, units: int, count: int) -> list[int]:
    """`count` seeds whose order has `units` broken units to replace (a version bump re-seeds every task)."""
    return await find_seeds(env, SCENARIO, lambda t: int(t.bindings["broken_qty"]) == units,
                            f"{units} broken unit(s) to replace", count=count)


def _steps(body: str) -> list[dict[str, Any]]:
    return [
        {"tool": "support.create_replacement", "args": {"order_id": "{order.id}", "line_id": "{broken.id}",
                                                       "quantity": "{broken_qty}", "reason": "damaged",
                                                       "ticket_id": "{ticket.id}"}},
        {"tool": "support.issue_refund", "args": {"order_id": "{order.id}", "line_id": "{missing.id}",
                                                 "amount": "{amount}", "reason": "missing_item",
                                                 "ticket_id": "{ticket.id}"}},
        {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body}},
        {"tool": "support.set_ticket_status", "args": {"ticket_id": "{ticket.id}", "status": "solved"}},
    ]


BODY = ("Hi {customer.first_name}, sorry about order #{order.number}. I have sent you a new {broken.name} to "
        "replace the broken one, at no cost, and I have refunded {amount} {order.currency} for the missing "
        "{missing.name}.")


async def test_a_new_unit_sent_states_a_count_of_one(env: Environment) -> None:
    one_broken = await _broken(env, 1, 2)
    assert await scripted_scores(env, SCENARIO, one_broken, _steps(BODY)) == [1.0] * len(one_broken)


async def test_a_new_unit_is_no_count_of_two(env: Environment) -> None:
    # The reply states one unit where two were sent: it loses the reply's share, and only that.
    [score] = await scripted_scores(env, SCENARIO, await _broken(env, 2, 1), _steps(BODY))
    assert 0.8 < score < 1.0
