"""`saas_sim.adapters.trl`: the class TRL's `GRPOTrainer(environment_factory=...)` drives, in the main venv.

transformers' own `get_json_schema` runs in test_trl_ecosystem.py; here the class plays real
episodes: the oracle's plan through the tool methods earns the oracle's score, agent mistakes
are observations, and the shared runtime is one per class.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Iterator
from typing import Any

import pytest

from saas_sim.adapters import trl
from saas_sim.adapters.trl import close_environment_class, environment_class, method_name, tool_of
from saas_sim.errors import HarnessError, UsageError
from saas_sim.runtime.agents import make_agent
from saas_sim.runtime.environment import Environment
from saas_sim.scenarios.templating import render
from tests.runtime.conftest import FIXTURES, notes_env
from tests.runtime.notes_domain import DOMAIN

NOTES: dict[str, Any] = {"scenario_dirs": [FIXTURES / "scenarios"], "seeds_dirs": [FIXTURES / "seeds"],
                         "domains": [DOMAIN], "builtin": False}
CASES = [("crm/advance-qualified-deal", {}), ("support/refund-damaged-item", {}),
         ("notes/archive-and-follow-up", NOTES)]


@pytest.fixture
def notes_class() -> Iterator[type]:
    cls = environment_class("notes/archive-and-follow-up", **NOTES)
    yield cls
    close_environment_class(cls)


def play_oracle(instance: Any) -> float:
    """Plays the scenario's oracle through the tool methods (as TRL would call them), then gets the reward."""
    episode = instance._session.episode
    bound = dict(episode.task.bindings)
    for step in episode.task.scenario.spec.oracle:
        answer = json.loads(getattr(instance, method_name(step.tool))(**render(step.args, bound)))
        assert answer["ok"], (step.tool, answer)
        if step.save_as:
            bound[step.save_as] = answer["value"]
    reward: float = instance.get_reward()
    return reward


def oracle_score(scenario: str, seed: int, options: dict[str, Any]) -> float | None:
    async def run() -> float | None:
        async with Environment("sqlite+aiosqlite:///:memory:", **options) as env:
            episode = await env.start(scenario, seed)
            await make_agent("oracle", episode.task.scenario).run(episode)
            return (await episode.grade()).score

    return asyncio.run(run())


@pytest.mark.parametrize(("scenario", "options"), CASES, ids=[c[0] for c in CASES])
def test_the_oracle_plan_through_the_methods_earns_the_oracle_score(scenario: str, options: dict[str, Any]) -> None:
    cls = environment_class(scenario, **options)
    try:
        instance = cls()
        for seed in (0, 3):
            task = instance.reset(seed=seed, prompt=[{"role": "user", "content": "go"}], extra_column=1)
            assert isinstance(task, str) and task
            assert play_oracle(instance) == oracle_score(scenario, seed, options) == 1.0
    finally:
        close_environment_class(cls)


def test_there_is_one_public_method_per_allowed_tool_and_each_maps_back(notes_class: type) -> None:
    env = notes_env()
    allowed = env.toolkit(env.scenario("notes/archive-and-follow-up")).allowed
    public = sorted(name for name, _ in inspect.getmembers(notes_class, predicate=inspect.isfunction)
                    if not name.startswith("_"))
    assert public == sorted([*map(method_name, allowed), "get_reward", "reset"])
    for tool in allowed:
        name = method_name(tool)
        assert name.isidentifier() and tool_of(notes_class, name) == tool
        method = getattr(notes_class(), name)
        assert method.__name__ == name and method.__doc__ and "Args:" in method.__doc__
    with pytest.raises(UsageError):
        tool_of(notes_class, "reset")


def test_signatures_follow_the_args_model(notes_class: type) -> None:
    sig = inspect.signature(notes_class().notes__create_note)
    required = {n for n, p in sig.parameters.items() if p.default is inspect.Parameter.empty}
    schema = DOMAIN.tools[[t.name for t in DOMAIN.tools].index("notes.create_note")].args_model.model_json_schema()
    assert set(sig.parameters) == set(schema["properties"])
    assert required == set(schema.get("required", []))
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY and p.annotation is not inspect.Parameter.empty
               for p in sig.parameters.values())
    assert sig.return_annotation is str


