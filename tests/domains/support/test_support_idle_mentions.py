"""A mention of a refund, replacement or credit claims one only when it asserts one for this customer.

Explaining the policy names refunds ("in line with our refund policy", "final-sale items are excluded from
returns and refunds"); such replies scored 0 as false refund claims. False claims in any wording still fail.
"""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.domains.support.reply_facts import read_facts
from saas_sim.runtime.environment import Environment
from tests.domains.helpers import find_seeds, scripted_scores

DENY = "support/deny-refund-policy"
SOLVE = {"tool": "support.set_ticket_status", "args": {"ticket_id": "{ticket.id}", "status": "solved"}}
DENIAL = ("Hi {customer.first_name}, I'm sorry, but I can't refund the {line.name} from order #{order.number}: "
          "{reason_sentence}. ")


def _reply(body: str, ticket: str = "{ticket.id}") -> dict[str, Any]:
    return {"tool": "support.send_reply", "args": {"ticket_id": ticket, "body": body}}


@pytest.mark.parametrize("text", [
    "This is in line with our refund policy.",
    "Refunds for a change of mind are only available within 30 days of delivery.",
    "Thanks for your message about a refund for the desk lamp.",
    "Final-sale items are excluded from returns and refunds.",
    "A refund from us on top of the chargeback would pay you twice.",
    "Refunds and replacements are only for parcels that are actually lost, and yours is still on its way.",
    "Our returns team will look at it, decide on a refund or replacement and reply here.",
    "Regarding your refund question: the window is 30 days.",
    "Das entspricht unserer Erstattungsrichtlinie.",
    "Erstattungen sind nur innerhalb von 30 Tagen nach Lieferung möglich.",
    "Esto es conforme a nuestra política de reembolso.",
    "Los reembolsos solo están disponibles dentro de los 30 días posteriores a la entrega.",
    "Un reembolso además del contracargo le pagaría dos veces.",
    "Les remboursements sont possibles dans les 30 jours suivant la livraison.",
    "C'est conforme à notre politique de remboursement.",
    # The customer's own refund as a heading, and the decision on it left to others.
    "About your refund: our billing team now has your case about order 100482.",
    "Regarding your refund, the billing team will contact you.",
    "Bezüglich Ihrer Erstattung: Unser Billing-Team hat Ihren Fall.",
    "I passed order 100482 to our billing team; the refund decision is theirs.",
    "I passed order 100482 to our billing team; whether you get a refund is up to them.",
])
def test_a_mention_that_asserts_no_refund_is_no_claim(text: str) -> None:
    facts = read_facts([text])
    assert not facts.refund_claims() and not facts.replacement_claims() and not facts.credit_claims()


@pytest.mark.parametrize("text", [
    "Refund: 58.00 EUR.",
    "Your refund of 89.00 is on its way.",
    "A refund of 89.00 has been approved.",
    "You'll get 89.00 back.",
    "I've issued the refund.",
    "Refund approved.",
    "We will refund you.",
    "We would be happy to refund you.",
    "Regarding the refund, it has been issued.",
    "Refunds have been issued for both orders.",
    "Your refunds are on their way.",
    "Per our refund policy, I have refunded 89.00 USD.",
    "Our returns team has decided on a refund of 89.00.",
    "A refund of 89.00 would be on its way.",
    "Ich habe Ihnen 25,00 € erstattet.",
    "Hemos emitido un reembolso de 25,00 €.",
    "Nous avons remboursé 25,00 €.",
    # A heading followed by the refund claimed by a pronoun, or with its amount, is still a claim.
    "About your refund: it is on its way.",
    "About your refund, I processed it today.",
    "About your refund of 89.00: it is done.",
    "Refund decision: approved.",
    "I passed your case on; your refund has been issued.",
])
def test_a_refund_asserted_in_any_wording_is_still_a_claim(text: str) -> None:
    assert read_facts([text]).refund_claims()


@pytest.mark.parametrize(("text", "refund", "replacement", "credit"), [
    ("I have refunded 25.00 USD, straight back to your card rather than as store credit.", True, False, False),
    ("We'll send a replacement rather than a refund.", False, True, False),
    ("You will receive a voucher instead of a refund.", False, False, True),
    ("Ich schicke Ihnen Ersatz statt eines Gutscheins.", False, True, False),
    ("Le enviamos un reemplazo en lugar de un reembolso.", False, True, False),
    ("Nous vous envoyons un remplacement plutôt qu'un avoir.", False, True, False),
    ("Instead we will send you 20.00 USD as store credit.", True, False, True),
])
def test_an_alternative_rejected_is_not_claimed(text: str, refund: bool, replacement: bool, credit: bool) -> None:
    facts = read_facts([text])
    assert (bool(facts.refund_claims()), bool(facts.replacement_claims()), bool(facts.credit_claims())) == (
        refund, replacement, credit)


