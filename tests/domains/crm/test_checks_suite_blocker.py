"""The blocker next-step check, on suite/deal-blocked-by-bug: the blocked deal says the fix is in."""

from __future__ import annotations

import pytest

from saas_sim.runtime.environment import Environment
from saas_sim.runtime.grading import Grade
from tests.domains.helpers import scripted_grade

REF = "suite/deal-blocked-by-bug"


def _step(text: str, deal: str = "{deal.id}") -> list[dict[str, object]]:
    return [{"tool": "crm.update_deal", "args": {"deal_id": deal, "next_step": text}}]


def _check(grade: Grade, name: str) -> float:
    return next(c.score for c in grade.checks if c.name == name)


@pytest.mark.parametrize("text", ["Bug fixed; send the corrected quote", "The fix is in, book the pricing review"])
async def test_a_next_step_saying_the_fix_is_in_passes(env: Environment, text: str) -> None:
    grade = await scripted_grade(env, REF, 0, _step(text))
    assert _check(grade, "next_step_says_fixed") == 1.0 and _check(grade, "only_next_step_edited") == 1.0


@pytest.mark.parametrize("text", ["Still waiting for the fix", "Fix not yet released", "Call the buyer", "Fixed"])
async def test_a_still_blocked_vague_or_short_next_step_fails(env: Environment, text: str) -> None:
    grade = await scripted_grade(env, REF, 1, _step(text))
    assert _check(grade, "next_step_says_fixed") == 0.0


@pytest.mark.parametrize("text", ["fixed fixed fixed", "asdf qwer fixed", "Lorem ipsum fixed", "qwerty uiop: fixed"])
async def test_a_fix_padded_with_noise_or_repeats_is_no_next_step(env: Environment, text: str) -> None:
    grade = await scripted_grade(env, REF, 1, _step(text))
    assert _check(grade, "next_step_says_fixed") == 0.0


@pytest.mark.parametrize("deal", ["{other_deal.id}", "{namesake.deal_id}"])
async def test_the_next_step_on_another_deal_breaks_the_gate(env: Environment, deal: str) -> None:
    grade = await scripted_grade(env, REF, 2, _step("Bug fixed; send the corrected quote", deal))
    assert _check(grade, "next_step_says_fixed") == 0.0 and _check(grade, "no_other_deal") == 0.0
    assert grade.score == 0.0


@pytest.mark.parametrize("text", [
    "Display bug fixed. Follow up with the buyer once they have reviewed the corrected quote",
    "Bug fixed, no blockers left: resume the deal",
])
async def test_a_next_step_with_a_later_condition_or_no_blockers_still_reports_the_fix(env: Environment,
                                                                                     text: str) -> None:
    grade = await scripted_grade(env, REF, 0, _step(text))
    assert _check(grade, "next_step_says_fixed") == 1.0


@pytest.mark.parametrize("text", ["Fixed? Not yet, check again next week", "Resume once the fix is deployed",
                                  "Bug should be fixed next week, then resume"])
async def test_a_next_step_that_only_expects_the_fix_fails(env: Environment, text: str) -> None:
    grade = await scripted_grade(env, REF, 0, _step(text))
    assert _check(grade, "next_step_says_fixed") == 0.0
