"""The HTTP app as a service: idle TTL, the live list, honest Retry-After, cached schemas, stale copies."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from saas_sim.adapters._registry import ApiError, EpisodeRegistry
from saas_sim.adapters.http import create_app
from saas_sim.runtime.environment import Environment
from tests.adapters.conftest import SCENARIO, serve
from tests.runtime.conftest import notes_env


class FakeClock:
    """A monotonic clock the test moves by hand, so TTLs need no waiting."""

    def __init__(self) -> None:
        self.ns = 1_000_000_000

    def __call__(self) -> int:
        return self.ns

    def advance(self, seconds: float) -> None:
        self.ns += int(seconds * 1e9)


def app_with_clock(env: Environment, clock: FakeClock, *, max_episodes: int = 10, ttl: float | None = 60.0) -> Any:
    app = create_app(env, max_episodes=max_episodes, idle_ttl_s=ttl)
    app.state.episodes = EpisodeRegistry(max_episodes, resume=env.resume, idle_ttl_s=ttl, now_ns=clock)
    return app


async def start(client: httpx.AsyncClient, seed: int = 1, **extra: Any) -> dict[str, Any]:
    r = await client.post("/episodes", json={"scenario": SCENARIO, "seed": seed, **extra})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


async def list_notes(client: httpx.AsyncClient, episode_id: str, **extra: Any) -> dict[str, Any]:
    r = await client.post(f"/episodes/{episode_id}/calls",
                          json={"tool": "notes.list_notes", "arguments": {"limit": 2}, **extra})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


@pytest.fixture
async def file_env(tmp_path: Path) -> AsyncIterator[Environment]:
    async with notes_env(f"sqlite+aiosqlite:///{tmp_path / 'events.db'}") as env:
        yield env


class TestIdleTtl:
    async def test_an_idle_episode_leaves_memory_and_resumes_with_its_steps(self, file_env: Environment) -> None:
        clock = FakeClock()
        app = app_with_clock(file_env, clock, ttl=30)
        async with serve(app) as client:
            ep = (await start(client))["episode_id"]
            first = await list_notes(client, ep)
            clock.advance(29)
            assert await app.state.episodes.expire_idle() == 0  # not yet idle for the TTL
            clock.advance(2)
            assert await app.state.episodes.expire_idle() == 1
            assert ep not in app.state.episodes
            assert (await client.get("/episodes")).json()["episodes"] == []
            again = await list_notes(client, ep)
            assert again["step"] == first["step"] + 1 and again["value"] == first["value"]
            assert ep in app.state.episodes

    async def test_a_request_restarts_the_idle_clock(self, file_env: Environment) -> None:
        clock = FakeClock()
        app = app_with_clock(file_env, clock, ttl=30)
        async with serve(app) as client:
            ep = (await start(client))["episode_id"]
            clock.advance(20)
            assert (await client.get(f"/episodes/{ep}")).status_code == 200
            clock.advance(20)
            assert await app.state.episodes.expire_idle() == 0

    async def test_an_episode_never_called_still_resumes_after_expiry(self, file_env: Environment) -> None:
        """Its start events were not written yet: expiry writes them, so the resume finds the stream."""
        clock = FakeClock()
        app = app_with_clock(file_env, clock, ttl=5)
        async with serve(app) as client:
            ep = (await start(client))["episode_id"]
            clock.advance(6)
            assert await app.state.episodes.expire_idle() == 1
            assert (await list_notes(client, ep))["step"] == 0

    async def test_a_deleted_episode_stays_gone_after_expiry_would_have_run(self, file_env: Environment) -> None:
        clock = FakeClock()
        app = app_with_clock(file_env, clock, ttl=5)
        async with serve(app) as client:
            ep = (await start(client))["episode_id"]
            assert (await client.delete(f"/episodes/{ep}")).status_code == 204
            clock.advance(6)
            assert await app.state.episodes.expire_idle() == 0
            assert (await client.get(f"/episodes/{ep}")).status_code == 409

    def test_a_ttl_must_be_positive(self) -> None:
        with pytest.raises(ValueError, match="idle_ttl_s"):
            EpisodeRegistry(4, idle_ttl_s=0)


class TestCapacity:
    async def test_retry_after_says_when_the_oldest_idle_episode_expires(self, env: Environment) -> None:
        clock = FakeClock()
        app = app_with_clock(env, clock, max_episodes=2, ttl=100)
        async with serve(app) as client:
            await start(client)
            clock.advance(30)
            await start(client, seed=2)
            clock.advance(10)
            refused = await client.post("/episodes", json={"scenario": SCENARIO, "seed": 3})
            assert refused.status_code == 429
            assert refused.headers["Retry-After"] == "60"  # the first one idles 40 of its 100 s
            assert refused.json()["error"]["details"] == {"max_episodes": 2, "idle_ttl_s": 100}

    async def test_retry_after_ignores_pinned_episodes_that_no_ttl_frees(self, env: Environment) -> None:
        clock = FakeClock()
        registry = EpisodeRegistry(2, idle_ttl_s=100, now_ns=clock)

        async def start_one(stream_id: str) -> Any:
            return await env.start(SCENARIO, 1, stream_id=stream_id)

        pinned, _ = await registry.admit(start_one, pin=True)  # an OpenEnv session's: its own TTL frees it
        clock.advance(50)
        await registry.admit(start_one)
        clock.advance(10)
        with pytest.raises(ApiError) as refused:
            await registry.admit(start_one)
        assert refused.value.headers == {"Retry-After": "90"}  # the unpinned one, idle 10 of its 100 s
        registry.unpin(pinned)
        clock.advance(1)
        with pytest.raises(ApiError) as again:
            await registry.admit(start_one)
        assert again.value.headers == {"Retry-After": "39"}  # now the older one counts
        await registry.close_all()

    async def test_at_the_cap_an_expired_episode_makes_room_at_once(self, file_env: Environment) -> None:
        clock = FakeClock()
        app = app_with_clock(file_env, clock, max_episodes=1, ttl=10)
        async with serve(app) as client:
            old = (await start(client))["episode_id"]
            clock.advance(11)  # the sweeper has not run yet: the cap check expires it
            await start(client, seed=2)
            assert old not in app.state.episodes

    async def test_without_a_ttl_the_refusal_says_only_a_delete_frees_a_slot(self, env: Environment) -> None:
        async with serve(create_app(env, max_episodes=1, idle_ttl_s=None)) as client:
            await start(client)
            refused = await client.post("/episodes", json={"scenario": SCENARIO, "seed": 2})
            assert refused.status_code == 429
            assert "Retry-After" not in refused.headers
            assert "DELETE" in refused.json()["error"]["message"]


class TestLiveList:
    async def test_the_list_pages_by_id_with_idle_time_and_expiry(self, env: Environment) -> None:
        clock = FakeClock()
        app = app_with_clock(env, clock, ttl=50)
        async with serve(app) as client:
            ids = sorted([(await start(client, seed=s))["episode_id"] for s in range(3)])
            clock.advance(5)
            page = (await client.get("/episodes", params={"limit": 2})).json()
            assert [e["episode_id"] for e in page["episodes"]] == ids[:2]
            assert page["next_cursor"] == ids[1] and page["live"] == 3 and page["idle_ttl_s"] == 50
            assert page["episodes"][0]["idle_s"] == 5 and page["episodes"][0]["expires_in_s"] == 45
            rest = (await client.get("/episodes", params={"limit": 2, "cursor": page["next_cursor"]})).json()
            assert [e["episode_id"] for e in rest["episodes"]] == ids[2:] and rest["next_cursor"] is None
            assert (await client.get("/episodes", params={"limit": 0})).status_code == 422


class TestToolSchemas:
    async def test_start_can_leave_the_schemas_out_and_point_to_their_cached_route(self, env: Environment) -> None:
        async with serve(create_app(env)) as client:
            full = await start(client)
            lean = await start(client, include_tools=False)
            assert lean["tools"] is None and lean["tools_url"] == full["tools_url"]
            assert lean["tools_etag"] == full["tools_etag"]
            r = await client.get(full["tools_url"])
            assert r.status_code == 200 and r.headers["ETag"] == full["tools_etag"]
            assert r.json() == {"flavor": "openai", "tools": full["tools"]}
            episode_tools = await client.get(f"/episodes/{full['episode_id']}/tools")
            assert episode_tools.json() == r.json() and episode_tools.headers["ETag"] == full["tools_etag"]

    async def test_a_matching_if_none_match_answers_304_and_another_flavor_another_tag(
        self, env: Environment
    ) -> None:
        async with serve(create_app(env)) as client:
            tag = (await start(client))["tools_etag"]
            url = f"/scenarios/{SCENARIO}/tools"
            assert (await client.get(url, headers={"If-None-Match": tag})).status_code == 304
            assert (await client.get(url, headers={"If-None-Match": f'"x", W/{tag}'})).status_code == 304
            assert (await client.get(url, headers={"If-None-Match": '"stale"'})).status_code == 200
            mcp = await client.get(url, params={"flavor": "mcp"}, headers={"If-None-Match": tag})
            assert mcp.status_code == 200 and mcp.headers["ETag"] != tag
            assert all("inputSchema" in t for t in mcp.json()["tools"])
            assert (await client.get("/scenarios/nope/x/tools")).status_code == 404
            assert (await client.get(url, params={"flavor": "gemini"})).status_code == 422


class TestStaleCopies:
    """Two apps over one store stand for two replicas; an episode moves between them.

    Replicas acknowledge reads only once recorded (`durable_reads`, `serve --durable-reads`): a read
    acknowledged from the queue could not learn that another replica moved the episode on.
    """

    async def test_a_copy_moved_on_elsewhere_reloads_and_answers_from_the_log(self, tmp_path: Path) -> None:
        url = f"sqlite+aiosqlite:///{tmp_path / 'events.db'}"
        async with notes_env(url, durable_reads=True) as env_a, notes_env(url, durable_reads=True) as env_b, \
                serve(create_app(env_a)) as a, serve(create_app(env_b)) as b:
            ep = (await start(a))["episode_id"]
            assert (await list_notes(a, ep))["step"] == 0
            created = await b.post(f"/episodes/{ep}/calls", json={
                "tool": "notes.create_note", "arguments": {"title": "from b"}, "call_id": "c-b"})
            assert created.status_code == 200, created.text
            assert created.json()["step"] == 1
            # A still holds its copy at step 1: the call finds it stale, reloads, and sees B's note.
            seen = await a.post(f"/episodes/{ep}/calls", json={"tool": "notes.list_notes", "arguments": {
                "limit": 50}})
            assert seen.json()["step"] == 2
            assert "from b" in [n["title"] for n in seen.json()["value"]["items"]]
            # B's retry of its call id is answered with the original result, on A too: no second note.
            retried = await a.post(f"/episodes/{ep}/calls", json={
                "tool": "notes.create_note", "arguments": {"title": "from b"}, "call_id": "c-b"})
            assert retried.json()["value"] == created.json()["value"]
            again = await b.post(f"/episodes/{ep}/calls", json={"tool": "notes.list_notes", "arguments": {
                "limit": 50}})
            assert again.json()["value"] == seen.json()["value"]
            grade_a = (await a.post(f"/episodes/{ep}/grade")).json()
            grade_b = (await b.post(f"/episodes/{ep}/grade")).json()
            assert grade_a == grade_b
            status_a, status_b = (await a.get(f"/episodes/{ep}")).json(), (await b.get(f"/episodes/{ep}")).json()
            assert status_a["state_hash"] == status_b["state_hash"]
            assert status_a["steps"] == 5, status_a

    async def test_a_started_episode_is_in_the_log_before_its_id_is_handed_out(self, tmp_path: Path) -> None:
        """Behind a load balancer the first call may reach another replica: it must find the episode."""
        url = f"sqlite+aiosqlite:///{tmp_path / 'events.db'}"
        async with notes_env(url, durable_reads=True) as env_a, notes_env(url, durable_reads=True) as env_b:
            a_app = create_app(env_a)
            async with serve(a_app) as a, serve(create_app(env_b)) as b:
                ep = (await start(a))["episode_id"]
                # A keeps no copy: the episode's requests are routed by id, mostly to other replicas.
                assert ep not in a_app.state.episodes
                status = await b.get(f"/episodes/{ep}")
                assert status.status_code == 200 and status.json()["steps"] == 0
                assert (await list_notes(b, ep))["step"] == 0
                assert (await list_notes(a, ep))["step"] == 1  # A resumes it from the log, past B's step

    async def test_a_grade_on_a_stale_copy_grades_the_latest_state(self, tmp_path: Path) -> None:
        url = f"sqlite+aiosqlite:///{tmp_path / 'events.db'}"
        async with notes_env(url, durable_reads=True) as env_a, notes_env(url, durable_reads=True) as env_b, \
                serve(create_app(env_a)) as a, serve(create_app(env_b)) as b:
            ep = (await start(a))["episode_id"]
            await list_notes(a, ep)
            await list_notes(b, ep)
            await list_notes(b, ep)
            graded = await a.post(f"/episodes/{ep}/grade")
            assert graded.status_code == 200
            assert (await a.get(f"/episodes/{ep}")).json()["steps"] == 3
