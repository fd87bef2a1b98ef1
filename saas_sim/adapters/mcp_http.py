"""Serves every HTTP episode's tools over MCP (streamable HTTP) at `/episodes/{id}/mcp`.

    POST /episodes {"scenario": "crm/advance-qualified-deal", "seed": 0}   -> {"episode_id": "ep_…", ...}
    MCP client -> http://host:port/episodes/ep_…/mcp                        (create_app mounts it)

The current MCP protocol has no sessions, and clients such as verifiers open a
fresh connection for every tool call, so the URL names the episode, never an MCP
session. One SDK `Server` serves all episodes in the SDK's *stateless* mode with
JSON responses: every request stands alone (the legacy `initialize` handshake
is answered too, then forgotten), and the request's episode is resolved from
the path before the SDK sees the request.

What a client sees is the stdio adapter's (saas_sim.adapters.mcp, whose pieces
this reuses): wire names (`crm__get_deal`), input and output schemas,
`structuredContent`, tool errors as `isError` results, the instructions as the
server's `instructions` and the prompt `task`, the recorded step and call id in
`_meta`. On top of that:

* `submit` (listed unless the domain has its own `*__submit`), as in the
  OpenEnv adapter: it grades the episode and ends it in its log. Its result is
  `{submitted, done, reward, grade}` (reward = the grade's score). A domain's
  own submit that succeeds, and a call that uses up the step or time budget,
  end the episode the same way. Every ending result carries `_meta`
  `saas-sim/done`, `saas-sim/reward` and `saas-sim/grade`. Submitting again
  answers the same grade (a retry after a lost response); the episode stays
  readable over the JSON API (`POST /episodes/{id}/grade`, `/trajectory`)
  until it is deleted.
* An unknown or closed episode: `initialize` succeeds (its instructions say
  what is wrong), `tools/call` answers an `isError` result with the code
  `episode_not_found` or `episode_closed`, and `tools/list`, `prompts/list`
  and `prompts/get` answer a JSON-RPC error (`EPISODE_UNAVAILABLE`, data
  `{code, episode_id}`). An error, not an empty tool list: an agent handed no
  tools would run on and earn a silent zero, while a failed listing stops the
  rollout with the reason.
* Malformed bodies (not JSON, not JSON-RPC) are the SDK's JSON-RPC errors
  (parse error, invalid params), never a 500. A GET is 405 (no SSE stream:
  nothing is ever pushed), as is a DELETE (no session to end).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from saas_sim.adapters._registry import ApiError, EpisodeRegistry
from saas_sim.adapters.mcp import (
    ToolSurface,
    call_episode,
    explain_invalid_params,
    json_result,
    task_prompt,
    task_prompts,
)
from saas_sim.adapters.openenv_service import SUBMIT_TOOL  # one terminal tool, one name, in both adapters
from saas_sim.errors import ConcurrencyError, InvalidCallIdError, UsageError
from saas_sim.runtime.call_result import CallResult
from saas_sim.runtime.episode import Episode

__all__ = ["DONE_META", "EPISODE_UNAVAILABLE", "GRADE_META", "MCP_PATH", "REWARD_META", "SUBMIT_TOOL", "EpisodeMCP",
           "mount_episode_mcp"]

MCP_PATH = "/episodes/{episode_id}/mcp"
"""Where each episode's MCP endpoint lives."""

EPISODE_UNAVAILABLE = -32004
"""The JSON-RPC error code (server-defined range) of a listing on an unknown or closed episode."""

DONE_META = "saas-sim/done"
"""The `_meta` key saying the call ended the episode."""

REWARD_META = "saas-sim/reward"
"""The `_meta` key of the ended episode's reward (its grade's score; null when the episode is invalid)."""

GRADE_META = "saas-sim/grade"
"""The `_meta` key of the ended episode's grade (the JSON API's `Grade`)."""

_SUBMIT_SCHEMA: dict[str, Any] = {
    "name": SUBMIT_TOOL,
    "description": "Finish the task: end the episode and grade its final state. The result holds the reward "
                   "(the grade's score, 0 to 1) and the grade's breakdown. Call it once, last.",
    "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
    "annotations": {"readOnlyHint": False, "idempotentHint": True},
}


@dataclass(frozen=True)
class _Target:
    """The episode a request's path names: the live episode, or why there is none."""

    episode_id: str
    episode: Episode | None
    error: ApiError | None


@dataclass(frozen=True)
class _Tools:
    """A scenario's tools as served: the surface, whether the adapter's `submit` is in it, input schemas by name."""

    surface: ToolSurface
    submit: bool
    input_schemas: dict[str, dict[str, Any]]


