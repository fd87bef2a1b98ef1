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
* An `unknown_tool` or `permission_denied` error names tools by their wire
  names, the only names an MCP client ever sees.
* Malformed params (arguments sent as a JSON string, say) are `INVALID_PARAMS`
  whose message and `data.errors` say which field is wrong and why (the SDK
  alone answers with an empty `data`).
* A harness error is a protocol error (`INTERNAL_ERROR`, data code
  `harness_error`), never a tool result: the episode is invalid.
* The task's instructions are the server's `instructions` and the prompt `task`.
* Over stdio, a line that is not JSON is answered with a JSON-RPC parse error
  (`-32700`, id null) and a JSON line that is not a JSON-RPC message with
  `-32600`; the SDK's transport alone drops both silently.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import threading
from collections.abc import Iterable
from types import TracebackType
from typing import Any, Self, cast

import anyio
import mcp_types as types
from anyio import ClosedResourceError, EndOfStream
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared._stream_protocols import ReadStream, WriteStream  # the types Server.run takes (private in 2.x)
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from saas_sim.errors import HarnessError, UsageError
from saas_sim.runtime.call_result import CallResult
from saas_sim.runtime.episode import Episode

__all__ = ["CALL_ID_META", "STEP_META", "TASK_PROMPT", "AnswerMalformedLines", "StdinLines", "ToolSurface",
           "build_server", "call_episode", "explain_invalid_params", "json_result", "serve_episode_stdio",
           "task_prompt", "task_prompts"]

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

    surface = ToolSurface.of(episode)

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> (
        types.ListToolsResult
    ):
        return types.ListToolsResult(tools=surface.tools)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            result = await call_episode(episode, params)
        except UsageError as exc:  # a closed episode, or a reserved call_id prefix
            raise MCPError(types.INVALID_REQUEST, str(exc)) from None
        return surface.tool_result(result, params.name)

    async def list_prompts(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> (
        types.ListPromptsResult
    ):
        return task_prompts(episode)

    async def get_prompt(ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams) -> (
        types.GetPromptResult
    ):
        return task_prompt(episode, params)

    server: Server[Any] = Server(
        name, version=__version__, title=f"{episode.task.scenario.ref} (seed {episode.task.seed})",
        instructions=episode.instructions,
        on_list_tools=list_tools, on_call_tool=call_tool, on_list_prompts=list_prompts, on_get_prompt=get_prompt,
    )
    server.middleware.append(explain_invalid_params)
    return server


class ToolSurface:
    """A scenario's tools as MCP clients see them: definitions under wire names, and results to match.

    Immutable per scenario (the toolkit's allowed tools and schemas), so a server of many
    episodes builds it once per scenario.

    Args:
        schemas: The toolkit's MCP tool definitions (`episode.tool_schemas("mcp")`).
        allowed: The runtime's (dotted) names of those tools, in the same order.
        extra: Definitions of the adapter's own tools, listed after the toolkit's.

    Attributes:
        tools: All the definitions, validated.
        wire_names: The wire name of each dotted tool name.
    """

    def __init__(self, schemas: list[dict[str, Any]], allowed: Iterable[str],
                 extra: Iterable[dict[str, Any]] = ()) -> None:
        self.tools = [types.Tool.model_validate(schema) for schema in [*schemas, *extra]]
        # The toolkit lists its allowed tools and their schemas in the same (sorted) order.
        self.wire_names = dict(zip(allowed, (schema["name"] for schema in schemas), strict=True))

    @classmethod
    def of(cls, episode: Episode, extra: Iterable[dict[str, Any]] = ()) -> ToolSurface:
        """The surface of an episode's allowed tools, with `extra` definitions after them."""
        return cls(episode.tool_schemas("mcp"), episode.toolkit.allowed, extra)

    def tool_result(self, result: CallResult, called: str, meta: dict[str, Any] | None = None) -> (
        types.CallToolResult
    ):
        """What a client gets for a recorded call: the value, or the structured error as an `isError` result.

        Args:
            result: The runtime's result.
            called: The tool name as the client sent it.
            meta: More `_meta` entries (beside the recorded step and call id).
        """
        payload = result.value if result.ok else _on_the_wire(
            None if result.error is None else result.error.to_dict(), called, self.wire_names)
        return json_result(payload, is_error=not result.ok,
                           meta={CALL_ID_META: result.call_id, STEP_META: result.step, **(meta or {})})


def json_result(payload: Any, *, is_error: bool, meta: dict[str, Any] | None = None) -> types.CallToolResult:
    """A tool result holding `payload` twice: as JSON text, and as `structuredContent`."""
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(payload, ensure_ascii=False, sort_keys=True))],
        structured_content=payload, is_error=is_error, _meta=meta,
    )


