"""The `openai:MODEL` agent, driven through the official openai client against the local stub server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from saas_sim.errors import HarnessError, UsageError
from saas_sim.runtime.agents import make_agent
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import Episode
from saas_sim.runtime.llm_agent import LLMAgent, LLMConfig, parse_openai_spec
from saas_sim.runtime.trajectory import read_trajectory
from saas_sim.testing.openai_stub import Fault, Policy, Reply, StubServer, ToolCall, scripted
from saas_sim.testing.oracle_policy import oracle_chat_policy
from tests.runtime.conftest import FIXTURES, notes_env
from tests.runtime.notes_domain import DOMAIN

pytest.importorskip("openai")

CRM = "crm/advance-qualified-deal"


@pytest.fixture
async def env() -> AsyncIterator[Environment]:
    async with Environment("sqlite+aiosqlite:///:memory:") as e:
        yield e


async def _play(episode: Episode, policy: Policy, spec: str = "stub?max_retries=2") -> StubServer:
    async with StubServer(policy) as stub:
        await make_agent(f"openai:{spec}", episode.task.scenario, base_url=stub.base_url).run(episode)
    return stub


@pytest.mark.parametrize(("scenario", "seed"), [
    (CRM, 0), ("crm/title-updates-rate-limited", 1), ("support/refund-damaged-item", 0),
    ("support/partial-refund-and-replacement", 2),
])
async def test_openai_agent_playing_the_oracle_plan_scores_what_the_oracle_scores(
        env: Environment, scenario: str, seed: int) -> None:
    oracle_episode = await env.start(scenario, seed)
    await make_agent("oracle", oracle_episode.task.scenario).run(oracle_episode)
    expected = await oracle_episode.grade()

    episode = await env.start(scenario, seed)
    task = episode.task
    await _play(episode, oracle_chat_policy(task.scenario.spec.oracle, task.bindings))
    grade = await episode.grade()

    assert expected.score == 1.0
    assert grade.score == expected.score and grade.attribution == "success"
    assert episode.trajectory.agent is not None and episode.trajectory.agent["stop"] in ("answered", "episode_done")
    # The stub's tool call ids are the recorded call ids: a retried step keeps its id, as the oracle's does.
    assert [s.call_id for s in episode.trajectory.steps] == [s.call_id for s in oracle_episode.trajectory.steps]


async def test_parallel_tool_calls_run_in_order_with_their_tool_call_ids(env: Environment) -> None:
    episode = await env.start(CRM, 0)
    deal = episode.task.bindings["deal"]["id"]
    stub = await _play(episode, scripted([
        Reply(content="Looking.", tool_calls=[ToolCall("crm__get_deal", {"deal_id": deal}, id="a1"),
                                              ToolCall("crm__get_pipeline", {}, id="a2")]),
    ]))
    steps = episode.trajectory.steps
    assert [(s.call_id, s.tool, s.ok) for s in steps] == [("a1", "crm.get_deal", True),
                                                          ("a2", "crm.get_pipeline", True)]
    turn = episode.trajectory.model_turns[0]
    assert turn.content == "Looking." and turn.before_step == 0
    assert [c["call_id"] for c in turn.tool_calls] == ["a1", "a2"]
    answers = [m for m in stub.requests[1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in answers] == ["a1", "a2"]
    assert json.loads(answers[0]["content"])["ok"] and deal in answers[0]["content"]


async def test_ids_the_runtime_cannot_take_are_derived_and_a_repeat_of_the_same_call_is_a_retry(
        env: Environment) -> None:
    episode = await env.start(CRM, 0)
    deal = episode.task.bindings["deal"]["id"]
    get = ToolCall("crm__get_deal", {"deal_id": deal}, id="call_0")
    await _play(episode, scripted([
        Reply(tool_calls=[get, ToolCall("crm__get_pipeline", {}, id="call_0")]),  # a reused id, another call
        Reply(tool_calls=[ToolCall("crm__get_pipeline", {}, id="auto:7"), ToolCall("crm__get_pipeline", {}, id="")]),
        Reply(tool_calls=[get]),  # the very same call again: a retry under its id
    ]))
    ids = [s.call_id for s in episode.trajectory.steps]
    assert ids == ["call_0", "llm-0-1", "llm-1-0", "llm-1-1", "call_0"]
    assert episode.trajectory.steps[-1].replayed


async def test_a_rate_limited_model_is_retried_by_the_client_and_the_episode_goes_on(env: Environment) -> None:
    episode = await env.start(CRM, 0)
    task = episode.task
    oracle = oracle_chat_policy(task.scenario.spec.oracle, task.bindings)
    faults = iter([Fault(429), Fault(500), None, Fault(429)])

    def flaky(request: dict[str, Any]) -> Reply | Fault:
        return next(faults, None) or oracle(request)  # type: ignore[return-value]

    stub = await _play(episode, flaky)
    grade = await episode.grade()
    assert grade.score == 1.0
    turns = episode.trajectory.model_turns
    assert all(t.error is None for t in turns)
    assert len(stub.requests) == len(turns) + 3  # the three faults were retried, not turns


async def test_a_model_that_keeps_failing_ends_the_episode_as_the_agents_failure(env: Environment) -> None:
    episode = await env.start(CRM, 0)
    deal = episode.task.bindings["deal"]["id"]
    stub = await _play(episode, scripted([Reply(tool_calls=[ToolCall("crm__get_deal", {"deal_id": deal})])],
                                         then=Fault(503)), spec="stub?max_retries=1")
    grade = await episode.grade()
    assert grade.valid and grade.attribution == "agent_failure"
    agent = episode.trajectory.agent
    assert agent is not None and agent["stop"] == "model_error" and "InternalServerError" in agent["error"]
    assert episode.trajectory.model_turns[-1].error == agent["error"]
    assert len(stub.requests) == 1 + 2  # one answer, then a failed request and its one retry


async def test_malformed_tool_call_arguments_become_an_observation_for_the_model(env: Environment) -> None:
    episode = await env.start(CRM, 0)
    stub = await _play(episode, scripted([Reply(tool_calls=[ToolCall("crm__get_deal", '{"deal_id": ', id="m1")])]))
    step = episode.trajectory.steps[0]
    assert not step.ok and step.error is not None and step.error["code"] == "invalid_argument"
    told = next(m for m in stub.requests[1]["messages"] if m["role"] == "tool")
    assert told["tool_call_id"] == "m1" and json.loads(told["content"])["error"]["code"] == "invalid_argument"
    assert episode.trajectory.agent is not None and episode.trajectory.agent["stop"] == "answered"


async def test_the_loop_stops_at_max_turns(env: Environment) -> None:
    episode = await env.start(CRM, 0)
    stub = await _play(episode, scripted([], then=Reply(tool_calls=[ToolCall("crm__get_pipeline", {})])),
                       spec="stub?max_turns=3")
    assert len(stub.requests) == 3 and episode.steps == 3
    assert episode.trajectory.agent is not None and episode.trajectory.agent["stop"] == "max_turns"


async def test_sampling_knobs_are_sent_only_when_given(env: Environment) -> None:
    episode = await env.start(CRM, 0)
    stub = await _play(episode, scripted([]), spec="my/model-7b?temperature=0&seed=1")
    again = await _play(await env.start(CRM, 0), scripted([]), spec="my/model-7b")
    first, plain = stub.requests[0], again.requests[0]
    assert (first["model"], first["temperature"], first["seed"]) == ("my/model-7b", 0.0, 1)
    assert "temperature" not in plain and "seed" not in plain
    assert first["messages"][0] == {"role": "system", "content": episode.instructions}
    assert [t["function"]["name"] for t in first["tools"]] == [
        t["function"]["name"] for t in episode.tool_schemas("openai")]


async def test_usage_and_model_messages_are_recorded_read_back_and_replay_reproduces_the_state_hash(
        env: Environment, tmp_path: Path) -> None:
    episode = await env.start(CRM, 0)
    task = episode.task
    await _play(episode, oracle_chat_policy(task.scenario.spec.oracle, task.bindings))
    await episode.grade()
    path = tmp_path / "llm.jsonl"
    episode.trajectory.write(path)

    back = read_trajectory(path)
    assert back.model_turns == episode.trajectory.model_turns
    assert back.agent == episode.trajectory.agent
    usage = back.agent["usage"] if back.agent else {}
    assert usage["total_tokens"] == sum(t.usage["total_tokens"] for t in back.model_turns if t.usage) > 0
    assert back.dumps() == path.read_text()
    kinds = [json.loads(line)["kind"] for line in path.read_text().splitlines()]
    assert kinds[:3] == ["header", "model", "step"] and kinds[-2:] == ["agent", "footer"]

    replayed = await env.start(CRM, 0)
    await make_agent(f"replay:{path}", replayed.task.scenario).run(replayed)
    assert replayed.state_hash == episode.state_hash
    assert (await replayed.grade()).score == 1.0


def test_openai_spec_options_parse_and_bad_ones_are_usage_errors() -> None:
    config = parse_openai_spec("Qwen/Qwen3-8B?temperature=0.5&seed=3&max_turns=7&timeout=9", base_url="http://h/v1")
    assert config == LLMConfig("Qwen/Qwen3-8B", "http://h/v1", {"temperature": 0.5, "seed": 3}, max_turns=7,
                               timeout_s=9.0)
    for bad in ("", "m?tempo=1", "m?seed=x", "m?max_turns=0"):
        with pytest.raises(UsageError):
            parse_openai_spec(bad)


def test_base_url_is_refused_for_agents_that_are_not_llms() -> None:
    with pytest.raises(UsageError, match="base-url"):
        make_agent("noop", None, base_url="http://127.0.0.1:1/v1")
    assert isinstance(make_agent("openai:m", None), LLMAgent)


async def test_calls_of_an_answer_after_the_episode_ended_are_answered_but_not_made() -> None:
    async with notes_env() as notes:
        episode = await notes.start("notes/archive-and-follow-up", 0)
        budget = episode.task.scenario.spec.limits.max_steps
        calls = [ToolCall("notes__list_notes", {}, id=f"n{i}") for i in range(budget + 2)]
        stub = await _play(episode, scripted([Reply(tool_calls=calls)]))
    assert episode.steps == budget and episode.done
    turn = episode.trajectory.model_turns[0]
    assert [c["call_id"] for c in turn.tool_calls[budget:]] == [None, None]
    assert len(stub.requests) == 1  # the episode is done: no further turn
    assert episode.trajectory.agent is not None and episode.trajectory.agent["stop"] == "episode_done"


async def test_a_bug_in_a_tool_still_raises_out_of_the_agent() -> None:
    async with Environment("sqlite+aiosqlite:///:memory:", scenario_dirs=[FIXTURES / "broken"],
                           seeds_dirs=[FIXTURES / "seeds"], domains=[DOMAIN], builtin=False) as notes:
        episode = await notes.start("notes/buggy", 0)
        with pytest.raises(HarnessError):
            await _play(episode, scripted([Reply(tool_calls=[ToolCall("notes__explode", {})])]))
        assert (await episode.grade()).attribution == "harness_error"
