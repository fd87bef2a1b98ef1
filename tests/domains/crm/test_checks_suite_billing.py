"""The CRM's cross-app billing checks, and the quote-from-code scenario's grade on good and wrong work."""

from __future__ import annotations

import random
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from saas_sim.core.domain import CheckContext, SetupContext
from saas_sim.core.ids import IdFactory
from saas_sim.core.state import State
from saas_sim.domains.crm import checks_suite_billing as cb
from saas_sim.domains.crm import setups_suite_billing as sb
from saas_sim.domains.crm.state import PROJECTION
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.world import build_world, load_profiles
from tests.domains.crm.conftest import EPOCH, Caller
from tests.domains.helpers import ROOT, scripted_grade

PLAN = {"seats": 42, "months": 18, "amount": "31185.00", "stale_amount": "34650.00"}
REF = "suite/quote-from-code-pricing"


@pytest.fixture(scope="module")
def staged() -> tuple[State, dict[str, Any]]:
    from saas_sim.domains import builtin_domains

    world = build_world(load_profiles([ROOT / "seeds"])["suite-small"], 0, dict(builtin_domains())).state
    out = sb.code_priced_deal(SetupContext(state=world, params={**PLAN, "other_deals": 1}, rng=random.Random(1),
                                           now=EPOCH, ids=IdFactory(world.counters())))
    return PROJECTION.fold(world, out.events), dict(out.bindings)


def _ctx(crm: Caller, initial: State) -> CheckContext:
    return CheckContext(initial=initial, final=crm.state, bindings={}, events=crm.events, now=EPOCH)


def test_next_step_must_be_new_and_quote_the_figure(staged: tuple[State, dict[str, Any]]) -> None:
    state, b = staged
    deal_id = b["deal"]["id"]
    for text, ok in (("Send the quote: $31,185.00 for the plan", True), ("Quote USD 31185 total", True),
                     ("Send the quote: 34,650.00 USD", False), ("Call the buyer about pricing", False)):
        crm = Caller(state)
        crm("crm.update_deal", deal_id=deal_id, next_step=text)
        assert (cb.next_step_quotes(_ctx(crm, state), deal_id, "31185.00").score == 1.0) is ok, text
    assert cb.next_step_quotes(_ctx(Caller(state), state), deal_id, "31185.00").score == 0.0


def test_plan_texts_true_counts_seats_as_counts_and_flags_a_stale_price(staged: tuple[State, dict[str, Any]]) -> None:
    state, b = staged
    deal_id = b["deal"]["id"]
    good = Caller(state)
    good("crm.update_deal", deal_id=deal_id, amount="31185.00",
         next_step="Quote 42 seats over 18 months at $41.25 per seat: $31,185.00 in total")
    assert cb.plan_texts_true(_ctx(good, state), deal_id, [42, 18], ["41.25"]).score == 1.0
    for text in ("Quote $34,650.00 as last year", "Signed by the buyer at $31,185.00"):
        bad = Caller(state)
        bad("crm.update_deal", deal_id=deal_id, amount="31185.00", next_step=text)
        assert cb.plan_texts_true(_ctx(bad, state), deal_id, [42, 18], ["41.25"]).score == 0.0, text


_COUNTS = [{"count": 42, "unit": "seat"}, {"count": 18, "unit": "month"}]
_ALSO = [{"amount": "41.25", "per": ["seat", "month"]}]


def _plan_texts(state: State, deal_id: str, next_step: str) -> float:
    crm = Caller(state)
    crm("crm.update_deal", deal_id=deal_id, amount="31185.00", next_step=next_step)
    return cb.plan_texts_true(_ctx(crm, state), deal_id, _COUNTS, _ALSO, deal_per=[]).score


@pytest.mark.parametrize("next_step", [
    "Quote $31,185.00; that is $742.50 per month",  # the total over the 42 seats, not over the months
    "Quote $31,185.00, i.e. $31,185.00 per month",
    "Quote $31,185.00: $41.25 per month",  # a seat's monthly price is no monthly price of the plan
    "Quote $31,185.00 ($1,732.50 per seat)",
    "Quote $31,185.00 at a monthly price of $742.50",
])
def test_a_derived_figure_stated_in_another_unit_is_false(staged: tuple[State, dict[str, Any]], next_step: str) -> None:
    state, b = staged
    assert _plan_texts(state, b["deal"]["id"], next_step) == 0.0