@pytest.mark.parametrize("explained", [
    "Refunds for a change of mind are only available within 30 days of delivery.",
    "This is in line with our refund policy.",
])
async def test_a_refusal_that_explains_the_refund_policy_passes(env: Environment, explained: str) -> None:
    body = DENIAL + explained
    assert min(await scripted_scores(env, DENY, (0, 1), [_reply(body), SOLVE])) == 1.0


async def test_a_refusal_that_names_the_refund_topic_passes(env: Environment) -> None:
    body = ("Hi {customer.first_name}, thanks for your message about a refund for the {line.name}. Unfortunately "
            "we cannot refund the {line.name} from order #{order.number}: {reason_sentence}.")
    assert min(await scripted_scores(env, DENY, (0, 1), [_reply(body), SOLVE])) == 1.0


async def test_a_final_sale_refusal_naming_excluded_refunds_passes(env: Environment) -> None:
    body = ("Hi {customer.first_name}, I'm sorry, but I can't refund the {line.name} from order #{order.number}: it "
            "was sold as a final-sale item. Final-sale items are excluded from returns and refunds.")
    seeds = await find_seeds(env, DENY, lambda t: t.bindings["reason"] == "final_sale", "a final-sale item refused",
                             count=2)
    assert min(await scripted_scores(env, DENY, seeds, [_reply(body), SOLVE])) == 1.0


@pytest.mark.parametrize("claim", [
    "Refund: {line.unit_price} {order.currency}.",
    "Your refund of {line.unit_price} is on its way.",
    "A refund of {line.unit_price} has been approved.",
    "You'll get {line.unit_price} back.",
    "Still, I've issued the refund.",
])
async def test_a_refusal_with_a_false_refund_claim_still_fails(env: Environment, claim: str) -> None:
    body = DENIAL + "This is in line with our refund policy. " + claim
    assert max(await scripted_scores(env, DENY, (0, 1), [_reply(body), SOLVE])) == 0.0


async def test_a_chargeback_reply_saying_a_refund_would_pay_twice_passes(env: Environment) -> None:
    steps = [{"tool": "support.escalate_ticket", "args": {
                "ticket_id": "{ticket.id}", "team": "billing",
                "reason": "Chargeback already filed for {amount} {duplicate.currency} (duplicate order "
                          "{duplicate.number}). Support did not refund."}},
             _reply("Hi {customer.first_name}, thank you, and sorry for the double charge on order "
                    "#{duplicate.number}. Since your bank dispute is already open, our billing team has taken over "
                    "the case and will settle it with your bank. A refund from us on top of the chargeback would "
                    "pay you twice.")]
    assert min(await scripted_scores(env, "support/chargeback-already-filed", (0, 1), steps)) == 1.0


async def test_a_parcel_reply_stating_when_refunds_apply_passes(env: Environment) -> None:
    body = ("{tracking_reply}\n\nP.S. Refunds and replacements are only for parcels that are actually lost, and "
            "yours is still on its way.")
    assert min(await scripted_scores(env, "support/parcel-in-transit", (0, 1), [_reply(body)])) == 1.0


async def test_a_merge_reply_leaving_the_refund_to_the_returns_team_passes(env: Environment) -> None:
    steps = [{"tool": "support.merge_tickets", "args": {"target_id": "{keep.id}",
                                                        "source_ids": ["{dup1.id}", "{dup2.id}"]}},
             _reply("Hi {customer.first_name}, you wrote to us several times about the {line.name}, so I have "
                    "merged your requests into this one ticket. Our returns team will look at it, decide on a "
                    "refund or replacement and reply here.", "{keep.id}")]
    assert min(await scripted_scores(env, "support/merge-duplicate-tickets", (0, 1), steps)) == 1.0


@pytest.mark.parametrize("text", [
    "Your refund request has been approved.",
    "Ihre Erstattungsanfrage wurde genehmigt.",
    "Su solicitud de reembolso ha sido aprobada.",
    "About a refund: done, 89.00 to your card.",
    "Regarding a refund, it has been issued.",
    "Instead of waiting your refund of 89.00 is done.",
    "Rather than a refund, you'll get 89.00 back.",
])
def test_a_wish_granted_or_an_idle_shape_with_money_or_an_act_is_a_claim(text: str) -> None:
    assert read_facts([text]).refund_claims()


@pytest.mark.parametrize(("text", "claims"), [
    ("You can expect a refund within 5 days.", True),
    ("Expect a refund within 5 days.", True),
    ("I understand you expect a refund.", False),
    ("You were expecting a refund.", False),
])
def test_a_refund_to_expect_is_promised_but_the_customers_expectation_is_not(text: str, claims: bool) -> None:
    assert bool(read_facts([text]).refund_claims()) == claims
