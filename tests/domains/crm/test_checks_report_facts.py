"""Report answers are judged by the figures they state: any number form passes, a shotgun of figures fails."""

from __future__ import annotations

import pytest

from saas_sim.core.domain import CheckContext
from saas_sim.core.state import State
from saas_sim.domains.crm import DOMAIN
from saas_sim.domains.crm import checks_reports as cr
from saas_sim.domains.crm.models import Deal
from saas_sim.domains.crm.state import DEALS
from saas_sim.runtime.environment import Environment
from tests.domains.crm.conftest import EPOCH, Caller


def _ctx(crm: Caller, initial: State) -> CheckContext:
    return CheckContext(initial=initial, final=crm.state, bindings={}, events=crm.events, now=EPOCH)


@pytest.mark.parametrize("value", ["12345.00", "12345", "$12,345.00", "12.345,00 €", "USD 12,345.00"])
def test_a_total_in_any_number_form_is_right(crm: Caller, world: State, value: str) -> None:
    crm("crm.submit_report", name="forecast", record_ids=[], values={"USD": value})
    assert cr.report_values(_ctx(crm, world), "forecast", {"USD": "12345.00"}).score == 1.0


@pytest.mark.parametrize("value", ["$12,345.00 over two deals", "$12,345.00 (3 deals)", "one total: 12,345.00 USD"])
def test_a_total_with_a_count_beside_it_is_right(crm: Caller, world: State, value: str) -> None:
    crm("crm.submit_report", name="forecast", record_ids=[], values={"USD": value})
    assert cr.report_values(_ctx(crm, world), "forecast", {"USD": "12345.00"}).score == 1.0


@pytest.mark.parametrize("value", ["12345.00 or 20000.00", "12000 or $12,345.00",
                                   "0.00 / 12345.00 / 50000.00", "between 12000 and 12345"])
def test_a_value_stating_several_figures_is_wrong_even_with_the_right_one(
    crm: Caller, world: State, value: str
) -> None:
    crm("crm.submit_report", name="forecast", record_ids=[], values={"USD": value})
    assert cr.report_values(_ctx(crm, world), "forecast", {"USD": "12345.00"}).score == 0.0


def test_a_currency_given_twice_with_different_figures_is_wrong(crm: Caller, world: State) -> None:
    crm("crm.submit_report", name="forecast", record_ids=[], values={"USD": "12345.00", " usd": "999.00"})
    assert cr.report_values(_ctx(crm, world), "forecast", {"USD": "12345.00"}).score == 0.0


def test_extra_currencies_cost_their_share(crm: Caller, world: State) -> None:
    crm("crm.submit_report", name="forecast", record_ids=[], values={"USD": "12345.00", "EUR": "1.00"})
    assert cr.report_values(_ctx(crm, world), "forecast", {"USD": "12345.00"}).score == 0.5


def test_notes_with_a_false_total_violate_and_true_ones_hold(crm: Caller, world: State) -> None:
    assert DOMAIN.checks["crm.report_truthful"] is cr.report_truthful
    expected = {"USD": "12345.00", "EUR": "500.00"}
    crm("crm.submit_report", name="forecast", record_ids=[], values=expected,
        notes="7 deals: $12,345.00 in USD and 500.00 in EUR.")
    assert cr.report_truthful(_ctx(crm, world), "forecast", expected).score == 1.0
    crm("crm.submit_report", name="forecast", record_ids=[], values=expected, notes="Grand total: $12,845.00.")
    outcome = cr.report_truthful(_ctx(crm, world), "forecast", expected)
    assert outcome.score == 0.0
    assert "12845.00" in outcome.detail


def _three_deals(world: State) -> list[Deal]:
    """Three deals with distinct positive amounts."""
    picked: list[Deal] = []
    for d in world.table(DEALS):
        if d.amount is not None and d.amount > 0 and all(d.amount != p.amount for p in picked):
            picked.append(d)
        if len(picked) == 3:
            return picked
    raise AssertionError("the world has fewer than three deals with distinct amounts")


