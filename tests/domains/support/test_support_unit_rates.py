"""Money stated per unit of the order's lines: rates by any noun of a line, counted rates, and line prices."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from saas_sim.domains.support.reply_facts import read_facts
from saas_sim.domains.support.setup_helpers import money
from saas_sim.domains.support.tool_helpers import REFUND_LIMIT
from saas_sim.domains.support.unit_rates import (
    LineTerms,
    OrderTerms,
    per_unit_amounts,
    products,
    rate_lines,
    rate_makes,
    unit_counts,
)
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.task import TaskInstance
from tests.domains.helpers import find_seed, scripted_grade
from tests.domains.support.task_picks import fill, line_words, noun_of, one_unit_of, other_line

D = Decimal
BULBS = LineTerms(frozenset({"bulb", "bulbs", "lamp", "lamps"}), D("12.50"), D("37.50"), 3, True)
BOARDS = LineTerms(frozenset({"board", "boards"}), D("24.99"), D("74.97"), 3, False)
TERMS = OrderTerms((BULBS, BOARDS), D("112.47"))


def _reply(body: str) -> dict[str, Any]:
    return {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body}}


SOLVE = {"tool": "support.set_ticket_status", "args": {"ticket_id": "{ticket.id}", "status": "solved"}}


async def _truthful(env: Environment, ref: str, seed: int, refund: dict[str, Any], body: str) -> float:
    grade = await scripted_grade(env, ref, seed, [refund, _reply(body), SOLVE])
    return {c.name: c.score for c in grade.checks}["replies_truthful"]


async def _several_units(env: Environment, ref: str, least: int = 2) -> tuple[int, dict[str, Any]]:
    """A seed of `ref` (a price drop, or one damaged unit refunded) on a line of at least `least` units, found (a
    version bump re-seeds every task), and the words for its line (`task_picks.line_words`). A damaged line's
    whole total is within the agent's refund limit, since tests refund it whole without an approval."""
    def damaged_fits(task: TaskInstance) -> bool:
        return one_unit_of(least)(task) and Decimal(str(task.bindings["line"]["total"])) <= REFUND_LIMIT

    fits = damaged_fits if ref == DAMAGED else (lambda t: int(t.bindings["qty"]) >= least)
    seed = await find_seed(env, ref, fits, f"a line of at least {least} units")
    return seed, line_words(await env.task(env.scenario(ref), seed))


@pytest.mark.parametrize("text", [
    "that is 12.50 per damaged bulb", "12.50 usd per lamp", "12.50 for every bulb you bought",
    "12.50 for each broken lamp", "12.50/bulb", "12.50 per unit", "12.50 each",
])
def test_a_rate_per_any_noun_of_the_lines_is_read_as_a_rate(text: str) -> None:
    assert per_unit_amounts(text, "en", TERMS.nouns) == [D("12.50")]


@pytest.mark.parametrize("text", [
    "12.50 per month", "12.50 per order", "12.50 per cent", "12.50 per month for the bulb", "12.50 and new bulbs",
])
def test_a_rate_of_no_unit_of_the_lines_is_no_rate(text: str) -> None:
    assert per_unit_amounts(text, "en", TERMS.nouns) == []


@pytest.mark.parametrize(("text", "count"), [
    ("5.00 on each of your three lamps", 3), ("5.00 for each of the 2 damaged bulbs", 2),
    ("5.00 for every one of your three bulbs", 3), ("2 x 5.00", 2),
])
def test_a_rate_on_each_of_a_stated_count_multiplies_out(text: str, count: int) -> None:
    assert products(text, "en", TERMS.nouns) == [(D("5.00"), count)]


def test_a_counted_rate_in_a_refund_claim_is_the_sum_it_makes() -> None:
    facts = read_facts(["I have refunded 12.50 USD on each of your three lamps."])
    assert facts.claimed_amounts(TERMS) == [D("37.50")] and facts.claimed_rates(TERMS) == []


def test_without_the_order_a_rate_per_a_product_noun_is_still_unknown() -> None:
    facts = read_facts(["I have refunded 37.50 USD, that is 12.50 USD per bulb."])
    assert facts.claimed_rates(TERMS) == [D("12.50")]
    assert D("12.50") in facts.claimed_amounts()


