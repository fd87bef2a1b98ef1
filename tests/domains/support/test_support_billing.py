"""Tasks about what a customer was charged: a duplicate charge, a price drop and a late parcel's shipping fee
(setups_billing, checks_billing).

Each test states one behaviour of a setup or verifier and plays it on several seeds, so no single seed's
luck can make it pass. Harder and easier levels are played by copying a scenario file with other setup
params into a temporary folder.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from saas_sim.domains.support import DOMAIN
from saas_sim.domains.support.setups_adjustments import LATE_AFTER_DAYS, PRICE_WINDOW_DAYS
from saas_sim.domains.support.state import KB_ARTICLES, MESSAGES, ORDERS, TICKETS
from saas_sim.runtime.environment import Environment
from tests.domains.helpers import ROOT, scripted_grade, scripted_scores

DUP = "support/refund-duplicate-charge"
DROP = "support/refund-price-drop"
LATE = "support/refund-shipping-late-delivery"
FILED = "support/chargeback-already-filed"
SEEDS = (0, 1, 2, 3)
SOLVE = {"tool": "support.set_ticket_status", "args": {"ticket_id": "{ticket.id}", "status": "solved"}}


def _reply(body: str) -> dict[str, Any]:
    return {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body}}


def _refund(order: str, amount: str | None, line: str | None = None) -> dict[str, Any]:
    args: dict[str, Any] = {"order_id": order, "reason": "other", "ticket_id": "{ticket.id}"}
    if amount is not None:
        args["amount"] = amount
    if line is not None:
        args["line_id"] = line
    return {"tool": "support.issue_refund", "args": args}


async def _start(env: Environment, ref: str, seed: int) -> tuple[dict[str, Any], Any]:
    scenario = env.scenario(ref)
    task = await env.task(scenario, seed)
    episode = await env.start(scenario, seed)
    try:
        return task.bindings, episode.state
    finally:
        await episode.close()


def _copy_scenario(folder: Path, ref: str, params: dict[str, int] | None = None, level: str = "medium") -> str:
    """Copies scenario `ref` into `folder/support/`; with `params`, as `<ref>-variant` with those setup params
    (at `level`, whose knob values they are)."""
    name = ref.split("/")[1]
    text = (ROOT / "scenarios" / "support" / f"{name}.yaml").read_text(encoding="utf-8")
    if params is not None:
        name, ref = f"{name}-variant", f"{ref}-variant"
        text = text.replace(f"id: support/{name.removesuffix('-variant')}\n", f"id: {ref}\n", 1)
        text = text.replace("  level: medium\n", f"  level: {level}\n", 1)
        rendered = ", ".join(f"{k}: {v}" for k, v in params.items())
        text = re.sub(r"(setup: \{fn: [\w.]+, params: )\{[^}]*\}", lambda m: m.group(1) + "{" + rendered + "}",
                      text, count=1)
    (folder / "support").mkdir(parents=True, exist_ok=True)
    (folder / "support" / f"{name}.yaml").write_text(text, encoding="utf-8")
    return ref


@asynccontextmanager
async def _desk(folder: Path, *refs: str, params: dict[str, int] | None = None,
                level: str = "medium") -> AsyncIterator[Environment]:
    """An environment of the support desk alone holding copies of `refs` (as variants with `params`), so
    scenario files of other domains never enter these tests."""
    for ref in refs:
        _copy_scenario(folder, ref, params, level)
    async with Environment("sqlite+aiosqlite:///:memory:", scenario_dirs=[folder], seeds_dirs=[ROOT / "seeds"],
                           domains=[DOMAIN], builtin=False) as env:
        yield env


@pytest.fixture
async def env(tmp_path: Path) -> AsyncIterator[Environment]:
    async with _desk(tmp_path / "desk", DUP, DROP, LATE, FILED) as e:
        yield e


@asynccontextmanager
async def _variant(folder: Path, ref: str, level: str, params: dict[str, int]) -> AsyncIterator[
        tuple[Environment, str]]:
    """An environment holding a copy of scenario `ref` (id `<ref>-variant`) at `level`, with its setup params."""
    async with _desk(folder, ref, params=params, level=level) as env:
        yield env, f"{ref}-variant"


# A duplicate charge -------------------------------------------------------------------------------------

async def test_the_duplicate_is_a_cancelled_copy_placed_minutes_after_the_quoted_order(env: Environment) -> None:
    for seed in SEEDS:
        b, state = await _start(env, DUP, seed)
        quoted, dup = state.get(ORDERS, b["order"]["id"]), state.get(ORDERS, b["duplicate"]["id"])
        assert dup.status == "cancelled" and dup.tracking_number is None and quoted.status == "delivered"
        assert dup.total == quoted.total and dup.refunded_total == 0
        same = [(ln.product_id, ln.quantity) for ln in quoted.lines]
        assert [(ln.product_id, ln.quantity) for ln in dup.lines] == same
        assert timedelta(0) < dup.placed_at - quoted.placed_at < timedelta(minutes=5)
        first = state.get(MESSAGES, state.get(TICKETS, b["ticket"]["id"]).message_ids[0]).body
        # The customer quotes the order that shipped, never the duplicate.
        assert quoted.number in first and dup.number not in first
        # Neither the newest nor the highest-numbered order of the customer is the duplicate.
        mine = [o for o in state.table(ORDERS) if o.customer_id == quoted.customer_id]
        assert max(mine, key=lambda o: o.placed_at).id != dup.id
        assert max(mine, key=lambda o: int(o.number)).id != dup.id
        repeat = state.get(ORDERS, b["repeat"]["id"])
        assert repeat.total == quoted.total and abs(repeat.placed_at - quoted.placed_at) >= timedelta(days=5)


async def test_more_repeat_purchases_at_a_harder_level_and_none_at_the_easiest(tmp_path: Path) -> None:
    for level, repeats in (("easy", 0), ("hard", 3)):
        async with _variant(tmp_path / level, DUP, level, {"repeat_orders": repeats}) as (env, ref):
            for seed in (0, 1):
                b, state = await _start(env, ref, seed)
                quoted = state.get(ORDERS, b["order"]["id"])
                same = [o for o in state.table(ORDERS) if o.customer_id == quoted.customer_id
                        and o.status == "delivered" and o.id != quoted.id
                        and [ln.product_id for ln in o.lines] == [ln.product_id for ln in quoted.lines]]
                assert len(b["repeats"]) == repeats == len(same)
                assert b["duplicate"]["id"] not in (b["newest"]["id"], b["highest"]["id"])
            oracle = await scripted_scores(env, ref, (0, 1), [
                _refund("{duplicate.id}", "{amount}"), _reply("{refund_reply}"), SOLVE])
            assert oracle == [1.0, 1.0]


async def test_only_the_duplicate_refunded_in_full_scores(env: Environment) -> None:
    good = [_refund("{duplicate.id}", "{amount}"), _reply("{refund_reply}"), SOLVE]
    assert await scripted_scores(env, DUP, SEEDS, good) == [1.0] * len(SEEDS)
    part = [_refund("{duplicate.id}", "1.00"), _reply("{refund_reply}"), SOLVE]
    assert max(await scripted_scores(env, DUP, SEEDS, part)) == 0.0
    quoted = [_refund("{order.id}", "{amount}"), _reply("Hi, I refunded {amount} {order.currency}."), SOLVE]
    assert max(await scripted_scores(env, DUP, SEEDS, quoted)) == 0.0


async def test_escalating_the_chargeback_threat_breaks_the_gate(env: Environment) -> None:
    escalate = {"tool": "support.escalate_ticket", "args": {
        "ticket_id": "{ticket.id}", "team": "legal", "reason": "Chargeback threat on order {order.number}."}}
    grade = await scripted_grade(env, DUP, 0, [_refund("{duplicate.id}", "{amount}"), escalate,
                                               _reply("{refund_reply}")])
    assert grade.score == 0.0
    assert any(c.name == "kept_at_the_desk" and c.score == 0.0 for c in grade.checks)


async def test_naming_the_quoted_order_is_true_but_saying_money_went_there_is_not(env: Environment) -> None:
    named = _reply("Hi, your order {order.number} was charged twice. The second payment was order "
                   "{duplicate.number}, which we cancelled. I have refunded {amount} {order.currency} for it.")
    assert await scripted_scores(env, DUP, SEEDS, [_refund("{duplicate.id}", "{amount}"), named, SOLVE]) == [1.0] * 4
    wrong = _reply("Hi, I have refunded {amount} {order.currency} on order {order.number}.")
    assert max(await scripted_scores(env, DUP, SEEDS, [_refund("{duplicate.id}", "{amount}"), wrong, SOLVE])) == 0.0


# A price drop -------------------------------------------------------------------------------------------

async def test_the_difference_comes_from_the_notice_and_the_units_bought(env: Environment) -> None:
    amounts = set()
    for seed in range(6):
        b, state = await _start(env, DROP, seed)
        order = state.get(ORDERS, b["order"]["id"])
        line = order.line(b["line"]["id"])
        article = state.get(KB_ARTICLES, b["article"]["id"])
        assert f"{line.name} ({line.sku}): now {b['new_price']}, was {line.unit_price}" in article.body
        assert line.quantity >= 2 and Decimal(b["diff"]) == line.unit_price - Decimal(b["new_price"]) > 0
        assert Decimal(b["amount"]) == Decimal(b["diff"]) * line.quantity < line.total
        # The order is inside the window before the change; the stale one, well outside it.
        assert article.updated_at - timedelta(days=PRICE_WINDOW_DAYS) < order.placed_at < article.updated_at
        stale = state.get(ORDERS, b["stale_order"]["id"])
        assert stale.placed_at < article.updated_at - timedelta(days=PRICE_WINDOW_DAYS)
        assert b["stale_line"]["name"] in article.body
        amounts.add(b["amount"])
    assert len(amounts) >= 5


async def test_one_claim_and_fewer_notice_rows_at_the_easiest_level(tmp_path: Path) -> None:
    async with _variant(tmp_path, DROP, "easy", {"other_drops": 1, "claimed_items": 1}) as (env, ref):
        for seed in (0, 1):
            b, state = await _start(env, ref, seed)
            article = state.get(KB_ARTICLES, b["article"]["id"])
            assert article.body.count("\n- ") + article.body.startswith("- ") == 2
            first = state.get(MESSAGES, state.get(TICKETS, b["ticket"]["id"]).message_ids[0]).body
            assert b["stale_order"]["number"] not in first
        steps = [_refund("{order.id}", "{amount}", "{line.id}"), _reply("{refund_reply}"), SOLVE]
        assert await scripted_scores(env, ref, (0, 1), steps) == [1.0, 1.0]


async def test_replies_may_quote_the_new_price_but_no_invented_amount(env: Environment) -> None:
    refund = _refund("{order.id}", "{amount}", "{line.id}")
    prices = _reply("Hi, the price went from {line.unit_price} to {new_price}, {diff} less per unit. I have "
                    "refunded {amount} {order.currency} on order #{order.number}.{stale_no}")
    assert await scripted_scores(env, DROP, SEEDS, [refund, prices, SOLVE]) == [1.0] * len(SEEDS)
    invented = _reply("Hi, I have refunded {amount} {order.currency} on order #{order.number}. You also get "
                      "777.77 {order.currency} off your next order.")
    assert max(await scripted_scores(env, DROP, SEEDS, [refund, invented, SOLVE])) == 0.0


async def test_the_whole_line_or_one_units_difference_is_no_price_adjustment(env: Environment) -> None:
    whole = [_refund("{order.id}", None, "{line.id}"), _reply("{refund_reply}"), SOLVE]
    assert max(await scripted_scores(env, DROP, SEEDS, whole)) == 0.0
    one = [_refund("{order.id}", "{diff}", "{line.id}"),
           _reply("Hi, I have refunded {diff} {order.currency} on order #{order.number}."), SOLVE]
    assert max(await scripted_scores(env, DROP, SEEDS, one)) <= 0.2


# A late delivery ----------------------------------------------------------------------------------------

async def test_one_order_was_late_by_its_shipment_dates_and_the_others_were_not(env: Environment) -> None:
    fees = set()
    for seed in range(6):
        b, state = await _start(env, LATE, seed)
        late = state.get(ORDERS, b["order"]["id"])
        assert late.delivered_at - late.shipped_at > timedelta(days=LATE_AFTER_DAYS)
        assert Decimal(b["amount"]) == late.shipping > 0
        for number in b["ontime_numbers"]:
            on_time = next(o for o in state.table(ORDERS) if o.number == number)
            assert on_time.customer_id == late.customer_id
            assert on_time.delivered_at - on_time.shipped_at <= timedelta(days=LATE_AFTER_DAYS)
        fees.add(b["amount"])
    assert len(fees) >= 2


async def test_the_fee_alone_scores_and_a_full_refund_does_not(env: Environment) -> None:
    good = [_refund("{order.id}", "{amount}"), _reply("{refund_reply}"), SOLVE]
    assert await scripted_scores(env, LATE, SEEDS, good) == [1.0] * len(SEEDS)
    full = [_refund("{order.id}", None), _reply("Hi, order {order.number} is refunded: {total_amount}."), SOLVE]
    assert max(await scripted_scores(env, LATE, SEEDS, full)) == 0.0
    # The fee refunded but never told: real partial progress, well short of full credit.
    quiet = await scripted_scores(env, LATE, SEEDS, [_refund("{order.id}", "{amount}")])
    assert all(0.0 < s < 1.0 for s in quiet)
    # Solved as well, though the customer was never told and could not confirm: policy rule 1 is broken.
    assert max(await scripted_scores(env, LATE, SEEDS, [_refund("{order.id}", "{amount}"), SOLVE])) == 0.0


async def test_every_claimed_order_can_be_on_time_at_the_hardest_level(tmp_path: Path) -> None:
    async with _variant(tmp_path, LATE, "hard", {"ontime_claims": 2}) as (env, ref):
        b, _ = await _start(env, ref, 0)
        assert len(b["ontime_numbers"]) == 2
        good = [_refund("{order.id}", "{amount}"), _reply("{refund_reply}"), SOLVE]
        assert await scripted_scores(env, ref, (0, 1, 2), good) == [1.0] * 3
        both = [_refund("{order.id}", "{amount}"), _refund("{ontime.id}", "{amount}"), _reply("{refund_reply}")]
        assert max(await scripted_scores(env, ref, (0, 1, 2), both)) == 0.0


# A chargeback already filed ----------------------------------------------------------------------------

HANDOFF = {"tool": "support.escalate_ticket", "args": {"ticket_id": "{ticket.id}", "team": "billing",
                                                       "reason": "{reason}"}}


async def test_the_chargeback_news_comes_last_in_the_thread_after_the_chatter(tmp_path: Path) -> None:
    async with _variant(tmp_path, FILED, "hard", {"repeat_orders": 3, "chatter": 3}) as (env, ref):
        for seed in (0, 1):
            b, state = await _start(env, ref, seed)
            thread = [state.get(MESSAGES, m) for m in state.get(TICKETS, b["ticket"]["id"]).message_ids]
            assert [m.author_kind for m in thread] == ["customer"] * 5
            assert "chargeback" in thread[-1].body and b["amount"] in thread[-1].body
            assert b["order"]["number"] in thread[0].body and b["duplicate"]["number"] not in thread[0].body
            assert [m.created_at for m in thread] == sorted(m.created_at for m in thread)
        steps = [HANDOFF, _reply("{told_reply}")]
        assert await scripted_scores(env, ref, (0, 1), steps) == [1.0, 1.0]


async def test_a_refund_on_top_of_the_dispute_scores_nothing(env: Environment) -> None:
    assert await scripted_scores(env, FILED, SEEDS, [HANDOFF, _reply("{told_reply}")]) == [1.0] * len(SEEDS)
    refund = [_refund("{duplicate.id}", "{amount}"), HANDOFF, _reply("{told_reply}")]
    assert max(await scripted_scores(env, FILED, SEEDS, refund)) == 0.0


async def test_the_handoff_is_judged_by_its_facts_and_the_reply_must_follow_it(env: Environment) -> None:
    vague = {"tool": "support.escalate_ticket", "args": {"ticket_id": "{ticket.id}", "team": "billing",
                                                         "reason": "Billing dispute, please check."}}
    assert max(await scripted_scores(env, FILED, SEEDS, [vague, _reply("{told_reply}")])) <= 0.45
    assert max(await scripted_scores(env, FILED, SEEDS, [vague, _reply("Hi, billing will check.")])) <= 0.2
    # The same reply before the hand-off tells of something not yet done.
    grade = await scripted_grade(env, FILED, 0, [_reply("{told_reply}"), HANDOFF])
    told = next(c for c in grade.checks if c.name == "customer_told")
    assert told.score == 0.0 and grade.score is not None and grade.score < 1.0
    legal = {"tool": "support.escalate_ticket", "args": {**HANDOFF["args"], "team": "legal"}}
    assert max(await scripted_scores(env, FILED, SEEDS, [HANDOFF, legal, _reply("{told_reply}")])) == 0.0


def _told_score(grade: Any) -> float:
    return float(next(c.score for c in grade.checks if c.name == "customer_told"))


@pytest.mark.parametrize("body", [
    "Order {duplicate.number}.",
    "Hi, about order {duplicate.number}: thanks for your message.",
    "Hi, if you withdraw the chargeback, our billing team will handle order {duplicate.number}.",
])
async def test_a_reply_that_does_not_say_billing_has_the_case_tells_nothing(env: Environment, body: str) -> None:
    for seed in (1, 2):
        assert _told_score(await scripted_grade(env, FILED, seed, [HANDOFF, _reply(body)])) == 0.0


async def test_a_reply_denying_the_handoff_breaks_the_truth_gate(env: Environment) -> None:
    body = ("Hi, about order {duplicate.number}: we have not passed anything to our billing team and nobody will "
            "look at your dispute. Please withdraw the chargeback with your bank.")
    for seed in (1, 2):
        grade = await scripted_grade(env, FILED, seed, [HANDOFF, _reply(body)])
        assert _told_score(grade) == 0.0 and grade.score == 0.0
        assert {c.name: c.score for c in grade.checks}["handoff_not_denied"] == 0.0


@pytest.mark.parametrize("body", [
    "{told_reply}",
    "{told_reply_alt}",
    "Hi {customer.first_name}, I have passed your dispute about order #{duplicate.number} to our billing team; "
    "they will settle it with your bank.",
    "Hi {customer.first_name}, support cannot handle chargebacks itself, so your case about order "
    "{duplicate.number} is now with billing. We will not refund anything while the dispute is open.",
])
async def test_a_reply_that_affirms_billing_has_the_case_is_told(env: Environment, body: str) -> None:
    assert await scripted_scores(env, FILED, (1, 2), [HANDOFF, _reply(body)]) == [1.0, 1.0]


@pytest.mark.parametrize("body", [
    "Hi {customer.first_name},\n\nthanks for letting us know about the chargeback. Since it's already open with your "
    "bank, I've escalated the case for order #{duplicate.number} to our chargeback team, who will handle it directly "
    "with your bank.\n\nBest regards",
    "Hi {customer.first_name},\n\nthanks for the update. Because a chargeback is already open for order "
    "#{duplicate.number}, I can't issue a refund from here (you'd be paid twice). A billing specialist will review "
    "your case and work it out with your bank.\n\nBest regards",
    "Hi {customer.first_name},\n\nthanks for letting me know. Billing now has your case for order "
    "#{duplicate.number} ({amount} {duplicate.currency}) and will settle it with your bank.\n\nBest regards",
    "Hi {customer.first_name},\n\nI've forwarded the dispute for order #{duplicate.number} to the team that handles "
    "chargebacks; they'll take it from here with your bank.\n\nBest regards",
])
async def test_the_team_named_by_what_it_handles_or_as_the_subject_is_told(env: Environment, body: str) -> None:
    assert await scripted_scores(env, FILED, (1, 2), [HANDOFF, _reply(body)]) == [1.0, 1.0]


@pytest.mark.parametrize("body", [
    "Hi {customer.first_name},\n\nsince your bank dispute for order #{duplicate.number} is already open, our billing "
    "team has taken over your case and will reach out if they need anything else from you.\n\nBest regards",
    "Hi {customer.first_name}, I have passed order {duplicate.number} to our billing team, and if your bank asks, "
    "they can confirm it.",
    "Hi {customer.first_name}, in case you were wondering, our billing team has taken over your case for order "
    "#{duplicate.number} and will settle it with your bank.",
])
async def test_a_condition_later_in_the_sentence_leaves_the_hand_off_told(env: Environment, body: str) -> None:
    assert await scripted_scores(env, FILED, (1, 2), [HANDOFF, _reply(body)]) == [1.0, 1.0]


@pytest.mark.parametrize("body", [
    "Hi, our billing team will handle order {duplicate.number} if you withdraw the chargeback.",
    "Hi, unless you withdraw the chargeback, billing will handle order {duplicate.number}.",
    "Hi, should you withdraw the chargeback, our billing team will handle order {duplicate.number}.",
    "Hi, in case you withdraw the chargeback, our billing team will take over order {duplicate.number}.",
    "Hi, the billing error on order {duplicate.number} was reviewed.",
])
async def test_a_hand_off_on_a_condition_or_a_billing_noun_tells_nothing(env: Environment, body: str) -> None:
    for seed in (1, 2):
        assert _told_score(await scripted_grade(env, FILED, seed, [HANDOFF, _reply(body)])) == 0.0
