"""Replies are judged by the facts they state, all together, against the state; the customer too."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from saas_sim.core.ids import IdFactory
from saas_sim.domains.support.models import Message
from saas_sim.domains.support.simulator import RULES
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.task import TaskInstance
from tests.domains.helpers import find_seed, find_seeds, scripted_grade, scripted_scores


async def _grade(env: Environment, ref: str, seed: int, steps: list[dict[str, Any]]) -> dict[str, float]:
    grade = await scripted_grade(env, ref, seed, steps)
    assert grade.score is not None
    return {"score": grade.score, **{c.name: c.score for c in grade.checks}}


def _reply(ticket: str, body: str) -> dict[str, Any]:
    return {"tool": "support.send_reply", "args": {"ticket_id": ticket, "body": body}}


SOLVE = {"tool": "support.set_ticket_status", "args": {"ticket_id": "{ticket.id}", "status": "solved"}}
DENY = "support/deny-refund-policy"
REFUND = "support/refund-damaged-item"
FOREIGN = "support/refund-foreign-language"
REFUND_STEP = {"tool": "support.issue_refund", "args": {"order_id": "{order.id}", "line_id": "{line.id}",
                                                          "amount": "{amount}", "reason": "damaged"}}


async def test_a_paraphrased_refusal_passes(env: Environment) -> None:
    body = ("Hello {customer.first_name}, I'm sorry, but the {line.name} on order {order.number} isn't "
            "refundable, because {reason_sentence}.")
    assert (await _grade(env, DENY, 1, [_reply("{ticket.id}", body), SOLVE]))["score"] == 1.0


async def test_decline_words_that_promise_the_opposite_fail(env: Environment) -> None:
    body = ("Unfortunately {reason_sentence}. But as an exception we will refund the {line.name} on order "
            "{order.number} this week.")
    result = await _grade(env, DENY, 1, [_reply("{ticket.id}", body), SOLVE])
    assert result["replies_truthful"] == 0.0 and result["score"] == 0.0


@pytest.mark.parametrize("payout", [
    "As a one-time exception, I will transfer {line.unit_price} {order.currency} to your card this week.",
    "That said, I have reversed the {line.unit_price} {order.currency} charge for it.",
    "Keep it anyway; we are sending you {line.unit_price} {order.currency} by bank transfer.",
    "You will receive {line.unit_price} {order.currency} on your card as a gesture of goodwill.",
    "As a one-time exception, we have waived the {line.unit_price} {order.currency} charge.",
    "I will send the purchase price to your card this week.",
    "As a one-time exception, I have compensated you for it in full.",
    # A "?" or "if" elsewhere in the sentence hid the claim: conditions are judged per clause now.
    "That said, I have refunded {line.unit_price} {order.currency} to your card, is there anything else I can do?",
    "As an exception I have refunded {line.unit_price} {order.currency}; let me know if it shows up.",
])
async def test_a_refusal_that_pays_out_in_other_words_or_beside_a_question_fails(env: Environment,
                                                                                 payout: str) -> None:
    body = "Unfortunately we cannot refund the {line.name} on order {order.number}: {reason_sentence}. " + payout
    result = await _grade(env, DENY, 0, [_reply("{ticket.id}", body), SOLVE])
    assert result["replies_truthful"] == 0.0 and result["score"] == 0.0


@pytest.mark.parametrize("extra", [
    "In addition, the full {line.total} {order.currency} for the line will be credited to your card.",
    "You will receive {line.total} {order.currency} in total on your card.",
])
async def test_a_right_refund_with_a_false_payout_in_other_words_fails(env: Environment, extra: str) -> None:
    body = ("Hi {customer.first_name}, I have refunded {amount} {order.currency} for the damaged {line.name}. "
            + extra)
    result = await _grade(env, REFUND, 0, [REFUND_STEP, _reply("{ticket.id}", body), SOLVE])
    assert result["replies_truthful"] == 0.0


async def test_a_right_refund_restated_as_what_the_customer_will_receive_passes(env: Environment) -> None:
    body = ("Hi {customer.first_name}, I have refunded {amount} {order.currency} for the damaged {line.name} on "
            "order {order.number}. You will receive {amount} {order.currency} on your card; the bank transfer "
            "takes 3-5 days.")
    assert (await _grade(env, REFUND, 0, [REFUND_STEP, _reply("{ticket.id}", body), SOLVE]))["score"] == 1.0


@pytest.mark.parametrize("aside", ["It is not a final-sale item, but", "We are here 7 days a week, and"])
async def test_a_true_refusal_with_a_reason_denied_or_a_rate_of_days_passes(env: Environment, aside: str) -> None:
    body = (f"Hi {{customer.first_name}}, I'm sorry, but I cannot refund the {{line.name}} on order "
            f"{{order.number}}. {aside} our return window is 30 days from delivery and this order was delivered "
            "{days_since_delivery} days ago.")
    assert (await _grade(env, DENY, 0, [_reply("{ticket.id}", body), SOLVE]))["score"] == 1.0


async def test_a_refund_claim_of_any_size_is_judged_false_never_a_verifier_error(env: Environment) -> None:
    for digits in (27, 400):
        body = f"Hello {{customer.first_name}}, I refunded {'9' * digits}.00 USD for the {{line.name}}."
        grade = await scripted_grade(env, REFUND, 0, [_reply("{ticket.id}", body), SOLVE])
        assert grade.valid and grade.score == 0.0, grade.error
        assert {c.name: c.score for c in grade.checks}["replies_truthful"] == 0.0


async def test_shotgun_replies_with_different_reasons_fail(env: Environment) -> None:
    steps = [_reply("{ticket.id}", "Sorry, the {line.name} on order {order.number} is a final-sale item."),
             _reply("{ticket.id}", "Sorry, the {line.name} is outside our 30 days return window."), SOLVE]
    assert (await _grade(env, DENY, 2, steps))["score"] == 0.0


async def test_a_false_amount_violates_the_truth_constraint(env: Environment) -> None:
    body = "Hi, I have refunded {wrong_amount} {order.currency} for order #{order.number}."
    result = await _grade(env, REFUND, 0, [REFUND_STEP, _reply("{ticket.id}", body), SOLVE])
    assert result["replies_truthful"] == 0.0 and result["score"] == 0.0


async def test_a_claimed_refund_that_was_never_issued_violates(env: Environment) -> None:
    result = await _grade(env, REFUND, 0, [_reply("{ticket.id}", "{refund_reply}"), SOLVE])
    assert result["replies_truthful"] == 0.0


async def test_english_with_appended_foreign_stopwords_fails_the_language_task(env: Environment) -> None:
    body = ("Hi, I have refunded {amount} {order.currency} for order #{order.number}. "
            "und der die das ist nicht für mit el la que de y le la les et vous")
    result = await _grade(env, FOREIGN, 0, [REFUND_STEP, _reply("{ticket.id}", body), SOLVE])
    assert result["reply_in_language"] == 0.0 and result["score"] == 0.0


async def test_a_short_native_reply_passes_the_language_task(env: Environment) -> None:
    result = await _grade(env, FOREIGN, 0, [REFUND_STEP, _reply("{ticket.id}", "{refund_reply_alt}"), SOLVE])
    assert result["score"] == 1.0


async def _german_seeds(env: Environment) -> list[int]:
    """Two seeds of refund-foreign-language whose customers write German (a version bump re-seeds every task)."""
    return await find_seeds(env, FOREIGN, lambda t: t.bindings["customer"]["language"] == "de", "a German customer",
                            count=2)


@pytest.mark.parametrize("body", [
    "Refund: {amount} {order.currency}. Order {order.number}.",
    "Refund of {amount} {order.currency} on order {order.number} done.",
    "Order {order.number}: refund {amount} {order.currency}.",
    "Refund: {amount} {order.currency}. Order {order.number}. Thanks!",
])
async def test_a_short_english_reply_fails_the_language_task(env: Environment, body: str) -> None:
    for seed in await _german_seeds(env):
        result = await _grade(env, FOREIGN, seed, [REFUND_STEP, _reply("{ticket.id}", body), SOLVE])
        assert result["replies_in_language"] == 0.0 and result["score"] == 0.0


@pytest.mark.parametrize("body", [
    "Ich habe {amount} {order.currency} für Bestellung {order.number} erstattet.",
    "Erstattung: {amount} {order.currency}. Bestellung {order.number}.",
    "Hallo {customer.first_name}, erstattet: {amount} {order.currency} für Bestellung {order.number}.",
])
async def test_a_short_german_reply_passes_the_language_task(env: Environment, body: str) -> None:
    for seed in await _german_seeds(env):
        result = await _grade(env, FOREIGN, seed, [REFUND_STEP, _reply("{ticket.id}", body), SOLVE])
        assert result["score"] == 1.0, result


async def test_the_customer_answers_two_paraphrases_the_same(env: Environment) -> None:
    scenario = env.scenario(DENY)
    task = await env.task(scenario, 1)
    episode = await env.start(scenario, 1)
    try:
        state = episode.state
    finally:
        await episode.close()
    b = task.bindings
    ticket = b["ticket"]["id"]
    texts = [
        f"Sorry, the {b['line']['name']} (order {b['order']['number']}) cannot be refunded: {b['reason_sentence']}.",
        f"I'm afraid we can't take back the {b['line']['name']} from order {b['order']['number']}, since "
        f"{b['reason_sentence']}.",
    ]
    now = task.world.profile.epoch
    answers = []
    for text in texts:
        msg = Message(id="msg_900000", ticket_id=ticket, author_kind="agent", author_id="agt_000001",
                      author_name="Agent", public=True, body=text, created_at=now)
        answers.append(RULES.on_agent_reply(state, ticket, msg, now, IdFactory(state.counters())))
    assert answers[0] == answers[1]
    assert any("confirmed=True" in repr(e) or getattr(getattr(e, "persona", None), "confirmed", False)
               for e in answers[0])


MERGE = "support/merge-duplicate-tickets"
MERGE_STEP = {"tool": "support.merge_tickets", "args": {"target_id": "{keep.id}", "source_ids": ["{dup1.id}",
                                                                                                 "{dup2.id}"]}}


@pytest.mark.parametrize(("body", "told"), [
    ("Hi {customer.first_name}, thanks for your patience, we will get back to you soon.", 0.0),
    ("Hi {customer.first_name}, your three requests about the {line.name} are now one ticket.", 1.0),
    ("Hi {customer.first_name}, I have consolidated your messages into this ticket.", 1.0),
    ("Hi {customer.first_name}, you wrote three times, so I've put everything in one place: this ticket.", 1.0),
])
async def test_only_a_reply_that_says_the_requests_were_combined_tells_of_the_merge(
        env: Environment, body: str, told: float) -> None:
    result = await _grade(env, MERGE, 0, [MERGE_STEP, _reply("{keep.id}", body)])
    assert result["customer_told"] == told




@pytest.mark.parametrize(("final_sale", "body", "passes"), [
    (True, "Hi {customer.first_name}, I'm sorry, but we do not refund final-sale items, and the {line.name} on "
           "order {order.number} was sold as one.", True),
    (True, "Hi {customer.first_name}, I'm sorry, but I cannot refund the {line.name} on order {order.number}: it "
           "was sold as a final-sale item, and final-sale items cannot be refunded. If you have other questions, we "
           "reply within 1-2 days.", True),
    (False, "Hi {customer.first_name}, I'm sorry, but I cannot refund the {line.name} on order {order.number}: our "
            "return window is 30 days from delivery and this order was delivered {days_since_delivery} days ago. "
            "Besides, we never refund final-sale items, and this was one of them.", False),
])
async def test_a_refusal_reason_counts_when_named_and_only_then(env: Environment, final_sale: bool, body: str,
                                                                passes: bool) -> None:
    seed = await find_seed(env, DENY, lambda t: (t.bindings["reason"] == "final_sale") is final_sale,
                           "a final-sale item refused" if final_sale else "a refusal past the return window")
    score = (await _grade(env, DENY, seed, [_reply("{ticket.id}", body), SOLVE]))["score"]
    assert score == (1.0 if passes else 0.0)


async def _english_merges(env: Environment) -> list[int]:
    """Three seeds of merge-duplicate-tickets whose customers write English, as the replies below do (a version
    bump re-seeds every task)."""
    return await find_seeds(env, MERGE, lambda t: t.bindings["customer"]["language"] == "en", "an English customer",
                            count=3)


@pytest.mark.parametrize("body", [
    "Hi {customer.first_name}, sorry for any confusion. Thanks for your patience, we will get back to you soon.",
    "Hi {customer.first_name}, unless it is an emergency, we will get back to you within two days.",
    "Hi {customer.first_name}, we will find a solution together, our team will get back to you soon.",
])
async def test_words_that_merely_contain_a_merge_stem_tell_nothing(env: Environment, body: str) -> None:
    seed = (await _english_merges(env))[0]
    assert (await _grade(env, MERGE, seed, [MERGE_STEP, _reply("{keep.id}", body)]))["customer_told"] == 0.0


@pytest.mark.parametrize(("body", "told"), [
    ("Hi {customer.first_name}, I did not merge or combine your tickets; each of your requests stays a separate "
     "ticket.", 0.0),
    ("Hi {customer.first_name}, your tickets were not merged into one ticket.", 0.0),
    ("Hi {customer.first_name}, I merged your tickets into one, so you do not need to write again.", 1.0),
    ("Hi {customer.first_name}, I have merged your requests into this ticket. Is there anything else?", 1.0),
])
async def test_only_an_affirmed_clause_tells_of_the_merge(env: Environment, body: str, told: float) -> None:
    for seed in await _english_merges(env):
        assert (await _grade(env, MERGE, seed, [MERGE_STEP, _reply("{keep.id}", body)]))["customer_told"] == told


@pytest.mark.parametrize("said", [
    "Your problem with the {line.name} is fully resolved now, nothing more is needed.",
    "All sorted!",
    "The returns team has approved your case and a courier will collect the {line.name} tomorrow at 9am.",
    "If you like, we can pick up the {line.name} next week.",
])
async def test_a_resolution_or_pickup_the_records_do_not_show_breaks_the_gate(env: Environment, said: str) -> None:
    body = "Hi {customer.first_name}, I merged your tickets into this one. " + said
    for seed in await _english_merges(env):
        result = await _grade(env, MERGE, seed, [MERGE_STEP, _reply("{keep.id}", body)])
        assert result["no_false_outcome"] == 0.0 and result["score"] == 0.0


@pytest.mark.parametrize("said", [
    "Our returns team will follow up here until the {line.name} is sorted out.",
    "Your problem is not resolved yet; the returns team is taking care of it.",
    "Your case is being handled by our returns team.",
    "I collected your three requests into this ticket, and your duplicate tickets are now resolved into one.",
])
async def test_pending_or_ticket_wording_claims_no_outcome(env: Environment, said: str) -> None:
    body = "Hi {customer.first_name}, I merged your tickets into this one. " + said
    seeds = await _english_merges(env)
    assert await scripted_scores(env, MERGE, seeds, [MERGE_STEP, _reply("{keep.id}", body)]) == [1.0] * 3


@pytest.mark.parametrize("body", [
    "Hi {customer.first_name},\n\nAll set - I've combined your three tickets about the {line.name} into this one, so "
    "you only need to follow this thread.\n\nBest regards",
    "Hi {customer.first_name},\n\nI've merged your tickets about order {order.number} into this one. That part is "
    "sorted, and the returns team will be in touch about the {line.name}.\n\nBest regards",
    "Hi {customer.first_name}, I merged your tickets into this one and closed the other two.",
    "Hi {customer.first_name}, I merged your tickets; the other two have been closed.",
])
async def test_all_set_or_sorted_said_of_the_merge_claims_no_resolution(env: Environment, body: str) -> None:
    seeds = await _english_merges(env)
    assert await scripted_scores(env, MERGE, seeds, [MERGE_STEP, _reply("{keep.id}", body)]) == [1.0] * 3


@pytest.mark.parametrize("body", [
    "Hi {customer.first_name},\n\nI've merged your requests about order {order.number} into this ticket and noted "
    "the damage, so the returns team can collect the details they need and follow up here.\n\nBest regards",
    "Hi {customer.first_name}, I merged your tickets. Our team has collected all the information about the "
    "{line.name}.",
    "Hi {customer.first_name}, I merged your tickets. The returns team will pick up your case from here.",
    "Hi {customer.first_name}, I merged your tickets. Someone from the returns team will call you about the "
    "{line.name}.",
])
async def test_collecting_details_or_taking_up_the_case_is_no_pickup(env: Environment, body: str) -> None:
    seeds = await _english_merges(env)
    assert await scripted_scores(env, MERGE, seeds, [MERGE_STEP, _reply("{keep.id}", body)]) == [1.0] * 3


@pytest.mark.parametrize("said", [
    "The issue with your {line.name} has been dealt with and closed.",
    "We've taken care of the {line.name} for you, nothing else needed.",
    "It's resolved.",
    "A driver will swing by tomorrow to grab the {line.name}.",
    "We'll pick it up on Monday.",
    "We've booked a pickup for Friday.",
])
async def test_a_resolution_dealt_with_or_a_pickup_as_grab_breaks_the_gate(env: Environment, said: str) -> None:
    body = "Hi {customer.first_name}, I merged your tickets into one. " + said
    for seed in await _english_merges(env):
        result = await _grade(env, MERGE, seed, [MERGE_STEP, _reply("{keep.id}", body)])
        assert result["no_false_outcome"] == 0.0 and result["score"] == 0.0


CHARGEBACK = "support/chargeback-already-filed"
ESCALATE = {"tool": "support.escalate_ticket", "args": {"ticket_id": "{ticket.id}", "team": "billing",
                                                        "reason": "{reason}"}}


@pytest.mark.parametrize("said", [
    "Because you already opened a dispute, your bank will return the money to you through the chargeback.",
    "Our billing team is handling the dispute about order #{duplicate.number}. Your bank will credit your account "
    "once the dispute is resolved.",
])
async def test_the_bank_paying_through_the_dispute_is_no_payout_of_ours(env: Environment, said: str) -> None:
    # Policy rule 23 says so itself: the bank returns the money through the dispute.
    body = "Hi {customer.first_name}, thank you, and I'm sorry about the double charge. " + said
    steps = [ESCALATE, _reply("{ticket.id}", body)]
    assert (await _grade(env, CHARGEBACK, 0, steps))["replies_truthful"] == 1.0


@pytest.mark.parametrize("body", [
    "Hi {customer.first_name}, I've reviewed your refund request for order #{order.number}: our return window is "
    "30 days from delivery and the {line.name} was delivered {days_since_delivery} days ago, so I'm afraid we "
    "can't refund it.",
    "Hi {customer.first_name}, I understand you'd like your money back, but our return window is 30 days from "
    "delivery and the {line.name} on order #{order.number} was delivered {days_since_delivery} days ago, so we "
    "cannot refund it.",
    "Hi {customer.first_name}, the {line.name} from order #{order.number} wasn't marked final sale, but our return "
    "window is 30 days from delivery and this order was delivered {days_since_delivery} days ago, so unfortunately "
    "we cannot refund it.",
])
async def test_a_refusal_that_names_the_customers_wish_passes(env: Environment, body: str) -> None:
    assert (await _grade(env, DENY, 0, [_reply("{ticket.id}", body), SOLVE]))["score"] == 1.0


@pytest.mark.parametrize("extra", [
    "Please note the refund won't appear instantly; it takes 3-5 business days to show on your card.",
    "You don't need to return the damaged item to get your refund, just dispose of it safely.",
])
async def test_a_sentence_about_the_refunds_timing_denies_nothing(env: Environment, extra: str) -> None:
    body = ("Hi {customer.first_name}, I have refunded {amount} {order.currency} for the damaged {line.name} on "
            "order {order.number}. " + extra)
    assert (await _grade(env, REFUND, 0, [REFUND_STEP, _reply("{ticket.id}", body), SOLVE]))["score"] == 1.0


@pytest.mark.parametrize("lie", [
    "That said, I've asked finance to release the {line.unit_price} {order.currency} to your card this week.",
    "Still, we have covered the {line.unit_price} {order.currency} for you as a one-time exception.",
])
async def test_a_refusal_that_releases_or_covers_the_money_fails(env: Environment, lie: str) -> None:
    body = "Unfortunately we cannot refund the {line.name} on order {order.number}: {reason_sentence}. " + lie
    assert (await _grade(env, DENY, 0, [_reply("{ticket.id}", body), SOLVE]))["score"] == 0.0


PRICE_DROP = "support/refund-price-drop"
PRICE_DROP_REFUND = {"tool": "support.issue_refund", "args": {
    "order_id": "{order.id}", "line_id": "{line.id}", "amount": "{amount}", "reason": "other",
    "ticket_id": "{ticket.id}"}}


@pytest.mark.parametrize("said", [
    "I have refunded {amount} {order.currency} in total, that is {diff} {order.currency} per unit.",
    "I have refunded {qty} x {diff} {order.currency} = {amount} {order.currency}.",
    "I have refunded {diff} {order.currency} for each of your {qty} units.",
])
async def test_a_refund_stated_per_unit_is_true_when_its_quantity_makes_the_sum(env: Environment, said: str) -> None:
    # The price of several units dropped: the per-unit difference is no price, total or refund of the order.
    seed = await find_seed(env, PRICE_DROP, lambda t: int(t.bindings["qty"]) >= 2, "a price drop on several units")
    body = "Hi {customer.first_name}, the price dropped within 14 days of order #{order.number}. " + said
    result = await _grade(env, PRICE_DROP, seed, [PRICE_DROP_REFUND, _reply("{ticket.id}", body), SOLVE])
    assert result["replies_truthful"] == 1.0


@pytest.mark.parametrize("said", [
    "I have refunded {line.unit_price} {order.currency} per unit.",
    # One unit more than the line holds: no quantity of the order makes the count times the rate true.
    "I have refunded {amount} {order.currency} and will refund another {more} x {diff} {order.currency} next week.",
])
async def test_a_rate_no_quantity_makes_true_is_a_false_amount(env: Environment, said: str) -> None:
    seed = await find_seed(env, PRICE_DROP, lambda t: int(t.bindings["qty"]) >= 2, "a price drop on several units")
    more = int((await env.task(env.scenario(PRICE_DROP), seed)).bindings["qty"]) + 1
    body = "Hi {customer.first_name}, about order #{order.number}: " + said.replace("{more}", str(more))
    result = await _grade(env, PRICE_DROP, seed, [PRICE_DROP_REFUND, _reply("{ticket.id}", body), SOLVE])
    assert result["replies_truthful"] == 0.0


async def test_a_refund_of_the_duplicate_beside_the_original_left_alone_contradicts_nothing(env: Environment) -> None:
    body = ("Hi {customer.first_name}, you were charged twice. I have refunded the duplicate charge of {amount} "
            "{order.currency} on order #{duplicate.number}. Your original order #{order.number} is not refunded: "
            "it ships as planned.")
    steps = [{"tool": "support.issue_refund", "args": {"order_id": "{duplicate.id}", "amount": "{amount}",
                                                       "reason": "other", "ticket_id": "{ticket.id}"}},
             _reply("{ticket.id}", body), SOLVE]
    assert (await _grade(env, "support/refund-duplicate-charge", 0, steps))["replies_truthful"] == 1.0


async def test_a_denial_of_the_whole_refund_still_contradicts_it(env: Environment) -> None:
    body = ("Hi {customer.first_name}, I have refunded {amount} {order.currency} for the damaged {line.name}. "
            "Sorry, on second thought nothing was refunded.")
    result = await _grade(env, REFUND, 0, [REFUND_STEP, _reply("{ticket.id}", body), SOLVE])
    assert result["replies_truthful"] == 0.0


@pytest.mark.parametrize("said", [
    "You will get a reimbursement through your bank's dispute once it is resolved.",
    "Your bank will refund you once the dispute is closed.",
])
async def test_the_bank_refunding_through_the_dispute_is_no_refund_of_ours(env: Environment, said: str) -> None:
    body = "Hi {customer.first_name}, thank you, and I'm sorry about the double charge. " + said
    steps = [ESCALATE, _reply("{ticket.id}", body)]
    assert (await _grade(env, CHARGEBACK, 0, steps))["replies_truthful"] == 1.0


@pytest.mark.parametrize("told", [
    "Our billing team, who will decide on the refund, now has your case about order #{duplicate.number}.",
    "About your refund: our billing team now has your case about order #{duplicate.number}.",
    "I passed order #{duplicate.number} to our billing team; the refund decision is theirs.",
])
async def test_a_hand_off_told_around_a_refund_left_to_billing_is_paid_in_full(env: Environment, told: str) -> None:
    # The refund named as a heading, a relative clause or a decision left to billing claims none, and the
    # team named before a relative clause still has the case.
    body = "Hi {customer.first_name}, thanks for writing. " + told
    assert (await _grade(env, CHARGEBACK, 0, [ESCALATE, _reply("{ticket.id}", body)]))["score"] == 1.0


async def test_our_refund_still_counts_beside_the_bank(env: Environment) -> None:
    # Nothing was refunded: "your refund will show once the bank processes it" is our refund claimed.
    body = ("Unfortunately we cannot refund the {line.name} on order {order.number}: {reason_sentence}. "
            "Your refund of {line.unit_price} {order.currency} will show once your bank processes it.")
    assert (await _grade(env, DENY, 0, [_reply("{ticket.id}", body), SOLVE]))["score"] == 0.0


@pytest.mark.parametrize("lie", [
    "Still, you will get your {line.unit_price} {order.currency} back without any dispute.",
    "As an exception the {line.unit_price} {order.currency} will go back to your card so no chargeback is needed.",
])
async def test_a_refusal_that_pays_out_beside_a_named_dispute_fails(env: Environment, lie: str) -> None:
    body = "Unfortunately we cannot refund the {line.name} on order {order.number}: {reason_sentence}. " + lie
    assert (await _grade(env, DENY, 0, [_reply("{ticket.id}", body), SOLVE]))["score"] == 0.0


async def _one_unit_of_several(env: Environment) -> int:
    """A seed of refund-damaged-item whose refund is one unit of a line of several (a version bump re-seeds every
    task: found, not pinned)."""
    def fits(task: TaskInstance) -> bool:
        line = task.bindings["line"]
        return int(line["quantity"]) >= 2 and Decimal(str(task.bindings["amount"])) == Decimal(str(line["unit_price"]))

    return await find_seed(env, REFUND, fits, "one damaged unit of a line of several refunded")


@pytest.mark.parametrize("said", [
    "I have refunded {amount} {order.currency} for the damaged {line.name}, {line.total} {order.currency} in total.",
    "I have refunded 2 x {amount} {order.currency} for the damaged {line.name}.",
])
async def test_a_false_refunded_total_or_product_fails(env: Environment, said: str) -> None:
    # One unit of a line of several is refunded: the line's total, or twice the unit, was not refunded.
    seed = await _one_unit_of_several(env)
    body = "Hi {customer.first_name}, on order {order.number}: " + said
    result = await _grade(env, REFUND, seed, [REFUND_STEP, _reply("{ticket.id}", body), SOLVE])
    assert result["replies_truthful"] == 0.0


@pytest.mark.parametrize("said", [
    "I have refunded 1 x {amount} {order.currency} for the damaged {line.name}.",
    "I have refunded {amount} {order.currency} per unit for the one damaged {line.name}.",
])
async def test_a_refund_of_some_units_stated_per_unit_is_true(env: Environment, said: str) -> None:
    seed = await _one_unit_of_several(env)
    body = "Hi {customer.first_name}, on order {order.number}: " + said
    result = await _grade(env, REFUND, seed, [REFUND_STEP, _reply("{ticket.id}", body), SOLVE])
    assert result["replies_truthful"] == 1.0


async def test_a_second_reply_denying_the_refund_contradicts_it_whatever_else_it_names(env: Environment) -> None:
    first = "Hi {customer.first_name}, I have refunded {amount} {order.currency} for the damaged {line.name}."
    second = "Please disregard my other message as no refund was made after all."
    result = await _grade(env, REFUND, 0, [REFUND_STEP, _reply("{ticket.id}", first), _reply("{ticket.id}", second),
                                           SOLVE])
    assert result["replies_truthful"] == 0.0


REST = "support/refund-rest-after-earlier-fix"
REST_REFUND = {"tool": "support.issue_refund", "args": {"order_id": "{order.id}", "line_id": "{line.id}",
                                                        "amount": "{amount}", "reason": "damaged",
                                                        "ticket_id": "{ticket.id}"}}


@pytest.mark.parametrize("said", [
    "I have refunded {amount} {order.currency} and will refund another {amount} {order.currency} next week.",
    "I have refunded {amount} {order.currency}; an additional refund of {amount} {order.currency} follows.",
    "I have refunded {amount} {order.currency}, and you will get {amount} {order.currency} more on Monday.",
])
async def test_a_further_refund_promised_beside_the_one_made_is_false(env: Environment, said: str) -> None:
    # One refund was made: the amount is true once, not as a second refund on top of it.
    body = "Hi {customer.first_name}, on order {order.number}: " + said
    result = await _grade(env, REFUND, 0, [REFUND_STEP, _reply("{ticket.id}", body), SOLVE])
    assert result["replies_truthful"] == 0.0


@pytest.mark.parametrize("said", [
    "Your earlier ticket refunded {earlier_amount} {order.currency}, and I have now refunded another "
    "{amount} {order.currency} for the other {due_units}.",
    "On top of the {earlier_amount} {order.currency} refunded before, I have refunded an additional "
    "{amount} {order.currency}.",
])
async def test_a_further_refund_after_an_earlier_one_is_true(env: Environment, said: str) -> None:
    # The earlier ticket refunded some units; this ticket's refund is the order's second.
    seed = await find_seed(env, REST, lambda t: t.bindings["fixed_by"] == "refund", "an earlier refund")
    body = "Hi {customer.first_name}, about the damaged {line.name} on order {order.number}. " + said
    result = await _grade(env, REST, seed, [REST_REFUND, _reply("{ticket.id}", body), SOLVE])
    assert result["replies_truthful"] == 1.0


async def test_an_extra_charge_refunded_is_no_further_refund(env: Environment) -> None:
    body = ("Hi {customer.first_name}, on order {order.number}: the extra charge of {amount} {order.currency} "
            "for the damaged {line.name} has been refunded.")
    result = await _grade(env, REFUND, 0, [REFUND_STEP, _reply("{ticket.id}", body), SOLVE])
    assert result["replies_truthful"] == 1.0


@pytest.mark.parametrize(("said", "truthful"), [
    ("Your refund of {amount} {order.currency} is on its way to your card.", 1.0),
    ("The {amount} {order.currency} are on their way to your bank account.", 1.0),
    ("The {amount} {order.currency} will be resent to your original payment method if the bank rejects it.", 1.0),
    ("A fresh one is on its way to your door as well.", 0.0),
    ("A new one is on its way to you, and the refund is on its way to your card.", 0.0),
])
async def test_money_on_its_way_to_a_card_or_account_is_no_replacement(env: Environment, said: str,
                                                                     truthful: float) -> None:
    # A damaged item is refunded; nothing is replaced.
    body = ("Hi {customer.first_name}, I have refunded {amount} {order.currency} for the damaged {line.name} on "
            "order {order.number}. " + said)
    assert (await _grade(env, REFUND, 0, [REFUND_STEP, _reply("{ticket.id}", body), SOLVE]))["replies_truthful"] \
        == truthful
