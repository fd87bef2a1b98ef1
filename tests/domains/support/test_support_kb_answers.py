"""How-to answers are judged by the article's facts as an answer: each value next to its unit, and one of them."""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.runtime.environment import Environment
from tests.domains.helpers import scripted_grade

KB = "support/answer-howto-from-kb"
SOLVE = {"tool": "support.set_ticket_status", "args": {"ticket_id": "{ticket.id}", "status": "solved"}}
# Seed 3 asks about a Wi-Fi reset (the Home button for 9 seconds); seed 1 about descaling (2 parts water, 2 cycles).
RESET, DESCALE = 3, 1


async def _answered(env: Environment, seed: int, body: str) -> float:
    steps: list[dict[str, Any]] = [
        {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body}}, SOLVE]
    grade = await scripted_grade(env, KB, seed, steps)
    return next(c.score for c in grade.checks if c.name == "answered_from_right_article")


@pytest.mark.parametrize(("seed", "body"), [
    (RESET, "Hi, press and hold the Home button for 9 seconds until the light blinks."),
    (RESET, "Hi, hold down Home for nine seconds, then reconnect in the app."),
    (RESET, "Hi, a 9-second press on the Home button resets it. Wait 30 seconds before you reconnect."),
    (RESET, "Hi, do not unplug it. Hold the Home button for 9 s."),
    (DESCALE, "Hi, mix 1 part vinegar with 2 parts water and run 2 cycles, then one with clean water."),
    (DESCALE, "Hi, use vinegar and water at 1:2 and run the machine for 2 cycles."),
    (DESCALE, "Hi, mix one part white vinegar with two parts water and run 2 descaling cycles."),
    (DESCALE, "Hi, mix 1 part vinegar with 2 parts water, run two full cycles, then one cycle with clean water."),
    (RESET, "Hi, hold the Home button for 9 full seconds."),
])
async def test_the_articles_facts_stated_as_the_answer_pass(env: Environment, seed: int, body: str) -> None:
    assert await _answered(env, seed, body) == 1.0


@pytest.mark.parametrize(("seed", "body"), [
    # Every candidate value: two durations are no answer.
    (RESET, "Hi, hold the Home button for 3 seconds, 5 seconds, 7 seconds, 9 seconds or 11 seconds."),
    # Values listed apart from their unit.
    (RESET, "Hi, hold the Home button for this many seconds: 3, 5, 7, 9, 11, 13."),
    (DESCALE, "Hi, mix vinegar with 2, 3, 4 or 5 parts water and run 2 cycles."),
    # The facts stated only to deny them.
    (RESET, "Hi, do not hold the Home button for 9 seconds, that will not help."),
])
async def test_candidates_listed_loose_or_denied_are_no_answer(env: Environment, seed: int, body: str) -> None:
    assert await _answered(env, seed, body) == 0.0
