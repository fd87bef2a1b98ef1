"""Quote revisions are judged per product: the buyer's changes, the agreed terms kept, a true amount."""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

import pytest

from saas_sim.core.domain import CheckContext, SetupContext
from saas_sim.core.ids import IdFactory
from saas_sim.core.state import State
from saas_sim.domains.crm import checks_quotes as cq
from saas_sim.domains.crm import setups_quotes
from saas_sim.domains.crm.quote_counts import stated_counts
from saas_sim.domains.crm.state import DEALS, LINE_ITEMS, PRICE_BOOK, PROJECTION
from saas_sim.runtime.environment import Environment
from tests.domains.crm.conftest import EPOCH, Caller
from tests.domains.helpers import scripted_grade

REF = "crm/revise-quote-keep-agreed-prices"


def _staged(world: State, seed: int) -> tuple[State, dict[str, Any]]:
    ctx = SetupContext(state=world, params={}, rng=random.Random(seed), now=EPOCH, ids=IdFactory({"li": 100000,
                                                                                                   "act": 100000}))
    setup = setups_quotes.quote_revision(ctx)
    return PROJECTION.fold(world, setup.events), dict(setup.bindings)


def _ctx(crm: Caller, initial: State) -> CheckContext:
    return CheckContext(initial=initial, final=crm.state, bindings={}, events=crm.events, now=EPOCH)


def test_the_untouched_line_carries_a_price_under_the_price_book(world: State) -> None:
    for seed in range(6):
        state, b = _staged(world, seed)
        kept = b["kept_lines"][0]
        deal = state.get(DEALS, b["deal"]["id"])
        assert deal is not None
        listed = next(e.unit_price for e in state.table(PRICE_BOOK)
                      if e.product_id == kept["product_id"] and e.currency == deal.currency)
        assert Decimal(kept["unit_price"]) < listed
        assert kept["product_id"] not in b["requested"] + b["removed"]


def test_a_rebuild_from_the_price_book_breaks_the_agreed_terms(world: State) -> None:
    state, b = _staged(world, 0)
    crm = Caller(state)
    deal_id = b["deal"]["id"]
    crm("crm.set_line_items", deal_id=deal_id, items=b["items"], update_amount=True)
    ctx = _ctx(crm, state)
    assert cq.quote_changes_made(ctx, deal_id, b["expected_lines"], b["removed"], b["requested"]).score == 1.0
    assert cq.quote_terms_kept(ctx, deal_id, b["kept_lines"], b["allowed_products"]).score == 1.0
    crm("crm.set_line_items", deal_id=deal_id, items=b["list_priced_items"], update_amount=True)
    assert cq.quote_terms_kept(_ctx(crm, state), deal_id, b["kept_lines"], b["allowed_products"]).score == 0.0


def test_one_product_on_two_lines_counts_once_and_two_prices_match_nothing(world: State) -> None:
    state, b = _staged(world, 1)
    crm = Caller(state)
    deal_id = b["deal"]["id"]
    split = [dict(i) for i in b["items"]]
    added = split[-1]
    half = dict(added, quantity=1)
    rest = dict(added, quantity=int(added["quantity"]) - 1)
    if rest["quantity"] > 0:
        crm("crm.set_line_items", deal_id=deal_id, items=[*split[:-1], half, rest])
        assert cq.quote_changes_made(_ctx(crm, state), deal_id, b["expected_lines"], b["removed"],
                                     b["requested"]).score == 1.0
    crm("crm.set_line_items", deal_id=deal_id, items=[*split[:-1], half, dict(rest, quantity=1, unit_price="1.00")])
    assert cq.quote_by_product(crm.state, deal_id)[added["product_id"]] is None


def test_a_changed_amount_must_equal_the_lines(world: State) -> None:
    state, b = _staged(world, 2)
    crm = Caller(state)
    deal_id = b["deal"]["id"]
    assert cq.amount_is_line_total_if_changed(_ctx(crm, state), deal_id).score == 1.0
    crm("crm.update_deal", deal_id=deal_id, amount=b["total"])
    assert cq.amount_is_line_total_if_changed(_ctx(crm, state), deal_id).score == 0.0
    crm("crm.set_line_items", deal_id=deal_id, items=b["items"])
    assert cq.amount_is_line_total_if_changed(_ctx(crm, state), deal_id).score == 1.0


