"""Trajectory `model` and `agent` lines: where they go, how they read back, and that nothing else moves."""

from __future__ import annotations

import json

import pytest

from saas_sim.errors import UsageError
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.trajectory import ModelTurn, parse_trajectory

SCENARIO = "notes/archive-and-follow-up"


async def _two_steps(env: Environment) -> str:
    episode = await env.start(SCENARIO, 0)
    await episode.call("notes.create_note", {"title": "a"}, call_id="c1")
    await episode.call("notes.create_note", {"title": "b"}, call_id="c2")
    await episode.grade()
    text = episode.trajectory.dumps()
    await episode.close()
    return text


async def test_a_trajectory_without_model_turns_keeps_its_bytes_through_a_read(env: Environment) -> None:
    text = await _two_steps(env)
    back = parse_trajectory(text)
    assert back.model_turns == [] and back.agent is None
    assert back.dumps() == text
    assert {json.loads(line)["kind"] for line in text.splitlines()} == {"header", "step", "footer"}


async def test_model_turns_sit_before_the_first_step_they_caused_and_read_back(env: Environment) -> None:
    plain = parse_trajectory(await _two_steps(env))
    plain.model_turns = [
        ModelTurn(0, 0, "first", [{"id": "t1", "name": "notes__create_note", "arguments": "{}", "call_id": "c1"}],
                  {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}, "tool_calls"),
        ModelTurn(1, 1, None, [], None, None),
        ModelTurn(2, 2, "done", [], None, "stop"),
        ModelTurn(3, 2, error="RateLimitError: 429"),
    ]
    plain.agent = {"agent": "openai:m", "turns": 4, "stop": "model_error", "usage": {"total_tokens": 4}}
    text = plain.dumps()
    kinds = [json.loads(line)["kind"] for line in text.splitlines()]
    assert kinds == ["header", "model", "step", "model", "step", "model", "model", "agent", "footer"]
    back = parse_trajectory(text)
    assert back.model_turns == plain.model_turns and back.agent == plain.agent
    assert back.steps == plain.steps and back.footer == plain.footer


async def test_readers_of_steps_alone_see_the_same_steps_with_model_lines_in_between(env: Environment) -> None:
    text = await _two_steps(env)
    with_turns = parse_trajectory(text)
    with_turns.model_turns = [ModelTurn(0, 0, "hi")]
    steps = [line for line in with_turns.dumps().splitlines() if json.loads(line)["kind"] == "step"]
    assert steps == [line for line in text.splitlines() if json.loads(line)["kind"] == "step"]


async def test_a_malformed_model_line_is_a_usage_error_naming_its_line(env: Environment) -> None:
    lines = (await _two_steps(env)).splitlines()
    lines.insert(1, json.dumps({"kind": "model", "index": 0, "before_step": 0, "surprise": 1}))
    with pytest.raises(UsageError, match="line 2 is not a model turn"):
        parse_trajectory("\n".join(lines) + "\n")