@pytest.mark.parametrize("next_step", [
    "Quote $31,185.00 in total: $1,732.50 per month over 18 months",
    "Quote 42 seats at $41.25 per seat per month, $31,185.00 total",
    "Quote $41.25/seat/month for 42 seats, 18 months: USD 31,185.00",
    "Quote $31,185.00, or $742.50 per seat for the whole term",
    "Quote $31,185.00 (USD 41.25 per user per month; $1,732.50 monthly)",
    "Quote $31,185.00, that is $20,790.00 a year",
    "Quote $31,185.00 for the plan; the monthly price of $1,732.50 is what they pay",
])
def test_a_derived_figure_stated_in_its_own_unit_is_true(staged: tuple[State, dict[str, Any]], next_step: str) -> None:
    state, b = staged
    assert _plan_texts(state, b["deal"]["id"], next_step) == 1.0


@pytest.mark.parametrize("next_step", [
    "Quote 3118500 cents",
    "Quote $31,185.00 (quote() returns 3118500 cents)",
    "Quote 3,118,500 cents to the buyer",
    "Quote $31,185.00; the code gives 3118500 (in cents)",
    "Quote $31,185.00, in cents: 3118500",
])
def test_the_price_stated_in_cents_is_read_as_cents(staged: tuple[State, dict[str, Any]], next_step: str) -> None:
    state, b = staged
    assert _plan_texts(state, b["deal"]["id"], next_step) == 1.0


@pytest.mark.parametrize("next_step", [
    "Quote $31,185.00; the price was $34,650.00 before the change",
    "Quote $31,185.00 (last year's price of $34,650.00 no longer applies)",
    "Quote $31,185.00, previously 34650.00 USD",
    "Quote $31,185.00 instead of the old $34,650.00",
    "Quote $31,185.00: down from $34,650.00 on the old price sheet",
])
def test_the_price_the_records_held_told_as_past_is_true(staged: tuple[State, dict[str, Any]], next_step: str) -> None:
    state, b = staged
    assert _plan_texts(state, b["deal"]["id"], next_step) == 1.0


@pytest.mark.parametrize("next_step", [
    "Quote $31,185.00, it was $30,000.00 before the change",  # the records never held it
    "Quote $34,650.00 (last year's price) to the buyer",  # the old figure offered now
    "Quote 3118600 cents",
    "Quote $31,185.00; 4900 cents per seat",
])
def test_a_past_figure_never_held_an_old_one_offered_now_or_false_cents_are_false(
    staged: tuple[State, dict[str, Any]], next_step: str,
) -> None:
    state, b = staged
    assert _plan_texts(state, b["deal"]["id"], next_step) == 0.0


def test_plan_texts_true_takes_the_codes_figures_as_a_list(staged: tuple[State, dict[str, Any]]) -> None:
    state, b = staged
    deal_id = b["deal"]["id"]
    for text, ok in (("Tiers: 49.00 per seat up to 10 seats, 41.25 above", True), ("Tier price 48.00", False)):
        crm = Caller(state)
        crm("crm.update_deal", deal_id=deal_id, amount="31185.00", next_step=text)
        outcome = cb.plan_texts_true(_ctx(crm, state), deal_id, [42, 18], ["41.25", ["49.00", "25.00"]])
        assert (outcome.score == 1.0) is ok, (text, outcome.detail)


def test_incident_noted_needs_the_figure_on_that_very_account(staged: tuple[State, dict[str, Any]]) -> None:
    state, b = staged
    account, contact = b["account"]["id"], b["contact"]["id"]
    crm = Caller(state)
    crm("crm.log_activity", kind="note", contact_id=contact, subject="Billing incident", body="Refunded $12.40.")
    ctx = _ctx(crm, state)
    assert cb.incident_noted(ctx, account, ["12.40"]).score == 1.0
    assert cb.incident_noted(ctx, account, ["12.41"]).score == 0.0
    assert cb.activities_only_on(ctx, [account]).score == 1.0
    stray = Caller(state)
    stray("crm.log_activity", kind="note", deal_id=b["other_deal"]["id"] if not b["other_deal_ids"]
          else _foreign_deal(state, account), subject="Refunded $12.40")
    assert cb.incident_noted(_ctx(stray, state), account, ["12.40"]).score == 0.0
    assert cb.activities_only_on(_ctx(stray, state), [account]).score == 0.0