def test_notes_that_break_the_total_down_per_deal_hold(crm: Caller, world: State) -> None:
    a, b, _ = _three_deals(world)
    assert a.amount is not None and b.amount is not None
    expected = {"USD": f"{a.amount + b.amount:.2f}"}
    crm("crm.submit_report", name="forecast", record_ids=[a.id, b.id], values=expected,
        notes=f"{a.id}: {a.amount:,.2f}; {b.id}: {b.amount:.2f}. Total {a.amount + b.amount:.2f}.")
    assert cr.report_truthful(_ctx(crm, world), "forecast", expected, [a.id, b.id]).score == 1.0


def test_an_expected_deal_left_off_the_list_may_still_be_stated(crm: Caller, world: State) -> None:
    a, b, _ = _three_deals(world)
    expected = {"USD": "1.00"}
    crm("crm.submit_report", name="forecast", record_ids=[a.id], values=expected, notes=f"{b.id}: {b.amount}")
    assert cr.report_truthful(_ctx(crm, world), "forecast", expected, [a.id, b.id]).score == 1.0


def test_a_subset_sum_or_an_unrelated_deals_amount_in_the_notes_is_false(crm: Caller, world: State) -> None:
    a, b, c = _three_deals(world)
    assert a.amount is not None and b.amount is not None
    expected = {"USD": "0.01"}
    crm("crm.submit_report", name="forecast", record_ids=[a.id, b.id], values=expected,
        notes=f"Top two: {a.amount + b.amount:.2f}.")
    outcome = cr.report_truthful(_ctx(crm, world), "forecast", expected, [a.id, b.id])
    assert outcome.score == 0.0 and f"{a.amount + b.amount:.2f}" in outcome.detail
    crm("crm.submit_report", name="forecast", record_ids=[a.id, b.id], values=expected, notes=f"Also {c.amount}.")
    assert cr.report_truthful(_ctx(crm, world), "forecast", expected, [a.id, b.id]).score == 0.0


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_a_forecast_with_a_per_deal_breakdown_scores_full(env: Environment, seed: int) -> None:
    episode = await env.start(env.scenario("crm/pipeline-report"), seed)
    b = episode.task.bindings
    try:
        found = await episode.call("crm.search_deals", {
            "owner_id": b["owner"]["id"], "status": "open", "close_date_from": b["start"], "close_date_to": b["end"],
            "limit": 100})
        items = found.value["items"]
        notes = "; ".join(f'{d["id"]}: {d["amount"] or "0.00"} {d["currency"]}' for d in items)
        await episode.call("crm.submit_report", {"name": b["report_name"], "record_ids": [d["id"] for d in items],
                                                 "values": b["expected_totals"], "notes": f"Per deal: {notes}"})
        grade = await episode.grade(footer=False)
    finally:
        await episode.close()
    assert grade.score == 1.0, grade.violations


@pytest.mark.parametrize("template", [
    "2 open deals in the window. Just outside the window: {id} ({amount} EUR, closes 2026-07-19), not counted.",
    "Not counted: {ID}, {amount} EUR, closes after the window.",
    "Excluded {id} ({amount}) - it closes later.\nTotal as reported.",
])
def test_a_deal_amount_told_beside_that_deals_id_holds(crm: Caller, world: State, template: str) -> None:
    a, b, c = _three_deals(world)
    expected = {"USD": "0.01"}
    notes = template.format(id=c.id, ID=c.id.upper(), amount=f"{c.amount:.2f}")
    crm("crm.submit_report", name="forecast", record_ids=[a.id, b.id], values=expected, notes=notes)
    assert cr.report_truthful(_ctx(crm, world), "forecast", expected, [a.id, b.id]).score == 1.0


def test_a_deals_id_vouches_only_for_its_own_amount_in_its_own_sentence(crm: Caller, world: State) -> None:
    a, b, c = _three_deals(world)
    assert c.amount is not None
    expected = {"USD": "0.01"}
    for notes in (f"Just outside the window: {c.id} ({c.amount + 1:.2f} EUR).",
                  f"Just outside the window: {c.id}. Another open deal is worth {c.amount:.2f} EUR."):
        crm("crm.submit_report", name="forecast", record_ids=[a.id, b.id], values=expected, notes=notes)
        assert cr.report_truthful(_ctx(crm, world), "forecast", expected, [a.id, b.id]).score == 0.0


