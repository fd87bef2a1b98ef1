"""OpenEnv's protocol, spoken natively on the HTTP app: `create_app(env, openenv=True)` mounts it.

| route | what |
| --- | --- |
| `WS /ws` | one session per connection (`?session_id=` attaches one made over `/mcp`) |
| `POST /reset`, `POST /step`, `GET /state` | stateless: `/reset` answers `metadata.episode_id`, the others take it |
| `POST /mcp` | JSON-RPC: `tools/list`, `tools/call`, `openenv/session/create`, `openenv/session/close` |
| `GET /schema`, `/metadata`, `/health` | action (`CallToolAction`), observation, state schemas; name; `healthy` |

WebSocket frames (client): `{"type": "reset", "data": {seed, scenario, episode_id?}}`,
`{"type": "step", "data": <action>}`, `{"type": "state"}`, `{"type": "close"}`,
`{"type": "mcp", "data": <JSON-RPC request>}`. Server frames: `observation`
(`{observation, reward, done, metadata?}`), `state`, `mcp` and `error`
(`{message, code}`, codes of `WSErrorCode`). A bad frame is answered with an
`error` frame and the connection stays usable; only `CAPACITY_REACHED` and
`SESSION_ERROR` (an unknown or busy `session_id`) close it.

Bounds: frames and `/mcp` bodies above `max_frame_bytes` are refused with an
error (uvicorn's own `ws_max_size`, 16 MiB by default, closes with 1009 beyond
that); the server answers one frame before it reads the next, so a client that
never reads stalls only its own connection (TCP backpressure, then the
keepalive ping closes it); sessions are capped and idle unheld ones expire.
"""

from __future__ import annotations

import contextlib
import json
import logging
from enum import Enum
from typing import Any

import anyio
from fastapi import Body, FastAPI, Query, Request, WebSocket
from fastapi.responses import JSONResponse
from pydantic import TypeAdapter, ValidationError
from starlette.websockets import WebSocketDisconnect, WebSocketState

from saas_sim.adapters._error_responses import AsciiJSONResponse, finite_json
from saas_sim.adapters._registry import RETRY_AFTER_S, ApiError, EpisodeRegistry
from saas_sim.adapters.openenv_models import (
    CallToolAction,
    CallToolObservation,
    EnvironmentMetadata,
    JsonRpcCode,
    OpenEnvAction,
    OpenEnvHealth,
    OpenEnvState,
    ResetData,
    ResetObservation,
    ResetRequest,
    SchemaResponse,
    StepRequest,
    StepResponse,
    WSErrorCode,
)
from saas_sim.adapters.openenv_service import OpenEnvService, ProtocolError, wire_payload
from saas_sim.adapters.openenv_sessions import OpenEnvSession, SessionCapacityError, SessionError
from saas_sim.runtime.arg_bounds import loads_bounded
from saas_sim.runtime.environment import Environment

__all__ = ["MAX_FRAME_BYTES", "SEND_TIMEOUT_S", "mount_openenv", "openenv_health"]

log = logging.getLogger(__name__)

MAX_FRAME_BYTES = 1 << 20
"""The largest WebSocket frame or `/mcp` body read (1 MiB): tool arguments are small."""

SEND_TIMEOUT_S = 30.0
"""How long one WebSocket send may wait on a client that does not read."""

_ACTION: TypeAdapter[Any] = TypeAdapter(OpenEnvAction)
_DESCRIPTION = ("Deterministic, event-sourced simulated SaaS backends (a CRM, a support desk, an IDE) for agent RL. "
                "Reset with {seed, scenario}; call tools with call_tool; `submit` ends and grades the episode.")


