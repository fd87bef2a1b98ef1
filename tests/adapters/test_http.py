"""The HTTP adapter, driven in-process through httpx's ASGI transport on the notes test domain."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from saas_sim.adapters.http import create_app
from saas_sim.errors import UsageError
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.trajectory import parse_trajectory
from tests.adapters.conftest import SCENARIO, broken_env, serve
from tests.runtime.conftest import notes_env


async def start(client: httpx.AsyncClient, seed: int = 1, **extra: Any) -> dict[str, Any]:
    r = await client.post("/episodes", json={"scenario": SCENARIO, "seed": seed, **extra})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


async def call(client: httpx.AsyncClient, episode_id: str, tool: str, arguments: Any = None, **extra: Any) -> (
    httpx.Response
):
    return await client.post(f"/episodes/{episode_id}/calls", json={"tool": tool, "arguments": arguments, **extra})


class TestDiscovery:
    @pytest.mark.parametrize("path", ["/health", "/healthz"])
    async def test_health_answers_ok(self, client: httpx.AsyncClient, path: str) -> None:
        r = await client.get(path)
        assert r.status_code == 200
        assert r.json() == {"status": "ok", "episodes": 0, "max_episodes": 10_000}

    async def test_scenarios_lists_ref_description_world_and_tools(self, client: httpx.AsyncClient) -> None:
        r = await client.get("/scenarios")
        assert r.status_code == 200
        by_ref = {s["scenario"]: s for s in r.json()}
        entry = by_ref["notes/archive-and-follow-up@1"]
        assert entry["world"] == "notes-small"
        assert entry["description"].startswith("Archive the picked note")
        assert entry["tools"] == ["notes.archive_note", "notes.create_note", "notes.get_note", "notes.list_notes"]
        assert [s["scenario"] for s in (await client.get("/scenarios", params={"pattern": "notes/flaky*"})).json()] \
            == ["notes/flaky-archive@2"]

    async def test_openapi_documents_every_endpoint_and_body(self, client: httpx.AsyncClient) -> None:
        spec = (await client.get("/openapi.json")).json()
        assert set(spec["paths"]) == {
            "/health", "/conventions", "/scenarios", "/scenarios/{scenario_ref}/tools", "/episodes",
            "/episodes/{episode_id}",
            "/episodes/{episode_id}/tools",
            "/episodes/{episode_id}/calls", "/episodes/{episode_id}/grade", "/episodes/{episode_id}/fork",
            "/episodes/{episode_id}/trajectory",
        }
        schemas = spec["components"]["schemas"]
        assert {"StartEpisodeRequest", "EpisodeCreated", "CallRequest", "Observation", "Grade", "ErrorEnvelope"} \
            <= set(schemas)
        calls = spec["paths"]["/episodes/{episode_id}/calls"]["post"]["responses"]
        assert {"200", "404", "409", "422", "500"} <= set(calls)
        assert "429" in spec["paths"]["/episodes"]["post"]["responses"]


class TestStart:
    async def test_start_returns_the_task_and_strict_openai_tools(self, client: httpx.AsyncClient) -> None:
        r = await client.post("/episodes", json={"scenario": SCENARIO, "seed": 1})
        assert r.status_code == 201
        body = r.json()
        assert r.headers["location"] == f"/episodes/{body['episode_id']}"
        assert body["scenario"] == "notes/archive-and-follow-up@1"
        assert body["seed"] == 1
        assert len(body["world_hash"]) == 64
        assert "Archive the note" in body["instructions"]
        names = [t["function"]["name"] for t in body["tools"]]
        assert names == ["notes__archive_note", "notes__create_note", "notes__get_note", "notes__list_notes"]
        assert all(t["function"]["strict"] for t in body["tools"])

    async def test_the_same_scenario_and_seed_give_the_same_task(self, client: httpx.AsyncClient) -> None:
        a, b = await start(client, 3), await start(client, 3)
        assert a["episode_id"] != b["episode_id"]
        assert (a["world_hash"], a["instructions"]) == (b["world_hash"], b["instructions"])

    async def test_unknown_scenario_is_404(self, client: httpx.AsyncClient) -> None:
        r = await client.post("/episodes", json={"scenario": "notes/nope", "seed": 0})
        assert r.status_code == 404
        assert r.json()["error"]["code"] == "scenario_not_found"

    @pytest.mark.parametrize("seed", [-1, "3", 1.5, True, None, 2**64])
    async def test_bad_seed_is_422(self, client: httpx.AsyncClient, seed: object) -> None:
        r = await client.post("/episodes", json={"scenario": SCENARIO, "seed": seed})
        assert r.status_code == 422
        assert r.json()["detail"][0]["loc"] == ["body", "seed"]

    async def test_faults_follow_the_scenario_or_are_turned_off(self, client: httpx.AsyncClient) -> None:
        async def header(faults: object) -> dict[str, Any]:
            r = await client.post("/episodes", json={"scenario": "notes/flaky-archive", "seed": 0, "faults": faults})
            assert r.status_code == 201
            trajectory = await client.get(f"/episodes/{r.json()['episode_id']}/trajectory")
            line: dict[str, Any] = json.loads(trajectory.text.splitlines()[0])
            return line

        assert (await header("scenario"))["faults"]["write"]["lost_response"] == 0.2
        assert (await header(None))["faults"] is None
        r = await client.post("/episodes", json={"scenario": SCENARIO, "seed": 0, "faults": "chaos"})
        assert r.status_code == 422


class TestCalls:
    async def test_a_call_returns_the_observation_with_call_id_and_step(self, client: httpx.AsyncClient) -> None:
        ep = (await start(client))["episode_id"]
        r = await call(client, ep, "notes.list_notes", {"limit": 2})
        assert r.status_code == 200
        body = r.json()
        assert set(body) == {"ok", "value", "call_id", "step"}
        assert body["ok"] is True and len(body["value"]["items"]) == 2
        assert (body["call_id"], body["step"]) == ("auto:0", 0)
        # Wire names and JSON-text arguments, as a model produces them, work too.
        r = await call(client, ep, "notes__list_notes", '{"limit": 1, "query": null, "cursor": null}')
        assert r.json()["ok"] is True and r.json()["step"] == 1

    async def test_a_tool_error_is_an_observation_not_an_http_error(self, client: httpx.AsyncClient) -> None:
        ep = (await start(client))["episode_id"]
        r = await call(client, ep, "notes.get_note", {"note_id": "nt_999999"})
        assert r.status_code == 200
        body = r.json()
        assert set(body) == {"ok", "error", "call_id", "step"}
        assert body["ok"] is False
        assert body["error"] == {"code": "not_found", "message": "note nt_999999 does not exist",
                                 "retryable": False, "details": {"id": "nt_999999", "fields": ["note_id"]}}

    @pytest.mark.parametrize(("tool", "arguments", "code"), [
        ("notes.create_note", {"title": 5}, "invalid_argument"),
        ("notes.create_note", {"title": "x", "colour": "red"}, "invalid_argument"),
        ("notes.create_note", "{not json", "invalid_argument"),
        ("notes.teleport", {}, "unknown_tool"),
    ])
    async def test_invalid_arguments_and_unknown_tools_are_observations(
        self, client: httpx.AsyncClient, tool: str, arguments: Any, code: str
    ) -> None:
        ep = (await start(client))["episode_id"]
        r = await call(client, ep, tool, arguments)
        assert r.status_code == 200
        assert r.json()["ok"] is False
        assert r.json()["error"]["code"] == code
        assert (await client.get(f"/episodes/{ep}")).json()["steps"] == 1  # recorded, like any call

    async def test_invalid_argument_names_the_field(self, client: httpx.AsyncClient) -> None:
        ep = (await start(client))["episode_id"]
        r = await call(client, ep, "notes.create_note", {"title": ""})
        assert r.json()["error"]["details"]["fields"] == ["title"]

    async def test_a_repeated_call_id_returns_the_original_result_and_writes_once(
        self, client: httpx.AsyncClient
    ) -> None:
        ep = (await start(client))["episode_id"]
        first = (await call(client, ep, "notes.create_note", {"title": "Once"}, call_id="c-1")).json()
        again = (await call(client, ep, "notes.create_note", {"title": "Once"}, call_id="c-1")).json()
        assert again["ok"] and again["value"] == first["value"] and again["call_id"] == "c-1"
        listed = (await call(client, ep, "notes.list_notes", {"query": "Once"})).json()
        assert [n["title"] for n in listed["value"]["items"]] == ["Once"]

    async def test_a_reserved_call_id_is_422(self, client: httpx.AsyncClient) -> None:
        ep = (await start(client))["episode_id"]
        r = await call(client, ep, "notes.list_notes", {}, call_id="auto:7")
        assert r.status_code == 422
        assert r.json()["detail"][0]["loc"] == ["body", "call_id"]

    @pytest.mark.parametrize("body", [
        '{"tool": "notes.list_notes", "arguments": {}, "call_id": "c\\ud800"}',
        '{"tool": "notes.list_notes", "arguments": {}, "call_id": 7}',
    ])
    async def test_a_call_id_that_cannot_be_a_key_is_422_and_the_episode_goes_on(
        self, client: httpx.AsyncClient, body: str
    ) -> None:
        # Bug: the 422 echoed the lone surrogate back, its UTF-8 encoding failed, and the client got a 500.
        ep = (await start(client))["episode_id"]
        r = await client.post(f"/episodes/{ep}/calls", content=body, headers={"content-type": "application/json"})
        assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "call_id"]
        assert (await call(client, ep, "notes.list_notes", {})).json()["ok"]

    @pytest.mark.parametrize(("path", "body", "field"), [
        ("/episodes", '{"scenario": "notes/archive-and-follow-up", "seed": 1e999}', "seed"),
        ("/episodes", '{"scenario": "notes/archive-and-follow-up", "seed": NaN}', "seed"),
        ("/episodes", '{"scenario": "notes/archive-and-follow-up", "seed": 0, "include_tools": -Infinity}',
         "include_tools"),
        ("/episodes/{ep}/calls", '{"tool": "notes.list_notes", "arguments": {}, "call_id": Infinity}', "call_id"),
        ("/episodes/{ep}/calls", '{"tool": NaN, "arguments": {}}', "tool"),
        ("/episodes/{ep}/fork", '{"at_step": 1e999}', "at_step"),
        ("/episodes", '{"scenario": "notes/archive-and-follow-up", "seed": ' + "[" * 600 + "NaN" + "]" * 600 + "}",
         "seed"),
    ])
    async def test_a_non_finite_number_echoed_in_a_422_is_written_as_text(
        self, client: httpx.AsyncClient, path: str, body: str, field: str
    ) -> None:
        # Python's JSON reads NaN, Infinity and 1e999; the 422 echoed the float, its strict JSON encoding
        # raised, and the client got a 500 (a reset connection from a real server).
        ep = (await start(client))["episode_id"]
        r = await client.post(path.format(ep=ep), content=body, headers={"content-type": "application/json"})
        assert r.status_code == 422, r.text
        detail = json.loads(r.text, parse_constant=lambda c: pytest.fail(f"{c} in the answer: not strict JSON"))
        assert detail["detail"][0]["loc"] == ["body", field]
        echoed = detail["detail"][0]["input"]
        while isinstance(echoed, list):
            echoed = echoed[0]
        assert echoed in ("Infinity", "-Infinity", "NaN")
        assert (await call(client, ep, "notes.list_notes", {})).json()["ok"]

    async def test_a_tool_name_holding_a_lone_surrogate_is_an_unknown_tool(self, client: httpx.AsyncClient) -> None:
        ep = (await start(client))["episode_id"]
        body = '{"tool": "notes.\\ud800", "arguments": {}}'
        r = await client.post(f"/episodes/{ep}/calls", content=body, headers={"content-type": "application/json"})
        assert r.status_code == 200 and r.json()["error"]["code"] == "unknown_tool"
        graded = (await client.post(f"/episodes/{ep}/grade")).json()
        assert graded["valid"] is True

    async def test_unknown_episode_is_404(self, client: httpx.AsyncClient) -> None:
        for r in (await call(client, "ep_nope", "notes.list_notes"), await client.get("/episodes/ep_nope"),
                  await client.post("/episodes/ep_nope/grade"), await client.delete("/episodes/ep_nope")):
            assert r.status_code == 404
            assert r.json()["error"]["code"] == "episode_not_found"

    async def test_a_closed_episode_is_409(self, client: httpx.AsyncClient) -> None:
        ep = (await start(client))["episode_id"]
        assert (await client.delete(f"/episodes/{ep}")).status_code == 204
        for r in (await call(client, ep, "notes.list_notes"), await client.get(f"/episodes/{ep}"),
                  await client.post(f"/episodes/{ep}/grade"), await client.post(f"/episodes/{ep}/fork")):
            assert r.status_code == 409
            assert r.json()["error"]["code"] == "episode_closed"

    async def test_the_step_budget_ends_the_episode(self, client: httpx.AsyncClient) -> None:
        ep = (await start(client))["episode_id"]
        for _ in range(20):  # the scenario's max_steps
            assert (await call(client, ep, "notes.list_notes", {"limit": 1})).json()["ok"]
        over = (await call(client, ep, "notes.list_notes", {"limit": 1})).json()
        assert over["ok"] is False and over["error"]["code"] == "episode_closed"
        status = (await client.get(f"/episodes/{ep}")).json()
        assert status["done"] is True and status["truncated"] is True


class TestEpisodeResources:
    async def test_status_reports_steps_hash_and_sim_time(self, client: httpx.AsyncClient) -> None:
        ep = (await start(client))["episode_id"]
        before = (await client.get(f"/episodes/{ep}")).json()
        await call(client, ep, "notes.create_note", {"title": "New"})
        after = (await client.get(f"/episodes/{ep}")).json()
        assert (before["steps"], after["steps"]) == (0, 1)
        assert before["state_hash"] != after["state_hash"]
        assert after["sim_time"] > before["sim_time"]
        assert after["done"] is False and after["valid"] is True
        assert after["scenario"] == "notes/archive-and-follow-up@1"

    @pytest.mark.parametrize(("flavor", "key"), [("openai", "function"), ("anthropic", "input_schema"),
                                                 ("mcp", "inputSchema")])
    async def test_tools_come_in_three_flavors(self, client: httpx.AsyncClient, flavor: str, key: str) -> None:
        ep = (await start(client))["episode_id"]
        r = await client.get(f"/episodes/{ep}/tools", params={"flavor": flavor})
        assert r.status_code == 200
        assert r.json()["flavor"] == flavor
        assert len(r.json()["tools"]) == 4 and all(key in t for t in r.json()["tools"])
        assert (await client.get(f"/episodes/{ep}/tools", params={"flavor": "gemini"})).status_code == 422

    async def test_grade_after_solving_the_task_is_success(self, client: httpx.AsyncClient, env: Environment) -> None:
        created = await start(client, 2)
        ep = created["episode_id"]
        task = await env.task(SCENARIO, 2)
        note_id, title = task.bindings["note"]["id"], task.bindings["new_title"]
        assert (await call(client, ep, "notes.archive_note", {"note_id": note_id})).json()["ok"]
        assert (await call(client, ep, "notes.create_note", {"title": title})).json()["ok"]
        r = await client.post(f"/episodes/{ep}/grade")
        assert r.status_code == 200
        grade = r.json()
        assert grade["score"] == 1.0 and grade["attribution"] == "success" and grade["valid"] is True
        assert [c["name"] for c in grade["checks"]] == ["archived", "follow_up_created", "no_collateral"]

    async def test_trajectory_is_ndjson_with_header_steps_and_footer(self, client: httpx.AsyncClient) -> None:
        ep = (await start(client))["episode_id"]
        await call(client, ep, "notes.list_notes", {})
        await call(client, ep, "notes.get_note", {"note_id": "nt_999999"})
        await client.post(f"/episodes/{ep}/grade")
        r = await client.get(f"/episodes/{ep}/trajectory")
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("application/x-ndjson")
        lines = [json.loads(line) for line in r.text.splitlines()]
        assert [line["kind"] for line in lines] == ["header", "step", "step", "footer"]
        assert lines[0]["scenario"] == "notes/archive-and-follow-up@1"
        assert lines[2]["error"]["code"] == "not_found"
        assert lines[3]["grade"]["attribution"] == "agent_failure"

    async def test_trajectory_with_unicode_line_breaks_reads_back_whole(self, client: httpx.AsyncClient) -> None:
        # json.dumps(ensure_ascii=False) keeps U+2028, U+2029 and U+0085 raw; only "\n" ends a line.
        breaks = "a\u2028b\u2029c\x85d"
        ep = (await start(client))["episode_id"]
        assert (await call(client, ep, "notes.create_note", {"title": breaks, "body": breaks})).json()["ok"]
        await client.post(f"/episodes/{ep}/grade")
        r = await client.get(f"/episodes/{ep}/trajectory")
        assert r.headers["content-type"] == "application/x-ndjson; charset=utf-8"
        body = r.content.decode("utf-8")
        assert "\u2028" in body and body.count("\n") == 3
        trajectory = parse_trajectory(body, source="GET /trajectory")
        assert trajectory.steps[0].args == {"title": breaks, "body": breaks}
        assert trajectory.steps[0].result["title"] == breaks
        assert trajectory.footer is not None and trajectory.dumps() == body

    async def test_fork_branches_off_and_replaying_reproduces_the_hash(self, client: httpx.AsyncClient) -> None:
        ep = (await start(client))["episode_id"]
        await call(client, ep, "notes.create_note", {"title": "A"})
        await call(client, ep, "notes.create_note", {"title": "B"})
        r = await client.post(f"/episodes/{ep}/fork", json={"at_step": 1})
        assert r.status_code == 201
        child = r.json()
        assert child["parent"] == {"episode_id": ep, "step": 1} and child["steps"] == 1
        assert r.headers["location"] == f"/episodes/{child['episode_id']}"
        await call(client, child["episode_id"], "notes.create_note", {"title": "B"})
        parent_status = (await client.get(f"/episodes/{ep}")).json()
        child_status = (await client.get(f"/episodes/{child['episode_id']}")).json()
        assert child_status["state_hash"] == parent_status["state_hash"]
        # The branches are independent from here on.
        await call(client, child["episode_id"], "notes.create_note", {"title": "C"})
        assert (await client.get(f"/episodes/{ep}")).json()["steps"] == 2

    async def test_fork_without_a_body_forks_now(self, client: httpx.AsyncClient) -> None:
        ep = (await start(client))["episode_id"]
        await call(client, ep, "notes.list_notes", {})
        child = (await client.post(f"/episodes/{ep}/fork")).json()
        assert child["parent"] == {"episode_id": ep, "step": 1}

    @pytest.mark.parametrize("at_step", [5, -1, "1"])
    async def test_fork_beyond_the_recorded_steps_is_422(self, client: httpx.AsyncClient, at_step: object) -> None:
        ep = (await start(client))["episode_id"]
        r = await client.post(f"/episodes/{ep}/fork", json={"at_step": at_step})
        assert r.status_code == 422
        assert r.json()["detail"][0]["loc"] == ["body", "at_step"]

    async def test_delete_closes_and_forgets_idempotently(self, client: httpx.AsyncClient) -> None:
        ep = (await start(client))["episode_id"]
        assert (await client.get("/health")).json()["episodes"] == 1
        first, again = await client.delete(f"/episodes/{ep}"), await client.delete(f"/episodes/{ep}")
        assert (first.status_code, again.status_code) == (204, 204)
        assert first.content == b""
        assert (await client.get("/health")).json()["episodes"] == 0


class TestHarnessErrors:
    async def test_a_harness_error_is_500_and_leaves_the_episode_invalid(self) -> None:
        async with broken_env() as env, serve(create_app(env)) as client:
            ep = (await client.post("/episodes", json={"scenario": "notes/buggy", "seed": 0})).json()["episode_id"]
            r = await call(client, ep, "notes.explode", {})
            assert r.status_code == 500
            assert r.json()["error"]["code"] == "harness_error"
            assert r.json()["error"]["details"] == {"episode_id": ep}
            again = await call(client, ep, "notes.list_notes", {})
            assert again.status_code == 409 and again.json()["error"]["code"] == "episode_invalid"
            assert (await client.post(f"/episodes/{ep}/fork")).status_code == 409
            assert (await client.get(f"/episodes/{ep}")).json()["valid"] is False
            grade = (await client.post(f"/episodes/{ep}/grade")).json()
            assert grade["valid"] is False and grade["score"] is None
            assert grade["attribution"] == "harness_error"


    async def test_a_store_failure_outside_a_call_is_a_500_in_the_error_envelope(
        self, client: httpx.AsyncClient, env: Environment
    ) -> None:
        ep = (await start(client))["episode_id"]
        await env.close()  # the start events are still unwritten: grading must write them, and cannot
        r = await client.post(f"/episodes/{ep}/grade")
        assert r.status_code == 500
        assert r.json()["error"]["code"] == "harness_error"


class TestConcurrencyAndCap:
    async def test_many_calls_on_several_episodes_run_concurrently_and_stay_isolated(
        self, client: httpx.AsyncClient
    ) -> None:
        episodes = [(await start(client, seed))["episode_id"] for seed in range(4)]
        per_episode = 12

        async def one(ep: str, i: int) -> dict[str, Any]:
            r = await call(client, ep, "notes.create_note", {"title": f"{ep} #{i}"})
            assert r.status_code == 200, r.text
            body: dict[str, Any] = r.json()
            return body

        results = await asyncio.gather(*(one(ep, i) for ep in episodes for i in range(per_episode)))
        assert all(r["ok"] for r in results)
        for k, ep in enumerate(episodes):
            mine = results[k * per_episode:(k + 1) * per_episode]
            assert sorted(r["step"] for r in mine) == list(range(per_episode))  # one recorded order per episode
            listed = (await call(client, ep, "notes.list_notes", {"limit": 100})).json()["value"]["items"]
            new = sorted(n["title"] for n in listed if n["title"].startswith("ep_"))
            assert new == sorted(f"{ep} #{i}" for i in range(per_episode))  # nothing leaked between episodes

    async def test_the_episode_cap_answers_429_with_retry_after(self, env: Environment) -> None:
        async with serve(create_app(env, max_episodes=2)) as client:
            first = await start(client)
            await start(client)
            r = await client.post("/episodes", json={"scenario": SCENARIO, "seed": 1})
            assert r.status_code == 429
            assert r.json()["error"]["code"] == "too_many_episodes"
            assert int(r.headers["retry-after"]) > 0
            assert (await client.post(f"/episodes/{first['episode_id']}/fork")).status_code == 429
            await client.delete(f"/episodes/{first['episode_id']}")
            assert (await client.post("/episodes", json={"scenario": SCENARIO, "seed": 1})).status_code == 201

    async def test_concurrent_starts_never_overshoot_the_cap(self, env: Environment) -> None:
        async with serve(create_app(env, max_episodes=3)) as client:
            answers = await asyncio.gather(*(
                client.post("/episodes", json={"scenario": SCENARIO, "seed": s}) for s in range(8)
            ))
            assert sorted(r.status_code for r in answers) == [201] * 3 + [429] * 5
            assert (await client.get("/health")).json()["episodes"] == 3

    def test_a_cap_below_one_is_refused(self, env: Environment) -> None:
        with pytest.raises(ValueError, match="max_episodes"):
            create_app(env, max_episodes=0)


class TestLifespan:
    async def test_the_app_opens_an_unopened_environment_and_closes_it_at_shutdown(self) -> None:
        env = notes_env()
        app = create_app(env)
        async with serve(app) as client:
            await start(client)
            assert len(app.state.episodes) == 1
        assert len(app.state.episodes) == 0
        with pytest.raises(UsageError):
            _ = env.store  # closed again

    async def test_an_environment_the_caller_opened_stays_open(self, env: Environment) -> None:
        async with serve(create_app(env)) as client:
            await start(client)
        assert env.store is not None

    async def test_two_apps_share_no_episodes(self, env: Environment) -> None:
        a, b = create_app(env), create_app(env)
        async with serve(a) as ca:
            ep = (await start(ca))["episode_id"]
            async with serve(b) as cb:
                assert (await cb.get(f"/episodes/{ep}")).status_code == 404


class TestConventions:
    async def test_the_convention_text_is_served_for_agents(self, client: httpx.AsyncClient) -> None:
        r = await client.get("/conventions")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/markdown")
        assert "`{items, next_cursor, total}`" in r.text and "`not_found`" in r.text


class TestEpisodesOutliveTheServer:
    """An episode id is its stream: a new server over the same store continues it (issue 10 section 4)."""

    @staticmethod
    def _env(tmp_path: Path) -> Environment:
        return notes_env(f"sqlite+aiosqlite:///{tmp_path / 'events.db'}")

    async def test_a_restarted_server_resumes_an_episode_it_never_held(self, tmp_path: Path) -> None:
        async with self._env(tmp_path) as env, serve(create_app(env)) as client:
            created = await start(client)
            eid = created["episode_id"]
            note = created["bindings"]["note"]["id"] if "bindings" in created else None
            first = await call(client, eid, "notes.list_notes", {"limit": 2}, call_id="c1")
            assert first.status_code == 200 and first.json()["ok"], first.text
        async with self._env(tmp_path) as env, serve(create_app(env)) as client:
            status = await client.get(f"/episodes/{eid}")
            assert status.status_code == 200, status.text
            assert status.json()["steps"] == 1
            again = await call(client, eid, "notes.list_notes", {"limit": 2}, call_id="c1")
            # The call-id memo lives in the log: the retry answers the first result without redoing it.
            assert again.json()["value"] == first.json()["value"] and again.json()["call_id"] == "c1"
            nxt = await call(client, eid, "notes.get_note", {"note_id": note or "nt_000001"})
            assert nxt.json()["ok"] and nxt.json()["step"] == 2
            assert (await client.post(f"/episodes/{eid}/grade")).status_code == 200

    async def test_concurrent_first_requests_resume_the_episode_once(self, tmp_path: Path) -> None:
        async with self._env(tmp_path) as env, serve(create_app(env)) as client:
            eid = (await start(client))["episode_id"]
        async with self._env(tmp_path) as env, serve(create_app(env)) as client:
            answers = await asyncio.gather(*(client.get(f"/episodes/{eid}") for _ in range(8)))
            assert {a.status_code for a in answers} == {200}
            assert (await client.get("/health")).json()["episodes"] == 1

    async def test_a_deleted_episode_stays_gone_after_a_restart(self, tmp_path: Path) -> None:
        async with self._env(tmp_path) as env, serve(create_app(env)) as client:
            eid = (await start(client))["episode_id"]
            assert (await client.delete(f"/episodes/{eid}")).status_code == 204
        async with self._env(tmp_path) as env, serve(create_app(env)) as client:
            r = await client.get(f"/episodes/{eid}")
            assert r.status_code == 409 and r.json()["error"]["code"] == "episode_closed"
            with pytest.raises(UsageError, match="was ended"):
                await env.resume(f"http:{eid}")

    async def test_an_id_no_store_holds_is_not_found(self, tmp_path: Path) -> None:
        async with self._env(tmp_path) as env, serve(create_app(env)) as client:
            for eid in ("ep_0123456789ab", "ep_nothex", "../etc"):
                r = await client.get(f"/episodes/{eid}")
                assert r.status_code == 404, (eid, r.text)
