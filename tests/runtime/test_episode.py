from __future__ import annotations

import asyncio
import json

import pytest

from saas_sim.errors import HarnessError, UsageError
from saas_sim.runtime.environment import Environment
from tests.runtime.conftest import FIXTURES, notes_env

SCENARIO = "notes/archive-and-follow-up"


async def test_episode_renders_instructions_from_seeded_bindings(env: Environment) -> None:
    a = await env.start(SCENARIO, 0)
    b = await env.start(SCENARIO, 5)
    assert a.task.bindings["note"]["id"] in a.instructions
    assert a.instructions != b.instructions or a.task.bindings != b.task.bindings


async def test_reset_shares_the_initial_state_by_reference(env: Environment) -> None:
    a = await env.start(SCENARIO, 1)
    b = await env.start(SCENARIO, 1)
    assert a.state is b.state  # copy-on-write: no data copied at reset


async def test_write_is_visible_to_the_next_read(env: Environment) -> None:
    ep = await env.start(SCENARIO, 0)
    note_id = ep.task.bindings["note"]["id"]
    assert (await ep.call("notes.archive_note", {"note_id": note_id})).ok
    seen = await ep.call("notes.get_note", {"note_id": note_id})
    assert seen.ok and seen.value["archived"] is True


async def test_episodes_are_isolated(env: Environment) -> None:
    a = await env.start(SCENARIO, 0)
    b = await env.start(SCENARIO, 0)
    note_id = a.task.bindings["note"]["id"]
    await a.call("notes.archive_note", {"note_id": note_id})
    other = await b.call("notes.get_note", {"note_id": note_id})
    assert other.value["archived"] is False
    assert a.state_hash != b.state_hash


async def test_retrying_a_call_id_returns_the_original_result_and_writes_only_its_step_record(
    env: Environment,
) -> None:
    ep = await env.start(SCENARIO, 0)
    first = await ep.call("notes.create_note", {"title": "Once"}, call_id="c-1")
    state = ep.state
    before = len(await env.store.read(ep.stream_id))
    again = await ep.call("notes.create_note", {"title": "Once"}, call_id="c-1")
    assert again.ok and again.value == first.value
    assert ep.state is state and ep.trajectory.steps[-1].events == []
    rows = (await env.store.read(ep.stream_id))[before:]
    assert [r.event_type for r in rows] == ["runtime.StepRecorded"]  # the step, so a resume knows it
    assert ep.trajectory.steps[-1].replayed


async def test_reusing_a_call_id_with_other_arguments_is_a_conflict(env: Environment) -> None:
    ep = await env.start(SCENARIO, 0)
    await ep.call("notes.create_note", {"title": "One"}, call_id="c-1")
    clash = await ep.call("notes.create_note", {"title": "Two"}, call_id="c-1")
    assert not clash.ok and clash.error is not None and clash.error.code == "conflict"


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("notes.nope", {}, "unknown_tool"),
        ("notes.get_note", "{not json", "invalid_argument"),
        ("notes.get_note", {"note_id": 7}, "invalid_argument"),
        ("notes.get_note", {"note_id": "x" * 30_000}, "invalid_argument"),
        ("notes.get_note", {"note_id": "nt_000001", "extra": True}, "invalid_argument"),
        ("notes.get_note", [1, 2], "invalid_argument"),
        ("notes.get_note", {"note_id": "nt_999999"}, "not_found"),
        (42, {}, "invalid_argument"),
    ],
)
async def test_bad_calls_become_structured_tool_errors(env: Environment, tool: object, args: object, code: str) -> None:
    ep = await env.start(SCENARIO, 0)
    result = await ep.call(tool, args)  # type: ignore[arg-type]
    assert not result.ok and result.error is not None
    assert result.error.code == code
    assert set(result.error.to_dict()) == {"code", "message", "retryable", "details"}


async def test_invalid_argument_names_the_field_paths(env: Environment) -> None:
    ep = await env.start(SCENARIO, 0)
    result = await ep.call("notes.list_notes", {"limit": "many"})
    assert result.error is not None and result.error.details["fields"] == ["limit"]


async def test_a_tool_outside_the_action_space_is_permission_denied() -> None:
    async with notes_env() as env:
        ep = await env.start("notes/flaky-archive", 0, faults=None)
        result = await ep.call("notes.create_note", {"title": "x"})
        assert result.error is not None and result.error.code == "permission_denied"


async def test_concurrent_calls_are_serialized_in_a_recorded_order(env: Environment) -> None:
    ep = await env.start(SCENARIO, 0)
    results = await asyncio.gather(*(ep.call("notes.create_note", {"title": f"n{i}"}) for i in range(20)))
    assert sorted(r.step for r in results) == list(range(20))
    assert all(r.ok for r in results)
    assert await ep.rebuild_hash() == ep.state.content_hash()


