"""`serve`'s httptools protocol writes each answer's head and body in one write, and never holds a head back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn
from starlette.types import Receive, Scope, Send

from saas_sim.adapters._uvicorn_protocols import http_protocol
from tests.adapters.test_network_edge import DEADLINE_S, until

BODY = b'{"ok":true}'


class _CountingTransport:
    """Stands in front of a connection's transport and keeps every write."""

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))
        self.transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class _App:
    """Answers `/plain` at once; `/stream` sends its head, then its body once `release` is set."""

    def __init__(self) -> None:
        self.release = asyncio.Event()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        await receive()
        if scope["path"] == "/plain":
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"content-length", str(len(BODY)).encode())]})
            await send({"type": "http.response.body", "body": BODY})
            return
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
        await self.release.wait()
        await send({"type": "http.response.body", "body": b"data: 1\n\n"})


@asynccontextmanager
async def _connected(app: _App) -> AsyncIterator[tuple[uvicorn.Server, asyncio.StreamReader, asyncio.StreamWriter]]:
    """Serves `app` with `serve`'s httptools protocol and opens one client connection to it."""
    async with _serving(app) as server:
        port = server.servers[0].sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            yield server, reader, writer
        finally:
            writer.close()


@asynccontextmanager
async def _serving(app: _App) -> AsyncIterator[uvicorn.Server]:
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", http=http_protocol("httptools"))
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        await until(lambda: server.started or task.done(), "uvicorn to start")
        assert not task.done(), "uvicorn stopped while starting"
        yield server
    finally:
        server.should_exit = True
        app.release.set()
        await task


async def _read_until(reader: asyncio.StreamReader, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        chunk = await asyncio.wait_for(reader.read(65536), DEADLINE_S)
        assert chunk, f"the connection closed before {marker!r}; read {data!r}"
        data += chunk
    return data


class TestJoinedWrites:
    async def test_an_answer_leaves_in_one_write_and_each_answer_on_a_connection_in_its_own(self) -> None:
        async with _connected(_App()) as (server, reader, writer):
            await until(lambda: bool(server.server_state.connections), "the connection to be accepted")
            (protocol,) = server.server_state.connections
            counting = _CountingTransport(protocol.transport)
            protocol.transport = counting  # type: ignore[assignment]
            for _ in range(3):
                writer.write(b"GET /plain HTTP/1.1\r\nHost: x\r\n\r\n")
                answer = await _read_until(reader, BODY)
                assert answer.startswith(b"HTTP/1.1 200 OK\r\n") and answer.endswith(b"\r\n\r\n" + BODY)
            assert len(counting.writes) == 3, [len(w) for w in counting.writes]
            assert all(w.startswith(b"HTTP/1.1 200") and w.endswith(BODY) for w in counting.writes)

    async def test_a_streamed_answer_shows_its_head_before_its_first_chunk(self) -> None:
        app = _App()
        async with _connected(app) as (_, reader, writer):
            writer.write(b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            head = await _read_until(reader, b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200 OK\r\n") and b"text/event-stream" in head
            assert b"data:" not in head
            app.release.set()
            assert b"data: 1" in await _read_until(reader, b"data: 1")