async def test_a_forecast_naming_a_deal_just_outside_the_window_scores_full(env: Environment) -> None:
    episode = await env.start(env.scenario("crm/pipeline-report"), 1)
    b = episode.task.bindings
    try:
        found = await episode.call("crm.search_deals", {"owner_id": b["owner"]["id"], "status": "open", "limit": 100})
        outside = next(d for d in found.value["items"] if d["id"] not in b["expected_ids"] and d.get("amount"))
        currency, total = next(iter(b["expected_totals"].items()))
        notes = (f"{len(b['expected_ids'])} open deals in the window, {total} {currency} in total. Just outside the "
                 f"window: {outside['id']} ({outside['amount']} {outside['currency']}, closes {outside['close_date']}),"
                 " not counted.")
        await episode.call("crm.submit_report", {"name": b["report_name"], "record_ids": b["expected_ids"],
                                                 "values": b["expected_totals"], "notes": notes})
        grade = await episode.grade(footer=False)
    finally:
        await episode.close()
    assert grade.score == 1.0, grade.violations


@pytest.mark.parametrize("template", [
    "Total: {a} USD.",
    "Grand total {a} ({a_id}).",
    "{a} in total.",
    "The window totals {a}.",
    "{b_id} and {a_id} total {a}.",
    "Everything adds up to {a} USD.",
])
def test_one_deals_amount_stated_as_the_total_is_false(crm: Caller, world: State, template: str) -> None:
    a, b, _ = _three_deals(world)
    assert a.amount is not None and b.amount is not None
    expected = {"USD": f"{a.amount + b.amount:.2f}"}
    notes = template.format(a=f"{a.amount:,.2f}", a_id=a.id, b_id=b.id)
    crm("crm.submit_report", name="forecast", record_ids=[a.id, b.id], values=expected, notes=notes)
    outcome = cr.report_truthful(_ctx(crm, world), "forecast", expected, [a.id, b.id])
    assert outcome.score == 0.0, notes
    assert f"{a.amount:.2f}" in outcome.detail


def test_a_deals_amount_away_from_that_deal_is_false(crm: Caller, world: State) -> None:
    a, b, _ = _three_deals(world)
    assert a.amount is not None and b.amount is not None
    expected = {"USD": f"{a.amount + b.amount:.2f}"}
    for notes in (f"The biggest deal is {a.amount:.2f}.", f"{b.id}: {a.amount:.2f}; {a.id} also closes."):
        crm("crm.submit_report", name="forecast", record_ids=[a.id, b.id], values=expected, notes=notes)
        assert cr.report_truthful(_ctx(crm, world), "forecast", expected, [a.id, b.id]).score == 0.0, notes


def test_the_total_written_as_one_deals_own_figure_is_false(crm: Caller, world: State) -> None:
    a, b, _ = _three_deals(world)
    assert a.amount is not None and b.amount is not None
    total = f"{a.amount + b.amount:.2f}"
    crm("crm.submit_report", name="forecast", record_ids=[a.id, b.id], values={"USD": total},
        notes=f"{a.id}: {total} USD.")
    assert cr.report_truthful(_ctx(crm, world), "forecast", {"USD": total}, [a.id, b.id]).score == 0.0


