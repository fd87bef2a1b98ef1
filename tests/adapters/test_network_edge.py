"""Bad input at the network edge, against a real uvicorn server on a loopback port in the test's event loop.

Malformed HTTP, oversized bodies, a flood of episode creations, a WebSocket
dropped mid-call, and clients that never read (WebSocket and pipelined HTTP).
Each gets a clear 4xx or backpressure, never a 500, a crash or a leak. The
server runs in this process, so the tests read its state directly (uvicorn's
connections and tasks, the app's registry and sessions) and wait on it with a
deadline; nothing sleeps a fixed time.
"""

from __future__ import annotations

import asyncio
import base64
import gc
import json
import logging
import socket
import tracemalloc
from collections.abc import AsyncIterator, Callable, MutableMapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn
from websockets.asyncio.client import ClientConnection, connect

from saas_sim.adapters._body_limit import BodyLimitMiddleware
from saas_sim.adapters._registry import EpisodeRegistry
from saas_sim.adapters._uvicorn_protocols import http_protocol
from saas_sim.adapters.http import create_app
from saas_sim.adapters.openenv_service import OpenEnvService
from tests.adapters.conftest import SCENARIO
from tests.runtime.conftest import notes_env

MAX_EPISODES = 4
MAX_BODY = 64 * 1024
SEND_TIMEOUT_S = 1.0
DEADLINE_S = 20.0
PIPELINE_BOUND = 8192
"""Pipelined requests a server may hold parsed for one connection: one 256 KiB read of 60-byte requests is ~4,400."""


@dataclass
class Edge:
    """A served app: its port, its uvicorn server, and a JSON API client."""

    port: int
    server: uvicorn.Server
    api: httpx.AsyncClient

    @property
    def episodes(self) -> EpisodeRegistry:
        registry: EpisodeRegistry = _app_of(self.server).state.episodes
        return registry

    @property
    def openenv(self) -> OpenEnvService:
        service: OpenEnvService = _app_of(self.server).state.openenv
        return service

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def connections(self) -> set[Any]:
        found: set[Any] = self.server.server_state.connections
        return found

    async def start(self, seed: int = 1) -> str:
        answer = await self.api.post("/episodes", json={"scenario": SCENARIO, "seed": seed, "include_tools": False})
        assert answer.status_code == 201, answer.text
        episode_id: str = answer.json()["episode_id"]
        return episode_id

    async def serves(self) -> None:
        """The server still answers, and with no error."""
        health = await self.api.get("/health")
        assert health.status_code == 200 and health.json()["status"] == "healthy"


def _app_of(server: uvicorn.Server) -> Any:
    app = server.config.loaded_app
    while not hasattr(app, "state"):  # uvicorn's proxy-headers and message-logger wrappers
        app = app.app
    return app


@asynccontextmanager
async def serving(http: str = "auto") -> AsyncIterator[Edge]:
    async with notes_env() as env:
        app = create_app(env, max_episodes=MAX_EPISODES, openenv=True, max_body_bytes=MAX_BODY,
                         openenv_options={"default_scenario": SCENARIO, "max_sessions": 8,
                                          "send_timeout_s": SEND_TIMEOUT_S})
        # A short keepalive: a WebSocket client that never reads never answers a ping either.
        # `serve`'s own choice of protocol: `auto` is the bounded httptools one when it is installed.
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", http=http_protocol(http),
                                timeout_keep_alive=120, ws_ping_interval=1.0, ws_ping_timeout=2.0)
        server = uvicorn.Server(config)
        errors = _ErrorLog()
        watched = [logging.getLogger(name) for name in ("uvicorn.error", "saas_sim")]
        for logger in watched:
            logger.addHandler(errors)
        task = asyncio.create_task(server.serve())
        try:
            await until(lambda: server.started or task.done(), "uvicorn to start")
            assert not task.done(), "uvicorn stopped while starting"
            port = server.servers[0].sockets[0].getsockname()[1]
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30.0, trust_env=False) as api:
                yield Edge(port, server, api)
        finally:
            server.should_exit = True
            await task
            for logger in watched:
                logger.removeHandler(errors)
        # No bad input may crash a handler: uvicorn logs "Exception in ASGI application", saas_sim a harness error.
        assert not errors.records, [r.getMessage() for r in errors.records]


