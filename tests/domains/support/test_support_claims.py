"""False claims that carry no refund keyword, turns after a refusal, contradictions and false day counts.

Each test is one weakness class found by red-teaming the support verifiers (issue 9), run on several
seeds so that it cannot pass by one seed's luck.
"""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.domains.support.reply_facts import read_facts
from saas_sim.runtime.environment import Environment
from tests.domains.helpers import scripted_scores

DENY = "support/deny-refund-policy"
REFUND = "support/refund-damaged-item"
SEEDS = (0, 1, 2, 3)
SOLVE = {"tool": "support.set_ticket_status", "args": {"ticket_id": "{ticket.id}", "status": "solved"}}
REFUND_STEP = {"tool": "support.issue_refund", "args": {"order_id": "{order.id}", "line_id": "{line.id}",
                                                          "amount": "{amount}", "reason": "damaged"}}


def _reply(body: str) -> dict[str, Any]:
    return {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body}}


async def _scores(env: Environment, ref: str, steps: list[dict[str, Any]]) -> list[float]:
    return await scripted_scores(env, ref, SEEDS, steps)


async def test_a_refund_claimed_without_the_word_refund_earns_nothing(env: Environment) -> None:
    body = "Hi {customer.first_name}, the {amount} {order.currency} for order {order.number} are on their way back."
    assert max(await _scores(env, REFUND, [_reply(body), SOLVE])) == 0.0


async def test_the_right_refund_plus_a_false_total_back_fails(env: Environment) -> None:
    body = ("Hi, I refunded {amount} {order.currency} on order {order.number}. In total you get {line.total} "
            "{order.currency} back.")
    assert max(await _scores(env, REFUND, [REFUND_STEP, _reply(body), SOLVE])) == 0.0


async def test_a_promised_new_unit_that_was_never_created_fails(env: Environment) -> None:
    body = "{refund_reply} A new unit is also on its way to you."
    assert max(await _scores(env, REFUND, [REFUND_STEP, _reply(body), SOLVE])) == 0.0


async def test_a_later_reply_denying_the_refund_contradicts_it(env: Environment) -> None:
    steps = [REFUND_STEP, _reply("{refund_reply}"),
             _reply("Correction: we could not refund anything on order {order.number}, sorry."), SOLVE]
    assert max(await _scores(env, REFUND, steps)) == 0.0


@pytest.mark.parametrize("turn", [
    "Instead we will send you {line.unit_price} {order.currency} as store credit.",
    "Still, you will get your {line.unit_price} {order.currency} back for the {line.name}.",
])
async def test_a_refusal_that_turns_into_compensation_fails(env: Environment, turn: str) -> None:
    body = f"Unfortunately we cannot refund the {{line.name}} on order {{order.number}}: {{reason_sentence}}. {turn}"
    assert max(await _scores(env, DENY, [_reply(body), SOLVE])) == 0.0


async def test_a_contradicting_second_reply_on_a_refusal_fails(env: Environment) -> None:
    steps = [_reply("Sorry, the {line.name} on order {order.number} is not refundable: {reason_sentence}."),
             _reply("Good news, I checked again and we will take the {line.name} back after all."), SOLVE]
    assert max(await _scores(env, DENY, steps)) == 0.0


async def test_a_false_day_count_is_a_false_reason(env: Environment) -> None:
    body = ("Sorry {customer.first_name}, order {order.number} was delivered 999 days ago and our return window "
            "is 30 days, so we cannot refund the {line.name}.")
    assert max(await _scores(env, DENY, [_reply(body), SOLVE])) == 0.0


async def test_a_refusal_with_the_reason_in_other_words_still_passes(env: Environment) -> None:
    body = "Hi {customer.first_name}, we can't refund the {line.name} from order {order.number}, as {reason_sentence}."
    assert min(await _scores(env, DENY, [_reply(body), SOLVE])) == 1.0


def test_a_hyphenated_window_names_the_window_reason() -> None:
    assert read_facts(["It is past our 30-day return window."]).reasons() == {"window"}


def test_no_cost_beside_a_refund_denies_nothing() -> None:
    facts = read_facts(["I sent a replacement at no cost, and I have refunded 25.00 USD for the jacket."])
    assert not facts.refund_denials() and facts.refund_claims()


def test_getting_back_to_the_customer_is_no_refund_claim() -> None:
    assert not read_facts(["I will get back to you tomorrow."]).refund_claims()