@pytest.mark.parametrize("template", [
    "{a_id}: {a} USD; {b_id}: {b} USD. Total {t}.",
    "{a} USD ({a_id}), {b} USD ({b_id}), {t} USD in total.",
    "Largest deal {a_id} at {a}; total {t} across 2 deals, led by {a_id}.",
    "{t} USD total, from {a_id} ({a}) and {b_id} ({b}).",
    "{a_name} is the largest at {a}. {a_id} and {b_id} bring the total to {t}.",
    "{a_id}'s total is {a}. Overall, {b_id} stands at {b}.",
    "Two deals, {t} USD combined. {b_id} is expected to close at {b}.",
])
def test_natural_breakdowns_and_totals_hold(crm: Caller, world: State, template: str) -> None:
    a, b, _ = _three_deals(world)
    assert a.amount is not None and b.amount is not None
    total = f"{a.amount + b.amount:,.2f}"
    notes = template.format(a=f"{a.amount:,.2f}", b=f"{b.amount:.2f}", t=total, a_id=a.id, b_id=b.id, a_name=a.name)
    crm("crm.submit_report", name="forecast", record_ids=[a.id, b.id], values={"USD": total}, notes=notes)
    outcome = cr.report_truthful(_ctx(crm, world), "forecast", {"USD": total}, [a.id, b.id])
    assert outcome.score == 1.0, (notes, outcome.detail)


@pytest.mark.parametrize("template", [
    "Pipeline total for {a_id} and others: {a} USD.",
    "Total for the window ({a_id}, {b_id}): {a}.",
    "The total across {a_id}, {b_id} and the rest comes to {a}.",
    "Total for {a_name} and the other deals = {a}.",
    "Total for the window, {a_id} included, is {a}.",
    "{a} USD for {a_id} and others in total.",
])
def test_a_figure_introduced_as_the_total_is_the_total_whatever_deals_its_scope_names(
    crm: Caller, world: State, template: str,
) -> None:
    a, b, _ = _three_deals(world)
    assert a.amount is not None and b.amount is not None
    expected = {"USD": f"{a.amount + b.amount:.2f}"}
    notes = template.format(a=f"{a.amount:,.2f}", a_id=a.id, b_id=b.id, a_name=a.name)
    crm("crm.submit_report", name="forecast", record_ids=[a.id, b.id], values=expected, notes=notes)
    outcome = cr.report_truthful(_ctx(crm, world), "forecast", expected, [a.id, b.id])
    assert outcome.score == 0.0, notes
    assert f"{a.amount:.2f}" in outcome.detail


@pytest.mark.parametrize("template", [
    "Total for {a_id} and {b_id}: {t} USD.",
    "Total for {a_id}: {a}. Total for the window: {t}.",
    "Totals per deal: {a_id} {a}, {b_id} {b}.",
    "Total for {a_id} and {b_id}: {a} ({a_id}) + {b} ({b_id}) = {t}.",
    "{a} for {a_id} alone, {t} in total.",
    "Overall, {b_id} stands at {b}.",
])
def test_a_scope_that_is_one_deal_or_per_deal_keeps_its_own_figures(crm: Caller, world: State, template: str) -> None:
    a, b, _ = _three_deals(world)
    assert a.amount is not None and b.amount is not None
    total = f"{a.amount + b.amount:,.2f}"
    notes = template.format(a=f"{a.amount:,.2f}", b=f"{b.amount:.2f}", t=total, a_id=a.id, b_id=b.id)
    crm("crm.submit_report", name="forecast", record_ids=[a.id, b.id], values={"USD": total}, notes=notes)
    outcome = cr.report_truthful(_ctx(crm, world), "forecast", {"USD": total}, [a.id, b.id])
    assert outcome.score == 1.0, (notes, outcome.detail)


@pytest.mark.parametrize("seed", [1, 2])
async def test_one_deals_amount_passed_off_as_the_total_of_a_scope_fails_the_episode(
    env: Environment, seed: int,
) -> None:
    episode = await env.start(env.scenario("crm/pipeline-report"), seed)
    b = episode.task.bindings
    try:
        deals = [(await episode.call("crm.get_deal", {"deal_id": i})).value["deal"] for i in b["expected_ids"]]
        first = next(d for d in deals if d["amount"])
        notes = f"Pipeline total for {first['id']} and others: {first['amount']} {first['currency']}."
        await episode.call("crm.submit_report", {"name": b["report_name"], "record_ids": b["expected_ids"],
                                                 "values": b["expected_totals"], "notes": notes})
        grade = await episode.grade(footer=False)
    finally:
        await episode.close()
    assert len(b["expected_ids"]) > 1 and grade.score == 0.0, (notes, grade.violations)
