"""In a refund claim, only the amount the refund takes is claimed as refunded.

"I refunded 49.90 USD of the 149.70 USD you paid" was read as a claim that 149.70 was refunded, and such
replies scored 0. The other amounts are stated facts the truth checks judge as prices or totals.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from saas_sim.domains.support.reply_facts import read_facts
from saas_sim.domains.support.side_amounts import without_side_amounts
from saas_sim.runtime.environment import Environment
from tests.domains.helpers import scripted_scores

DAMAGED = "support/refund-damaged-item"
SOLVE = {"tool": "support.set_ticket_status", "args": {"ticket_id": "{ticket.id}", "status": "solved"}}
REFUND = {"tool": "support.issue_refund", "args": {"order_id": "{order.id}", "line_id": "{line.id}",
                                                   "amount": "{amount}", "reason": "damaged"}}


def _reply(body: str) -> dict[str, Any]:
    return {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body}}


@pytest.mark.parametrize(("text", "claimed"), [
    ("I refunded 49.90 USD of the 149.70 USD you paid for that line.", ["49.90"]),
    ("I've refunded 45.00 USD for the damaged unit; the rest of your 1242.99 USD order is unaffected.", ["45.00"]),
    ("I refunded 5.03 USD out of the 25.15 USD we charged.", ["5.03"]),
    ("The lamp dropped from 79.99 to 62.99 USD, so I refunded 17.00 x 2 = 34.00 USD.", ["34.00"]),
    ("I refunded (79.99 - 62.99) x 2 = 34.00 USD.", ["34.00"]),
    ("I refunded 34.00 USD, the difference between the 79.99 USD you paid and 62.99 USD, for 2 units.", ["34.00"]),
    ("Ich habe Ihnen 25,00 € von den 75,00 € erstattet.", ["25.00"]),
    ("I refunded the 149.70 USD you paid.", ["149.70"]),
    ("A refund of 89.00 USD has been approved.", ["89.00"]),
    ("I refunded 149.70 USD of the 49.90 USD you paid.", ["149.70"]),
])
def test_only_the_amount_the_refund_takes_is_claimed(text: str, claimed: list[str]) -> None:
    assert read_facts([text]).claimed_amounts() == [Decimal(a) for a in claimed]


def test_a_count_is_never_read_as_the_whole() -> None:
    assert without_side_amounts("i refunded 17.00 on 2 of the 3 lamps") == "i refunded 17.00 on 2 of the 3 lamps"


async def test_a_refund_stated_as_part_of_the_line_total_passes(env: Environment) -> None:
    body = ("Hi {customer.first_name}, sorry about the damaged {line.name}! I refunded {amount} {order.currency} of "
            "the {line.total} {order.currency} you paid for that line on order #{order.number}.")
    assert min(await scripted_scores(env, DAMAGED, (0, 1), [REFUND, _reply(body), SOLVE])) == 1.0


async def test_a_refund_beside_the_rest_of_the_order_passes(env: Environment) -> None:
    body = ("Hi {customer.first_name}, I've refunded {amount} {order.currency} for the damaged unit; the rest of "
            "your {order.total} {order.currency} order #{order.number} is unaffected.")
    assert min(await scripted_scores(env, DAMAGED, (0, 1), [REFUND, _reply(body), SOLVE])) == 1.0


async def test_a_false_whole_beside_the_refund_still_fails(env: Environment) -> None:
    body = ("Hi {customer.first_name}, I refunded {amount} {order.currency} of the 999.00 {order.currency} you "
            "paid on order #{order.number}.")
    assert max(await scripted_scores(env, DAMAGED, (0, 1), [REFUND, _reply(body), SOLVE])) == 0.0


async def test_a_price_drop_refund_with_its_arithmetic_passes(env: Environment) -> None:
    steps = [{"tool": "support.issue_refund", "args": {"order_id": "{order.id}", "line_id": "{line.id}",
                                                       "amount": "{amount}", "reason": "other"}},
             _reply("Hi {customer.first_name}, the {line.name} dropped from {line.unit_price} to {new_price} "
                    "{order.currency}, so I refunded {diff} x {qty} = {amount} {order.currency} on order "
                    "#{order.number}. Order #{stale_order.number} was placed more than 14 days before the change, "
                    "so unfortunately it doesn't qualify."), SOLVE]
    assert min(await scripted_scores(env, "support/refund-price-drop", (0, 1), steps)) == 1.0


def test_a_refund_said_to_go_from_one_amount_to_another_claims_both() -> None:
    assert read_facts(["Your refund went from 45.00 USD to 149.70 USD."]).claimed_amounts() == [
        Decimal("45.00"), Decimal("149.70")]