@pytest.mark.parametrize("said", [
    "I refunded 37.50 USD for the bulbs; the boards at 24.99 USD each stay as they are.",
    "I refunded 37.50 USD for the bulbs, while your boards at 24.99 USD each remain as they were.",
    "I refunded 37.50 USD for the bulbs; the board at 24.99 USD is fine.",
    "I refunded 37.50 USD for the bulbs; the boards, at 24.99 USD each, were fine and stay as they are.",
    "I refunded 37.50 USD for the bulbs, while the board (24.99 USD) stays as it is.",
    "I refunded 37.50 USD for the bulbs - the boards at 24.99 USD apiece are still on your order.",
])
def test_the_price_of_a_line_left_alone_beside_a_refund_is_no_refund_claim(said: str) -> None:
    facts = read_facts([said])
    assert facts.claimed_amounts(TERMS) == [D("37.50")] and facts.claimed_rates(TERMS) == []


@pytest.mark.parametrize("said", [
    "I refunded 37.50 USD for the bulbs and 24.99 USD each for the boards.",
    "I refunded 37.50 USD for the bulbs and the boards at 24.99 USD each.",
    "I refunded 37.50 USD for the bulbs; the boards at 24.99 USD each too.",
    "I refunded 37.50 USD for the bulbs; the boards at 24.99 USD each will be refunded next week.",
    "I refunded 37.50 USD for the bulbs; the boards at 24.99 USD each are on their way back to you.",
    "I refunded 37.50 USD for the bulbs; 24.99 USD for the board is on its way too.",
    "I refunded 37.50 USD for the bulbs and the boards at 24.99 USD each, which stay with you.",
    "I refunded 37.50 USD for the bulbs; the board at 24.99 USD is included.",
    "I refunded 37.50 USD for the bulbs; the boards at 24.99 USD each are taken care of.",
    "I refunded 37.50 USD for the bulbs; the boards at 24.99 USD each will follow next week.",
    "I refunded 37.50 USD for the bulbs and the board, 24.99 USD.",
])
def test_a_refund_of_the_line_left_alone_is_still_claimed(said: str) -> None:
    facts = read_facts([said])
    assert D("24.99") in facts.claimed_amounts(TERMS) + facts.claimed_rates(TERMS)


def test_a_price_of_a_refunded_line_is_still_judged_as_its_refund() -> None:
    facts = read_facts(["I refunded 24.99 USD for the boards; the bulbs at 12.50 USD each stay as they are."])
    assert facts.claimed_rates(TERMS) == [D("12.50")]


PRICE_DROP = "support/refund-price-drop"
PRICE_DROP_REFUND = {"tool": "support.issue_refund", "args": {
    "order_id": "{order.id}", "line_id": "{line.id}", "amount": "{amount}", "reason": "other",
    "ticket_id": "{ticket.id}"}}


@pytest.mark.parametrize("said", [
    # The price of several units of a line dropped by {diff} each ({noun}: the last word of its name).
    "I have refunded {amount} {order.currency}, that is {diff} {order.currency} per damaged {noun}.",
    "I have refunded {amount} {order.currency}, {diff} {order.currency} per {line.name}.",
    "I have refunded {diff} {order.currency} on each of your {qty_word} {nouns}, {amount} {order.currency} in total.",
    "I have refunded {diff} {order.currency} for every {noun} you bought, {amount} {order.currency} in total.",
    "I have refunded {amount} {order.currency}: {diff} {order.currency} for each of the {qty} {nouns}.",
])
async def test_a_true_refund_stated_per_named_unit_is_true(env: Environment, said: str) -> None:
    seed, words = await _several_units(env, PRICE_DROP)
    body = "Hi {customer.first_name}, about order #{order.number}: " + fill(said, words)
    assert await _truthful(env, PRICE_DROP, seed, PRICE_DROP_REFUND, body) == 1.0


@pytest.mark.parametrize("said", [
    "I have refunded {amount} {order.currency} on each of your {qty_word} {nouns}.",
    "I have refunded {diff} {order.currency} on each of your {other_qty_word} {nouns}.",
    "I have refunded {amount} {order.currency}, that is {diff} {order.currency} per month.",
])
async def test_a_rate_or_count_that_does_not_make_the_refund_is_false(env: Environment, said: str) -> None:
    seed, words = await _several_units(env, PRICE_DROP)
    body = "Hi {customer.first_name}, about order #{order.number}: " + fill(said, words)
    assert await _truthful(env, PRICE_DROP, seed, PRICE_DROP_REFUND, body) == 0.0


