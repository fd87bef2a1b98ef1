"""Replies are judged by the facts they state, all together, against the state; the customer too."""

from __future__ import annotations

from typing import Any

from saas_sim.core.ids import IdFactory
from saas_sim.domains.support.models import Message
from saas_sim.domains.support.simulator import RULES
from saas_sim.runtime.environment import Environment
from tests.domains.helpers import scripted_grade


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
