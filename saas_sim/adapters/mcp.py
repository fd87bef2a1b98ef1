"""Serves one episode's tools as an MCP server (the official `mcp` SDK, low-level `Server`).

    episode = await env.start("crm/advance-qualified-deal", seed=0)
    await serve_episode_stdio(episode)     # or: saas-sim mcp crm/advance-qualified-deal --seed 0

* `tools/list`: the scenario's allowed tools under their wire names
  (`crm__get_deal`), with input and output schemas and read-only hints.
* `tools/call`: `episode.call`. A value is JSON text plus `structuredContent`
  (the result object, which matches the tool's output schema). A tool error
  is a result with `isError: true`, whose text and `structuredContent` hold the
  structured error `{code, message, retryable, details}`: the agent sees it
  and can recover. `_meta` carries the recorded `saas-sim/step` and
  `saas-sim/call_id`; a client may send its own idempotency key as
  `_meta["saas-sim/call_id"]`, so a retry after a lost response writes nothing.
* A harness error is a protocol error (`INTERNAL_ERROR`, data code
  `harness_error`), never a tool result: the episode is invalid.
* The task's instructions are the server's `instructions` and the prompt `task`.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from saas_sim.errors import HarnessError, UsageError
from saas_sim.runtime.episode import Episode

__all__ = ["CALL_ID_META", "STEP_META", "TASK_PROMPT", "build_server", "serve_episode_stdio"]

CALL_ID_META = "saas-sim/call_id"
"""The `_meta` key of a call's idempotency key (in a request) and of the recorded key (in a result)."""

STEP_META = "saas-sim/step"
"""The `_meta` key of the step number a call was recorded as."""

TASK_PROMPT = "task"
"""The name of the prompt holding the task's instructions."""


def build_server(episode: Episode, *, name: str = "saas-sim") -> Server[Any]:
    """Builds an MCP server over one episode (run it over stdio, or connect an in-memory client in tests).

    Args:
        episode: The episode whose allowed tools are served. The caller owns it:
            grading and closing it stay the caller's job.
        name: The server name reported to clients.

    Returns:
        A low-level MCP `Server`.
    """
    from saas_sim import __version__

    tools = [types.Tool.model_validate(schema) for schema in episode.tool_schemas("mcp")]
    scenario = episode.task.scenario

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> (
        types.ListToolsResult
    ):
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        call_id = (params.meta or {}).get(CALL_ID_META)
        if call_id is not None and not isinstance(call_id, str):
            raise MCPError(types.INVALID_PARAMS, f"_meta[{CALL_ID_META!r}] must be a string")
        try:
            result = await episode.call(params.name, params.arguments, call_id=call_id or None)
        except HarnessError as exc:
            raise MCPError(types.INTERNAL_ERROR, f"harness error: {exc}", data={"code": "harness_error"}) from None
        except UsageError as exc:  # a closed episode, or a reserved call_id prefix
            raise MCPError(types.INVALID_REQUEST, str(exc)) from None
        payload = result.value if result.ok else result.error
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(payload, ensure_ascii=False, sort_keys=True))],
            structured_content=payload,
            is_error=not result.ok,
            _meta={CALL_ID_META: result.call_id, STEP_META: result.step},
        )

    async def list_prompts(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> (
        types.ListPromptsResult
    ):
        return types.ListPromptsResult(prompts=[
            types.Prompt(name=TASK_PROMPT, description=f"The task of this {scenario.ref} episode.")
        ])

    async def get_prompt(ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams) -> (
        types.GetPromptResult
    ):
        if params.name != TASK_PROMPT:
            raise MCPError(types.INVALID_PARAMS, f"no prompt named {params.name!r}; the only one is {TASK_PROMPT!r}")
        return types.GetPromptResult(
            description=scenario.spec.description,
            messages=[types.PromptMessage(role="user", content=types.TextContent(text=episode.instructions))],
        )

    return Server(
        name, version=__version__, title=f"{scenario.ref} (seed {episode.task.seed})",
        instructions=episode.instructions,
        on_list_tools=list_tools, on_call_tool=call_tool, on_list_prompts=list_prompts, on_get_prompt=get_prompt,
    )


async def serve_episode_stdio(episode: Episode) -> None:
    """Serves one episode over stdin/stdout until the client disconnects.

    The episode is not graded or closed here: the caller does that afterwards.
    """
    server = build_server(episode)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