@pytest.mark.parametrize(("body", "ok"), [
    ("Refunded $12.40.", True),
    ("Pricing bug fixed; 12.40 USD refunded on the charge.", True),
    ("Refund of 12.40 USD issued to the card on file.", True),
    ("Credited back $12.40 after the fix.", True),
    ("Customer was charged 12.40 USD for the plan; the right price is 10.00 USD.", False),
    ("12.40 USD 50.00 USD 37.60 USD", False),
    ("Pricing bug found. No refund was issued; 12.40 USD is still owed by the customer.", False),
    ("The customer asked for a refund of 12.40 USD.", False),
])
def test_incident_noted_as_a_refund_needs_the_figure_stated_as_refunded(
        staged: tuple[State, dict[str, Any]], body: str, ok: bool) -> None:
    state, b = staged
    crm = Caller(state)
    crm("crm.log_activity", kind="note", contact_id=b["contact"]["id"], subject="Billing incident", body=body)
    ctx = _ctx(crm, state)
    assert (cb.incident_noted(ctx, b["account"]["id"], ["12.40"], as_refund=True).score == 1.0) is ok
    # Without the role, the figure alone is enough.
    assert cb.incident_noted(ctx, b["account"]["id"], ["12.40"]).score == 1.0


def _foreign_deal(state: State, account_id: str) -> str:
    from saas_sim.domains.crm.state import DEALS

    return next(d.id for d in state.table(DEALS) if d.account_id != account_id)


@pytest.fixture
async def suite_env(tmp_path: Path) -> AsyncIterator[Environment]:
    """An environment whose catalog is this scenario alone (on the built-in domains and world profiles)."""
    from saas_sim.domains import builtin_domains

    (tmp_path / "suite").mkdir()
    shutil.copy(ROOT / "scenarios" / f"{REF}.yaml", tmp_path / "suite")
    async with Environment("sqlite+aiosqlite:///:memory:", builtin=False, scenario_dirs=[tmp_path],
                           seeds_dirs=[ROOT / "seeds"], domains=dict(builtin_domains()).values()) as env:
        yield env


async def test_the_code_price_scores_and_last_years_price_or_a_code_edit_do_not(suite_env: Environment) -> None:
    update = {"tool": "crm.update_deal", "args": {"deal_id": "{deal.id}", "amount": "{code_quote.amount}",
                                                  "next_step": "Quote {code_quote.amount} USD"}}
    good = await scripted_grade(suite_env, REF, 3, [update])
    assert good.score == 1.0
    partial = await scripted_grade(suite_env, REF, 3, [{"tool": "crm.update_deal", "args": {
        "deal_id": "{deal.id}", "amount": "{code_quote.amount}"}}])
    assert partial.score == pytest.approx(0.75)
    stale = await scripted_grade(suite_env, REF, 3, [{"tool": "crm.update_deal", "args": {
        "deal_id": "{deal.id}", "amount": "{code_quote.last_year}"}}])
    assert stale.score == 0.0
    edited = await scripted_grade(suite_env, REF, 3, [update, {"tool": "ide.insert_text", "args": {
        "path": "{code_quote.path}", "line": 0, "text": "# checked\n"}}])
    assert edited.score == 0.0 and "code_unchanged" in {v.name for v in edited.violations}


@pytest.mark.parametrize("next_step", [
    "Quote of {code_quote.amount} USD sent and accepted by the buyer",  # nothing emailed, the deal is open
    "Buyer agreed to {code_quote.amount} USD",
    "PO received for {code_quote.amount} USD",
])
async def test_a_next_step_claiming_the_buyer_took_or_got_the_quote_is_false(suite_env: Environment,
                                                                             next_step: str) -> None:
    grade = await scripted_grade(suite_env, REF, 1, [{"tool": "crm.update_deal", "args": {
        "deal_id": "{deal.id}", "amount": "{code_quote.amount}", "next_step": next_step}}])
    assert grade.score == 0.0 and "texts_true" in {v.name for v in grade.violations}


