"""The fast lane answers the hottest routes exactly as FastAPI's own routes do, and hands on what it must not judge."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
from fastapi import FastAPI
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Receive, Scope, Send

from saas_sim.adapters._fast_lane import FastLane
from saas_sim.adapters.http import create_app
from saas_sim.runtime.environment import Environment
from tests.adapters.conftest import SCENARIO, serve
from tests.runtime.conftest import notes_env

_IDS = re.compile(r"ep_[0-9a-f]{12}")


def without_lane(app: FastAPI) -> FastAPI:
    app.user_middleware = [m for m in app.user_middleware if m.cls is not FastLane]
    return app


async def conversation(client: httpx.AsyncClient) -> list[tuple[int, Any]]:
    """A session touching every lane route, the good and the bad requests, as (status, body) pairs."""
    out: list[tuple[int, Any]] = []

    async def send(method: str, url: str, **kwargs: Any) -> httpx.Response:
        r = await client.request(method, url, **kwargs)
        body: Any = r.content.decode()
        if r.headers.get("content-type", "").startswith("application/json"):
            body = json.loads(_IDS.sub("ep_ID", body))
        out.append((r.status_code, body))
        return r

    created = await send("POST", "/episodes", json={"scenario": SCENARIO, "seed": 2, "include_tools": False})
    ep = created.json()["episode_id"]
    calls = f"/episodes/{ep}/calls"
    await send("POST", calls, json={"tool": "notes.list_notes", "arguments": {"limit": 2}})
    await send("POST", calls, json={"tool": "notes.create_note", "arguments": {"title": "x"}, "call_id": "c1"})
    await send("POST", calls, json={"tool": "notes.create_note", "arguments": {"title": "x"}, "call_id": "c1"})
    await send("POST", calls, json={"tool": "notes.get_note", "arguments": {"note_id": "nt_999999"}})
    await send("POST", calls, json={"tool": "notes.nope", "arguments": {}})
    await send("POST", calls, json={"tool": "notes.list_notes", "arguments": "{not json"})
    await send("POST", calls, json={"tool": "notes.list_notes", "call_id": "auto:3"})  # reserved: 422
    await send("POST", calls, json={"tool": 5})  # fails the model: FastAPI's 422
    await send("POST", calls, json={"tool": "notes.list_notes", "surprise": 1})
    await send("POST", calls, content=b"{broken", headers={"content-type": "application/json"})
    await send("POST", calls, content=b'{"tool": "notes.list_notes"}', headers={"content-type": "text/plain"})
    await send("POST", "/episodes/ep_000000000000/calls", json={"tool": "notes.list_notes"})
    await send("POST", "/episodes", json={"scenario": "nope/nothing", "seed": 0})
    await send("POST", "/episodes", json={"scenario": SCENARIO, "seed": -1})
    await send("GET", f"/episodes/{ep}")
    await send("POST", f"/episodes/{ep}/grade")
    await send("POST", f"/episodes/{ep}/grade", json={"unexpected": "body"})
    await send("DELETE", f"/episodes/{ep}")
    await send("DELETE", f"/episodes/{ep}")
    await send("POST", calls, json={"tool": "notes.list_notes"})
    await send("GET", f"/episodes/{ep}")
    await send("DELETE", "/episodes/not-an-id")
    return out


async def run(env: Environment, lane: bool) -> list[tuple[int, Any]]:
    app = create_app(env)
    async with serve(app if lane else without_lane(app)) as client:
        return await conversation(client)


async def test_the_lane_answers_every_request_as_fastapi_does() -> None:
    async with notes_env() as with_lane, notes_env() as plain:
        fast, slow = await run(with_lane, True), await run(plain, False)
    assert [status for status, _ in fast] == [201, 200, 200, 200, 200, 200, 200, 422, 422, 422, 422, 422, 404,
                                              404, 422, 200, 200, 200, 204, 204, 409, 409, 404]
    assert fast == slow


async def test_the_lane_serves_the_calls_route_itself() -> None:
    """A lane that silently handed everything on would pass the test above: count what reaches FastAPI."""
    async with notes_env() as env:
        app = create_app(env)
        reached: list[str] = []

        class Count:  # the innermost middleware: it sees only what the lane hands on
            def __init__(self, inner: ASGIApp) -> None:
                self.inner = inner

            async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
                if scope["type"] == "http":
                    reached.append(f"{scope['method']} {scope['path']}")
                await self.inner(scope, receive, send)

        app.user_middleware.append(Middleware(Count))

        async with serve(app) as client:
            ep = (await client.post("/episodes", json={"scenario": SCENARIO, "seed": 2})).json()["episode_id"]
            await client.post(f"/episodes/{ep}/calls", json={"tool": "notes.list_notes"})
            await client.post(f"/episodes/{ep}/grade")
            await client.post(f"/episodes/{ep}/calls", json={"tool": 5})
        assert reached == [f"POST /episodes/{ep}/calls"]