class _ErrorLog(logging.Handler):
    """Keeps every record at ERROR or above."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
async def edge() -> AsyncIterator[Edge]:
    async with serving() as e:
        yield e


async def until(ready: Callable[[], bool], what: str, timeout_s: float = DEADLINE_S) -> None:
    """Polls `ready` on the event loop until it holds, failing after `timeout_s`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not ready():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)  # a poll interval, not a wait for something to have happened


async def raw_exchange(port: int, request: bytes) -> tuple[int, bytes]:
    """Sends raw bytes, reads the answer until the server closes; returns (status, body)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), DEADLINE_S)
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def envelope(body: bytes | str) -> dict[str, Any]:
    error: dict[str, Any] = json.loads(body)["error"]
    assert set(error) <= {"code", "message", "details"} and error["message"]
    return error


# request bodies ----------------------------------------------------------------------------------
class TestBodyLimit:
    async def test_a_declared_length_over_the_limit_is_413_before_the_body_is_sent(self, edge: Edge) -> None:
        head = (f"POST /episodes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                f"Content-Length: {MAX_BODY + 1}\r\n\r\n").encode()
        status, body = await raw_exchange(edge.port, head + b"{")  # the rest never comes: nothing waits for it
        assert status == 413
        assert envelope(body) == {"code": "payload_too_large", "message": f"the request body is larger than "
                                  f"{MAX_BODY} bytes", "details": {"max_body_bytes": MAX_BODY}}
        await edge.serves()

    @pytest.mark.parametrize("path", ["/episodes", "/episodes/{id}/calls", "/episodes/{id}/mcp", "/mcp", "/step"])
    async def test_a_chunked_body_growing_past_the_limit_is_413(self, edge: Edge, path: str) -> None:
        episode_id = await edge.start()
        chunk = b"x" * 8192
        request = (f"POST {path.format(id=episode_id)} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                   f"Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
        request += (f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n") * (MAX_BODY // len(chunk) + 1)
        status, body = await raw_exchange(edge.port, request)  # no final chunk: the server stops reading first
        assert status == 413 and envelope(body)["code"] == "payload_too_large"
        assert len(edge.episodes) == 1  # nothing started, no step recorded
        assert (await edge.api.get(f"/episodes/{episode_id}")).json()["steps"] == 0
        await edge.serves()

    async def test_an_ordinary_client_posting_too_much_reads_the_413(self, edge: Edge) -> None:
        answer = await edge.api.post("/episodes", content=b"[" + b"0," * (2 * MAX_BODY) + b"0]",
                                     headers={"content-type": "application/json"})
        assert answer.status_code == 413 and envelope(answer.content)["code"] == "payload_too_large"
        await edge.serves()

    async def test_a_body_at_the_limit_is_read_and_judged_by_the_app(self, edge: Edge) -> None:
        body = json.dumps({"scenario": SCENARIO, "seed": 1, "pad": ""}).encode()
        body = body.replace(b'"pad": ""', b'"pad": "' + b"x" * (MAX_BODY - len(body)) + b'"')
        assert len(body) == MAX_BODY
        answer = await edge.api.post("/episodes", content=body, headers={"content-type": "application/json"})
        assert answer.status_code == 422  # read whole: the model forbids the extra field

    async def test_a_websocket_frame_larger_than_the_body_limit_is_the_frame_limits_business(
        self, edge: Edge
    ) -> None:
        async with connect(edge.ws, max_size=None) as ws:
            reply = await exchange(ws, {"type": "step", "data": {"type": "list_tools",
                                                                 "metadata": {"pad": "x" * (2 * MAX_BODY)}}})
        assert reply["type"] == "observation"  # under max_frame_bytes (1 MiB): served

    async def test_the_app_never_receives_more_than_the_limit(self) -> None:
        received: list[int] = []

        async def app(scope: Any, receive: Any, send: Any) -> None:
            while True:
                message = await receive()
                received.append(len(message["body"]))
                if not message.get("more_body"):
                    break
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"read"})

        chunks = [{"type": "http.request", "body": b"x" * 100, "more_body": True} for _ in range(50)]
        sent: list[MutableMapping[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return chunks.pop(0)

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(message)

        await BodyLimitMiddleware(app, max_body_bytes=1000)({"type": "http", "headers": []}, receive, send)
        assert sum(received) <= 1000 and len(chunks) == 39  # the 11th chunk passed the cap and was not handed on
        assert [m.get("status") for m in sent if m["type"] == "http.response.start"] == [413]

    def test_a_limit_below_one_byte_is_refused(self) -> None:
        with pytest.raises(ValueError, match="max_body_bytes"):
            BodyLimitMiddleware(lambda *a: None, max_body_bytes=0)  # type: ignore[arg-type]


# malformed HTTP ----------------------------------------------------------------------------------
JSON = {"content-type": "application/json"}
START = json.dumps({"scenario": SCENARIO, "seed": 1}).encode()


class TestMalformedHttp:
    @pytest.mark.parametrize(("method", "path", "content", "headers", "status"), [
        pytest.param("POST", "/episodes", b"{not json", JSON, 422, id="invalid-json"),
        pytest.param("POST", "/episodes", b"[1, 2]", JSON, 422, id="array-for-object"),
        pytest.param("POST", "/episodes", b'"text"', JSON, 422, id="string-for-object"),
        pytest.param("POST", "/episodes", START, {"content-type": "text/plain"}, 422, id="wrong-content-type"),
        pytest.param("POST", "/episodes", b'{"scenario": "\xff", "seed": 1}', JSON, 400, id="invalid-utf8"),
        pytest.param("POST", "/episodes", b"", JSON, 422, id="empty-body"),
        pytest.param("POST", "/episodes/ep_000000000000/calls", b'{"tool": 5}', JSON, 422, id="bad-call"),
        pytest.param("POST", "/episodes/..%2F..%2Fetc/calls", b'{"tool": "x"}', JSON, 404, id="odd-id"),
        pytest.param("POST", "/step", b'{"action": []}', JSON, 422, id="bad-step"),
        pytest.param("GET", "/no/such/route", b"", {}, 404, id="unknown-route"),
        pytest.param("PUT", "/episodes", b"{}", JSON, 405, id="wrong-method"),
        pytest.param("GET", "/episodes?limit=nope", b"", {}, 422, id="bad-query"),
    ])
    async def test_bad_requests_get_a_clear_4xx_and_the_server_serves_on(
        self, edge: Edge, method: str, path: str, content: bytes, headers: dict[str, str], status: int
    ) -> None:
        answer = await edge.api.request(method, path, content=content, headers=headers)
        assert answer.status_code == status, answer.text
        assert answer.json()  # a JSON explanation (FastAPI's detail, or the envelope)
        assert len(edge.episodes) == 0
        await edge.serves()

    @pytest.mark.parametrize("request_bytes", [
        pytest.param(b"GARBAGE\r\n\r\n", id="not-http"),
        pytest.param(b"POST /episodes HTTP/1.1\r\nHost: x\r\nContent-Length: many\r\n\r\n", id="bad-length"),
        pytest.param(b"GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", id="bad-header-line"),
        pytest.param(b"POST /episodes HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", id="bad-chunk"),
    ])
    @pytest.mark.parametrize("http", ["h11", "httptools"])
    async def test_unparsable_http_is_400_and_the_connection_closes(self, http: str, request_bytes: bytes) -> None:
        async with serving(http) as edge:
            status, _ = await raw_exchange(edge.port, request_bytes)
            assert status == 400
            await edge.serves()

    # Stock httptools has no head limit (a 1 MiB header was answered 200); `serve` runs the bounded one.
    @pytest.mark.parametrize("http", ["h11", "httptools"])
    async def test_a_huge_header_is_refused(self, http: str) -> None:
        async with serving(http) as edge:
            reader, writer = await asyncio.open_connection("127.0.0.1", edge.port)
            writer.write(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Pad: ")
            answer = asyncio.create_task(reader.read(65536))
            sent = 0
            try:
                while not answer.done() and sent < 16 << 20:  # a header that never ends, 4 KB at a time
                    writer.write(b"a" * 4096)
                    try:
                        await writer.drain()
                    except ConnectionError:  # the server answered and closed while a piece was in flight
                        break
                    sent += 4096
                    await asyncio.sleep(0)  # lets the answer in as soon as it comes
                head = await asyncio.wait_for(answer, DEADLINE_S)
            finally:
                writer.transport.abort()
            assert head.startswith(b"HTTP/1.1 400 "), head
            assert sent < 1 << 20  # refused after 16 KB (h11) or 64 KB (httptools) plus what was in flight
            await edge.serves()


# a flood of episode creations --------------------------------------------------------------------
class TestEpisodeFlood:
    async def test_creations_beyond_the_cap_are_429_and_the_live_count_never_passes_it(self, edge: Edge) -> None:
        peak = 0
        flooding = True

        async def watch() -> None:  # every state the event loop passes through between awaits
            nonlocal peak
            while flooding:
                peak = max(peak, len(edge.episodes))
                await asyncio.sleep(0)

        watcher = asyncio.create_task(watch())
        try:
            answers = await asyncio.gather(*(edge.api.post("/episodes", json={"scenario": SCENARIO, "seed": i,
                                                                               "include_tools": False})
                                              for i in range(6 * MAX_EPISODES)))
        finally:
            flooding = False
            await watcher
        created = [a.json()["episode_id"] for a in answers if a.status_code == 201]
        refused = [a for a in answers if a.status_code != 201]
        assert len(created) == MAX_EPISODES and peak == MAX_EPISODES
        assert {a.status_code for a in refused} == {429}
        assert {envelope(a.content)["code"] for a in refused} == {"too_many_episodes"}
        assert all(int(a.headers["Retry-After"]) >= 1 for a in refused)

        assert (await edge.api.delete(f"/episodes/{created[0]}")).status_code == 204
        assert (await edge.api.post("/episodes", json={"scenario": SCENARIO, "seed": 99})).status_code == 201
        assert (await edge.api.post("/episodes", json={"scenario": SCENARIO, "seed": 100})).status_code == 429

    async def test_refused_creations_keep_no_memory(self, edge: Edge) -> None:
        for seed in range(MAX_EPISODES):
            await edge.start(seed)
        registry = edge.episodes
        before = (dict(registry._live), dict(registry._used), dict(registry._pins), dict(registry._closed))

        async def refuse(n: int) -> None:
            for _ in range(n):
                answer = await edge.api.post("/episodes", json={"scenario": SCENARIO, "seed": 7})
                assert answer.status_code == 429

        await refuse(30)  # warm: the route's caches, the connection pool, the exception paths
        tracemalloc.start()
        try:
            first = server_heap()
            await refuse(200)
            second = server_heap()
        finally:
            tracemalloc.stop()
        grown = sum(s.size_diff for s in second.compare_to(first, "filename") if s.size_diff > 0)
        assert (dict(registry._live), dict(registry._used), dict(registry._pins), dict(registry._closed)) == before
        assert registry._starting == 0
        # ~45 KB here is the loop's and re's own churn; keeping 0.6 KB per refusal would add 120 KB.
        assert grown < 96 * 1024, f"200 refusals kept {grown} bytes"


_CLIENT_SIDE = ("*/httpx/*", "*/httpcore/*", "*/h11/*", "*tracemalloc*")
"""Allocations of the test's own HTTP client (the server parses with httptools), left out of the server's heap."""


def server_heap() -> tracemalloc.Snapshot:
    gc.collect()  # the client's reference cycles would otherwise count as growth
    return tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, f) for f in _CLIENT_SIDE])


# a WebSocket dropped mid-call --------------------------------------------------------------------
async def exchange(ws: ClientConnection, frame: dict[str, Any]) -> dict[str, Any]:
    await ws.send(json.dumps(frame))
    reply: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), DEADLINE_S))
    return reply


def create(call_id: str) -> dict[str, Any]:
    """A write that a second application would refuse (a note title is unique): it shows a retry applied once."""
    return {"type": "step", "data": {"type": "call_tool", "tool_name": "notes__create_note",
                                     "arguments": {"title": "Written once", "body": "."},
                                     "metadata": {"call_id": call_id}}}


class TestDroppedWebSocket:
    @pytest.mark.parametrize("how", ["fin", "reset"])
    async def test_a_call_whose_socket_drops_is_recorded_once_and_frees_the_slot(self, edge: Edge, how: str) -> None:
        episode_id = await edge.start()  # made over the JSON API, so it outlives the sessions that use it
        baseline = len(edge.connections())
        ws = await connect(edge.ws)
        await exchange(ws, {"type": "reset", "data": {"episode_id": episode_id}})
        await ws.send(json.dumps(create("c-drop")))
        sock: socket.socket = ws.transport.get_extra_info("socket")
        if how == "reset":  # RST: SO_LINGER 0
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        else:
            sock.shutdown(socket.SHUT_RDWR)
        ws.transport.abort()

        await until(lambda: len(edge.openenv.sessions) == 0, "the session to end")
        await until(lambda: len(edge.connections()) <= baseline, "the connection to be dropped")
        dropped = (await edge.api.get(f"/episodes/{episode_id}")).json()
        if how == "fin":  # the frame arrived before the close: it was run and recorded
            assert dropped["steps"] == 1
        else:  # an RST may discard a frame the server had not read yet: recorded at most once
            assert dropped["steps"] in (0, 1)
        # The client comes back and retries with the same call_id: the original answer, the write applied once
        # (each retry is a step of its own).
        async with connect(edge.ws) as again:
            await exchange(again, {"type": "reset", "data": {"episode_id": episode_id}})
            retry = (await exchange(again, create("c-drop")))["data"]["observation"]
            retry_twice = (await exchange(again, create("c-drop")))["data"]["observation"]
        assert retry["error"] is None and retry_twice["result"] == retry["result"]
        listed = await edge.api.post(f"/episodes/{episode_id}/calls",
                                     json={"tool": "notes.list_notes", "arguments": {"query": "Written once"}})
        assert [n["id"] for n in listed.json()["value"]["items"]] == [retry["result"]["id"]]
        await until(lambda: len(edge.openenv.sessions) == 0, "the second session to end")
        assert len(edge.episodes) == 1  # the JSON API's episode, nothing else
        await edge.serves()

    async def test_many_drops_leave_no_task_session_or_episode(self, edge: Edge) -> None:
        for seed in range(12):
            ws = await connect(edge.ws)
            await exchange(ws, {"type": "reset", "data": {"seed": seed}})
            await ws.send(json.dumps(create(f"c-{seed}")))
            ws.transport.abort()
        await until(lambda: len(edge.openenv.sessions) == 0 and len(edge.episodes) == 0, "every session to end")
        await until(lambda: not edge.server.server_state.tasks, "every request task to finish")
        await edge.serves()


# clients that never read -------------------------------------------------------------------------
async def raw_websocket(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A WebSocket opened by hand, so nothing reads it (libraries read and answer pings in the background)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(b"saas-sim-edge-ws").decode()
    writer.write((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), DEADLINE_S)
    assert head.startswith(b"HTTP/1.1 101"), head
    return reader, writer


def masked_frame(text: str) -> bytes:
    payload, mask = text.encode(), b"\x11\x22\x33\x44"
    n = len(payload)
    length = bytes([0x80 | n]) if n < 126 else (bytes([0x80 | 126]) + n.to_bytes(2, "big") if n < 1 << 16
                                                else bytes([0x80 | 127]) + n.to_bytes(8, "big"))
    return b"\x81" + length + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def flood(writer: asyncio.StreamWriter, frame: bytes, count: int) -> int:
    """Writes `count` copies of `frame`, waiting for the kernel to take each; returns how many it took."""
    sent = 0
    for _ in range(count):
        writer.write(frame)
        await writer.drain()
        sent += 1
    return sent


def stalled(edge: Edge, known: set[Any]) -> Any | None:
    """The server's protocol of the new connection, once the server has stopped reading it."""
    for proto in edge.connections() - known:
        transport = getattr(proto, "transport", None)
        if transport is not None and not transport.is_closing() and not transport.is_reading():
            return proto
    return None


