"""A difficulty on POST /episodes and on an OpenEnv reset: the task is set up at it; a bad one is the caller's 422."""

from __future__ import annotations

import json
from typing import Any

import httpx
from starlette.testclient import TestClient

from saas_sim.adapters.http import create_app
from tests.adapters.conftest import SCENARIO
from tests.runtime.conftest import notes_env


async def _header(client: httpx.AsyncClient, **extra: Any) -> dict[str, Any]:
    r = await client.post("/episodes", json={"scenario": SCENARIO, "seed": 1, **extra})
    assert r.status_code == 201, r.text
    trajectory = await client.get(f"/episodes/{r.json()['episode_id']}/trajectory")
    line: dict[str, Any] = json.loads(trajectory.text.splitlines()[0])
    return line


async def test_post_episodes_sets_the_task_up_at_the_difficulty(client: httpx.AsyncClient) -> None:
    assert "difficulty" not in await _header(client)
    assert "difficulty" not in await _header(client, difficulty="medium")
    hard = await _header(client, difficulty="hard")
    assert hard["difficulty"] == {"mess": 1.5, "faults": "mild"} and hard["faults"] is not None
    mixed = await _header(client, difficulty={"level": "hard", "faults": "none"})
    assert mixed["difficulty"] == {"mess": 1.5} and mixed["faults"] is None
    # Easy with the mess as written changes nothing in this scenario (no hints, no faults): the file's own task.
    assert "difficulty" not in await _header(client, difficulty=["easy", "mess=1"])


async def test_a_bad_difficulty_is_a_422_naming_the_field(client: httpx.AsyncClient) -> None:
    for bad in ("brutal", {"crowds": 1}, {"distractors": 2}, {"mess": "lots"}):
        r = await client.post("/episodes", json={"scenario": SCENARIO, "seed": 1, "difficulty": bad})
        assert r.status_code == 422, r.text
        assert r.json()["detail"][0]["loc"] == ["body", "difficulty"]


def test_an_openenv_reset_takes_a_difficulty_and_refuses_a_bad_one() -> None:
    app = create_app(notes_env(), openenv=True, openenv_options={"default_scenario": SCENARIO})
    with TestClient(app) as client:
        hard = client.post("/reset", json={"seed": 1, "scenario": SCENARIO, "difficulty": "hard"})
        assert hard.status_code == 200, hard.text
        bad = client.post("/reset", json={"seed": 1, "scenario": SCENARIO, "difficulty": {"crowds": 1}})
        assert bad.status_code == 422, bad.text
        assert "crowds" in bad.text
