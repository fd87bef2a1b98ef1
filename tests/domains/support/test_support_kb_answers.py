"""How-to answers are judged by the article's facts as an answer: each value next to its unit, and one of them."""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.runtime.environment import Environment
from tests.domains.helpers import find_seed, scripted_grade
from tests.domains.support.task_picks import WORDS

KB = "support/answer-howto-from-kb"
SOLVE = {"tool": "support.set_ticket_status", "args": {"ticket_id": "{ticket.id}", "status": "solved"}}
RESET, DESCALE = "Reset the Wi-Fi connection", "Descale and clean"
"""How the two kinds of article this file answers are titled (button and seconds; parts of water and cycles)."""

async def _values(env: Environment, kind: str) -> tuple[int, dict[str, Any]]:
    """A seed whose customer asks the `kind` article (a version bump re-seeds every task: found, not pinned), and
    the values to write its answers with: the Wi-Fi reset's button and seconds, or descaling's parts and cycles,
    each also as a word, and candidate lists that hold the right value among others."""
    seed = await find_seed(env, KB, lambda t: str(t.bindings["article"]["title"]).startswith(kind),
                           f"a question answered by a '{kind}' article")
    bindings = (await env.task(env.scenario(KB), seed)).bindings
    first, second = (str(bindings[f]).split()[0] for f in ("fact1", "fact2"))
    if kind == RESET:
        n = int(second)
        return seed, {"button": first, "n": n, "n_word": WORDS[n], "n_list": ", ".join(str(n + d) for d in (
            -2, 0, 2, 4, 6, 8)), "n_durations": ", ".join(f"{n + d} seconds" for d in (-2, 0, 2, 4)) +
            f" or {n + 6} seconds"}
    parts, cycles = int(first), int(second)
    return seed, {"parts": parts, "parts_word": WORDS[parts], "cycles": cycles, "cycles_word": WORDS[cycles]}


async def _answered(env: Environment, kind: str, body: str) -> float:
    seed, values = await _values(env, kind)
    steps: list[dict[str, Any]] = [
        {"tool": "support.send_reply", "args": {"ticket_id": "{ticket.id}", "body": body.format(**values)}}, SOLVE]
    grade = await scripted_grade(env, KB, seed, steps)
    return next(c.score for c in grade.checks if c.name == "answered_from_right_article")


@pytest.mark.parametrize(("kind", "body"), [
    (RESET, "Hi, press and hold the {button} button for {n} seconds until the light blinks."),
    (RESET, "Hi, hold down {button} for {n_word} seconds, then reconnect in the app."),
    (RESET, "Hi, a {n}-second press on the {button} button resets it. Wait 30 seconds before you reconnect."),
    (RESET, "Hi, do not unplug it. Hold the {button} button for {n} s."),
    (DESCALE, "Hi, mix 1 part vinegar with {parts} parts water and run {cycles} cycles, then one with clean water."),
    (DESCALE, "Hi, use vinegar and water at 1:{parts} and run the machine for {cycles} cycles."),
    (DESCALE, "Hi, mix one part white vinegar with {parts_word} parts water and run {cycles} descaling cycles."),
    (DESCALE, "Hi, mix 1 part vinegar with {parts} parts water, run {cycles_word} full cycles, then one cycle with "
              "clean water."),
    (RESET, "Hi, hold the {button} button for {n} full seconds."),
])
async def test_the_articles_facts_stated_as_the_answer_pass(env: Environment, kind: str, body: str) -> None:
    assert await _answered(env, kind, body) == 1.0


@pytest.mark.parametrize(("kind", "body"), [
    # Every candidate value: two durations are no answer.
    (RESET, "Hi, hold the {button} button for {n_durations}."),
    # Values listed apart from their unit.
    (RESET, "Hi, hold the {button} button for this many seconds: {n_list}."),
    (DESCALE, "Hi, mix vinegar with 2, 3, 4 or 5 parts water and run {cycles} cycles."),
    # The facts stated only to deny them.
    (RESET, "Hi, do not hold the {button} button for {n} seconds, that will not help."),
])
async def test_candidates_listed_loose_or_denied_are_no_answer(env: Environment, kind: str, body: str) -> None:
    assert await _answered(env, kind, body) == 0.0
