"""The ATIF export maps a native trajectory faithfully: calls, observations, errors, faults, grade, sim times."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from saas_sim.adapters.atif import SCHEMA_VERSION, dumps_atif, to_atif
from saas_sim.cli import app
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.trajectory import Trajectory, parse_trajectory
from tests.adapters.atif_episodes import SCENARIOS, play, play_llm


@pytest.fixture
async def env() -> AsyncIterator[Environment]:
    async with Environment("sqlite+aiosqlite:///:memory:") as e:
        yield e


def _agent_steps(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in doc["steps"] if s["source"] == "agent"]


async def test_each_call_is_one_agent_step_with_its_call_id_and_its_observation(env: Environment) -> None:
    native = await play(env, SCENARIOS[0], 1, "oracle")
    doc = to_atif(native)
    steps = _agent_steps(doc)
    assert len(steps) == len(native.steps) > 0
    for step, record in zip(steps, native.steps, strict=True):
        (call,) = step["tool_calls"]
        assert call == {"tool_call_id": record.call_id, "function_name": record.tool, "arguments": record.args}
        (result,) = step["observation"]["results"]
        assert result["source_call_id"] == record.call_id
        assert json.loads(result["content"]) == record.result
        assert result["extra"]["ok"] is True
        assert step["timestamp"] == record.sim_time
    assert [s["step_id"] for s in doc["steps"]] == list(range(1, len(doc["steps"]) + 1))
    assert doc["schema_version"] == SCHEMA_VERSION


async def test_the_policy_is_the_system_step_and_the_task_the_user_step(env: Environment) -> None:
    native = await play(env, SCENARIOS[0], 1, "noop")
    task = await env.task(SCENARIOS[0], 1)
    system, user = to_atif(native)["steps"][:2]
    assert system["source"] == "system"
    assert system["message"].startswith("# CRM policy")
    assert user == {"step_id": 2, "source": "user", "message": task.task_text}


def test_instructions_without_a_policy_are_one_user_step() -> None:
    native = Trajectory({"format": "saas_sim.trajectory/1", "instructions": "Archive note n_1."})
    assert to_atif(native)["steps"] == [{"step_id": 1, "source": "user", "message": "Archive note n_1."}]
    assert to_atif(native)["final_metrics"]["extra"] == {"graded": False}


async def test_tool_errors_and_injected_faults_are_in_the_observation_extra(env: Environment) -> None:
    native = await play(env, SCENARIOS[2], 0, "random:7")
    failed = [r for r in native.steps if not r.ok]
    faulted = [r for r in native.steps if r.fault]
    assert failed and faulted  # the heavy fault profile and invalid calls make both
    by_call = {s["observation"]["results"][0]["extra"]["index"]: s for s in _agent_steps(to_atif(native))}
    for record in failed:
        result = by_call[record.index]["observation"]["results"][0]
        assert result["extra"]["ok"] is False
        assert result["extra"]["error"] == record.error
        assert json.loads(result["content"]) == {"error": record.error}
    for record in faulted:
        assert by_call[record.index]["observation"]["results"][0]["extra"]["fault"] == record.fault


async def test_arguments_that_are_not_an_object_are_kept_raw_in_the_tool_call_extra(env: Environment) -> None:
    native = await play(env, SCENARIOS[0], 1, "random:3")
    raw = [r for r in native.steps if not isinstance(r.args, dict)]
    assert raw
    steps = {s["observation"]["results"][0]["extra"]["index"]: s for s in _agent_steps(to_atif(native))}
    for record in raw:
        (call,) = steps[record.index]["tool_calls"]
        assert call["arguments"] == {}
        assert call["extra"] == {"raw_arguments": record.args}


async def test_the_grade_is_in_final_metrics_extra(env: Environment) -> None:
    native = await play(env, SCENARIOS[0], 2, "hack:just_reply_by_email")
    grade = (native.footer or {})["grade"]
    doc = to_atif(native)
    extra = doc["final_metrics"]["extra"]
    assert extra["score"] == grade["score"]
    assert extra["goal_score"] == grade["goal_score"]
    assert extra["attribution"] == grade["attribution"]
    assert extra["violations"] == grade["violations"]
    assert extra["checks"] == grade["checks"]
    assert extra["check_scores"] == {c["name"]: c["score"] for c in grade["checks"]}
    assert extra["score"] < 1
    assert doc["final_metrics"]["total_steps"] == len(doc["steps"])


async def test_the_export_is_a_pure_function_of_the_jsonl(env: Environment) -> None:
    native = await play(env, SCENARIOS[1], 0, "random:7")
    text = native.dumps()
    first = dumps_atif(parse_trajectory(text))
    assert first == dumps_atif(parse_trajectory(text))
    assert first.isascii() and first.endswith("}\n")
    doc = json.loads(first)
    times = [s["timestamp"] for s in _agent_steps(doc)]
    assert times == [r.sim_time for r in native.steps]  # simulated, never wall time


async def test_the_export_command_writes_the_file_and_names_the_agent(env: Environment, tmp_path: Path) -> None:
    native = await play(env, SCENARIOS[0], 1, "oracle")
    source = tmp_path / "t.jsonl"
    native.write(source)
    runner = CliRunner()
    done = runner.invoke(app, ["export", "--format", "atif", str(source), "--out", str(tmp_path / "t.json"),
                               "--agent-name", "oracle", "--agent-version", "1"])
    assert done.exit_code == 0, done.output
    doc = json.loads((tmp_path / "t.json").read_text(encoding="ascii"))
    assert doc["agent"]["name"] == "oracle" and doc["agent"]["version"] == "1"
    piped = runner.invoke(app, ["export", str(source), "--agent-name", "oracle", "--agent-version", "1"])
    assert piped.exit_code == 0
    assert piped.stdout == (tmp_path / "t.json").read_text(encoding="ascii")


def test_the_export_command_refuses_an_unknown_format_and_a_non_trajectory(tmp_path: Path) -> None:
    bad = tmp_path / "x.jsonl"
    bad.write_text('{"kind": "other"}\n', encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(app, ["export", "--format", "csv", str(bad)]).exit_code == 2
    done = runner.invoke(app, ["export", str(bad)])
    assert done.exit_code == 2
    assert "not a saas_sim.trajectory/1 file" in done.output


async def test_an_llm_agents_turns_become_steps_with_its_text_usage_calls_and_observations(env: Environment) -> None:
    pytest.importorskip("openai")
    native = await play_llm(env, SCENARIOS[0], 0)
    assert native.model_turns and native.agent is not None
    doc = to_atif(native)
    steps = _agent_steps(doc)
    assert len(steps) == len(native.model_turns)
    for step, turn in zip(steps, native.model_turns, strict=True):
        assert step["message"] == (turn.content or "")
        assert step["llm_call_count"] == 1
        assert step["metrics"]["prompt_tokens"] == (turn.usage or {})["prompt_tokens"]
        assert [c["tool_call_id"] for c in step.get("tool_calls", [])] == [c["call_id"] for c in turn.tool_calls]
        assert [c["extra"]["model_call_id"] for c in step.get("tool_calls", [])] == [c["id"] for c in turn.tool_calls]
    results = [r for s in steps for r in s.get("observation", {}).get("results", [])]
    assert [r["source_call_id"] for r in results] == [r.call_id for r in native.steps]
    usage = native.agent["usage"]
    assert doc["final_metrics"]["total_prompt_tokens"] == usage["prompt_tokens"] > 0
    assert doc["final_metrics"]["total_completion_tokens"] == usage["completion_tokens"]
    assert doc["agent"]["name"] == "openai:stub" and doc["agent"]["model_name"] == "stub"
    assert doc["final_metrics"]["extra"]["score"] == 1