async def call_episode(episode: Episode, params: types.CallToolRequestParams) -> CallResult:
    """Makes a client's `tools/call` on an episode, with the idempotency key the client sent in `_meta`.

    Raises:
        MCPError: INVALID_PARAMS for a call id that is no string, INTERNAL_ERROR for a harness error.
        UsageError: The episode is closed, or the call id uses a reserved prefix: each transport frames it.
    """
    call_id = (params.meta or {}).get(CALL_ID_META)
    if call_id is not None and not isinstance(call_id, str):
        raise MCPError(types.INVALID_PARAMS, f"_meta[{CALL_ID_META!r}] must be a string")
    try:
        return await episode.call(params.name, params.arguments, call_id=call_id or None)
    except HarnessError as exc:
        raise MCPError(types.INTERNAL_ERROR, f"harness error: {exc}", data={"code": "harness_error"}) from None


def task_prompts(episode: Episode) -> types.ListPromptsResult:
    """The prompts of an episode: only the task."""
    return types.ListPromptsResult(prompts=[
        types.Prompt(name=TASK_PROMPT, description=f"The task of this {episode.task.scenario.ref} episode.")
    ])


def task_prompt(episode: Episode, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    """The task prompt of an episode: its instructions, as a user message.

    Raises:
        MCPError: INVALID_PARAMS for any other prompt name.
    """
    if params.name != TASK_PROMPT:
        raise MCPError(types.INVALID_PARAMS, f"no prompt named {params.name!r}; the only one is {TASK_PROMPT!r}")
    return types.GetPromptResult(
        description=episode.task.scenario.spec.description,
        messages=[types.PromptMessage(role="user", content=types.TextContent(text=episode.instructions))],
    )


def _on_the_wire(error: dict[str, Any] | None, called: str, wire_names: dict[str, str]) -> dict[str, Any] | None:
    """Returns a tool-name error as an MCP client should read it: tools by wire name, the name as it was sent.

    The runtime records dotted names (`crm.get_deal`); the recorded trajectory keeps them.
    """
    if error is None or error.get("code") not in ("unknown_tool", "permission_denied"):
        return error
    details = dict(error.get("details") or {})
    if isinstance(details.get("available"), list):
        details["available"] = [wire_names.get(n, n) for n in details["available"]]
    message = str(error.get("message", ""))
    dotted = called.replace("__", ".", 1)  # how the runtime resolved the wire name it was sent
    if dotted != called:
        message = message.replace(repr(dotted), repr(called)).replace(f"tool {dotted} ", f"tool {called} ")
    return {**error, "message": message, "details": details}


async def explain_invalid_params(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """Turns the SDK's bare INVALID_PARAMS for malformed params into one that names each bad field.

    Only each error's location and pydantic's fixed message go on the wire, never the input
    itself, which keeps the SDK's reason for sending nothing (no echo of client input).
    """
    try:
        return await call_next(ctx)
    except ValidationError as exc:
        errors = [{"path": ".".join(str(part) for part in e["loc"]) or "params", "message": e["msg"]}
                  for e in exc.errors(include_url=False, include_input=False)]
        summary = "; ".join(f"{e['path']}: {e['message']}" for e in errors[:5])
        hint = ""
        if ctx.method == "tools/call" and isinstance((ctx.params or {}).get("arguments"), str):
            hint = " (send the arguments as a JSON object, not as a JSON-encoded string)"
        raise MCPError(types.INVALID_PARAMS, f"invalid {ctx.method} params: {summary}{hint}",
                       data={"errors": errors}) from None


async def serve_episode_stdio(episode: Episode, *, stop_signals: Iterable[int] = (signal.SIGTERM,)) -> None:
    """Serves one episode over stdin/stdout until the client disconnects or a stop signal arrives.

    MCP clients stop a stdio server by closing its stdin and, failing that, with SIGTERM.
    Both end the input the same way: requests already read are answered, then the server
    returns. The episode is not graded or closed here: the caller does that afterwards.

    Args:
        episode: The episode to serve.
        stop_signals: Signals that end the input (where the event loop can handle signals:
            the main thread, not Windows).
    """
    server = build_server(episode)
    # The SDK reads stdin in a worker thread that a cancellation must wait for, so a SIGTERM
    # while the client keeps stdin open would hang; stdin lines come from a daemon thread instead.
    lines = StdinLines(sys.stdin.fileno())
    loop = asyncio.get_running_loop()
    handled: list[int] = []
    for sig in stop_signals:
        try:
            loop.add_signal_handler(sig, lines.end)
        except (NotImplementedError, RuntimeError, ValueError):  # no signals here: stdin EOF still ends it
            continue
        handled.append(sig)
    try:
        stdin = cast("anyio.AsyncFile[str]", lines)  # stdio_server only iterates over it
        async with stdio_server(stdin=stdin) as (read_stream, write_stream):
            answering = AnswerMalformedLines(read_stream, write_stream)
            await server.run(answering, write_stream, server.create_initialization_options())
    finally:
        for sig in handled:
            loop.remove_signal_handler(sig)


class StdinLines:
    """The lines of a file descriptor (stdin), read by a daemon thread and awaited on the event loop.

    Awaiting the next line is cancellable at once, and the blocked reader thread never holds up
    the process's exit. Lines are split on `\\n` only and decoded as UTF-8 (invalid bytes replaced,
    as the SDK's own transport does). The descriptor is duplicated, so the caller's stays open.

    Args:
        fd: The descriptor to read.
    """

    def __init__(self, fd: int) -> None:
        self._loop = asyncio.get_running_loop()
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._file = os.fdopen(os.dup(fd), "rb", buffering=0)
        threading.Thread(target=self._pump, name="saas-sim mcp stdin", daemon=True).start()

    def _pump(self) -> None:
        try:
            with self._file:
                while raw := self._file.readline():
                    self._deliver(raw.decode("utf-8", errors="replace"))
        finally:
            self._deliver(None)

    def _deliver(self, line: str | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody is listening any more
            self._loop.call_soon_threadsafe(self._lines.put_nowait, line)

    def end(self) -> None:
        """Ends the input here: lines already read are still served, then iteration stops."""
        self._lines.put_nowait(None)

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> str:
        line = await self._lines.get()
        if line is None:
            self._lines.put_nowait(None)  # stays at end of input for any later reader
            raise StopAsyncIteration
        return line


class AnswerMalformedLines:
    """A transport read stream that answers the lines it could not parse instead of dropping them.

    The SDK's stdio transport hands the server an exception for such a line, and the
    server only logs it, so the client waits for an answer that never comes. JSON-RPC
    says: invalid JSON is a parse error (-32700), valid JSON that is no JSON-RPC
    message an invalid request (-32600), both with id null.

    Args:
        inner: The transport's read stream.
        replies: The transport's write stream, for the error answers.
    """

    def __init__(self, inner: ReadStream[SessionMessage | Exception], replies: WriteStream[SessionMessage]) -> None:
        self._inner = inner
        self._replies = replies
        self.last_context: Any = None  # the SDK restores the sender's context from here

    async def receive(self) -> SessionMessage | Exception:
        """Returns the next message, after answering any malformed lines before it."""
        while True:
            item = await self._inner.receive()
            self.last_context = getattr(self._inner, "last_context", None)
            if not isinstance(item, Exception):
                return item
            await self._replies.send(SessionMessage(_malformed_reply(item)))

    async def aclose(self) -> None:
        """Closes the transport's read stream."""
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except (EndOfStream, ClosedResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


def _malformed_reply(exc: Exception) -> types.JSONRPCError:
    if isinstance(exc, ValidationError) and any(e["type"] == "json_invalid" for e in exc.errors()):
        error = types.ErrorData(code=types.PARSE_ERROR, message="Parse error",
                                data="the line is not valid JSON (one JSON-RPC message per line)")
    else:
        error = types.ErrorData(code=types.INVALID_REQUEST, message="Invalid Request",
                                data="the line is JSON but not a JSON-RPC 2.0 request, notification or response")
    return types.JSONRPCError(jsonrpc="2.0", id=None, error=error)
