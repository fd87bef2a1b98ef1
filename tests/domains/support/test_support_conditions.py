"""A condition governs its consequence (conditions, reply_facts): a conditional offer claims nothing, while a past
or perfect act under a condition ("if you check, you'll see I refunded 25.00") is still a claim the state must show.
"""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.domains.support.reply_facts import read_facts
from saas_sim.runtime.environment import Environment
from tests.domains.helpers import scripted_scores

CONDITIONAL_OFFERS = [
    "If it hasn't arrived by next week, we'll look into a refund or replacement.",
    "Should it not turn up within 10 days, we'll gladly send a replacement.",
    "Should it get lost, we'll send you a replacement.",
    "Were it to get lost, we would refund you in full.",
    "Had it been lost, we would have refunded you.",
    "In case it doesn't arrive, we will send a replacement.",
    "Unless it arrives by Friday, we'll refund you.",
    "Please wait a few more days; otherwise we'll send a replacement.",
    "If it doesn't arrive by Friday, just reply here and we'll send a replacement.",
    "Once 10 working days have passed without an update, we can refund the order.",
    "We'll refund 25.00 if it doesn't arrive.",
    "We'll send a replacement, if it doesn't arrive.",
    "Falls es nächste Woche nicht angekommen ist, schicken wir Ihnen Ersatz.",
    "Sollte das Paket nicht ankommen, erstatten wir Ihnen den Betrag.",
    "Wir schicken Ihnen gerne Ersatz, falls es nicht ankommt.",
    "Si no llega la próxima semana, le enviaremos un reemplazo.",
    "En caso de que no llegue, le reembolsaremos el importe.",
    "Si le colis n'arrive pas la semaine prochaine, nous vous rembourserons.",
    "Au cas où il n'arriverait pas, nous vous enverrons un remplacement.",
]

PAST_ACTS_UNDER_A_CONDITION = [
    "If you check your statement, you'll see I refunded 25.00.",
    "If you look, the refund of 25.00 has been issued.",
    "In case you were wondering, I have refunded 25.00.",
    "If you check your account, the 25.00 is already back on your card.",
    "I refunded 25.00 if you want to check your statement.",
    "If it helps, we have already sent a replacement.",
    "Wenn Sie Ihren Kontoauszug prüfen, sehen Sie, dass ich Ihnen 25,00 € erstattet habe.",
    "Si revisa su cuenta, verá que le hemos reembolsado 25,00 €.",
    "Si vous vérifiez votre compte, vous verrez que nous avons remboursé 25,00 €.",
]


@pytest.mark.parametrize("body", CONDITIONAL_OFFERS)
def test_a_conditional_offer_of_a_refund_or_replacement_claims_nothing(body: str) -> None:
    facts = read_facts([body])
    assert not facts.refund_claims() and not facts.replacement_claims()


@pytest.mark.parametrize("body", PAST_ACTS_UNDER_A_CONDITION)
def test_a_past_or_perfect_act_under_a_condition_is_still_a_claim(body: str) -> None:
    facts = read_facts([body])
    assert facts.refund_claims() or facts.replacement_claims()


@pytest.mark.parametrize("body", [
    "Ich habe Ihnen ebenfalls den vollen Betrag erstattet.",
    "Nous avons effectué un remboursement définitif de 25,00 €.",
])
def test_a_word_that_merely_holds_a_condition_word_leaves_a_claim_standing(body: str) -> None:
    assert read_facts([body]).refund_claims()


@pytest.mark.parametrize("body", [
    "We'll send a replacement in case the first one doesn't arrive.",
    "I have refunded 25.00, and if it doesn't arrive we'll look into more.",
    "If it doesn't arrive by Friday, let me know; we will send a replacement today.",
])
def test_a_precaution_or_a_clause_outside_the_condition_still_claims(body: str) -> None:
    facts = read_facts([body])
    assert facts.refund_claims() or facts.replacement_claims()


def test_a_past_amount_under_a_condition_is_still_a_claimed_amount() -> None:
    facts = read_facts(["If you check your statement, you'll see I refunded 25.00 USD."])
    assert [str(a) for a in facts.claimed_amounts()] == ["25.00"]


def test_an_instruction_under_a_condition_is_still_affirmed_text() -> None:
    facts = read_facts(["Should the light keep blinking, hold the reset button for 9 seconds."])
    assert "9 seconds" in facts.affirmed_text


TRANSIT = "support/parcel-in-transit"
SEEDS = (0, 1, 2)
TRACKING = ("Hi {customer.first_name},\n\nYour order #{order.number} is on its way with {order.carrier}, tracking "
            "number {order.tracking}. ")


def _reply(sentence: str) -> dict[str, Any]:
    body = TRACKING + sentence + "\n\nBest regards"
    return {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body}}


@pytest.mark.parametrize("sentence", [
    "If it hasn't arrived by next week, we'll look into a refund or replacement.",
    "Should it not turn up within 10 days, we'll gladly send a replacement.",
    "If it doesn't arrive by Friday, just reply here and we'll send a replacement.",
    "Unless it arrives within 10 working days, we will refund the order in full.",
])
async def test_a_correct_transit_reply_with_a_conditional_offer_scores_full(env: Environment, sentence: str) -> None:
    assert await scripted_scores(env, TRANSIT, SEEDS, [_reply(sentence)]) == [1.0] * len(SEEDS)


@pytest.mark.parametrize("sentence", [
    "If you check your statement, you'll see I refunded {order.total} {order.currency}.",
    "In case you were wondering, I have already refunded the full amount.",
    "If you look, a replacement has been sent to you as well.",
])
async def test_a_false_refund_told_under_a_condition_still_fails(env: Environment, sentence: str) -> None:
    assert max(await scripted_scores(env, TRANSIT, SEEDS, [_reply(sentence)])) <= 0.2
