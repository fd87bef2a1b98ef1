"""A renewal is one new deal on the customer's company with the true amount, close date and buyer."""

from __future__ import annotations

from typing import Any

from saas_sim.runtime.environment import Environment
from tests.domains.helpers import scripted_grade

REF = "crm/create-renewal-at-agreed-uplift"


def _create(amount: str = "{amount}", close: str = "{term_end}", **more: Any) -> dict[str, Any]:
    args = {"account_id": "{account.id}", "name": "Renewal", "stage": "qualification",
            "primary_contact_id": "{contact.id}", "amount": amount, "close_date": close, **more}
    return {"tool": "crm.create_deal", "args": args}


def _violations(grade: Any) -> list[str]:
    return [v.name for v in grade.violations]


async def test_the_right_renewal_scores_full(env: Environment) -> None:
    assert (await scripted_grade(env, REF, 3, [_create()])).score == 1.0


async def test_a_renewal_without_the_buyer_or_stage_earns_the_figures_share(env: Environment) -> None:
    step = {"tool": "crm.create_deal", "args": {"account_id": "{account.id}", "name": "Renewal",
                                                 "amount": "{amount}", "close_date": "{term_end}"}}
    grade = await scripted_grade(env, REF, 3, [step])
    assert grade.score == 0.6 and not grade.violations


async def test_a_renewal_at_the_cap_or_with_the_one_off_line_is_false(env: Environment) -> None:
    for amount in ("{cap_amount}", "{with_one_off_amount}", "{flat_amount}"):
        grade = await scripted_grade(env, REF, 5, [_create(amount)])
        assert "renewal_states_true_figures" in _violations(grade) and grade.score == 0.0


async def test_a_deal_without_an_amount_earns_nothing(env: Environment) -> None:
    step = {"tool": "crm.create_deal", "args": {"account_id": "{account.id}", "name": "Renewal",
                                                 "stage": "qualification", "primary_contact_id": "{contact.id}",
                                                 "close_date": "{term_end}"}}
    assert (await scripted_grade(env, REF, 6, [step])).score == 0.0


async def test_two_renewals_are_a_shotgun(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 6, [_create(), _create(name="Renewal again")])
    assert "only_the_renewal" in _violations(grade) and grade.score == 0.0


async def test_a_note_on_the_contract_is_fine_but_claiming_the_renewal_signed_is_not(env: Environment) -> None:
    def note(subject: str) -> dict[str, Any]:
        return {"tool": "crm.log_activity", "args": {"kind": "note", "deal_id": "{contract.id}", "subject": subject}}

    assert (await scripted_grade(env, REF, 7, [_create(), note("Renewal opened in qualification")])).score == 1.0
    grade = await scripted_grade(env, REF, 7, [_create(), note("Renewal signed")])
    assert "renewal_claims_true" in _violations(grade) and grade.score == 0.0


async def test_editing_the_open_expansion_is_collateral(env: Environment) -> None:
    edit = {"tool": "crm.update_deal", "args": {"deal_id": "{expansion.id}", "next_step": "Renewal call"}}
    grade = await scripted_grade(env, REF, 8, [_create(), edit])
    assert "only_the_renewal" in _violations(grade) and grade.score == 0.0


async def test_lines_must_renew_no_one_off_and_total_the_amount(env: Environment) -> None:
    create = {**_create(), "save_as": "renewal"}

    def lines(items: str) -> dict[str, Any]:
        return {"tool": "crm.set_line_items", "args": {"deal_id": "{renewal.deal.id}", "items": items}}

    assert (await scripted_grade(env, REF, 9, [create, lines("{renewal_items}")])).score == 1.0
    grade = await scripted_grade(env, REF, 9, [create, lines("{one_off_items}")])
    assert "renewal_states_true_figures" in _violations(grade) and grade.score == 0.0
