"""A lean keep-alive HTTP/1.1 client for the load generator: one connection, one request at a time.

httpx spends hundreds of microseconds of CPU per request; on a 2-core machine the load
generator would then take the core the server needs, and measure itself. This client writes a
pre-built request and parses only what the bench needs (status line, Content-Length,
Connection: close) with asyncio streams, so one process can drive thousands of connections.
It speaks exactly the subset uvicorn answers with: Content-Length bodies (a chunked answer is
refused as a protocol error, never mis-parsed).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

__all__ = ["Connection", "HttpProtocolError", "Response"]

_MAX_HEAD = 64 * 1024
"""The largest response head accepted (uvicorn's are a few hundred bytes)."""


class HttpProtocolError(Exception):
    """Raised when the server's answer is not HTTP/1.1 this client can read (or the connection ended early)."""


class Response:
    """A status code and a body."""

    __slots__ = ("body", "status")

    def __init__(self, status: int, body: bytes) -> None:
        self.status = status
        self.body = body

    def json(self) -> Any:
        """Returns the body decoded as JSON."""
        return json.loads(self.body)


class Connection:
    """One keep-alive connection to `host:port`; reconnects lazily after the server closes it."""

    def __init__(self, host: str, port: int, *, timeout_s: float = 30.0) -> None:
        self.host = host
        self.port = port
        self.timeout_s = timeout_s
        self._host_header = f"{host}:{port}".encode()
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self.connects = 0

    async def connect(self) -> None:
        """Opens the connection (if it is not open); TCP_NODELAY is asyncio's default for TCP."""
        if self._writer is None:
            self._reader, self._writer = await asyncio.wait_for(
                asyncio.open_connection(self.host, self.port, limit=_MAX_HEAD), self.timeout_s)
            self.connects += 1

    async def request(self, method: str, path: str, body: bytes | None = None) -> Response:
        """Sends one request and reads its whole answer.

        Raises:
            TimeoutError: No complete answer within `timeout_s` (the connection is then dropped).
            ConnectionError: The connection was reset or refused.
            HttpProtocolError: The answer was cut short or not readable.
        """
        try:
            return await asyncio.wait_for(self._exchange(method, path, body), self.timeout_s)
        except BaseException:
            # Whatever went wrong, the stream's position is unknown: never reuse it.
            self.close()
            raise

    async def _exchange(self, method: str, path: str, body: bytes | None) -> Response:
        await self.connect()
        assert self._reader is not None and self._writer is not None
        head = b"%s %s HTTP/1.1\r\nHost: %s\r\n" % (method.encode(), path.encode(), self._host_header)
        if body is not None:
            head += b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
            self._writer.write(head + body)
        else:
            empty = b"Content-Length: 0\r\n\r\n" if method in ("POST", "PUT") else b"\r\n"
            self._writer.write(head + empty)
        try:
            raw = await self._reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as exc:
            if not exc.partial:
                raise ConnectionResetError("the server closed the connection before answering") from None
            raise HttpProtocolError("the answer's head was cut short") from None
        except asyncio.LimitOverrunError:
            raise HttpProtocolError("the answer's head is too large") from None
        status, length, close = _parse_head(raw)
        data = await self._reader.readexactly(length) if length else b""
        if close:
            self.close()
        return Response(status, data)

    def close(self) -> None:
        """Closes the connection (the next request opens a new one)."""
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None


def _parse_head(raw: bytes) -> tuple[int, int, bool]:
    """Returns (status, content length, whether the server closes) from a response head."""
    lines = raw.split(b"\r\n")
    parts = lines[0].split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1."):
        raise HttpProtocolError(f"not an HTTP/1.x status line: {lines[0][:80]!r}")
    status = int(parts[1])
    length = 0
    close = parts[0] == b"HTTP/1.0"
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        key = name.strip().lower()
        if key == b"content-length":
            length = int(value)
        elif key == b"connection":
            close = value.strip().lower() == b"close"
        elif key == b"transfer-encoding":
            raise HttpProtocolError("chunked answers are not read by the bench client")
    return status, length, close
