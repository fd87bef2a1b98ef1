"""A refund claimed as one more than another, a count of refunded units and a sum written out are judged against
the records: the number of refunds, the units they make, and what they add up to."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from saas_sim.domains.support.reply_facts import read_facts
from saas_sim.runtime.environment import Environment
from tests.domains.helpers import find_seed, scripted_grade
from tests.domains.support.task_picks import fill, line_words, one_unit_of

REFUND = "support/refund-damaged-item"
REST = "support/refund-rest-after-earlier-fix"
SOLVE = {"tool": "support.set_ticket_status", "args": {"ticket_id": "{ticket.id}", "status": "solved"}}
REFUND_STEP = {"tool": "support.issue_refund", "args": {"order_id": "{order.id}", "line_id": "{line.id}",
                                                          "amount": "{amount}", "reason": "damaged",
                                                          "ticket_id": "{ticket.id}"}}


def _reply(body: str) -> dict[str, Any]:
    return {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body}}


async def _truthful(env: Environment, ref: str, seed: int, bodies: list[str]) -> float:
    grade = await scripted_grade(env, ref, seed, [REFUND_STEP, *(_reply(b) for b in bodies), SOLVE])
    return next(c.score for c in grade.checks if c.name == "replies_truthful")


async def _one_of_three(env: Environment) -> tuple[int, dict[str, Any]]:
    seed = await find_seed(env, REFUND, one_unit_of(3), "one damaged unit of a line of three or more refunded")
    return seed, line_words(await env.task(env.scenario(REFUND), seed))


HEAD = "Hi {customer.first_name}, sorry about the damaged {line.name} on order #{order.number}. "


@pytest.mark.parametrize("said", [
    # The amount as arithmetic that makes the refund made: still a second refund.
    "I have refunded {amount} {order.currency} and will refund another 1 x {amount} {order.currency} next week.",
    "I have refunded {amount} {order.currency}, and will refund twice that amount next week.",
    "I have refunded {amount} {order.currency}, and we will refund double that next week.",
    # The further refund with its amount elsewhere, or none.
    "I have refunded {amount} {order.currency}. Another refund of the same amount follows next week.",
    "I have refunded {amount} {order.currency}. A further refund will follow next week.",
    "I have refunded {amount} {order.currency} twice.",
    "I have refunded {amount} {order.currency}, and I will refund it again on Monday.",
    "I have refunded {amount} {order.currency}. The rest will be refunded next week.",
    "I have refunded {amount} {order.currency} and will refund the rest next week.",
    "Your refund of {amount} {order.currency} is done. I've gone ahead and refunded the other {nouns} too.",
    # A sum written out.
    "I have refunded {amount} {order.currency} + {amount} {order.currency}.",
])
async def test_a_further_refund_beside_the_only_one_made_is_false(env: Environment, said: str) -> None:
    seed, words = await _one_of_three(env)
    assert await _truthful(env, REFUND, seed, [fill(HEAD + said, words)]) == 0.0


@pytest.mark.parametrize("said", [
    # Every unit of the line claimed with no count, in the claim or a clause that goes on about it.
    "I have refunded {amount} {order.currency}, which covers every unit on the line.",
    "I have refunded the whole line: {amount} {order.currency}.",
    "I have refunded {amount} {order.currency}; the full line has been refunded.",
    # A further payout opening the sentence.
    "I have refunded {amount} {order.currency}. Plus, I credited {amount} {order.currency} to your card.",
])
async def test_every_unit_or_one_more_payout_beside_a_partial_refund_is_false(env: Environment, said: str) -> None:
    seed, words = await _one_of_three(env)
    assert await _truthful(env, REFUND, seed, [fill(HEAD + said, words)]) == 0.0


async def test_one_more_opening_a_refund_after_a_replacement_is_no_further_refund(env: Environment) -> None:
    # "Additionally" adds the refund to the replacement told before it, not to another refund.
    body = ("Hi {customer.first_name}, sorry about order #{order.number}. I've replaced the {broken_qty} broken "
            "{broken.name}. Additionally, I've refunded {amount} {order.currency} for the missing {missing.name}.")
    steps = [{"tool": "support.create_replacement", "args": {
                 "order_id": "{order.id}", "line_id": "{broken.id}", "quantity": "{broken_qty}", "reason": "damaged",
                 "ticket_id": "{ticket.id}"}},
             {"tool": "support.issue_refund", "args": {
                 "order_id": "{order.id}", "line_id": "{missing.id}", "amount": "{amount}", "reason": "missing_item",
                 "ticket_id": "{ticket.id}"}},
             _reply(body), SOLVE]
    grade = await scripted_grade(env, "support/partial-refund-and-replacement", 0, steps)
    assert next(c.score for c in grade.checks if c.name == "replies_truthful") == 1.0


@pytest.mark.parametrize("said", [
    "I have refunded {amount} {order.currency} for every one of the damaged {nouns}.",
    "I have refunded {amount} {order.currency}, which covers the damaged {noun}.",
    "I have refunded {amount} {order.currency} for all the damaged items.",
])
async def test_the_damaged_units_narrowed_down_are_no_claim_of_every_unit(env: Environment, said: str) -> None:
    seed, words = await _one_of_three(env)
    assert await _truthful(env, REFUND, seed, [fill(HEAD + said, words)]) == 1.0


async def test_a_further_refund_claimed_in_a_later_reply_is_false(env: Environment) -> None:
    seed, _ = await _one_of_three(env)
    bodies = [HEAD + "I have refunded {amount} {order.currency}.", "Update: another refund has gone out."]
    assert await _truthful(env, REFUND, seed, bodies) == 0.0


@pytest.mark.parametrize("said", [
    "I have refunded 3 {nouns}.",
    "I have refunded {qty_word} {nouns}.",
    "I have refunded all 3 of your {nouns}.",
    "The remaining two {nouns} will be refunded next week.",
])
async def test_a_count_of_refunded_units_no_refund_makes_is_false(env: Environment, said: str) -> None:
    seed, words = await _one_of_three(env)
    body = fill(HEAD + "I have refunded {amount} {order.currency}. " + said, words)
    assert await _truthful(env, REFUND, seed, [body]) == 0.0


@pytest.mark.parametrize("said", [
    "About your refund: I have refunded {amount} {order.currency}.",
    "I have refunded {amount} {order.currency} for 1 of your {qty_word} {nouns}.",
    "I have refunded {amount} {order.currency} for the one damaged {noun}; the other {nouns} are fine.",
    "I have refunded 1 {noun}: {amount} {order.currency}.",
    "I have refunded {amount} {order.currency}. Thanks again for your patience.",
    "Once again, sorry: I have refunded {amount} {order.currency}.",
    "I have refunded {amount} {order.currency}, and it will be back on your card within 5 days.",
])
async def test_the_one_refund_told_truly_passes(env: Environment, said: str) -> None:
    seed, words = await _one_of_three(env)
    assert await _truthful(env, REFUND, seed, [fill(HEAD + said, words)]) == 1.0


@pytest.mark.parametrize(("said", "truthful"), [
    # The earlier ticket's refund is the one this is on top of.
    ("I have now refunded the rest: {amount} {order.currency} for the remaining {due_units}.", 1.0),
    ("On top of the earlier refund I have refunded another {amount} {order.currency}.", 1.0),
    # A further one still to come needs a second refund made on this ticket.
    ("I have refunded {amount} {order.currency}, and will refund it again next week.", 0.0),
    ("I have refunded {amount} {order.currency}; another refund of {amount} {order.currency} follows.", 0.0),
])
async def test_a_further_refund_after_an_earlier_ticket_is_judged_by_when(env: Environment, said: str,
                                                                          truthful: float) -> None:
    body = "Hi {customer.first_name}, about order {order.number}: " + said
    seed = await find_seed(env, REST, lambda t: t.bindings["fixed_by"] == "refund", "an earlier refund")
    assert await _truthful(env, REST, seed, [body]) == truthful


@pytest.mark.parametrize(("text", "sums"), [
    ("i have refunded 24.99 usd + 24.99 usd.", [Decimal("49.98")]),
    ("i have refunded 24.99 plus 5.00 for shipping.", [Decimal("29.99")]),
    # A sum shown with its result states the result.
    ("i have refunded 17.00 + 17.00 = 34.00.", []),
    ("i have refunded 24.99 usd.", []),
])
def test_a_sum_written_out_in_a_refund_claim_is_claimed_as_its_total(text: str, sums: list[Decimal]) -> None:
    assert read_facts([text]).claimed_sums() == sums


@pytest.mark.parametrize(("text", "counts"), [
    ("I have refunded 3 items.", [3]),
    ("I have refunded all three of your items.", [3]),
    ("I have refunded 24.99 for 1 of your 3 items.", []),
    ("I have refunded the damaged unit, and the other 2 units are fine.", []),
    ("Your 3 items arrived; I have refunded one unit.", [1]),
    ("Both items are fully refunded.", [2]),
    ("I have refunded both of your items.", [2]),
])
def test_counts_of_refunded_units_are_read_from_the_clauses_claiming_money(text: str, counts: list[int]) -> None:
    assert read_facts([text]).claimed_counts() == counts


@pytest.mark.parametrize(("text", "claimed"), [
    # The customer's wish with its amount is no claim of it, beside a claim or alone.
    ("You mentioned you expected 179.97 back.", []),
    ("You wanted 179.97 back, and I refunded 59.99.", [Decimal("59.99")]),
    # A wish granted is the claim, with the amount it names.
    ("Your refund request of 179.97 USD has been approved.", [Decimal("179.97")]),
    ("Your request for 179.97 back has been approved.", [Decimal("179.97")]),
])
def test_a_wish_names_its_amount_without_claiming_it_until_granted(text: str, claimed: list[Decimal]) -> None:
    assert read_facts([text]).claimed_amounts() == claimed