def mount_openenv(app: FastAPI, env: Environment, episodes: EpisodeRegistry, *, max_sessions: int,
                  idle_ttl_s: float = 600.0, default_scenario: str | None = None,
                  max_frame_bytes: int = MAX_FRAME_BYTES, send_timeout_s: float = SEND_TIMEOUT_S) -> OpenEnvService:
    """Adds OpenEnv's routes (all but `/health`, which the app registers) to `app`.

    Args:
        app: The HTTP app.
        env: Its environment.
        episodes: Its episode registry.
        max_sessions: How many OpenEnv sessions may be live at once.
        idle_ttl_s: Idle seconds after which a session no WebSocket holds is dropped.
        default_scenario: The scenario of a reset that names none (default: the first id).
        max_frame_bytes: The largest frame or `/mcp` body accepted.
        send_timeout_s: How long one WebSocket send may wait for a client that does not read
            before the connection counts as gone (and its session ends).

    Returns:
        The service (also `app.state.openenv`); the app's lifespan closes its sessions.
    """
    service = OpenEnvService(env, episodes, max_sessions=max_sessions, idle_ttl_s=idle_ttl_s,
                             default_scenario=default_scenario)
    app.state.openenv = service
    routes = _Routes(service, max_frame_bytes, send_timeout_s)
    tags: list[str | Enum] = ["openenv"]
    app.add_api_route("/reset", routes.reset, methods=["POST"], tags=tags, response_model=StepResponse)
    app.add_api_route("/step", routes.step, methods=["POST"], tags=tags, response_model=StepResponse)
    app.add_api_route("/state", routes.state, methods=["GET"], tags=tags, response_model=OpenEnvState)
    app.add_api_route("/schema", routes.schema, methods=["GET"], tags=tags, response_model=SchemaResponse)
    app.add_api_route("/metadata", routes.metadata, methods=["GET"], tags=tags, response_model=EnvironmentMetadata)
    app.add_api_route("/mcp", routes.mcp, methods=["POST"], tags=tags)
    app.add_api_websocket_route("/ws", routes.websocket)
    return service


async def openenv_health(request: Request) -> OpenEnvHealth:
    """Answers 200 `healthy` once the server is ready (OpenEnv's word), with the live counts."""
    service: OpenEnvService = request.app.state.openenv
    return OpenEnvHealth(episodes=len(service.episodes), max_episodes=service.episodes.max_episodes,
                         sessions=len(service.sessions), max_sessions=service.sessions.max_sessions)


