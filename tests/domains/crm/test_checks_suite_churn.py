"""The CRM's cross-app churn checks, on suite/churn-risk-review: next steps naming each account's open escalations."""

from __future__ import annotations

import pytest

from saas_sim.runtime.environment import Environment
from saas_sim.runtime.grading import Grade
from tests.domains.helpers import scripted_grade

REF = "suite/churn-risk-review"
ONE = "{escalated.0.0}, {escalated.1.0}"
TWO = "{escalated.2.0}, {escalated.2.1}"


def _update(deal: str, text: str, **more: str) -> dict[str, object]:
    return {"tool": "crm.update_deal", "args": {"deal_id": deal, "next_step": text, **more}}


RIGHT = [_update("{risk_one.deal.id}", f"Churn risk: {ONE}"), _update("{risk_two.deals.0.id}", f"Churn risk: {TWO}"),
         _update("{risk_two.deals.1.id}", f"Churn risk: {TWO}")]


def _check(grade: Grade, name: str) -> float:
    return next(c.score for c in grade.checks if c.name == name)


async def test_next_steps_naming_each_accounts_open_escalations_score_full(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 0, RIGHT)
    assert grade.score == pytest.approx(1.0)


async def test_a_next_step_naming_half_the_tickets_earns_half_of_its_deal(env: Environment) -> None:
    half = _update("{risk_one.deal.id}", "Churn risk: {escalated.0.0}")
    grade = await scripted_grade(env, REF, 0, [half, *RIGHT[1:]])
    assert _check(grade, "risk_deals_flagged") == pytest.approx((0.5 + 1 + 1) / 3)


async def test_counting_per_person_misses_the_account_whose_people_share_the_escalations(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 1, RIGHT[1:])
    assert grade.score == pytest.approx(2 / 3)


async def test_a_next_step_naming_another_accounts_ticket_earns_nothing_for_that_deal(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 2, [_update("{risk_one.deal.id}", f"Churn risk: {ONE}, {{escalated.3.0}}"),
                                               *RIGHT[1:]])
    assert _check(grade, "risk_deals_flagged") == pytest.approx(2 / 3)


async def test_a_distractor_deal_or_another_field_breaks_the_gate(env: Environment) -> None:
    distractor = await scripted_grade(env, REF, 3, [*RIGHT, _update("{other_open_deal_ids.0}", "Churn risk")])
    assert _check(distractor, "only_risk_deals_changed") == 0.0 and distractor.score == 0.0
    field = await scripted_grade(env, REF, 3, [*RIGHT[:2], _update("{risk_two.deals.1.id}", f"Churn risk: {TWO}",
                                                                   close_date="2026-12-31")])
    assert _check(field, "only_risk_deals_changed") == 0.0 and field.score == 0.0


async def test_a_next_step_naming_the_right_tickets_to_deny_the_risk_earns_nothing(env: Environment) -> None:
    denied = [_update("{risk_one.deal.id}", f"No churn risk: {ONE} are resolved"), *RIGHT[1:]]
    grade = await scripted_grade(env, REF, 3, denied)
    assert _check(grade, "risk_deals_flagged") == pytest.approx(2 / 3)


@pytest.mark.parametrize("text", [
    f"Churn risk: escalations {ONE} are not yet resolved - review with the customer",
    f"Churn risk: {ONE} open; review before any non-urgent upsell",
    f"Churn risk until {ONE} are resolved",
])
async def test_a_next_step_affirming_the_risk_in_other_words_earns_its_deal(env: Environment, text: str) -> None:
    grade = await scripted_grade(env, REF, 0, [_update("{risk_one.deal.id}", text), *RIGHT[1:]])
    assert _check(grade, "risk_deals_flagged") == pytest.approx(1.0)


_SOLVED_SEED = 1
"""A seed whose second risk account also has a solved escalation (its plan entry draws 0 or 1)."""


async def _solved_of_risk_two(env: Environment, seed: int) -> str:
    bindings = (await env.task(env.scenario(REF), seed)).bindings
    solved: list[str] = bindings["solved_escalations"][bindings["plan"][2]["contact_id"]]
    return solved[0]


def _risk_two_says(text: str) -> list[dict[str, object]]:
    return [RIGHT[0], _update("{risk_two.deals.0.id}", text), _update("{risk_two.deals.1.id}", text)]


@pytest.mark.parametrize("template", [
    "Churn risk: review {two} with the customer ({solved} was resolved last month)",
    "Churn risk: {two} still open; {solved} already solved",
    "Churn risk: review escalations {two}. An earlier escalation, {solved}, is closed.",
    "Churn risk - {solved} resolved, but {two} are open: review with the customer",
    "Review open escalations {two} (previous escalation {solved} fixed in March)",
])
async def test_a_solved_escalation_of_the_account_named_as_solved_costs_nothing(env: Environment,
                                                                                template: str) -> None:
    solved = await _solved_of_risk_two(env, _SOLVED_SEED)
    grade = await scripted_grade(env, REF, _SOLVED_SEED, _risk_two_says(template.format(two=TWO, solved=solved)))
    assert _check(grade, "risk_deals_flagged") == pytest.approx(1.0), grade.checks


@pytest.mark.parametrize("template", [
    "Churn risk: review escalations {two}, {solved}",  # a solved one listed as open
    "Churn risk: {two}, {solved} resolved",  # the open ones told resolved with it
    "Churn risk: {solved} open, {two} resolved",
])
async def test_a_solved_escalation_told_as_open_or_the_open_ones_told_solved_earns_nothing(
    env: Environment, template: str,
) -> None:
    solved = await _solved_of_risk_two(env, _SOLVED_SEED)
    grade = await scripted_grade(env, REF, _SOLVED_SEED, _risk_two_says(template.format(two=TWO, solved=solved)))
    assert _check(grade, "risk_deals_flagged") == pytest.approx(1 / 3), grade.checks