async def test_a_next_step_planning_the_quote_and_the_approval_claims_nothing(suite_env: Environment) -> None:
    grade = await scripted_grade(suite_env, REF, 1, [{"tool": "crm.update_deal", "args": {
        "deal_id": "{deal.id}", "amount": "{code_quote.amount}",
        "next_step": "Send the quote of {code_quote.amount} USD; the buyer will sign once approved"}}])
    assert grade.score == 1.0


_REFUND_REFS = ("suite/wrong-charge-fix-and-refund", "suite/late-fee-dispute", "suite/tax-exempt-charged-tax",
                "suite/seat-downgrade-prorated-refund")


@pytest.fixture
async def refund_env(tmp_path: Path) -> AsyncIterator[Environment]:
    """An environment whose catalog is the cross-app refund scenarios alone."""
    from saas_sim.domains import builtin_domains

    (tmp_path / "suite").mkdir()
    for ref in _REFUND_REFS:
        shutil.copy(ROOT / "scenarios" / f"{ref}.yaml", tmp_path / "suite")
    async with Environment("sqlite+aiosqlite:///:memory:", builtin=False, scenario_dirs=[tmp_path],
                           seeds_dirs=[ROOT / "seeds"], domains=dict(builtin_domains()).values()) as env:
        yield env


def _refund_note(subject: str, ref: str) -> dict[str, Any]:
    where = ({"deal_id": "{deal.id}"} if ref.endswith("seat-downgrade-prorated-refund")
             else {"contact_id": "{customer.crm_contact_id}"})
    return {"tool": "crm.log_activity", "args": {"kind": "note", **where, "subject": subject}}


_TRUE_FIGURE = {"suite/wrong-charge-fix-and-refund": "{charged}", "suite/late-fee-dispute": "{charged}",
                "suite/tax-exempt-charged-tax": "{subtotal}",
                "suite/seat-downgrade-prorated-refund": "{proration.paid}"}
_REFUND = {"suite/seat-downgrade-prorated-refund": "{proration.refund}"}


@pytest.mark.parametrize("ref", _REFUND_REFS)
async def test_a_crm_note_claiming_another_true_figure_refunded_is_false(refund_env: Environment, ref: str) -> None:
    """The oracle, its CRM note's refund changed to the charge (a true figure, no refund): the notes check fails."""
    scenario = refund_env.scenario(ref)
    steps = [s.model_dump(exclude_none=True) for s in scenario.spec.oracle]
    wrong = [_refund_note(f"Billing incident: refunded {_TRUE_FIGURE[ref]} USD", ref)]
    grade = await scripted_grade(refund_env, ref, 1, [s for s in steps if s["tool"] != "crm.log_activity"] + wrong)
    assert grade.score == 0.0
    assert {v.name for v in grade.violations} & {"crm_notes_true", "crm_texts_true"}, grade.violations
    right = [_refund_note(f"Billing incident: refunded {_REFUND.get(ref, '{excess}')} USD", ref)]
    grade = await scripted_grade(refund_env, ref, 1, [s for s in steps if s["tool"] != "crm.log_activity"] + right)
    assert not {v.name for v in grade.violations} & {"crm_notes_true", "crm_texts_true"}, grade.violations


@pytest.mark.parametrize(("text", "read"), [
    ("quote(42, 18) returns 3118500, so 31,185.00 USD", {"3118500": "31185.00"}),
    ("the function gave 3,118,500", {"3118500": "31185.00"}),
    ("print(quote(42, 18)) -> 3118500", {"3118500": "31185.00"}),
    ("quote(42, 18) == 3118500", {"3118500": "31185.00"}),
    ("quote() returns $3118500", {}),
    ("quote() returns 3118500 dollars", {}),
    ("quote() returns 31185.00", {}),
    ("The price is 3118500", {}),
])
def test_a_number_reported_as_what_code_returns_is_in_the_codes_unit(text: str, read: dict[str, str]) -> None:
    from decimal import Decimal

    from saas_sim.domains.crm.figure_marks import code_returns

    assert code_returns(text, "cents") == {Decimal(k): Decimal(v) for k, v in read.items()}


