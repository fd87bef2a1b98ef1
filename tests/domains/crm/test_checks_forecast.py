"""Forecast hygiene is judged on the declined deals' stage and the cause their lost reason names."""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.runtime.environment import Environment
from tests.domains.helpers import find_seed, scripted_grade

REF = "crm/close-lost-declined-deals"


def _close(deal: str, reason: str) -> dict[str, Any]:
    return {"tool": "crm.update_deal_stage", "args": {"deal_id": deal, "stage": "closed_lost", "lost_reason": reason}}


async def test_both_declines_closed_with_their_causes_score_full(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 4, [_close("{d1.id}", "{d1.reason}"), _close("{d2.id}", "{d2.reason_alt}")])
    assert grade.score == 1.0


async def test_one_decline_closed_right_earns_half(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 4, [_close("{d2.id}", "{d2.reason}")])
    assert grade.score == 0.5


async def test_a_reason_without_the_cause_earns_only_the_closing_share(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 5, [_close("{d1.id}", "Buyer said no"), _close("{d2.id}", "Declined")])
    assert grade.score == 0.2 and not grade.violations


async def test_a_reason_listing_every_cause_is_false(env: Environment) -> None:
    grade = await scripted_grade(env, REF, 5, [_close("{d1.id}", "{every_cause}"), _close("{d2.id}", "{d2.reason}")])
    assert "lost_reasons_true" in [v.name for v in grade.violations] and grade.score == 0.0


async def test_closing_a_retracted_or_soft_no_deal_is_collateral(env: Environment) -> None:
    right = [_close("{d1.id}", "{d1.reason}"), _close("{d2.id}", "{d2.reason}")]
    for kept in ("{kept.1.id}", "{kept.2.id}"):
        grade = await scripted_grade(env, REF, 6, [*right, _close(kept, "Buyer declined")])
        assert "open_deals_untouched" in [v.name for v in grade.violations] and grade.score == 0.0


async def test_a_note_on_a_quiet_deal_counts_as_touching_it(env: Environment) -> None:
    note = {"tool": "crm.log_activity", "args": {"kind": "note", "deal_id": "{kept.0.id}", "subject": "Still quiet"}}
    grade = await scripted_grade(env, REF, 7, [_close("{d1.id}", "{d1.reason}"), _close("{d2.id}", "{d2.reason}"),
                                               note])
    assert grade.score == 0.0


@pytest.mark.parametrize(("cancelled", "competitor"), [
    ("Project cancelled after a reorganisation (not a price or competitor issue)", "Went with Copperleaf"),
    ("Initiative cancelled internally - budget was fine, no competitor involved", "Selected Copperleaf instead of us"),
    ("Project cancelled in a reorg", "Lost to Copperleaf (price was not the deciding factor)"),
])
async def test_a_reason_that_denies_the_other_causes_is_true(env: Environment, cancelled: str, competitor: str) -> None:
    seed = await find_seed(env, REF, lambda t: (t.bindings["d1"].get("competitor"), t.bindings["d2"]["cause"])
                           == ("Copperleaf", "cancelled"), "a loss to Copperleaf beside a cancelled project")
    grade = await scripted_grade(env, REF, seed, [_close("{d2.id}", cancelled), _close("{d1.id}", competitor)])
    assert grade.score == 1.0, grade.violations


async def _seed_without(env: Environment, rival: str) -> int:
    """A seed whose declined deals did not go to `rival`, so naming it would be false (a version bump re-seeds
    every task: the seed is found, not pinned)."""
    return await find_seed(env, REF, lambda t: rival not in (t.bindings["d1"]["competitor"],
                                                             t.bindings["d2"]["competitor"]),
                           f"no deal lost to {rival}")


@pytest.mark.parametrize(("suffix", "other_rival"), [
    ("from our vantage point it is final", "Vantage Suite"),
    ("after the halcyon days of last year", "Halcyon CRM"),
    ("no orbital launch of anything this year", "Orbital Apps"),
])
async def test_an_everyday_word_that_is_also_a_rivals_name_keeps_a_true_reason_true(
    env: Environment, suffix: str, other_rival: str,
) -> None:
    seed = await _seed_without(env, other_rival)
    steps = [_close("{d1.id}", f"{{d1.reason}}, {suffix}"), _close("{d2.id}", f"{{d2.reason}}; {suffix}")]
    grade = await scripted_grade(env, REF, seed, steps)
    assert grade.score == 1.0, grade.violations


@pytest.mark.parametrize(("prefix", "other_rival"), [
    ("Vantage point", "Vantage Suite"),
    ("Halcyon days are over", "Halcyon CRM"),
    ("Orbital period of the review ended", "Orbital Apps"),
])
async def test_an_everyday_phrase_at_a_sentence_start_keeps_a_true_reason_true(
    env: Environment, prefix: str, other_rival: str,
) -> None:
    seed = await _seed_without(env, other_rival)
    steps = [_close("{d1.id}", f"{prefix}: {{d1.reason}}"), _close("{d2.id}", f"{prefix}. {{d2.reason}}")]
    grade = await scripted_grade(env, REF, seed, steps)
    assert grade.score == 1.0, grade.violations