class TestClientsThatNeverRead:
    async def test_a_websocket_client_that_never_reads_is_held_back_and_then_freed(self, edge: Edge) -> None:
        known = set(edge.connections())
        reader, writer = await raw_websocket(edge.port)
        writer.write(masked_frame(json.dumps({"type": "reset", "data": {"seed": 1}})))
        # 16 KB frames asking for the tool list again and again: answers pile up on the server's side.
        frame = masked_frame(json.dumps({"type": "step", "data": {"type": "list_tools",
                                                                  "metadata": {"pad": "x" * 16_384}}}))
        sender = asyncio.create_task(flood(writer, frame, 100_000))
        try:
            await until(lambda: stalled(edge, known) is not None or sender.done(), "the server to stop reading")
            assert not sender.done(), "100,000 frames went through: nothing held the client back"
            proto = stalled(edge, known)
            assert proto is not None
            assert proto.transport.get_write_buffer_size() < 4 << 20  # answers are not buffered without bound
            # Meanwhile everyone else is served.
            async with connect(edge.ws) as other:
                assert (await exchange(other, {"type": "reset", "data": {"seed": 2}}))["type"] == "observation"
            await edge.serves()
            # The stalled send gives up after send_timeout_s and the session (and its episode) ends,
            # though the client still holds its socket.
            await until(lambda: len(edge.openenv.sessions) == 0 and len(edge.episodes) == 0,
                        "the stalled session to end")
        finally:
            sender.cancel()
            writer.transport.abort()
        await until(lambda: proto not in edge.connections(), "the stalled connection to go")
        del reader

    # Stock uvicorn's httptools protocol resumes reading after every pipelined answer and queues a whole
    # read of requests each time (138,572 queued after 5 s); `serve` runs the bounded one.
    @pytest.mark.parametrize("http", ["h11", "httptools"])
    async def test_a_pipelining_http_client_that_never_reads_is_held_back_and_then_freed(self, http: str) -> None:
        async with serving(http) as edge:
            await edge.serves()  # the API client's connection is open before the one under test
            known = set(edge.connections())
            reader, writer = await asyncio.open_connection("127.0.0.1", edge.port)
            request = f"GET /scenarios/{SCENARIO}/tools?flavor=mcp HTTP/1.1\r\nHost: x\r\n\r\n".encode()
            sender = asyncio.create_task(flood(writer, request * 64, 100_000))

            def queued() -> int:  # requests read and parsed but not answered (httptools keeps them parsed)
                return sum(len(getattr(p, "pipeline", ())) for p in edge.connections() - known)

            try:
                await until(lambda: stalled(edge, known) is not None or sender.done() or queued() > PIPELINE_BOUND,
                            "the server to stop reading")
                assert not sender.done(), "6.4 million requests went through: nothing held the client back"
                assert queued() <= PIPELINE_BOUND, f"{queued()} requests queued: read without bound"
                proto = stalled(edge, known)
                assert proto is not None
                assert proto.transport.get_write_buffer_size() < 4 << 20
                for p in edge.connections() - known:  # h11 keeps them as bytes: at most a read or two
                    assert len(getattr(getattr(p, "conn", None), "_receive_buffer", b"")) <= 1 << 20
                for _ in range(3):  # meanwhile everyone else is served
                    await edge.serves()
                    assert (await edge.api.get(f"/scenarios/{SCENARIO}/tools")).status_code == 200
            finally:
                sender.cancel()
                writer.transport.abort()
            await until(lambda: proto not in edge.connections(), "the stalled connection to go")
            await until(lambda: not edge.server.server_state.tasks, "its request task to finish")
            await edge.serves()
            del reader


