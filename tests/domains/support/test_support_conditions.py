"""A condition governs its consequence (conditions, reply_facts): a conditional offer claims nothing, while a past
or perfect act under a condition ("if you check, you'll see I refunded 25.00") is still a claim the state must show.
"""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.domains.support.reply_facts import read_facts
from saas_sim.domains.support.shipping_claims import shipping_claim_problems
from saas_sim.runtime.environment import Environment
from tests.domains.helpers import scripted_scores
from tests.domains.support.test_shipping_claims import _order

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
    "In the unlikely event that it gets lost, we'll of course send a replacement.",
    "Should anything go wrong, we'll make it right with a replacement.",
    "If it still hasn't shown up by next Friday, we'll happily refund you.",
    "If there's still no movement after 10 working days, we'll treat it as lost and refund you.",
    "Wenn es bis Freitag nicht da ist, melden Sie sich gerne, dann schicken wir Ersatz oder erstatten den Betrag.",
    "S'il n'arrive pas d'ici la semaine prochaine, nous vous rembourserons intégralement.",
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
    "Whenever you look, the 25.00 is back on your card.",
    "Sollten Sie nachsehen, sehen Sie die Erstattung von 25,00 €.",
    "After reviewing your case, we issue a full refund.",
    "Once we received your return, we refund 25.00.",
]

OFFERS_ON_THE_CUSTOMERS_WORD = [
    "If you prefer, we can replace it.",
    "We can replace it if you prefer.",
    "If you'd like, I can send a new one.",
    "We'll refund you in full, if that's OK.",
    "If it helps, we will refund 25.00 today.",
    "Unless I'm mistaken, the refund is on its way to you.",
    "Wenn Sie möchten, schicken wir Ihnen Ersatz.",
    "Si vous le souhaitez, nous vous enverrons un remplacement.",
]


@pytest.mark.parametrize("body", CONDITIONAL_OFFERS)
def test_a_conditional_offer_of_a_refund_or_replacement_claims_nothing(body: str) -> None:
    facts = read_facts([body])
    assert not facts.refund_claims() and not facts.replacement_claims()


@pytest.mark.parametrize("body", PAST_ACTS_UNDER_A_CONDITION)
def test_a_past_or_perfect_act_under_a_condition_is_still_a_claim(body: str) -> None:
    facts = read_facts([body])
    assert facts.refund_claims() or facts.replacement_claims()


@pytest.mark.parametrize("body", OFFERS_ON_THE_CUSTOMERS_WORD)
def test_an_offer_on_the_customers_word_or_a_condition_in_name_only_is_a_promise(body: str) -> None:
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


@pytest.mark.parametrize(("body", "amount"), [
    ("Leider kam es nicht an, ich habe Ihnen 25,00 € erstattet.", "25.00"),
    ("Sorry it did not work out, I refunded 1,250.00 USD.", "1250.00"),
    ("Lo siento, no llegó: le he reembolsado 1.250,00 €.", "1250.00"),
])
def test_a_comma_inside_a_figure_does_not_split_the_clause(body: str, amount: str) -> None:
    assert [str(a) for a in read_facts([body]).claimed_amounts()] == [amount]


@pytest.mark.parametrize("body", [
    "If you check the tracking, you'll see it was delivered yesterday.",
    "In case you were wondering, it was delivered on Monday.",
    "It was delivered yesterday if you want to check.",
    "You can see that it arrived on Monday.",
    "When I checked, the tracking showed it as delivered.",
])
def test_an_arrival_told_under_a_condition_or_as_something_to_see_is_false(body: str) -> None:
    assert shipping_claim_problems(read_facts([body]), _order("shipped"))


@pytest.mark.parametrize("body", [
    "Should it not turn up within 10 days, we will treat it as lost and send a replacement.",
    "Once it arrives, you'll see the tracking marked as delivered.",
    "If it has not arrived by Friday, let me know and we will open a claim.",
    "On the tracking page you will see it is on its way.",
    "Sollte es nicht ankommen, melden Sie sich bitte, dann schicken wir Ersatz.",
])
def test_a_remedy_on_a_condition_about_a_parcel_on_its_way_is_no_false_claim(body: str) -> None:
    assert shipping_claim_problems(read_facts([body]), _order("shipped")) == []


@pytest.mark.parametrize("body", [
    "If it doesn't arrive we refunded you already.",
    "If it does not arrive we have already refunded 25.00 USD.",
    "Should it not arrive we have sent a replacement already.",
    "Falls es nicht ankommt haben wir Ihnen bereits alles erstattet.",
    "Si no llega ya le hemos reembolsado el importe.",
    "S'il n'arrive pas nous vous avons déjà remboursé.",
    "Unless it arrives we have already refunded you.",
    "In case it doesn't arrive we have already sent a replacement.",
    "If it doesn't arrive then we refunded you already.",
    "Sollte es nicht ankommen haben wir bereits Ersatz geschickt.",
    "Au cas où il n'arriverait pas nous avons déjà remboursé la commande.",
    "En caso de que no llegue ya le hemos reembolsado.",
])
def test_a_done_act_after_a_condition_without_a_comma_still_claims(body: str) -> None:
    facts = read_facts([body])
    assert facts.refund_claims() or facts.replacement_claims()


@pytest.mark.parametrize("body", [
    "If it doesn't arrive we will refund you.",
    "If it has not arrived by Friday we will send a replacement.",
    "If it was lost in transit we will refund you.",
    "If the refund we issued was wrong we will fix it.",
    "If you think we refunded too little we will refund more.",
    "If you told us we sent the wrong one we will replace it.",
    "If we haven't refunded you by Friday we will send a replacement.",
    "If it doesn't arrive we won't refund you twice.",
    "Falls es nicht ankommt erstatten wir Ihnen den Betrag.",
    "Si no le ha llegado le enviaremos otro.",
    "Si vous ne l'avez pas reçu nous vous rembourserons.",
    "Si nous n'avons pas remboursé nous le ferons.",
    "Wenn es nicht ankommt erstatten wir den Betrag.",
    "Au cas où il n'arriverait pas nous vous rembourserons.",
    "En caso de que no llegue le reembolsaremos.",
])
def test_an_offer_after_a_condition_without_a_comma_claims_nothing(body: str) -> None:
    facts = read_facts([body])
    assert not facts.refund_claims() and not facts.replacement_claims()


@pytest.mark.parametrize("sentence", [
    "If it doesn't arrive we refunded you already.",
    "If it does not arrive we have already refunded {order.total} {order.currency}.",
])
async def test_a_false_refund_after_a_condition_without_a_comma_fails(env: Environment, sentence: str) -> None:
    assert max(await scripted_scores(env, TRANSIT, SEEDS, [_reply(sentence)])) <= 0.2


async def test_a_correct_transit_reply_with_a_comma_less_offer_scores_full(env: Environment) -> None:
    sentence = "If it doesn't arrive by Friday we will refund you in full."
    assert await scripted_scores(env, TRANSIT, SEEDS, [_reply(sentence)]) == [1.0] * len(SEEDS)
