"""Same-named records in search results: where the real one stands tells a blind policy nothing.

A setup stages a look-alike beside a world record, so the copy is created later. Searches sort by name,
and records of one name (ties) follow the episode's tie order (`saas_sim.core.paging.tied_key`), not the
id; and the setup's look-alike groups have their ids dealt out at random (`saas_sim.core.relabel`). Over
seeds, the real record comes first among its namesakes, and holds the lowest id, about as often as
chance says (1/N for N records of its name), where the id order put it first every time.
"""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.runtime.environment import Environment
from saas_sim.scenarios.templating import lookup, render

CASES = [
    # (scenario, difficulty, search tool, its arguments, path of the real record's id in the bindings, seeds)
    ("suite/route-by-crm-tier", "hard", "crm.search_contacts", {"query": "{contact.name}"}, "contact.id", 40),
    ("suite/late-fee-dispute", None, "crm.search_accounts", {"query": "{crm_account.name}"}, "crm_account.id", 20),
    ("support/route-vip-ticket", "hard", "support.search_customers", {"name": "{customer.name}"}, "customer.id", 20),
]


def _name(item: dict[str, Any]) -> str:
    return str(item.get("name") or f"{item.get('first_name')} {item.get('last_name')}")


async def _same_named(env: Environment, ref: str, difficulty: str | None, seed: int, tool: str,
                      args: dict[str, Any], real_path: str) -> tuple[str, list[str]]:
    episode = await env.start(ref, seed, difficulty=difficulty, faults=None)
    try:
        bindings = episode.task.bindings
        result = await episode.call(tool, render(args, bindings), "probe")
        assert result.ok, result.error
        real = str(lookup(bindings, real_path))
        items = result.value["items"]
        name = next(_name(i) for i in items if i["id"] == real)
        return real, [i["id"] for i in items if _name(i) == name]
    finally:
        await episode.close()


@pytest.mark.parametrize(("ref", "difficulty", "tool", "args", "real_path", "seeds"), CASES)
async def test_the_real_record_is_first_among_its_namesakes_about_as_often_as_chance(
    env: Environment, ref: str, difficulty: str | None, tool: str, args: dict[str, Any], real_path: str, seeds: int,
) -> None:
    firsts, chance, lowest, tied = 0, 0.0, 0, 0
    for seed in range(seeds):
        real, same = await _same_named(env, ref, difficulty, seed, tool, args, real_path)
        if len(same) < 2:
            continue
        tied += 1
        firsts += same[0] == real
        chance += 1 / len(same)
        lowest += min(same) == real
    assert tied >= seeds // 2
    # Every copy is staged after the real record, and by id the real record came first (and held the
    # lowest id) on every seed; now each about 1/N of them (N records of its name).
    assert firsts <= chance + 0.2 * tied, (firsts, chance, tied)
    assert lowest <= chance + 0.2 * tied, (lowest, chance, tied)
    assert firsts >= 1
    assert lowest >= 1


async def test_the_tie_order_is_the_same_in_every_episode_of_a_task(env: Environment) -> None:
    ref, difficulty, tool, args, path, _ = CASES[0]
    orders = {seed: await _same_named(env, ref, difficulty, seed, tool, args, path) for seed in range(6)}
    again = {seed: await _same_named(env, ref, difficulty, seed, tool, args, path) for seed in range(6)}
    assert orders == again
    assert any(same != sorted(same) for _, same in orders.values())  # not the id order