# WebSocket frames over a real socket -------------------------------------------------------------
class TestWebSocketFrames:
    @pytest.mark.parametrize(("raw", "code"), [
        pytest.param("{not json", "INVALID_JSON", id="invalid-json"),
        pytest.param(b"\xff\xfe\x00", "INVALID_JSON", id="binary-not-utf8"),
        pytest.param('{"type": "teleport"}', "UNKNOWN_TYPE", id="unknown-type"),
        pytest.param('{"data": {}}', "UNKNOWN_TYPE", id="no-type"),
        pytest.param("[1, 2]", "VALIDATION_ERROR", id="array"),
        pytest.param('{"type": "step", "data": "nope"}', "VALIDATION_ERROR", id="step-not-an-object"),
        pytest.param('{"type": "reset", "data": [1]}', "VALIDATION_ERROR", id="reset-not-an-object"),
        pytest.param('{"type": "mcp", "data": 5}', None, id="mcp-not-an-object"),
        pytest.param('{"type": "step", "data": {"type": "list_tools"}, "pad": "' + "x" * (1 << 20) + '"}',
                     "VALIDATION_ERROR", id="oversized"),
    ])
    async def test_a_bad_frame_is_an_error_frame_and_the_socket_stays_usable(
        self, edge: Edge, raw: str | bytes, code: str | None
    ) -> None:
        async with connect(edge.ws, max_size=None) as ws:
            await ws.send(raw)
            reply = json.loads(await asyncio.wait_for(ws.recv(), DEADLINE_S))
            assert (await exchange(ws, {"type": "reset", "data": {"seed": 1}}))["type"] == "observation"
        if code is None:  # a JSON-RPC error inside an mcp frame
            assert reply["type"] == "mcp" and reply["data"]["error"]["code"] == -32600
        else:
            assert reply["type"] == "error" and reply["data"]["code"] == code and reply["data"]["message"]
        await until(lambda: len(edge.openenv.sessions) == 0, "the session to end")

