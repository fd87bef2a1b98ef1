"""What a reply may say about a parcel on its way (shipping_claims): it is neither lost nor already here, and
nothing is promised that the records do not hold. Affirmed claims fail; negated, hedged or retold ones do not."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Literal

import pytest

from saas_sim.domains.support.models import Order, OrderLine
from saas_sim.domains.support.reply_facts import read_facts
from saas_sim.domains.support.shipping_claims import shipping_claim_problems


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
