"""A refund claimed as a percentage is read as the amount it implies and judged like any other amount."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from saas_sim.domains.support.refund_shares import false_shares, refund_shares
from saas_sim.domains.support.unit_rates import LineTerms, OrderTerms
from saas_sim.runtime.environment import Environment
from tests.domains.helpers import find_seed, scripted_grade
from tests.domains.support.task_picks import fill, line_words, one_unit_of

D = Decimal
BULBS = LineTerms(frozenset({"bulb", "bulbs"}), D("49.90"), D("149.70"), 3, True)
BOARDS = LineTerms(frozenset({"board", "boards"}), D("24.99"), D("74.97"), 3, False)
TERMS = OrderTerms((BULBS, BOARDS), D("224.67"))


@pytest.mark.parametrize(("text", "percent", "base"), [
    ("i refunded 50% of your order", "50", "your order"),
    ("a 100% refund of your order went out", "100", "your order"),
    ("i refunded fifty percent of the bulbs, as promised", "50", "the bulbs"),
    ("a refund of 33.3% went out", "33.3", ""),
    ("you got 100 % back", "100", ""),
])
def test_a_share_said_refunded_is_read_with_its_base(text: str, percent: str, base: str) -> None:
    [share] = refund_shares(text, "en")
    assert (share.percent, share.base) == (D(percent), base)


@pytest.mark.parametrize("text", [
    "and you get 20% off your next order", "we are 100% sure it went through", "a 20% discount code",
    "your bank takes 2% as a fee", "a refund of 8% tax went out", "i refunded the 8% vat",
])
def test_a_percentage_that_is_no_refund_share_is_no_claim(text: str) -> None:
    assert refund_shares(text, "en") == []


@pytest.mark.parametrize(("text", "false"), [
    ("a 100% refund for the damaged bulb", False),  # one unit's price, refunded in full
    ("i refunded 33% of the bulbs", False),  # one of three units
    ("i refunded 22.2% of your order", False),  # 49.90 of 224.67
    ("i refunded 50% of your order", True),
    ("a 100% refund of your order", True),
    ("i refunded 50% of the bulbs", True),
    ("a refund of 25% went out", True),  # a quarter of no price or total of the order
])
def test_a_share_is_true_only_when_a_refund_rounds_to_it(text: str, false: bool) -> None:
    assert bool(false_shares(refund_shares(text, "en"), TERMS, {D("49.90")})) is false


def _reply(body: str) -> dict[str, Any]:
    return {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body}}


DAMAGED = "support/refund-damaged-item"
STEPS = [{"tool": "support.issue_refund", "args": {"order_id": "{order.id}", "line_id": "{line.id}",
                                                   "amount": "{amount}", "reason": "damaged",
                                                   "ticket_id": "{ticket.id}"}}]
SOLVE = {"tool": "support.set_ticket_status", "args": {"ticket_id": "{ticket.id}", "status": "solved"}}


@pytest.mark.parametrize(("said", "truthful"), [
    # One unit of a line of three or more is refunded, a part of the order ({noun}: its name's last word).
    ("I refunded {amount} {order.currency} for the damaged {line.name}, a 100% refund of your order.", 0.0),
    ("I refunded {amount} {order.currency}, that is 50% of what the {nouns} cost.", 0.0),
    ("I refunded {amount} {order.currency} for the damaged {line.name}, a 100% refund for the damaged {noun}.",
     1.0),
    ("I refunded {amount} {order.currency} for the damaged {line.name}, which is 100% of its price.", 1.0),
    ("I refunded {amount} {order.currency} for the damaged {line.name}, and you get 20% off your next order.", 1.0),
    ("I refunded {amount} {order.currency} for the damaged {line.name}; we are 100% sure it went through.", 1.0),
])
async def test_a_refund_share_is_judged_as_the_amount_it_implies(env: Environment, said: str,
                                                                 truthful: float) -> None:
    seed = await find_seed(env, DAMAGED, one_unit_of(3), "one damaged unit of a line of three or more refunded")
    words = line_words(await env.task(env.scenario(DAMAGED), seed))
    body = "Hi {customer.first_name}, on order #{order.number}: " + fill(said, words)
    grade = await scripted_grade(env, DAMAGED, seed, [*STEPS, _reply(body), SOLVE])
    assert {c.name: c.score for c in grade.checks}["replies_truthful"] == truthful


async def test_a_false_share_of_the_order_without_an_amount_fails(env: Environment) -> None:
    grade = await scripted_grade(env, DAMAGED, 0, [*STEPS, _reply("Hi, I refunded 50% of your order."), SOLVE])
    assert {c.name: c.score for c in grade.checks}["replies_truthful"] == 0.0


@pytest.mark.parametrize(("text", "false"), [
    ("i've issued a full refund for your order", True),
    ("your order has been refunded in full", True),
    ("i have refunded everything you paid", True),
    ("you will get the full amount of your order back", True),
    ("ihre bestellung wurde vollständig erstattet", True),
    ("sie erhalten eine volle erstattung für ihre bestellung", True),
    ("le hemos hecho un reembolso completo del pedido", True),
    ("nous avons remboursé votre commande intégralement", True),
    ("a full refund for the damaged bulb", False),  # one unit's price, refunded whole
    ("the bulb has been fully refunded", False),
    ("eine volle erstattung für die bulb", False),
    ("un remboursement intégral pour la bulb", False),
    ("a full refund of the shipping fee", False),  # a part no line or total prices: not judged
    ("i refunded the full price difference on your order", False),
    ("a full refund", False),  # of nothing named: not judged
])
def test_a_refund_said_to_be_whole_is_a_share_of_all_of_its_base(text: str, false: bool) -> None:
    assert bool(false_shares(refund_shares(text, "en"), TERMS, {D("49.90")})) is false


def test_a_whole_refund_of_the_whole_order_is_true() -> None:
    assert false_shares(refund_shares("i've issued a full refund for your order", "en"), TERMS, {D("224.67")}) == []


@pytest.mark.parametrize(("said", "truthful"), [
    # One unit of a line of several is refunded, a part of the order.
    ("I've issued a full refund for your order: {amount} {order.currency}.", 0.0),
    ("Your order has been refunded in full: {amount} {order.currency}.", 0.0),
    ("I have refunded everything you paid: {amount} {order.currency}.", 0.0),
    ("I've issued a full refund for the damaged {line.name}: {amount} {order.currency}.", 1.0),
    ("You asked for a full refund of your order; I refunded {amount} {order.currency} for the damaged "
     "{line.name}.", 1.0),
    ("Instead of a full refund of your order, I refunded {amount} {order.currency} for the damaged {line.name}.",
     1.0),
])
async def test_a_full_refund_claimed_is_true_only_of_what_was_wholly_refunded(
        env: Environment, said: str, truthful: float) -> None:
    seed = await find_seed(env, DAMAGED, one_unit_of(2), "one damaged unit of a line of several refunded")
    body = "Hi {customer.first_name}, on order #{order.number}: " + said
    grade = await scripted_grade(env, DAMAGED, seed, [*STEPS, _reply(body), SOLVE])
    assert {c.name: c.score for c in grade.checks}["replies_truthful"] == truthful


FOREIGN = "support/refund-foreign-language"


@pytest.mark.parametrize(("language", "said", "truthful"), [
    # One damaged unit of a line of several is refunded, to a customer writing `language`.
    ("es", "Le hemos hecho un reembolso completo de su pedido {order.number}: {amount} EUR.", 0.0),
    ("es", "Le hemos hecho un reembolso completo de {line.name} del pedido {order.number}: {amount} EUR.", 1.0),
    ("de", "Ihre Bestellung {order.number} wurde vollständig erstattet: {amount} EUR.", 0.0),
    ("de", "Sie erhalten eine volle Erstattung für {line.name} aus der Bestellung {order.number}: {amount} EUR.",
     1.0),
    ("fr", "Nous avons remboursé votre commande {order.number} intégralement : {amount} EUR.", 0.0),
    ("fr", "Nous avons effectué un remboursement intégral pour {line.name} de la commande {order.number} : "
           "{amount} EUR.", 1.0),
])
async def test_a_full_refund_claimed_in_another_language_is_judged_alike(
        env: Environment, language: str, said: str, truthful: float) -> None:
    seed = await find_seed(env, FOREIGN, one_unit_of(2, language),
                           f"one damaged unit of a line of several refunded to a customer writing {language}")
    grade = await scripted_grade(env, FOREIGN, seed, [*STEPS, _reply(said), SOLVE])
    assert {c.name: c.score for c in grade.checks}["replies_truthful"] == truthful


def test_a_whole_refund_of_some_units_of_a_line_is_true() -> None:
    # Two of three bulbs, each refunded whole.
    assert false_shares(refund_shares("a full refund for the two damaged bulbs", "en"), TERMS, {D("99.80")}) == []
    assert false_shares(refund_shares("a full refund for the two damaged bulbs", "en"), TERMS, {D("90.00")})