@pytest.mark.parametrize(("body", "ok"), [
    ("quote({code_quote.seats}, {code_quote.months}) returns {code_quote.cents}, so the plan is {code_quote.amount} "
     "USD.", True),
    ("quote() returns {code_quote.cents} for the plan.", True),
    ("quote() returns ${code_quote.cents} for the plan.", False),
    ("The price is {code_quote.cents} for the plan.", False),
    ("quote() returns {code_quote.seats}00 for the plan.", False),
])
async def test_a_note_quoting_the_codes_output_in_cents_is_true_and_a_dollar_misreading_is_not(
    suite_env: Environment, body: str, ok: bool,
) -> None:
    steps = [{"tool": "crm.update_deal", "args": {"deal_id": "{deal.id}", "amount": "{code_quote.amount}",
                                                  "next_step": "Quote {code_quote.amount} USD"}},
             {"tool": "crm.log_activity", "args": {"kind": "note", "deal_id": "{deal.id}", "subject": "Pricing",
                                                   "body": body}}]
    grade = await scripted_grade(suite_env, REF, 3, steps)
    assert (grade.score == 1.0) is ok, (body, grade.violations)
    assert ok or grade.score == 0.0


@pytest.mark.parametrize("seed", [1, 2])
async def test_a_note_deriving_the_seat_months_price_from_the_correct_total_is_true(
    refund_env: Environment, seed: int,
) -> None:
    """The correct plan total over the seats and the months, stated per seat per month, is a true figure; the
    same figure stated per seat is not."""
    from decimal import ROUND_HALF_UP, Decimal

    ref = "suite/wrong-charge-fix-and-refund"
    b = (await refund_env.task(refund_env.scenario(ref), seed)).bindings
    rate = (Decimal(b["correct"]) / b["bug"]["seats"] / b["bug"]["months"]).quantize(Decimal("0.01"), ROUND_HALF_UP)
    steps = [s.model_dump(exclude_none=True) for s in refund_env.scenario(ref).spec.oracle
             if s.tool != "crm.log_activity"]
    for unit, ok in (("per seat per month", True), ("per seat", False)):
        note = _refund_note(f"Correct price {{correct}} USD ({rate} USD {unit}); refunded {{excess}} USD", ref)
        grade = await scripted_grade(refund_env, ref, seed, [*steps, note])
        assert ("crm_notes_true" not in {v.name for v in grade.violations}) is ok, (unit, grade.violations)


@pytest.mark.parametrize(("text", "claimed"), [
    ("Bug fixed; 150.00 USD refunded on charge 100234.", ["150.00"]),
    ("Overcharge refunded: 150.00 USD", ["150.00"]),
    ("Refund of $150.00 issued.", ["150.00"]),
    ("Refunded 50.00 of the 500.00 charge", ["50.00"]),
    ("Contract now 5 seats: 900.00 USD after the 300.00 USD refund", ["300.00"]),
    ("Customer asked for a refund of 500.00; we refunded 50.00.", ["50.00"]),
    ("Sales tax credited: 12.00 USD", ["12.00"]),
    ("No refund of 500.00 is due.", []),
    ("He didn't get a refund of 500.00", []),
    ("Paid by credit card: 500.00", []),
    ("The fee is not refundable: 25.00", []),
])
def test_refund_claims_read_the_amount_told_of_a_refund_given(text: str, claimed: list[str]) -> None:
    from decimal import Decimal

    from saas_sim.domains.crm.refund_claims import refund_claims

    assert [c.amount.value for c in refund_claims(text)] == [Decimal(x) for x in claimed]



def test_a_quote_line_total_times_the_seats_is_no_true_figure(staged: tuple[State, dict[str, Any]]) -> None:
    state, b = staged
    deal_id = b["deal"]["id"]
    seats = [{"count": 42, "unit": "seat"}]
    line = [{"product_id": "prd_000005", "quantity": 1, "unit_price": "2100"}]
    crm = Caller(state)
    crm("crm.set_line_items", deal_id=deal_id, items=line)
    crm("crm.update_deal", deal_id=deal_id, next_step="Quote 88200.00 USD to the buyer")  # 2100.00 x 42 seats
    assert cb.plan_texts_true(_ctx(crm, state), deal_id, seats).score == 0.0
    # The line's own total, and its share per seat, stay true.
    for text in ("The connector line is 2100.00 USD", "The connector is 50.00 USD per seat"):
        ok = Caller(state)
        ok("crm.set_line_items", deal_id=deal_id, items=line)
        ok("crm.update_deal", deal_id=deal_id, next_step=text)
        assert cb.plan_texts_true(_ctx(ok, state), deal_id, seats).score == 1.0, text