class _Routes:
    """The endpoints, bound to one service."""

    def __init__(self, service: OpenEnvService, max_frame_bytes: int, send_timeout_s: float) -> None:
        self.service = service
        self.max_frame_bytes = max_frame_bytes
        self.send_timeout_s = send_timeout_s

    # stateless HTTP -------------------------------------------------------------------------------
    async def reset(self, body: ResetRequest = Body(default_factory=ResetRequest)) -> StepResponse:  # noqa: B008
        """Starts an episode; its id is `metadata.episode_id` (pass it to /step and /state)."""
        session = OpenEnvSession("http")
        try:
            obs = await self.service.reset(session, body)
        except ProtocolError as exc:
            raise _http_error(exc) from None
        return StepResponse(**wire_payload(obs, {"episode_id": session.episode_id}))

    async def step(self, body: StepRequest) -> StepResponse:
        """Runs one action on `episode_id` (`list_tools` needs none)."""
        try:
            action = _ACTION.validate_python(body.action)
        except ValidationError as exc:
            raise ApiError(422, "validation_error", "invalid action",
                           details={"errors": _errors(exc)}) from None
        session = await self._transient(body.episode_id)
        try:
            obs = await self.service.step(session, action)
        except ProtocolError as exc:
            raise _http_error(exc) from None
        return StepResponse(**wire_payload(obs))

    async def state(self, episode_id: str | None = Query(default=None)) -> OpenEnvState:
        """The state of `episode_id` (`episode_id: null, step_count: 0` without one)."""
        return self.service.state(await self._transient(episode_id))

    async def _transient(self, episode_id: str | None) -> OpenEnvSession:
        session = OpenEnvSession("http")
        if episode_id is not None:
            try:
                await self.service.attach_episode(session, episode_id)
            except ProtocolError as exc:
                raise _http_error(exc) from None
        return session

    async def schema(self) -> SchemaResponse:
        """The JSON schemas of the action, the observation, the state and the reset's observation."""
        return SchemaResponse(action=CallToolAction.model_json_schema(),
                              observation=CallToolObservation.model_json_schema(),
                              state=OpenEnvState.model_json_schema(),
                              reset_observation=ResetObservation.model_json_schema())

    async def metadata(self) -> EnvironmentMetadata:
        """The environment's name and description."""
        from saas_sim import __version__

        return EnvironmentMetadata(name="saas_sim", description=_DESCRIPTION, version=__version__,
                                   author="saas_sim")

    # JSON-RPC -------------------------------------------------------------------------------------
    async def mcp(self, request: Request) -> JSONResponse:
        """OpenEnv's JSON-RPC: `tools/list`, `tools/call`, `openenv/session/create` and `/close`."""
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > self.max_frame_bytes:
                return AsciiJSONResponse(_rpc_error(None, JsonRpcCode.INVALID_REQUEST,
                                               f"request larger than {self.max_frame_bytes} bytes"))
        try:
            message = loads_bounded(bytes(body))
        except ValueError as exc:
            return AsciiJSONResponse(_rpc_error(None, JsonRpcCode.PARSE_ERROR, f"Parse error: {exc}"))
        return AsciiJSONResponse(await self.rpc(message, None))

    async def rpc(self, message: Any, bound: OpenEnvSession | None) -> dict[str, Any]:
        """Answers one JSON-RPC request; `bound` is the session of the WebSocket it came over."""
        if not isinstance(message, dict):
            return _rpc_error(None, JsonRpcCode.INVALID_REQUEST, "Invalid Request: expected a JSON object")
        rid = message.get("id")
        if not isinstance(rid, str | int | None) or isinstance(rid, bool):
            return _rpc_error(None, JsonRpcCode.INVALID_REQUEST, "Invalid Request: id must be a string or number")
        method, params = message.get("method"), message.get("params", {})
        if message.get("jsonrpc") != "2.0" or not isinstance(method, str):
            return _rpc_error(rid, JsonRpcCode.INVALID_REQUEST, 'Invalid Request: needs "jsonrpc": "2.0" and a method')
        if not isinstance(params, dict):
            return _rpc_error(rid, JsonRpcCode.INVALID_PARAMS, "Params must be an object")
        try:
            return {"jsonrpc": "2.0", "id": rid, "result": await self._dispatch(method, params, bound)}
        except _RpcError as exc:
            return _rpc_error(rid, exc.code, exc.message, exc.data)
        except ValidationError as exc:  # params no action can hold (a name that is no UTF-8 text)
            return _rpc_error(rid, JsonRpcCode.INVALID_PARAMS, "Invalid params", {"errors": _errors(exc)})

    async def _dispatch(self, method: str, params: dict[str, Any], bound: OpenEnvSession | None) -> Any:
        sessions = self.service.sessions
        if method == "openenv/session/create":
            if bound is not None:
                return {"session_id": bound.session_id}
            try:
                return {"session_id": (await sessions.create()).session_id}
            except SessionCapacityError as exc:
                raise _RpcError(JsonRpcCode.SERVER_ERROR, str(exc),
                                {"active_sessions": exc.active, "max_sessions": exc.limit}) from None
        if method == "openenv/session/close":
            target = params.get("session_id")
            if not target:
                raise _RpcError(JsonRpcCode.INVALID_PARAMS, "Invalid params - 'session_id' is required")
            if bound is not None and target == bound.session_id:
                raise _RpcError(JsonRpcCode.INVALID_REQUEST,
                                "Cannot close active WebSocket-managed session via MCP method")
            session = await self._session(target)
            if session.attached:  # ends when its WebSocket does
                session.closing = True
                return {"session_id": target, "closed": False, "closing": True}
            await sessions.close(session)
            return {"session_id": target, "closed": True}
        if method in ("tools/list", "tools/call"):
            session = bound or await self._rpc_session(params)
            if method == "tools/list":
                return {"tools": self.service.mcp_tools(session)}
            name, arguments = params.get("name"), params.get("arguments") or {}
            if not isinstance(name, str) or not name:
                raise _RpcError(JsonRpcCode.INVALID_PARAMS, "Missing 'name' in params")
            if not isinstance(arguments, dict):
                raise _RpcError(JsonRpcCode.INVALID_PARAMS, "'arguments' must be an object")
            meta = params.get("_meta")
            action = CallToolAction(tool_name=name, arguments=arguments,
                                    metadata={"call_id": meta["call_id"]} if isinstance(meta, dict)
                                    and "call_id" in meta else {})
            try:
                obs = await self.service.step(session, action)
            except ProtocolError as exc:
                raise _RpcError(JsonRpcCode.INTERNAL_ERROR, exc.message, {"code": exc.code, **exc.data}) from None
            return obs.model_dump(mode="json")
        raise _RpcError(JsonRpcCode.METHOD_NOT_FOUND, f"Method not found: {method}")

    async def _session(self, session_id: object) -> OpenEnvSession:
        try:
            return await self.service.sessions.get(session_id)
        except SessionError as exc:
            raise _RpcError(JsonRpcCode.INVALID_PARAMS, str(exc)) from None

    async def _rpc_session(self, params: dict[str, Any]) -> OpenEnvSession:
        if params.get("session_id"):
            return await self._session(params["session_id"])
        session = OpenEnvSession("rpc")
        episode_id = params.get("episode_id")
        if isinstance(episode_id, str):
            try:
                await self.service.attach_episode(session, episode_id)
            except ProtocolError as exc:
                raise _RpcError(JsonRpcCode.INVALID_PARAMS, exc.message) from None
        return session

    # WebSocket ------------------------------------------------------------------------------------
    async def websocket(self, websocket: WebSocket) -> None:
        """One OpenEnv session per connection (or the attached `?session_id=`)."""
        await websocket.accept()
        sessions = self.service.sessions
        requested = websocket.query_params.get("session_id")
        try:
            session = await (sessions.attach(requested) if requested else sessions.create())
        except SessionCapacityError as exc:
            await self._send_and_close(websocket, {"message": str(exc), "code": WSErrorCode.CAPACITY_REACHED,
                                                   "active_sessions": exc.active, "max_sessions": exc.limit}, 1013)
            return
        except SessionError as exc:
            await self._send_and_close(websocket, {"message": str(exc), "code": WSErrorCode.SESSION_ERROR}, 1008)
            return
        try:
            await self._serve(websocket, session)
        finally:
            # The session ends with its connection however that ends (a close frame, a drop, a
            # failed send to a client gone mid-call, the server cancelling the handler); an
            # attached one ends only if closing. Shielded: a cancelled handler still frees its slot.
            with anyio.CancelScope(shield=True):
                if requested:
                    await sessions.detach(session)
                else:
                    await sessions.close(session)
                if websocket.application_state is WebSocketState.CONNECTED:
                    await self._close(websocket, 1000)

    async def _serve(self, websocket: WebSocket, session: OpenEnvSession) -> None:
        while True:
            try:
                message = await websocket.receive()
            except (WebSocketDisconnect, RuntimeError, OSError):
                return
            if message["type"] == "websocket.disconnect":
                return
            raw = message.get("text")
            if raw is None:
                raw = message.get("bytes") or b""
            reply = await self._frame(raw, session)
            if reply is None:  # a close frame
                return
            if not await self._send(websocket, json.dumps(reply)):
                return  # the client went away (or stopped reading) before taking its answer
            if reply["type"] == "error" and reply["data"]["code"] == WSErrorCode.CAPACITY_REACHED:
                await self._close(websocket, 1013)
                return

    async def _send(self, websocket: WebSocket, text: str) -> bool:
        """Sends one frame; False when the client is gone or has not read for `send_timeout_s`.

        The bound matters: uvicorn closes an unanswered keepalive gracefully, which waits for
        the unread buffer to drain, so without it a send to a client that never reads would
        wait forever and its session would never end.
        """
        with anyio.move_on_after(self.send_timeout_s):
            try:
                await websocket.send_text(text)
            except (WebSocketDisconnect, RuntimeError, OSError):
                return False
            return True
        return False

    async def _close(self, websocket: WebSocket, code: int) -> None:
        """Closes the connection, waiting at most `send_timeout_s` (a close frame is a send too)."""
        with anyio.move_on_after(self.send_timeout_s), contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await websocket.close(code)

    async def _send_and_close(self, websocket: WebSocket, error: dict[str, Any], code: int) -> None:
        if await self._send(websocket, json.dumps({"type": "error", "data": error})):
            await self._close(websocket, code)

    async def _frame(self, raw: str | bytes, session: OpenEnvSession) -> dict[str, Any] | None:
        """Answers one client frame; None for `close`."""
        # A str holds up to 4 UTF-8 bytes a character: only long ones need encoding to be measured.
        size = len(raw) if isinstance(raw, bytes) or len(raw) * 4 <= self.max_frame_bytes else len(raw.encode())
        if size > self.max_frame_bytes:
            return _ws_error(WSErrorCode.VALIDATION_ERROR, f"frame larger than {self.max_frame_bytes} bytes")
        try:
            frame = loads_bounded(raw)
        except ValueError as exc:
            return _ws_error(WSErrorCode.INVALID_JSON, f"Invalid JSON: {exc}")
        if not isinstance(frame, dict):
            return _ws_error(WSErrorCode.VALIDATION_ERROR, "a frame is a JSON object with a type",
                             errors=[{"loc": [], "msg": "expected an object", "type": "dict_type"}])
        kind, data = frame.get("type"), frame.get("data", {})
        try:
            if kind == "reset":
                reset = ResetData.model_validate({} if data is None else data)
                return {"type": "observation", "data": wire_payload(await self.service.reset(session, reset))}
            if kind == "step":
                action = _ACTION.validate_python(data)
                return {"type": "observation", "data": wire_payload(await self.service.step(session, action))}
            if kind == "state":
                return {"type": "state", "data": self.service.state(session).model_dump(mode="json")}
            if kind == "close":
                return None
            if kind == "mcp":
                return {"type": "mcp", "data": await self.rpc(data, session)}
        except ValidationError as exc:
            return _ws_error(WSErrorCode.VALIDATION_ERROR, "Invalid message", errors=_errors(exc))
        except ProtocolError as exc:
            return _ws_error(exc.code, exc.message, **exc.data)
        return _ws_error(WSErrorCode.UNKNOWN_TYPE, f"Unknown message type: {kind!r}")