DAMAGED = "support/refund-damaged-item"
DAMAGED_REFUND = {"tool": "support.issue_refund", "args": {
    "order_id": "{order.id}", "line_id": "{line.id}", "amount": "{amount}", "reason": "damaged",
    "ticket_id": "{ticket.id}"}}


@pytest.mark.parametrize(("said", "truthful"), [
    # The order has another line ({other_nouns} at {other_price}), which nobody refunded.
    ("I refunded the {amount} {order.currency} for the damaged {line.name}; the {other_nouns} at {other_price} "
     "{order.currency} each stay as they are.", 1.0),
    ("I refunded the {amount} {order.currency} for the damaged {line.name}; the {other_noun} at {other_price} "
     "{order.currency} is fine.", 1.0),
    ("I refunded {amount} {order.currency} for the damaged {line.name} and {other_price} {order.currency} each for "
     "the {other_nouns}.", 0.0),
    ("I refunded {amount} {order.currency} for the damaged {line.name} and the {other_nouns} at {other_price} "
     "{order.currency} each.", 0.0),
])
async def test_another_lines_price_beside_a_refund_is_no_claim_but_its_refund_is(
        env: Environment, said: str, truthful: float) -> None:
    def fits(task: TaskInstance) -> bool:
        other, b = other_line(task), task.bindings
        return other is not None and money(other.unit_price) not in {
            b["amount"], b["line"]["unit_price"], b["line"]["total"], b["order"]["total"]}

    seed = await find_seed(env, DAMAGED, fits, "another line at a price of its own in the order")
    other = other_line(await env.task(env.scenario(DAMAGED), seed))
    noun, nouns = noun_of(other.name)
    words = {"other_noun": noun, "other_nouns": nouns, "other_price": money(other.unit_price)}
    body = "Hi {customer.first_name}, on order #{order.number}: " + fill(said, words)
    assert await _truthful(env, DAMAGED, seed, DAMAGED_REFUND, body) == truthful


@pytest.mark.parametrize(("text", "counts"), [
    ("I refunded 12.50 per bulb for your 3 bulbs", [3]), ("for the one damaged lamp, 12.50 per unit", [1]),
    ("12.50 bulbs", []), ("your 3 boards are fine", []), ("2 x 12.50", []),
])
def test_a_count_of_refunded_units_is_read_before_their_noun(text: str, counts: list[int]) -> None:
    assert unit_counts(text, "en", TERMS.refunded_nouns) == counts


@pytest.mark.parametrize(("rate", "counts", "sums", "true"), [
    (D("12.50"), (), {D("37.50")}, True),  # a cut on each of the line's three units
    (D("37.50"), (), {D("37.50")}, False),  # the whole refund said per unit: it implies 112.50
    (D("12.50"), (), {D("25.00")}, True),  # the unit price on two whole units of three
    (D("5.00"), (2,), {D("10.00")}, True),  # a cut on the two units the reply counts
    (D("5.00"), (), {D("10.00")}, False),  # no count stated: every unit of the line, 15.00
    (D("37.50"), (3,), {D("37.50")}, False),
])
def test_a_rate_is_judged_by_the_total_it_implies(rate: Decimal, counts: tuple[int, ...], sums: set[Decimal],
                                                 true: bool) -> None:
    assert rate_makes(rate, counts, sums, [BULBS]) is true


@pytest.mark.parametrize(("said", "truthful"), [
    # The price of several units dropped by {diff} each; {amount} is the whole refund.
    ("I have refunded {amount} {order.currency} per {line.name}.", 0.0),
    ("I have refunded {amount} {order.currency}, that is {amount} {order.currency} per unit.", 0.0),
    ("I have refunded {amount} {order.currency} per {noun} for your {qty} {nouns}.", 0.0),
    ("I have refunded {diff} {order.currency} per {noun} for your {qty} {nouns}.", 1.0),
    ("I have refunded {amount} {order.currency}, that is {diff} {order.currency} per unit.", 1.0),
])
async def test_the_whole_refund_said_per_unit_is_false(env: Environment, said: str, truthful: float) -> None:
    seed, words = await _several_units(env, PRICE_DROP)
    body = "Hi {customer.first_name}, about order #{order.number}: " + fill(said, words)
    assert await _truthful(env, PRICE_DROP, seed, PRICE_DROP_REFUND, body) == truthful