async def test_step_limit_truncates_and_attributes_step_limit(env: Environment) -> None:
    ep = await env.start(SCENARIO, 0)
    for _ in range(25):
        await ep.call("notes.list_notes", {})
    assert ep.truncated and ep.steps == 20
    grade = await ep.grade()
    assert grade.attribution == "step_limit" and grade.valid and grade.score is not None


async def test_harness_bug_marks_episode_invalid_never_a_reward() -> None:
    async with Environment("sqlite+aiosqlite:///:memory:", scenario_dirs=[FIXTURES / "broken"],
                           seeds_dirs=[FIXTURES / "seeds"], domains=[__import__("tests.runtime.notes_domain",
                                                                               fromlist=["DOMAIN"]).DOMAIN],
                           builtin=False) as env:
        ep = await env.start("notes/buggy", 0)
        with pytest.raises(HarnessError):
            await ep.call("notes.explode", {})
        grade = await ep.grade()
        assert grade.attribution == "harness_error" and not grade.valid and grade.score is None
        assert "RuntimeError" in (grade.error or "")
        assert ep.trajectory.footer is not None and "RuntimeError" in json.dumps(ep.trajectory.footer)


async def test_broken_check_is_a_verifier_error_not_a_zero() -> None:
    from tests.runtime.notes_domain import DOMAIN

    async with Environment("sqlite+aiosqlite:///:memory:", scenario_dirs=[FIXTURES / "broken"],
                           seeds_dirs=[FIXTURES / "seeds"], domains=[DOMAIN], builtin=False) as env:
        ep = await env.start("notes/buggy", 0)
        grade = await ep.grade()
        assert grade.attribution == "verifier_error" and grade.score is None and not grade.valid


async def test_calls_after_close_are_refused_loudly(env: Environment) -> None:
    ep = await env.start(SCENARIO, 0)
    await ep.close()
    await ep.close()  # idempotent
    with pytest.raises(UsageError):
        await ep.call("notes.list_notes", {})


async def test_rebuild_from_the_log_equals_the_live_state(env: Environment) -> None:
    ep = await env.start(SCENARIO, 2)
    await ep.call("notes.archive_note", {"note_id": ep.task.bindings["note"]["id"]})
    await ep.call("notes.create_note", {"title": "after"})
    assert await ep.rebuild_hash() == ep.state.content_hash()


async def test_fork_then_same_calls_reproduce_the_original_hashes(env: Environment) -> None:
    ep = await env.start(SCENARIO, 3)
    calls = [("notes.create_note", {"title": f"t{i}"}) for i in range(4)]
    for tool, args in calls:
        await ep.call(tool, args)
    child = await ep.fork(1)
    assert child.state_hash == ep.trajectory.steps[0].state_hash
    for tool, args in calls[1:]:
        await child.call(tool, args)
    assert child.state_hash == ep.state_hash
    assert child.state.content_hash() == ep.state.content_hash()
    assert child.trajectory.header["parent"] == {"stream": ep.stream_id, "step": 1}


async def test_fork_is_independent_of_its_parent(env: Environment) -> None:
    ep = await env.start(SCENARIO, 3)
    child = await ep.fork()
    await child.call("notes.create_note", {"title": "only in child"})
    assert ep.state_hash != child.state_hash
    assert not any(n.title == "only in child" for n in ep.state.table(__import__(
        "tests.runtime.notes_domain", fromlist=["NOTES"]).NOTES))


async def test_tool_schemas_are_openai_strict(env: Environment) -> None:
    ep = await env.start(SCENARIO, 0)

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object":
                assert node["additionalProperties"] is False
                assert sorted(node["required"]) == sorted(node["properties"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    schemas = ep.tool_schemas("openai")
    assert [s["function"]["name"] for s in schemas] == sorted(s["function"]["name"] for s in schemas)
    for s in schemas:
        assert s["function"]["strict"] is True and s["function"]["description"]
        walk(s["function"]["parameters"])
    assert ep.tool_schemas("anthropic")[0]["input_schema"]
    assert "inputSchema" in ep.tool_schemas("mcp")[0]


async def test_strict_clients_may_send_null_for_optional_fields(env: Environment) -> None:
    ep = await env.start(SCENARIO, 0)
    result = await ep.call("notes__list_notes", {"query": None, "limit": None, "cursor": None})
    assert result.ok and len(result.value["items"]) == 12


def test_free_form_maps_are_exported_non_strict_and_closed_objects_strict() -> None:
    from saas_sim.core.tools import ToolArgs
    from saas_sim.runtime.toolkit import openai_strict_schema, strict_compatible

    class Closed(ToolArgs):
        name: str
        tags: list[str] = []

    class Open(ToolArgs):
        values: dict[str, str]

    assert strict_compatible(openai_strict_schema(Closed))
    assert not strict_compatible(openai_strict_schema(Open))


async def test_instructions_end_with_the_domain_policy(env: Environment) -> None:
    ep = await env.start(SCENARIO, 0)
    assert ep.instructions.startswith(ep.task.task_text)
    assert ep.instructions.endswith("1. Archive only what you are asked to.")
    assert "## Policy" in ep.instructions
