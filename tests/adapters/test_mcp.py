"""The MCP adapter, driven by the SDK's own client connected in-process.

Every test runs in both protocol eras the SDK speaks: `legacy` (the initialize
handshake over in-memory streams, as over stdio) and `auto` (2026-07-28, direct).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any, cast

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from saas_sim.adapters.mcp import CALL_ID_META, STEP_META, TASK_PROMPT, build_server
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import Episode
from tests.adapters.conftest import SCENARIO, broken_env


@pytest.fixture(params=["legacy", "auto"])
def mode(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


@pytest.fixture
async def episode(env: Environment) -> AsyncIterator[Episode]:
    ep = await env.start(SCENARIO, 1)
    yield ep
    await ep.close()


async def test_lists_the_allowed_tools_under_wire_names_with_schemas(episode: Episode, mode: str) -> None:
    async with Client(build_server(episode), mode=mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert sorted(tools) == ["notes__archive_note", "notes__create_note", "notes__get_note", "notes__list_notes"]
    expected = {s["name"]: s for s in episode.tool_schemas("mcp")}
    for name, tool in tools.items():
        assert tool.input_schema == expected[name]["inputSchema"]
        assert tool.output_schema == expected[name]["outputSchema"]
        assert tool.description == expected[name]["description"]
    annotations = tools["notes__get_note"].annotations
    assert annotations is not None and annotations.read_only_hint is True
    archive = tools["notes__archive_note"].annotations
    assert archive is not None and archive.read_only_hint is False


async def test_the_instructions_are_server_instructions_and_the_task_prompt(episode: Episode, mode: str) -> None:
    async with Client(build_server(episode), mode=mode) as client:
        assert client.instructions == episode.instructions
        assert [p.name for p in (await client.list_prompts()).prompts] == [TASK_PROMPT]
        prompt = await client.get_prompt(TASK_PROMPT)
        with pytest.raises(MCPError):
            await client.get_prompt("other")
    message = prompt.messages[0]
    assert message.role == "user"
    assert isinstance(message.content, types.TextContent) and message.content.text == episode.instructions


async def test_a_successful_call_returns_json_text_and_structured_content(episode: Episode, mode: str) -> None:
    note_id = episode.task.bindings["note"]["id"]
    async with Client(build_server(episode), mode=mode) as client:
        result = await client.call_tool("notes__archive_note", {"note_id": note_id})
    assert result.is_error is False
    assert isinstance(result.structured_content, dict)
    assert result.structured_content["id"] == note_id and result.structured_content["archived"] is True
    text = result.content[0]
    assert isinstance(text, types.TextContent) and json.loads(text.text) == result.structured_content
    assert result.meta is not None and result.meta[STEP_META] == 0 and result.meta[CALL_ID_META] == "auto:0"
    assert episode.steps == 1 and episode.trajectory.steps[0].tool == "notes.archive_note"


async def test_a_tool_error_is_an_error_result_with_the_structured_error(episode: Episode, mode: str) -> None:
    async with Client(build_server(episode), mode=mode) as client:
        missing = await client.call_tool("notes__get_note", {"note_id": "nt_999999"})
        invalid = await client.call_tool("notes__create_note", {"title": 5})
        unknown = await client.call_tool("notes__teleport", {})
    assert missing.is_error is True
    assert missing.structured_content == {"code": "not_found", "message": "note nt_999999 does not exist",
                                          "retryable": False, "details": {"id": "nt_999999", "fields": ["note_id"]}}
    text = missing.content[0]
    assert isinstance(text, types.TextContent) and json.loads(text.text) == missing.structured_content
    assert invalid.is_error and invalid.structured_content["code"] == "invalid_argument"
    assert invalid.structured_content["details"]["fields"] == ["title"]
    assert unknown.is_error and unknown.structured_content["code"] == "unknown_tool"
    assert episode.steps == 3  # every attempt is recorded


async def test_an_unknown_tool_error_names_tools_by_their_wire_names(episode: Episode, mode: str) -> None:
    async with Client(build_server(episode), mode=mode) as client:
        unknown = await client.call_tool("notes__teleport", {})
        listed = [t.name for t in (await client.list_tools()).tools]
    assert unknown.structured_content is not None
    assert unknown.structured_content["details"]["available"] == listed
    assert unknown.structured_content["message"] == "no tool named 'notes__teleport'"
    text = unknown.content[0]
    assert isinstance(text, types.TextContent) and json.loads(text.text) == unknown.structured_content
    # The recorded trajectory keeps the runtime's own (dotted) names.
    assert episode.trajectory.steps[0].error is not None
    assert episode.trajectory.steps[0].error["details"]["available"][0] == "notes.archive_note"


async def test_arguments_sent_as_a_string_are_invalid_params_saying_what_is_wrong(episode: Episode, mode: str) -> None:
    # The SDK's typed client methods validate outgoing params, so the malformed request goes through the session.
    async with Client(build_server(episode), mode=mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.session.send_request(
                types.Request[dict[str, Any], str](
                    method="tools/call", params={"name": "notes__list_notes", "arguments": '{"limit": 1}'}
                ),
                types.CallToolResult,
            )
    assert caught.value.code == types.INVALID_PARAMS
    assert "arguments" in caught.value.error.message and "JSON object" in caught.value.error.message
    expected = [{"path": "params.arguments", "message": "Input should be a valid dictionary"}]
    assert caught.value.data == {"errors": expected}
    assert episode.steps == 0


async def test_a_call_id_in_meta_makes_a_retry_write_nothing(episode: Episode, mode: str) -> None:
    meta = cast("types.RequestParamsMeta", {CALL_ID_META: "k-1"})
    async with Client(build_server(episode), mode=mode) as client:
        first = await client.call_tool("notes__create_note", {"title": "Once"}, meta=meta)
        state = episode.state
        again = await client.call_tool("notes__create_note", {"title": "Once"}, meta=meta)
    assert again.structured_content == first.structured_content
    assert again.meta is not None and again.meta[CALL_ID_META] == "k-1"
    # The retry records its step (so a resume knows it) but writes no domain event.
    assert episode.state is state and episode.trajectory.steps[-1].events == []
    assert episode.trajectory.steps[-1].replayed


async def test_a_closed_episode_answers_a_protocol_error(episode: Episode, mode: str) -> None:
    await episode.close()
    async with Client(build_server(episode), mode=mode) as client:
        with pytest.raises(MCPError, match="closed") as caught:
            await client.call_tool("notes__list_notes", {})
    assert caught.value.code == types.INVALID_REQUEST


async def test_a_harness_error_is_a_protocol_error_and_invalidates_the_episode(mode: str) -> None:
    async with broken_env() as env:
        episode = await env.start("notes/buggy", 0)
        async with Client(build_server(episode), mode=mode) as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("notes__explode", {})
        assert caught.value.code == types.INTERNAL_ERROR
        assert caught.value.data == {"code": "harness_error"}
        assert episode.invalid is not None
        grade = await episode.grade()
        assert grade.valid is False and grade.attribution == "harness_error"