class _RpcError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


def _rpc_error(rid: str | int | None, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": rid, "error": error}


def _ws_error(code: WSErrorCode, message: str, **data: Any) -> dict[str, Any]:
    return {"type": "error", "data": {"message": message, "code": code.value, **data}}


def _errors(exc: ValidationError) -> list[dict[str, Any]]:
    """Pydantic's errors as JSON data (its `ctx` may hold exceptions, shown as text).

    Not `exc.json()`: it writes UTF-8, and an input holding a lone surrogate (`"\\ud800"` in a frame)
    made it raise, which closed the connection. Frames are sent with ASCII escapes, which carry any text.
    An echoed NaN or infinity (Python's parser reads `NaN`, `Infinity`, `1e999`) is the text of its literal,
    so every frame stays strict JSON.
    """
    errors: list[dict[str, Any]] = json.loads(json.dumps(finite_json(exc.errors(include_url=False)), default=str))
    return errors


def _http_error(exc: ProtocolError) -> ApiError:
    if exc.code is WSErrorCode.VALIDATION_ERROR:
        return ApiError(422, "validation_error", exc.message, details=exc.data)
    if exc.code is WSErrorCode.CAPACITY_REACHED:
        return ApiError(429, "too_many_episodes", exc.message, headers={"Retry-After": str(RETRY_AFTER_S)})
    reason = exc.data.get("reason")
    if reason == "episode_not_found":
        return ApiError(404, reason, exc.message)
    if reason in ("episode_closed", "episode_unresumable"):
        return ApiError(409, reason, exc.message)
    return ApiError(500, "harness_error", exc.message, details=exc.data or None)
