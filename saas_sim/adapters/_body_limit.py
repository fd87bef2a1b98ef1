"""Caps the size of HTTP request bodies: 413 in the error envelope, never a body held in memory past the cap.

    app.add_middleware(BodyLimitMiddleware, max_body_bytes=1 << 20)

uvicorn reads a body as the app asks for it and sets no cap of its own, and
FastAPI joins the whole body before it parses it, so without this a client
could make the server hold any number of bytes. Two cases:

* a `Content-Length` over the cap is refused before the app runs (nothing is
  read; a client sending `Expect: 100-continue` never even uploads the body);
* a body without one (chunked) is counted as the app reads it; the chunk that
  passes the cap is never handed on, the app's own answer (FastAPI's 400 for a
  body it could not read, say) is dropped, and the 413 goes out instead.

After a 413 the server closes the connection (the rest of the body is never
read), so a client that keeps uploading may see the connection reset instead of
the answer; one that declared its length, or waits for 100-continue, reads it.
WebSocket and lifespan scopes pass untouched (frames have their own cap, see
saas_sim.adapters.openenv).
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["MAX_BODY_BYTES", "BodyLimitMiddleware"]

MAX_BODY_BYTES = 1 << 20
"""The default cap (1 MiB): tool arguments and episode requests are small."""


class _BodyTooLargeError(Exception):
    """Raised inside the app's `receive` when the body passes the cap (the middleware answers 413)."""


class BodyLimitMiddleware:
    """ASGI middleware answering 413 `payload_too_large` for request bodies over `max_body_bytes`.

    Args:
        app: The wrapped ASGI app.
        max_body_bytes: The largest body accepted, in bytes.

    Raises:
        ValueError: `max_body_bytes` is below 1.
    """

    def __init__(self, app: ASGIApp, max_body_bytes: int = MAX_BODY_BYTES) -> None:
        if max_body_bytes < 1:
            raise ValueError(f"max_body_bytes must be at least 1, got {max_body_bytes}")
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_body_bytes:
            await self._refuse(send)
            return
        limit = self.max_body_bytes
        seen = 0
        over = False
        started = False  # by the app, before the body passed the cap

        async def counting_receive() -> Message:
            nonlocal seen, over
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    over = True
                    raise _BodyTooLargeError
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if over and not started:
                return  # the app's answer to a body it could not read: the 413 replaces it
            started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except Exception:
            if not over or started:
                raise
        if over and not started:
            await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps(_envelope(self.max_body_bytes)).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


def _envelope(limit: int) -> dict[str, Any]:
    """The `ErrorEnvelope` of a 413 (saas_sim.adapters._http_models)."""
    return {"error": {"code": "payload_too_large",
                      "message": f"the request body is larger than {limit} bytes",
                      "details": {"max_body_bytes": limit}}}


def _content_length(scope: Scope) -> int | None:
    """The declared body size; None without one (uvicorn has already refused a malformed one)."""
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
