"""Claims the readers missed: done by a pronoun or ellipsis, the order refunded whole in plain words, a rate's false
count, Spanish preterites and German participles split from their helper, and a claim bound to the order the
sentence before names. Each class in the languages it occurs in, true and false."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from saas_sim.domains.support.conditions import reports_done
from saas_sim.domains.support.named_orders import _claimed_in
from saas_sim.domains.support.refund_shares import false_shares
from saas_sim.domains.support.reply_facts import read_facts
from saas_sim.domains.support.ticket_factory import issue_tags
from saas_sim.domains.support.unit_rates import LineTerms, OrderTerms
from saas_sim.runtime.environment import Environment
from tests.domains.helpers import scripted_grade, scripted_scores

REFUND = "support/refund-damaged-item"
SEEDS = (0, 1, 2, 3)
SOLVE = {"tool": "support.set_ticket_status", "args": {"ticket_id": "{ticket.id}", "status": "solved"}}
REFUND_STEP = {"tool": "support.issue_refund", "args": {"order_id": "{order.id}", "line_id": "{line.id}",
                                                          "amount": "{amount}", "reason": "damaged",
                                                          "ticket_id": "{ticket.id}"}}


def _reply(body: str) -> dict[str, Any]:
    return {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body}}


@pytest.mark.parametrize("text", [
    "You asked for a refund on order 100123. I processed one this morning.",
    "You asked for a refund for order 100123. It has been processed.",
    "The refund for the damaged lamp? Already taken care of.",
    "You wanted your money back for order 100123. I've sorted it.",
    "Sie haben eine Erstattung für Bestellung 100123 angefragt. Das habe ich veranlasst.",
    "Zu Ihrer Erstattung für Bestellung 100123: Es ist erledigt.",
    "Usted pidió un reembolso del pedido 100123. Ya lo tramité.",
    "Sobre su reembolso del pedido 100123: ya está hecho.",
    "Vous avez demandé un remboursement pour la commande 100123. Je l'ai effectué ce matin.",
    "Concernant votre remboursement pour la commande 100123 : c'est fait.",
])
def test_a_refund_done_by_reference_is_a_refund_claim(text: str) -> None:
    assert read_facts([text]).refund_claims()


@pytest.mark.parametrize("text", [
    "You asked for a refund on order 100123. I have not processed one yet.",
    "You asked for a refund on order 100123. If the photos show damage, I'll process one.",
    "You asked for a refund on order 100123. Could you send a photo of the damage? Then I'll process it.",
    "Could you tell me whether you want a refund for order 100123? Once I know, it's done within a day.",
    "Sie haben eine Erstattung für Bestellung 100123 angefragt. Das habe ich noch nicht veranlasst.",
    "Sie haben eine Erstattung für Bestellung 100123 angefragt. Wenn die Fotos den Schaden zeigen, veranlasse ich sie.",
    "Usted pidió un reembolso del pedido 100123. Todavía no lo he tramitado.",
    "Usted pidió un reembolso del pedido 100123. Si las fotos muestran el daño, lo tramitaré.",
    "Vous avez demandé un remboursement pour la commande 100123. Je ne l'ai pas encore effectué.",
    "Thanks for your order 100123. It's done: your photos are with our returns team.",
])
def test_no_act_done_or_no_refund_referred_to_claims_nothing(text: str) -> None:
    assert not read_facts([text]).refund_claims()


@pytest.mark.parametrize("text", [
    "You asked about a replacement for the lamp. I've sent one today.",
    "Sie wollten Ersatz für Bestellung 100123. Ist erledigt.",
    "Vous souhaitiez un remplacement pour la commande 100123. C'est fait.",
])
def test_a_replacement_done_by_reference_is_a_replacement_claim(text: str) -> None:
    facts = read_facts([text])
    assert facts.replacement_claims() and not facts.refund_claims()


def test_a_reference_does_not_reach_into_another_reply() -> None:
    facts = read_facts(["You asked for a refund on order 100123.", "It's done: the photos are with our team."])
    assert not facts.refund_claims()


_ORDER = OrderTerms((LineTerms(frozenset({"lamp", "lamps"}), Decimal("25.00"), Decimal("75.00"), 3, True),
                     LineTerms(frozenset({"mug", "mugs"}), Decimal("10.00"), Decimal("10.00"), 1, False)),
                    Decimal("85.00"))


@pytest.mark.parametrize("text", [
    "Hi Anna, I've refunded your order 100123.",
    "Hi Anna, your order 100123 has been refunded.",
    "Hallo Anna, ich habe Ihre Bestellung 100123 erstattet.",
    "Hola Ana, su pedido 100123 fue reembolsado.",
    "Bonjour Anne, j'ai remboursé votre commande 100123.",
])
def test_the_order_refunded_in_plain_words_claims_all_of_it(text: str) -> None:
    facts = read_facts([text])
    assert false_shares(facts.claimed_shares(_ORDER), _ORDER, {Decimal("25.00")})
    assert not false_shares(facts.claimed_shares(_ORDER), _ORDER, {Decimal("85.00")})


@pytest.mark.parametrize("text", [
    "Hi Anna, I've refunded your order 100123: 25.00 USD for the damaged lamp.",
    "Hi Anna, I've refunded your order 100123. You will get 25.00 USD back for the lamp.",
    "Hi Anna, I've refunded your order 100123 for the damaged lamp.",
    "Hallo Anna, ich habe Ihre Bestellung 100123 erstattet: 25,00 USD für die Lampe.",
])
def test_the_order_refunded_with_what_was_refunded_claims_a_refund_on_it(text: str) -> None:
    facts = read_facts([text])
    assert not false_shares(facts.claimed_shares(_ORDER), _ORDER, {Decimal("25.00")})


async def test_the_order_refunded_plainly_after_a_partial_refund_fails(env: Environment) -> None:
    body = "Hi {customer.first_name}, I've refunded your order {order.number}."
    assert max(await scripted_scores(env, REFUND, SEEDS, [REFUND_STEP, _reply(body), SOLVE])) == 0.0


def test_a_rate_told_with_its_count_claims_the_product() -> None:
    facts = read_facts(["I refunded 24.95 USD per lamp for your 3 lamps."])
    assert facts.claimed_rate_bounds(_ORDER) == [(Decimal("24.95"), frozenset({3}))]
    facts = read_facts(["Your 2 lamps at 24.95 USD each are refunded."])
    assert facts.claimed_rate_bounds(_ORDER) == [(Decimal("24.95"), frozenset({2}))]


async def test_a_false_count_beside_a_true_rate_fails(env: Environment) -> None:
    body = ("Hi {customer.first_name}, I have refunded {amount} {order.currency} on order {order.number}. That is "
            "{line.unit_price} {order.currency} per unit for your {line.quantity} units.")
    assert max(await scripted_scores(env, REFUND, SEEDS, [REFUND_STEP, _reply(body), SOLVE])) == 0.0


async def test_a_true_count_beside_a_rate_passes(env: Environment) -> None:
    body = ("Hi {customer.first_name}, I have refunded {amount} {order.currency} on order {order.number}. That is "
            "{line.unit_price} {order.currency} per unit for the {qty} damaged units.")
    assert min(await scripted_scores(env, REFUND, SEEDS, [REFUND_STEP, _reply(body), SOLVE])) == 1.0


@pytest.mark.parametrize("text", ["verá que le devolvimos el importe", "el pedido se reembolsó ayer",
                                  "anulé su pedido", "le reembolsé 25,00 €"])
def test_a_spanish_preterite_reports_an_act_done(text: str) -> None:
    assert reports_done(text, "es")


def test_a_spanish_preterite_under_a_time_clause_is_a_claim() -> None:
    facts = read_facts(["Cuando revise su cuenta, verá que le devolvimos el importe del pedido 100123."])
    assert facts.refund_claims()


@pytest.mark.parametrize("text", [
    "ich habe ihre bestellung 100234 geprüft und storniert.",
    "ich habe ihre bestellung 100234 geprüft und ihnen 25.00 eur erstattet.",
    "también anulé su pedido 100234.",
    "revisé su pedido 100234 y le reembolsé 25,00 €.",
])
def test_a_change_or_refund_split_from_its_helper_binds_to_the_order(text: str) -> None:
    sentence = read_facts([text]).sentences[0]
    assert "100234" in _claimed_in(sentence)


@pytest.mark.parametrize("tail", [
    "Your order #{other_open.number} was damaged too. I refunded {amount} {order.currency}.",
    "Your order #{other_open.number} was damaged too. It has been cancelled as well.",
])
async def test_a_claim_binds_to_the_order_the_sentence_before_names(env: Environment, tail: str) -> None:
    body = "{refund_reply} " + tail
    assert max(await scripted_scores(env, REFUND, SEEDS, [REFUND_STEP, _reply(body), SOLVE])) == 0.0


@pytest.mark.parametrize("tail", [
    "Your order #{other_open.number} arrived fine, so nothing changes there.",
    "P.S. I can see you also have order #{other_open.number} with us; that one is not affected. I refunded "
    "{amount} {order.currency} for the {line.name}.",
])
async def test_an_order_left_as_it_was_hands_no_claim_on(env: Environment, tail: str) -> None:
    body = "{refund_reply} " + tail
    assert min(await scripted_scores(env, REFUND, SEEDS, [REFUND_STEP, _reply(body), SOLVE])) == 1.0


def _tags(**args: Any) -> dict[str, Any]:
    return {"tool": "support.update_ticket_tags", "args": {"ticket_id": "{ticket.id}", **args}}


async def test_stripping_the_work_tickets_tags_breaks_its_fields(env: Environment) -> None:
    tags = list(issue_tags("damaged_item"))
    assert tags
    steps = [REFUND_STEP, _reply("{refund_reply}"), SOLVE]
    grade = await scripted_grade(env, REFUND, 0, [_tags(remove=tags), *steps])
    assert next(c for c in grade.checks if c.name == "ticket_fields_kept").score == 0.0
    assert await scripted_scores(env, REFUND, [0], [_tags(add=["checked"]), *steps]) == [1.0]


@pytest.mark.parametrize("text", [
    "A refund isn't needed yet: your parcel is still on its way. It was sent on Monday.",
    "You asked for a refund, but the package is with the carrier. It's been sent to the depot.",
    "Un reembolso no es necesario todavía. El paquete se envió el lunes.",
])
def test_a_pronoun_for_something_named_after_the_refund_claims_no_refund(text: str) -> None:
    assert not read_facts([text]).refund_claims()
