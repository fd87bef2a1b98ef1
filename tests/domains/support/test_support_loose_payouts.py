"""Money or goods claimed back in loose words are claims, so a false one fails like any other.

"Your money has been returned" or "89.00 will land in your account" named no refund word, and a false one
escaped the truth check; the same words about a charge, an order or a label claim nothing.
"""

from __future__ import annotations

import pytest

from saas_sim.domains.support.reply_facts import read_facts


@pytest.mark.parametrize("text", [
    "Your money has been returned.",
    "Your payment has been returned to you.",
    "Your funds have been released.",
    "89.00 will land in your account in 3 days.",
    "The 89.00 USD should reach your card by Friday.",
    "I've arranged for the 89.00 to go back to you.",
    "The money is headed your way.",
    "Consider the 89.00 returned.",
    "You won't be out of pocket: the 89.00 is yours again.",
    "Ihr Geld wurde zurückgezahlt.",
    "Le montant vous a été reversé.",
    # The loss denied, though negated, promises the money back; a charge undone in loose words.
    "Rest assured, you won't lose the 89.00.",
    "You will not be out of pocket.",
    "You won't lose a cent over this.",
    "Don't worry, you won't pay twice for it.",
    "Sie verlieren keinen Cent.",
    "Vous ne perdrez rien.",
    "The double charge has been taken care of.",
    "Your duplicate payment is sorted.",
    # Money made good in other words.
    "I'll make sure you are compensated.",
    "We'll make it right with 29.95 USD.",
    "Keep it, it's on us.",
    "You can keep the item and we'll cover the cost.",
    "I went ahead and zeroed the charge.",
    "The amount was written off.",
    "You will not be charged for it.",
])
def test_money_moved_back_in_loose_words_is_a_refund_claim(text: str) -> None:
    assert read_facts([text]).refund_claims()


@pytest.mark.parametrize("text", [
    "We've shipped you another lamp.",
    "I've sent out a second one today.",
    "Another one is on its way.",
    "I have sent you a new Trail Backpack 28L.",
    "Ich habe Ihnen einen neuen Rucksack geschickt.",
    "Le hemos enviado una mochila nueva.",
    "Je vous ai envoyé un sac à dos neuf.",
    "Nous vous envoyons un nouveau sac.",
])
def test_goods_sent_again_in_loose_words_are_a_replacement_claim(text: str) -> None:
    assert read_facts([text]).replacement_claims()


@pytest.mark.parametrize("text", [
    "Your payment of 89.00 went through on March 3.",
    "The 89.00 charge will reach your statement tomorrow.",
    "Your 89.00 order reached you on Monday, according to the courier.",
    "The parcel with your 89.00 lamp arrived at your address on Monday.",
    "Your parcel has been returned to our warehouse.",
    "The amount is returned within 5 days of approval.",
    "Your payment arrived with us on March 3.",
    "I've sent you a new return label.",
    "Another email is on its way with the tracking number.",
    "Ship another order with us anytime!",
    "Your money has not been returned yet.",
    "If the parcel is lost, your money will be returned.",
    "Through the dispute, the 89.00 will land in your account.",  # the bank pays, not the shop
    "Ich habe Ihnen einen neuen Link geschickt.",
    "Le hemos enviado una etiqueta nueva.",
    "Je vous ai envoyé une nouvelle étiquette.",
    "You won't lose access to your account.",
    "You will not lose your warranty by opening it.",
    "If the parcel is lost, you won't lose anything.",
    "You won't lose anything: your bank will settle it through the dispute.",
    "The charge is being reviewed by our billing team.",
    "The return shipping is on us.",
    "It's on us to fix this.",
    "We will cover the cost of the return label.",
    "We cover the cost of return shipping on damaged items.",
    "You won't be charged for it again.",
])
def test_the_same_words_about_a_charge_an_order_or_a_label_claim_nothing(text: str) -> None:
    facts = read_facts([text])
    assert not facts.refund_claims() and not facts.replacement_claims()