@pytest.mark.parametrize(("call", "code"), [
    (lambda e: e.notes__get_note(bogus=1), "invalid_argument"),
    (lambda e: e.notes__get_note(), "invalid_argument"),
    (lambda e: e.notes__get_note(note_id=12), "invalid_argument"),
    (lambda e: e.notes__get_note("nt_000001"), "invalid_argument"),
    (lambda e: e.notes__get_note(note_id="nt_999999"), "not_found"),
    (lambda e: e.notes__create_note(title="x" * 100000, body=""), "invalid_argument"),
], ids=["unknown-argument", "missing-argument", "wrong-type", "positional", "not-found", "too-long"])
def test_agent_mistakes_are_observations_never_exceptions(notes_class: type, call: Any, code: str) -> None:
    instance = notes_class()
    instance.reset(seed=1)
    answer = json.loads(call(instance))
    assert answer["ok"] is False and answer["error"]["code"] == code, answer


def test_calls_after_the_step_limit_or_before_a_reset_are_observations(notes_class: type) -> None:
    instance = notes_class()
    assert json.loads(instance.notes__list_notes())["error"]["code"] == "episode_closed"
    instance.reset(seed=1)
    answers = [json.loads(instance.notes__list_notes()) for _ in range(25)]  # the scenario allows 20 calls
    assert all(a["ok"] for a in answers[:19]) and answers[-1]["error"]["code"] == "episode_closed"
    assert instance.get_reward() == 0.25  # the scenario's no-op score: a truncated episode is still graded


def test_reset_needs_an_integer_seed_and_a_scenario_of_the_class(notes_class: type) -> None:
    instance = notes_class()
    for columns in ({}, {"seed": "3"}, {"seed": True}, {"seed": 1.0}, {"seed": 1, "scenario": "notes/flaky-archive"}):
        with pytest.raises(UsageError):
            instance.reset(**columns)
    with pytest.raises(UsageError):
        notes_class().get_reward()


def test_a_class_of_several_scenarios_takes_the_rows_scenario() -> None:
    cls = environment_class(["notes/archive-and-follow-up", "notes/flaky-archive"], **NOTES)
    try:
        instance = cls()
        instance.reset(seed=2, scenario="notes/flaky-archive")
        assert instance._session.episode.task.scenario.spec.id == "notes/flaky-archive"
        instance.reset(seed=2)
        assert instance._session.episode.task.scenario.spec.id == "notes/archive-and-follow-up"
    finally:
        close_environment_class(cls)


def test_instances_share_one_runtime_per_class_until_it_is_closed(notes_class: type) -> None:
    first, second = notes_class(), notes_class()
    first.reset(seed=1)
    second.reset(seed=1)
    assert first._session.runtime is second._session.runtime
    assert first._session.episode.stream_id != second._session.episode.stream_id  # isolated episodes
    first.notes__archive_note(note_id=first._session.episode.task.bindings["note"]["id"])
    assert first.get_reward() != second.get_reward()
    close_environment_class(notes_class)
    assert first._session.runtime.closed


def test_a_verifier_error_raises_and_is_never_a_reward() -> None:
    cls = environment_class("notes/buggy", scenario_dirs=[FIXTURES / "broken"], seeds_dirs=[FIXTURES / "seeds"],
                            domains=[DOMAIN], builtin=False)
    try:
        instance = cls()
        instance.reset(seed=1)
        with pytest.raises(HarnessError, match="verifier_error"):
            instance.get_reward()
    finally:
        close_environment_class(cls)


def test_a_harness_error_in_a_tool_raises_and_get_reward_refuses_the_invalid_episode() -> None:
    cls = environment_class("notes/buggy", scenario_dirs=[FIXTURES / "broken"], seeds_dirs=[FIXTURES / "seeds"],
                            domains=[DOMAIN], builtin=False)
    try:
        instance = cls()
        instance.reset(seed=1)
        with pytest.raises(HarnessError):
            instance.notes__explode()  # TRL would turn this into a string for the model...
        with pytest.raises(HarnessError, match="harness_error"):
            instance.get_reward()  # ...and the run stops here instead of learning from it
    finally:
        close_environment_class(cls)


def test_colliding_or_reserved_method_names_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trl, "method_name", lambda tool: "same")
    with pytest.raises(UsageError, match="both map"):
        environment_class("notes/archive-and-follow-up", **NOTES)
    monkeypatch.setattr(trl, "method_name", lambda tool: "reset")
    with pytest.raises(UsageError, match="no usable method name"):
        environment_class("notes/archive-and-follow-up", **NOTES)
