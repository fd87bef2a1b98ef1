"""What a reply may say about a parcel on its way (shipping_claims): it is neither lost nor already here, and
nothing is promised that the records do not hold. Affirmed claims fail; negated, hedged or retold ones do not."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

import pytest

from saas_sim.domains.support.models import Order, OrderLine
from saas_sim.domains.support.reply_facts import read_facts
from saas_sim.domains.support.shipping_claims import shipping_claim_problems
from saas_sim.runtime.environment import Environment
from tests.domains.helpers import scripted_scores


def _order(status: Literal["processing", "shipped", "delivered", "cancelled"] = "shipped") -> Order:
    line = OrderLine(id="ln_1", product_id="prd_1", sku="SKU-1", name="Crema Pro Espresso Machine", quantity=1,
                     unit_price=Decimal("10.00"), total=Decimal("10.00"))
    return Order(id="ord_1", number="100482", customer_id="cus_1", placed_at=datetime(2026, 1, 1), currency="USD",
                 lines=(line,), shipping=Decimal("0.00"), total=Decimal("10.00"), status=status, carrier="UPS",
                 tracking_number="UP000123456789", shipped_at=datetime(2026, 1, 2))


FALSE_CLAIMS = [
    "I'm sorry, but your parcel is lost. Tracking UP000123456789 shows no movement and it will not reach you.",
    "Unfortunately the parcel went missing in transit.",
    "It won't arrive, sorry.",
    "Your parcel arrived on Monday and is sitting at your door.",
    "No worries, it was delivered yesterday.",
    "The tracking shows it as delivered.",
    "UPS delivered it on Monday.",
    "It is waiting with your neighbour.",
    "You received it on Monday.",
    "It will arrive tomorrow.",
    "It will arrive in 2 days.",
    "I have upgraded it to express delivery at no cost.",
    "I will send it by overnight courier.",
    "I promise it will reach you this week.",
    "Ihr Paket ist verloren gegangen.",
    "Ihr Paket wurde gestern zugestellt.",
    "Su paquete fue entregado ayer.",
    "Votre colis est perdu.",
]

TRUE_SAYINGS = [
    "Your order #100482 has shipped and is on its way with UPS. You can follow it with tracking number "
    "UP000123456789.",
    "Good news: the parcel is not lost. UPS is carrying it right now (tracking: UP000123456789).",
    "Since it hasn't been delivered yet, there is nothing to refund; please write again if it doesn't arrive.",
    "It is not lost, it is on its way with UPS; the carrier estimates delivery on Friday.",
    "I know you're worried it got lost, but it is on its way with UPS.",
    "It should arrive in the next few days.",
    "Once it has arrived, please let us know if anything is wrong.",
    "If it does not arrive within 10 days, we can open a lost parcel claim.",
    "It arrived at the UPS depot yesterday and is moving on.",
    "You can choose express shipping next time if you need it faster.",
    "I can't guarantee a delivery date, but UPS is carrying it.",
    "As promised, here is the tracking number: UP000123456789.",
    "It will be delivered by UPS and will reach you soon.",
    "I'll check again tomorrow and update you.",
    "Ihr Paket ist nicht verloren, es ist mit UPS unterwegs.",
    "Su paquete no se ha perdido, está en camino con UPS.",
    "Votre colis n'est pas perdu, il est en route avec UPS.",
]


@pytest.mark.parametrize("body", FALSE_CLAIMS)
def test_an_affirmed_loss_arrival_or_promise_about_a_parcel_on_its_way_is_false(body: str) -> None:
    assert shipping_claim_problems(read_facts([body]), _order("shipped"))
    assert shipping_claim_problems(read_facts([body]), _order("processing"))


@pytest.mark.parametrize("body", TRUE_SAYINGS)
def test_a_negated_hedged_or_retold_claim_about_a_parcel_on_its_way_is_no_false_claim(body: str) -> None:
    assert shipping_claim_problems(read_facts([body]), _order("shipped")) == []


def test_a_delivered_order_is_not_judged_for_shipping_claims() -> None:
    facts = read_facts(["Your parcel arrived on Monday and is sitting at your door."])
    assert shipping_claim_problems(facts, _order("delivered")) == []


# Finding A (underpay): an arrival verb that took the parcel to a carrier or into a region, city or facility
# tells of transit; "lost" said of parcels in general or in a rule is no loss of this one; a promise of updates
# is no delivery guarantee.
TRANSIT_WORDING = [
    "It was handed over to USPS shortly after you ordered and is moving normally.",
    "Our warehouse handed it over to USPS on March 2, so it's now in their network.",
    "The latest scan shows it arrived in your region this morning.",
    "It has arrived in your city and should be out for delivery soon.",
    "It arrived at the USPS facility in Denver yesterday.",
]
LOSS_IN_GENERAL = [
    "Parcels with USPS very rarely get lost, and yours is moving normally.",
    "We only treat a parcel as lost after 10 working days without a tracking update.",
    "We treat your parcel as lost only after 10 working days without a scan.",
]
PROMISE_OF_NO_DELIVERY = [
    "I promise we'll keep you updated until it's delivered.",
    "I promise to keep an eye on it until it has arrived.",
]
HEDGED_OR_GENERAL_TIMING = [
    "It should arrive Friday.",
    "The carrier estimates Friday.",
    "Standard shipping usually arrives in 3-5 business days.",
    "It's coming from our warehouse in Ohio, and USPS has it now.",
    "We cannot refund it while it is on its way.",
]


@pytest.mark.parametrize("body", TRANSIT_WORDING)
def test_an_arrival_at_a_carrier_region_or_facility_is_transit_not_arrival(body: str) -> None:
    assert shipping_claim_problems(read_facts([body]), _order("shipped")) == []


@pytest.mark.parametrize("body", LOSS_IN_GENERAL)
def test_loss_said_of_parcels_in_general_or_in_a_rule_is_no_loss_of_this_parcel(body: str) -> None:
    assert shipping_claim_problems(read_facts([body]), _order("shipped")) == []


@pytest.mark.parametrize("body", PROMISE_OF_NO_DELIVERY)
def test_a_promise_without_a_delivery_time_in_its_own_clause_is_no_guarantee(body: str) -> None:
    assert shipping_claim_problems(read_facts([body]), _order("shipped")) == []


@pytest.mark.parametrize("body", HEDGED_OR_GENERAL_TIMING)
def test_a_hedged_or_general_delivery_time_promises_nothing(body: str) -> None:
    assert shipping_claim_problems(read_facts([body]), _order("shipped")) == []


# Finding B (overpay): the same false claims in other words.
ARRIVAL_IN_OTHER_WORDS = [
    "Tracking confirms delivery to your address on Monday, so please check with your neighbours.",
    "Your package was received at your address yesterday afternoon.",
    "It reached you on Monday according to USPS.",
    "It landed on your doorstep yesterday.",
    "It was handed over to your neighbour on Monday.",
    "It was delivered to the wrong address.",
]
LOSS_IN_OTHER_WORDS = [
    "Sadly USPS has misplaced it for good, please place a new order.",
    "I'm sorry, but it cannot be delivered anymore; please place a new order.",
    "Unfortunately the parcel has been destroyed in transit and cannot be delivered.",
    "It can't be delivered, sorry.",
    "USPS lost your parcel.",
]
PRESENT_TENSE_PROMISES = [
    "It's arriving Friday by 10am, 100% certain.",
    "Your parcel arrives tomorrow at 9am.",
    "It's coming tomorrow morning for sure.",
    "It\u2019s arriving Friday.",
    "Delivery is scheduled for tomorrow before noon, guaranteed.",
]
UPGRADES_IN_OTHER_WORDS = [
    "I've bumped it up to express shipping at no cost to you.",
    "Your order now ships express overnight.",
]


@pytest.mark.parametrize("body", ARRIVAL_IN_OTHER_WORDS)
def test_an_arrival_told_by_noun_or_other_verb_at_the_customer_is_false(body: str) -> None:
    assert shipping_claim_problems(read_facts([body]), _order("shipped"))


@pytest.mark.parametrize("body", LOSS_IN_OTHER_WORDS)
def test_this_parcel_misplaced_destroyed_or_undeliverable_is_a_false_loss(body: str) -> None:
    assert shipping_claim_problems(read_facts([body]), _order("shipped"))


@pytest.mark.parametrize("body", PRESENT_TENSE_PROMISES)
def test_a_delivery_day_in_the_present_or_progressive_is_a_promise(body: str) -> None:
    assert shipping_claim_problems(read_facts([body]), _order("shipped"))


@pytest.mark.parametrize("body", UPGRADES_IN_OTHER_WORDS)
def test_an_upgrade_told_as_bumped_or_ships_express_is_false(body: str) -> None:
    assert shipping_claim_problems(read_facts([body]), _order("shipped"))


TRANSIT = "support/parcel-in-transit"
TRACKING = ("Hi {customer.first_name},\n\nYour order #{order.number} is on its way with {order.carrier}, tracking "
            "number {order.tracking}. ")


def _tracking_reply(sentence: str) -> dict[str, Any]:
    body = TRACKING + sentence.replace("USPS", "{order.carrier}") + "\n\nBest regards"
    return {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body}}


@pytest.mark.parametrize("sentence", [*TRANSIT_WORDING[:4], *LOSS_IN_GENERAL[:2], PROMISE_OF_NO_DELIVERY[0]])
async def test_a_correct_tracking_reply_with_a_natural_transit_sentence_keeps_full_marks(
        env: Environment, sentence: str) -> None:
    assert await scripted_scores(env, TRANSIT, (1,), [_tracking_reply(sentence)]) == [1.0]


@pytest.mark.parametrize("sentence", [*ARRIVAL_IN_OTHER_WORDS[:4], *LOSS_IN_OTHER_WORDS[:2],
                                      *PRESENT_TENSE_PROMISES[:3], *UPGRADES_IN_OTHER_WORDS])
async def test_a_correct_tracking_reply_with_a_false_parcel_claim_scores_low(env: Environment, sentence: str) -> None:
    assert max(await scripted_scores(env, TRANSIT, (1,), [_tracking_reply(sentence)])) <= 0.2


@pytest.mark.parametrize("body", [
    "Your refund of 10.00 USD will reach your card by Friday.",
    "Your refund is arriving tomorrow.",
    "The 10.00 USD will be on your card by Monday, I guarantee it.",
    "The money has already arrived in your account.",
    "The refund for your order will arrive on Friday.",
    "Your refund won't reach your bank account, it goes back to your card.",
])
def test_money_on_its_way_to_the_customer_is_no_parcel_claim(body: str) -> None:
    assert shipping_claim_problems(read_facts([body]), _order("shipped")) == []


@pytest.mark.parametrize("body", [
    "I refunded the shipping fee, and your parcel will arrive by Friday.",
    "Your order with the refund slip will arrive on Friday.",
    "It will reach you by Friday, and the refund is on your card.",
])
def test_a_parcel_claim_beside_money_is_still_read(body: str) -> None:
    assert shipping_claim_problems(read_facts([body]), _order("shipped"))