@pytest.mark.parametrize(("amount", "said", "truthful"), [
    # A line of three or more units: two of them refunded whole, or the whole line.
    ("{two_units}", "I have refunded {two_units} {order.currency}, that is {line.unit_price} {order.currency} per "
                    "{noun}.", 1.0),
    ("{two_units}", "I have refunded {two_units} {order.currency} per {noun}.", 0.0),
    ("{line.total}", "I have refunded {line.total} {order.currency}, {line.unit_price} {order.currency} per unit.",
     1.0),
    ("{line.total}", "I have refunded {line.total} {order.currency} per unit.", 0.0),
])
async def test_a_rate_on_whole_units_is_true_at_the_unit_price(env: Environment, amount: str, said: str,
                                                              truthful: float) -> None:
    seed, words = await _several_units(env, DAMAGED, 3)
    refund = {"tool": "support.issue_refund", "args": {"order_id": "{order.id}", "line_id": "{line.id}",
                                                        "amount": fill(amount, words), "reason": "damaged",
                                                        "ticket_id": "{ticket.id}"}}
    body = "Hi {customer.first_name}, on order #{order.number}: " + fill(said, words)
    assert await _truthful(env, DAMAGED, seed, refund, body) == truthful


@pytest.mark.parametrize(("text", "lang"), [
    ("Ich habe Ihnen jeweils 37,50 € erstattet.", "de"), ("Ich habe Ihnen 37,50 € pro Stück erstattet.", "de"),
    ("Le hemos reembolsado 37,50 € por unidad.", "es"), ("Nous vous avons remboursé 37,50 € pièce.", "fr"),
    ("Nous vous avons remboursé 37,50 € par article.", "fr"),
])
def test_the_whole_refund_said_per_unit_is_false_in_each_language(text: str, lang: str) -> None:
    # 37.50 is the whole refund of three bulbs at 12.50: said per unit it implies 112.50.
    facts = read_facts([text])
    assert facts.claimed_rate_counts(TERMS) == [(D("37.50"), (), ())]
    assert not rate_makes(D("37.50"), (), {D("37.50")}, [BULBS])


@pytest.mark.parametrize(("said", "truthful"), [
    # The refunded line has several units (the order may hold one-unit lines too): a rate per unit of it is
    # judged over its own units.
    ("That is {amount} {order.currency} per {line.name}.", 0.0),
    ("That is {diff} {order.currency} per {line.name}.", 1.0),
])
async def test_a_rate_said_apart_from_the_refund_is_judged_over_the_units_of_its_line(
        env: Environment, said: str, truthful: float) -> None:
    body = ("Hi {customer.first_name}, about order #{order.number}: I have refunded {amount} {order.currency} for "
            "your {qty} units. " + said)
    seed, _ = await _several_units(env, PRICE_DROP)
    assert await _truthful(env, PRICE_DROP, seed, PRICE_DROP_REFUND, body) == truthful


def test_a_rate_names_the_lines_its_unit_is_of() -> None:
    assert rate_lines("37.50 per bulb and 24.99 each", "en", TERMS) == {D("37.50"): frozenset({0}),
                                                                        D("24.99"): frozenset()}


@pytest.mark.parametrize(("said", "named"), [
    ("That is 56.04 USD per Glow Desk Lamp.", {0}),
    ("56.04 per Glow Smart Bulb 4-pack", {1}),
    ("56.04 per Glow", {0, 1}),  # the brand alone names both
    ("56.04 per lamp", {0}),
    ("56.04 per unit", set()),
])
def test_a_rate_names_the_line_its_whole_product_name_names(said: str, named: set[int]) -> None:
    # The rate's match ends at the name's first noun; a brand two lines share bound the rate to both, so a whole
    # refund of four lamps said per lamp was judged true as the price cut on the one-unit bulb line.
    lamp = frozenset({"glow", "glows", "desk", "desks", "lamp", "lamps"})
    bulbs = frozenset({"glow", "glows", "smart", "smarts", "bulb", "bulbs", "4-pack", "4-packs", "pack", "packs"})
    lines = (LineTerms(lamp, Decimal("45.00"), Decimal("180.00"), 4, True),
             LineTerms(bulbs, Decimal("49.90"), Decimal("49.90"), 1, False))
    assert rate_lines(said, "en", OrderTerms(lines, Decimal("234.89"))) == {Decimal("56.04"): frozenset(named)}