def test_revised_lines_under_a_stale_amount_break_the_amount_constraint(world: State) -> None:
    state, b = _staged(world, 1)
    crm = Caller(state)
    deal_id = b["deal"]["id"]
    crm("crm.set_line_items", deal_id=deal_id, items=b["items"])
    out = cq.amount_is_line_total_if_changed(_ctx(crm, state), deal_id)
    assert out.score == 0.0 and b["total"] in out.detail
    crm("crm.update_deal", deal_id=deal_id, amount=b["total"])
    assert cq.amount_is_line_total_if_changed(_ctx(crm, state), deal_id).score == 1.0


def test_the_same_lines_rewritten_under_new_ids_need_no_new_amount(world: State) -> None:
    state, b = _staged(world, 1)
    crm = Caller(state)
    deal_id = b["deal"]["id"]
    deal = state.get(DEALS, deal_id)
    assert deal is not None
    same = [{"product_id": i.product_id, "quantity": i.quantity, "unit_price": str(i.unit_price),
             "discount_pct": str(i.discount_pct)}
            for i in (state.get(LINE_ITEMS, x) for x in deal.line_item_ids) if i is not None]
    crm("crm.set_line_items", deal_id=deal_id, items=same)
    assert cq.amount_is_line_total_if_changed(_ctx(crm, state), deal_id).score == 1.0


@pytest.mark.parametrize("seed", [1, 2])
async def test_revising_the_lines_without_the_amount_scores_low(env: Environment, seed: int) -> None:
    revise = {"tool": "crm.set_line_items", "args": {"deal_id": "{deal.id}", "items": "{items}"}}
    grade = await scripted_grade(env, REF, seed, [revise])
    assert "amount_true_to_lines" in [v.name for v in grade.violations]
    assert grade.score is not None and grade.score <= 0.2
    amount = {"tool": "crm.update_deal", "args": {"deal_id": "{deal.id}", "amount": "{total}"}}
    assert (await scripted_grade(env, REF, seed, [revise, amount])).score == 1.0


async def test_quoting_the_stale_total_to_the_buyer_is_false(env: Environment) -> None:
    revise = {"tool": "crm.set_line_items", "args": {"deal_id": "{deal.id}", "items": "{items}"}}
    email = {"tool": "crm.send_email", "args": {
        "contact_id": "{contact.id}", "deal_id": "{deal.id}", "subject": "Revised quote",
        "body": "Hi {contact.name}, the revised quote for {deal.name} comes to {deal.currency} {stale_total}."}}
    grade = await scripted_grade(env, REF, 3, [revise, email])
    assert "emails_truthful" in [v.name for v in grade.violations]
    assert grade.score == 0.0


def test_counts_are_read_next_to_units_products_and_times_signs_but_not_prices() -> None:
    names = ["PLT-SEAT", "Core Platform - Seat (annual)", "TRN-DAY", "Training Day", "STO-1TB", "Storage 1 TB"]
    assert stated_counts("You now have 40 Core Platform seats and 2 training days.", names) == [40, 2]
    assert stated_counts("I took PLT-SEAT from 10 to 40 units, plus 3 x STO-1TB.", names) == [40, 3]
    assert stated_counts("That is $400 per seat, 400.00 a seat, EUR 40 seats.", names) == []
    assert stated_counts("A 10% discount; a call of 20 minutes within 5 days; add 3 storage 1 TB.", names) == [3]


async def test_a_count_no_line_holds_is_false_and_a_true_or_former_one_is_not(env: Environment) -> None:
    revise = {"tool": "crm.set_line_items", "args": {"deal_id": "{deal.id}", "items": "{items}", "update_amount": True}}

    def email(body: str) -> dict[str, Any]:
        return {"tool": "crm.send_email", "args": {"contact_id": "{contact.id}", "deal_id": "{deal.id}",
                                                   "subject": "Revised quote", "body": body}}

    # No money word in the sentence, so only the count check can see the promise.
    false = email("Hi {contact.name}, done on {deal.name}: you now have 999 seats with us.")
    grade = await scripted_grade(env, REF, 1, [revise, false])
    assert [v.name for v in grade.violations] == ["counts_stated_truly"] and grade.score == 0.0
    true = email("Hi {contact.name}, {deal.name} now lists {expected_lines.0.quantity} x the first product "
                 "and {expected_lines.2.quantity} units of the new one.")
    assert (await scripted_grade(env, REF, 1, [revise, true])).score == 1.0
