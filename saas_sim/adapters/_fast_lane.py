"""The hottest routes answered without FastAPI's per-request machinery, with FastAPI as the fallback.

FastAPI resolves dependencies, validates and re-serializes on every request:
about 585 Python calls around a tool call whose own work is about 270 (counted
with cProfile on `POST /episodes/{id}/calls`). Agents make mostly these calls,
so the lane matches a few (method, path) pairs before the router does, parses
the JSON body with the route's own pydantic model, and calls the very endpoint
function FastAPI would. Its answers are the endpoints' own.

Anything unusual goes to FastAPI unchanged, body and all: a body that is not
JSON, that fails its model, or comes with another content type. So FastAPI's
422 shapes, the OpenAPI document and the error handlers stay the one source;
the lane renders only `ApiError` (the error envelope), `RequestValidationError`
(FastAPI's own handler) and any other saas_sim error (500 `harness_error`),
exactly as the app's handlers do.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from starlette.datastructures import State
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from saas_sim.adapters._error_responses import AsciiJSONResponse, validation_error
from saas_sim.adapters._registry import ApiError
from saas_sim.errors import SaasSimError

__all__ = ["FastLane", "FastRoute", "Handler", "LaneFirstApp"]

log = logging.getLogger(__name__)

Handler = Callable[[State, dict[str, str], Any], Awaitable[Response | BaseModel]]
"""Answers one request: the app's state, the path parameters, and the parsed body (None without a model)."""


@dataclass(frozen=True, slots=True)
class FastRoute:
    """One route the lane answers.

    Attributes:
        method: The HTTP method.
        path: A regex over the whole path, with named groups for the path parameters.
        handler: Calls the endpoint function.
        body: The pydantic model of the JSON body, or None for a route that takes none
            (a request that brings a body anyway goes to FastAPI).
        status: The status of an answer the handler returns as a model.
    """

    method: str
    path: re.Pattern[str]
    handler: Handler
    body: type[BaseModel] | None = None
    status: int = 200


class FastLane:
    """ASGI middleware serving `routes` directly and everything else (and any odd request) through `app`.

    Args:
        app: The FastAPI app's inner stack.
        routes: The routes to serve, matched in order.
    """

    def __init__(self, app: ASGIApp, routes: Sequence[FastRoute]) -> None:
        self.app = app
        self.routes = tuple(routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            method, path = scope["method"], scope["path"]
            for route in self.routes:
                if route.method == method:
                    match = route.path.fullmatch(path)
                    if match is not None:
                        await self._serve(route, match.groupdict(), scope, receive, send)
                        return
        await self.app(scope, receive, send)

    async def _serve(self, route: FastRoute, params: dict[str, str], scope: Scope, receive: Receive,
                     send: Send) -> None:
        body = await _read_body(receive)
        if body is None:  # the client went away before its request was whole: nothing to answer
            return
        parsed = _parse(route, scope, body)
        if parsed is _FALLBACK:
            await self.app(scope, _replay(body, receive), send)
            return
        state: State = scope["app"].state
        try:
            answer = await route.handler(state, params, parsed)
        except ApiError as exc:
            answer = AsciiJSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)
        except RequestValidationError as exc:
            answer = await validation_error(Request(scope), exc)
        except SaasSimError as exc:  # as the app's own handler: any other saas_sim error is the harness's
            log.error("%s %s failed: %r", scope["method"], scope["path"], exc)
            answer = AsciiJSONResponse(ApiError(500, "harness_error", str(exc)).body(), status_code=500)
        if isinstance(answer, BaseModel):
            answer = Response(answer.model_dump_json(), status_code=route.status, media_type="application/json")
        await answer(scope, receive, send)


class LaneFirstApp(FastAPI):
    """A FastAPI app whose HTTP requests meet its `front` before FastAPI's own middleware stack.

    Each layer of that stack (error pages, exception handlers, telemetry, body limits) costs a
    coroutine call per request and one more per message sent; the lane's routes need none of
    them, so `front` (typically a body limit around a `FastLane`) sees requests first and hands
    the rest to `stack`, which is FastAPI itself.
    """

    front: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.front is not None and scope["type"] == "http":
            scope["app"] = self
            await self.front(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)

    async def stack(self, scope: Scope, receive: Receive, send: Send) -> None:
        """FastAPI's own handling of a request: its middleware stack and router."""
        await super().__call__(scope, receive, send)


_FALLBACK: Any = object()
"""`_parse`'s answer for a request FastAPI must judge."""


def _parse(route: FastRoute, scope: Scope, body: bytes) -> Any:
    if route.body is None:
        return None if not body else _FALLBACK
    if not _is_json(scope):
        return _FALLBACK
    try:
        return route.body.model_validate_json(body)
    except ValidationError:
        return _FALLBACK


def _is_json(scope: Scope) -> bool:
    for name, value in scope["headers"]:
        if name == b"content-type":
            media: bytes = value.split(b";", 1)[0].strip().lower()
            return media == b"application/json" or (media.startswith(b"application/") and media.endswith(b"+json"))
    return False


async def _read_body(receive: Receive) -> bytes | None:
    """The whole body (an outer BodyLimitMiddleware caps it), or None if the client disconnected first."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the already read body on once, then waits on the client as usual."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