_TARGET: ContextVar[_Target | None] = ContextVar("saas_sim_mcp_target", default=None)
"""The current request's episode. Set per request by `EpisodeMCP`; the SDK runs the handlers in the
request's context (a copy of it, for the legacy transport's server task)."""


class _EpisodesServer(Server[Any]):
    """A server whose instructions are those of the request's episode (the SDK reads them per request)."""

    @property  # the SDK keeps a plain attribute; here it is answered per request
    def instructions(self) -> str | None:
        target = _TARGET.get()
        if target is None:
            return None
        if target.episode is None:
            return _unavailable_message(target)
        return target.episode.instructions

    @instructions.setter
    def instructions(self, value: str | None) -> None:
        """Ignored: the SDK's constructor sets it, and each episode has its own."""


class EpisodeMCP:
    """The ASGI app at `/episodes/{episode_id}/mcp`: one SDK server over the app's episode registry.

    Args:
        episodes: The app's episode registry (`app.state.episodes`).
        name: The server name reported to clients.
    """

    def __init__(self, episodes: EpisodeRegistry, *, name: str = "saas-sim") -> None:
        from saas_sim import __version__

        self.episodes = episodes
        self._tools: dict[str, _Tools] = {}
        self.server = _EpisodesServer(
            name, version=__version__, title="saas_sim episode", get_tool_input_schema=self._input_schema,
            on_list_tools=self._list_tools, on_call_tool=self._call_tool,
            on_list_prompts=self._list_prompts, on_get_prompt=self._get_prompt,
        )
        self.server.middleware.append(explain_invalid_params)
        self._manager: StreamableHTTPSessionManager | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Runs the SDK's request machinery while the block runs (the app's lifespan enters it).

        The SDK's task group lives in a task of its own: a lifespan may be entered and left by
        different tasks (pytest's async fixtures do that), and a task group must be left by the
        task that entered it. A manager serves one run only, so each run gets a new one.
        """
        manager = StreamableHTTPSessionManager(self.server, json_response=True, stateless=True)
        started, stop = asyncio.Event(), asyncio.Event()

        async def run() -> None:
            async with manager.run():
                self._manager = manager
                started.set()
                await stop.wait()

        task = asyncio.create_task(run(), name="saas-sim MCP endpoint")
        waiting = asyncio.ensure_future(started.wait())
        done, _ = await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
        if task in done:  # it failed to start: say why
            waiting.cancel()
            task.result()
        try:
            yield
        finally:
            self._manager = None
            stop.set()
            await task

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        manager = self._manager
        if manager is None:  # before the app's lifespan started it, or after it stopped
            await _jsonrpc_error(503, types.INTERNAL_ERROR,
                                 "the MCP endpoint is not running (the server is starting or stopping)")(
                scope, receive, send)
            return
        if scope.get("method") == "GET":
            # The spec's answer for a server that pushes nothing: there is no standalone SSE stream here
            # (the SDK's stateless mode would hold one open, with nothing ever to send on it).
            await _jsonrpc_error(405, types.INVALID_REQUEST, "Method Not Allowed: this endpoint serves no SSE "
                                 "stream; POST JSON-RPC requests", headers={"Allow": "POST"})(scope, receive, send)
            return
        episode_id = str(scope.get("path_params", {}).get("episode_id", ""))
        token = _TARGET.set(await self._resolve(episode_id))
        try:
            await manager.handle_request(scope, receive, send)
        finally:
            _TARGET.reset(token)

    async def _resolve(self, episode_id: str) -> _Target:
        try:
            return _Target(episode_id, await self.episodes.get(episode_id), None)
        except ApiError as exc:
            return _Target(episode_id, None, exc)

    def _surface(self, episode: Episode) -> _Tools:
        ref = episode.task.scenario.ref
        found = self._tools.get(ref)
        if found is None:  # immutable per scenario: built once
            schemas = episode.tool_schemas("mcp")
            submit = not any(s["name"].endswith("__submit") for s in schemas)
            surface = ToolSurface(schemas, episode.toolkit.allowed, (_SUBMIT_SCHEMA,) if submit else ())
            found = _Tools(surface, submit, {t.name: t.input_schema for t in surface.tools})
            self._tools[ref] = found
        return found

    def _input_schema(self, name: str) -> dict[str, Any] | None:
        """A tool's input schema, for the SDK's check of `Mcp-Param-*` headers (None: nothing to check).

        Without it the SDK would run the whole `tools/list` handler on every 2026-07-28 call to find it.
        """
        target = _TARGET.get()
        if target is None or target.episode is None:
            return None
        return self._surface(target.episode).input_schemas.get(name)

    # handlers -------------------------------------------------------------------------------------
    async def _list_tools(self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> (
        types.ListToolsResult
    ):
        return types.ListToolsResult(tools=self._surface(_episode()).surface.tools)

    async def _list_prompts(self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> (
        types.ListPromptsResult
    ):
        return task_prompts(_episode())

    async def _get_prompt(self, ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams) -> (
        types.GetPromptResult
    ):
        return task_prompt(_episode(), params)

    async def _call_tool(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> (
        types.CallToolResult
    ):
        target = _current()
        episode = target.episode
        if episode is None:
            return _unavailable_result(target)
        tools = self._surface(episode)
        surface = tools.surface
        if tools.submit and params.name == SUBMIT_TOOL:
            return await _submit(episode)
        try:
            result = await call_episode(episode, params)
        except InvalidCallIdError as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from None
        except ConcurrencyError as exc:  # another process wrote the episode: this copy is stale
            raise MCPError(types.INTERNAL_ERROR, f"episode {target.episode_id} was written elsewhere: {exc}",
                           data={"code": "episode_stale"}) from None
        except UsageError:  # closed while the call waited for the episode's lock
            return _unavailable_result(_Target(target.episode_id, None, _closed(target.episode_id)))
        if _ends(episode, result, params.name):
            return surface.tool_result(result, params.name, meta=await _finish(episode))
        return surface.tool_result(result, params.name)


def mount_episode_mcp(app: Any, episodes: EpisodeRegistry) -> EpisodeMCP:
    """Adds `/episodes/{episode_id}/mcp` to a Starlette/FastAPI app; its lifespan must enter `.running()`.

    Args:
        app: The app (`app.state.episode_mcp` is set to the endpoint).
        episodes: The app's episode registry.

    Returns:
        The endpoint.
    """
    endpoint = EpisodeMCP(episodes)
    # A route, not a mount: a mount would redirect `/mcp` to `/mcp/`, which some clients do not follow.
    app.add_route(MCP_PATH, endpoint, methods=["GET", "POST", "DELETE"], include_in_schema=False)
    app.state.episode_mcp = endpoint
    return endpoint


# helpers ------------------------------------------------------------------------------------------
def _current() -> _Target:
    target = _TARGET.get()
    if target is None:  # only EpisodeMCP calls the server, and it always sets the target
        raise MCPError(types.INTERNAL_ERROR, "no episode for this request", data={"code": "harness_error"})
    return target


def _episode() -> Episode:
    """The request's episode, for a listing.

    Raises:
        MCPError: EPISODE_UNAVAILABLE for an unknown or closed episode.
    """
    target = _current()
    if target.episode is None:
        code = "episode_not_found" if target.error is None else target.error.code
        raise MCPError(EPISODE_UNAVAILABLE, _unavailable_message(target),
                       data={"code": code, "episode_id": target.episode_id})
    return target.episode


def _jsonrpc_error(status: int, code: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    error = types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(code=code, message=message))
    return JSONResponse(error.model_dump(mode="json", exclude_none=True), status_code=status, headers=headers)


def _closed(episode_id: str) -> ApiError:
    return ApiError(409, "episode_closed", f"episode {episode_id} was closed")


def _unavailable_message(target: _Target) -> str:
    reason = "is unknown" if target.error is None else target.error.message
    if target.error is not None and target.error.code in ("episode_not_found", "episode_closed"):
        reason = "is unknown here" if target.error.code == "episode_not_found" else "is closed"
    return (f"episode {target.episode_id} {reason}: this URL serves no tools. "
            "Start an episode with POST /episodes and connect to its /episodes/{episode_id}/mcp.")


def _unavailable_result(target: _Target) -> types.CallToolResult:
    error = target.error or ApiError(404, "episode_not_found", f"no episode {target.episode_id!r}")
    retryable = error.status == 429  # the cap: a slot frees as episodes close
    return json_result({"code": error.code, "message": _unavailable_message(target), "retryable": retryable,
                        "details": {"episode_id": target.episode_id}}, is_error=True)


def _ends(episode: Episode, result: CallResult, called: str) -> bool:
    """Whether the call ended the episode: a domain's own submit that succeeded, or a used-up budget."""
    resolved = episode.toolkit.resolve(called)
    return (result.ok and isinstance(resolved, str) and resolved.endswith(".submit")) or result.done or (
        result.truncated)


async def _finish(episode: Episode) -> dict[str, Any]:
    """Grades the episode and ends it in its log; returns the `_meta` that says so."""
    grade = await episode.grade()
    await episode.close(end=True)
    return {DONE_META: True, REWARD_META: grade.score, GRADE_META: grade.model_dump(mode="json")}


async def _submit(episode: Episode) -> types.CallToolResult:
    meta = await _finish(episode)
    payload = {"submitted": True, "done": True, "reward": meta[REWARD_META], "grade": meta[GRADE_META]}
    return json_result(payload, is_error=False, meta=meta)

