"""OpenEnv's protocol on the HTTP app, in-process (starlette's TestClient speaks WebSocket without sockets).

The ecosystem's own clients drive a real server in test_openenv_ecosystem.py;
here every frame, error code and bound is pinned on the notes test domain.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from saas_sim.adapters.http import create_app
from saas_sim.adapters.openenv_sessions import OpenEnvSession, SessionCapacityError, SessionError, SessionTable
from saas_sim.runtime.environment import Environment
from tests.adapters.conftest import SCENARIO, broken_env
from tests.runtime.conftest import notes_env

Socket = Any  # starlette's WebSocketTestSession


def serve(env: Environment | None = None, **options: Any) -> TestClient:
    max_episodes = options.pop("max_episodes", 10_000)
    app = create_app(env or notes_env(), max_episodes=max_episodes, openenv=True,
                     openenv_options={"default_scenario": SCENARIO, **options})
    return TestClient(app)


@pytest.fixture
def client() -> Iterator[TestClient]:
    with serve() as c:
        yield c


def send(ws: Socket, kind: str, data: Any = None) -> dict[str, Any]:
    frame: dict[str, Any] = {"type": kind}
    if data is not None:
        frame["data"] = data
    ws.send_text(json.dumps(frame))
    reply: dict[str, Any] = ws.receive_json()
    return reply


def call(ws: Socket, tool: str, arguments: dict[str, Any] | None = None, **metadata: Any) -> dict[str, Any]:
    action = {"type": "call_tool", "tool_name": tool, "arguments": arguments or {}, "metadata": metadata}
    return send(ws, "step", action)


def rpc(client: TestClient, method: str, params: dict[str, Any] | None = None, rid: int = 1) -> dict[str, Any]:
    body: dict[str, Any] = client.post("/mcp", json={"jsonrpc": "2.0", "method": method, "params": params or {},
                                                     "id": rid}).json()
    return body


def health(client: TestClient) -> dict[str, Any]:
    answer: dict[str, Any] = client.get("/health").json()
    return answer


class TestDiscovery:
    def test_health_is_openenvs_healthy_with_the_counts(self, client: TestClient) -> None:
        assert health(client) == {"status": "healthy", "episodes": 0, "max_episodes": 10_000,
                                  "sessions": 0, "max_sessions": 10_000}

    def test_schema_has_the_action_titled_call_tool_action_and_the_other_schemas(self, client: TestClient) -> None:
        schema = client.get("/schema").json()
        assert schema["action"]["title"] == "CallToolAction"
        assert {"tool_name", "arguments"} <= set(schema["action"]["properties"])
        assert {"observation", "state", "reset_observation"} <= set(schema)
        assert {"episode_id", "step_count"} <= set(schema["state"]["properties"])

    def test_metadata_names_and_describes_the_environment(self, client: TestClient) -> None:
        meta = client.get("/metadata").json()
        assert meta["name"] == "saas_sim" and meta["description"]

    def test_openapi_lists_the_simulation_mode_routes_beside_the_json_api(self, client: TestClient) -> None:
        paths = set(client.get("/openapi.json").json()["paths"])
        assert {"/reset", "/step", "/state", "/schema", "/metadata", "/mcp", "/health", "/episodes"} <= paths

    def test_without_openenv_the_app_keeps_its_own_health_and_routes(self) -> None:
        with TestClient(create_app(notes_env())) as c:
            assert c.get("/health").json()["status"] == "ok"
            assert "/reset" not in c.get("/openapi.json").json()["paths"]


class TestWebSocketEpisode:
    def test_list_tools_works_before_reset_and_lists_submit(self, client: TestClient) -> None:
        with client.websocket_connect("/ws") as ws:
            reply = send(ws, "step", {"type": "list_tools"})
        assert reply["type"] == "observation"
        tools = reply["data"]["observation"]["tools"]
        assert [t["name"] for t in tools] == ["notes__archive_note", "notes__create_note", "notes__get_note",
                                             "notes__list_notes", "submit"]
        assert all(set(t) == {"name", "description", "input_schema"} for t in tools)

    def test_reset_observes_the_task_and_two_sessions_with_one_seed_observe_the_same(self, client: TestClient) -> None:
        seen = []
        for _ in range(2):
            with client.websocket_connect("/ws") as ws:
                reset = send(ws, "reset", {"seed": 1, "scenario": SCENARIO})
                listed = call(ws, "notes__list_notes")
                seen.append((reset, listed))
        assert seen[0] == seen[1]
        reset = seen[0][0]["data"]
        assert reset["done"] is False and reset["reward"] is None
        assert reset["observation"]["scenario"] == "notes/archive-and-follow-up@1"
        assert "nt_000005" in reset["observation"]["instructions"]
        assert "episode_id" not in json.dumps(reset)  # ids differ per session: they live in the state

    def test_a_call_observes_its_result_step_and_call_id(self, client: TestClient) -> None:
        with client.websocket_connect("/ws") as ws:
            send(ws, "reset", {"seed": 1})
            reply = call(ws, "notes__archive_note", {"note_id": "nt_000005"}, call_id="c-1")["data"]
            retry = call(ws, "notes__archive_note", {"note_id": "nt_000005"}, call_id="c-1")["data"]
            state = send(ws, "state")["data"]
        obs = reply["observation"]
        assert obs["tool_name"] == "notes__archive_note" and obs["error"] is None
        assert obs["result"]["id"] == "nt_000005" and obs["result"]["archived"] is True
        assert reply["metadata"] == {"step": 0, "call_id": "c-1"} == obs["metadata"]
        assert retry["observation"]["result"] == obs["result"]  # the idempotency key: the original answer
        assert state["step_count"] == 2 and state["episode_id"].startswith("ep_")

    @pytest.mark.parametrize(("tool", "arguments", "error_type", "code"), [
        ("no_such_tool", {}, "tool_not_found", "unknown_tool"),
        ("notes__get_note", {"note_id": 5}, "invalid_args", "invalid_argument"),
        ("notes__get_note", {"note_id": "nt_999999"}, "execution_error", "not_found"),
    ])
    def test_a_tool_error_is_result_null_and_an_error_type(
        self, client: TestClient, tool: str, arguments: dict[str, Any], error_type: str, code: str
    ) -> None:
        with client.websocket_connect("/ws") as ws:
            send(ws, "reset", {"seed": 1})
            obs = call(ws, tool, arguments)["data"]["observation"]
        assert obs["result"] is None
        assert obs["error"]["error_type"] == error_type and obs["error"]["message"]
        assert obs["metadata"]["error"]["code"] == code

    def test_a_call_before_reset_is_an_error_observation(self, client: TestClient) -> None:
        with client.websocket_connect("/ws") as ws:
            obs = call(ws, "notes__list_notes")["data"]["observation"]
            assert send(ws, "state")["data"] == {"episode_id": None, "step_count": 0, "scenario": None,
                                                 "seed": None, "done": False, "truncated": False, "valid": True,
                                                 "state_hash": None, "sim_time": None, "reward": None}
        assert obs["error"] == {"error_type": "execution_error", "message": "no episode yet: reset first"}

    def test_submit_grades_the_episode_reward_done_and_the_breakdown_in_metadata(self, client: TestClient) -> None:
        with client.websocket_connect("/ws") as ws:
            send(ws, "reset", {"seed": 1})
            call(ws, "notes__archive_note", {"note_id": "nt_000005"})
            call(ws, "notes__create_note", {"title": "Follow up nt_000005", "body": "."})
            done = call(ws, "submit")["data"]
            again = call(ws, "notes__list_notes")["data"]
            state = send(ws, "state")["data"]
            episode_id = state["episode_id"]
            status = client.get(f"/episodes/{episode_id}").json()
        assert done["done"] is True and done["reward"] == 1.0
        grade = done["metadata"]["grade"]
        assert grade["score"] == 1.0 and grade["valid"] is True
        assert {c["name"] for c in grade["checks"]} >= {"archived", "follow_up_created"}
        assert again["done"] is True and again["observation"]["error"]["error_type"] == "execution_error"
        assert state["done"] is True and state["reward"] == 1.0 and state["step_count"] == 2
        assert status["done"] is True  # the same episode, on the JSON API

    def test_using_up_the_step_budget_ends_and_grades_the_episode(self) -> None:
        with serve(broken_env(), default_scenario="notes/buggy") as c, c.websocket_connect("/ws") as ws:
            send(ws, "reset", {"seed": 0})
            replies = [call(ws, "notes__list_notes")["data"] for _ in range(3)]
        assert [r["done"] for r in replies] == [False, False, True]
        assert replies[-1]["metadata"]["grade"]["truncated"] is True

    def test_a_harness_error_is_an_execution_error_frame_never_an_observation(self) -> None:
        with serve(broken_env(), default_scenario="notes/buggy") as c, c.websocket_connect("/ws") as ws:
            send(ws, "reset", {"seed": 0})
            reply = call(ws, "notes__explode")
            after = send(ws, "state")
        assert reply["type"] == "error" and reply["data"]["code"] == "EXECUTION_ERROR"
        assert after["data"]["valid"] is False

    def test_reset_again_ends_the_previous_episode(self, client: TestClient) -> None:
        with client.websocket_connect("/ws") as ws:
            send(ws, "reset", {"seed": 1})
            first = send(ws, "state")["data"]["episode_id"]
            send(ws, "reset", {"seed": 2})
            second = send(ws, "state")["data"]["episode_id"]
            assert health(client)["episodes"] == 1
            assert client.get(f"/episodes/{first}").status_code == 409
        assert first != second

    def test_reset_with_an_episode_id_continues_that_episode(self, client: TestClient) -> None:
        started = client.post("/episodes", json={"scenario": SCENARIO, "seed": 1}).json()["episode_id"]
        with client.websocket_connect("/ws") as ws:
            reset = send(ws, "reset", {"episode_id": started})["data"]
            call(ws, "notes__list_notes")
        assert reset["observation"]["seed"] == 1
        status = client.get(f"/episodes/{started}").json()
        assert status["steps"] == 1  # still live: the session did not own it

    def test_closing_the_connection_ends_the_session_and_its_episode(self, client: TestClient) -> None:
        with client.websocket_connect("/ws") as ws:
            send(ws, "reset", {"seed": 1})
            assert health(client)["sessions"] == 1 and health(client)["episodes"] == 1
            ws.send_text(json.dumps({"type": "close"}))
        counts = health(client)
        assert counts["sessions"] == 0 and counts["episodes"] == 0

    def test_mcp_frames_answer_json_rpc_on_the_connections_session(self, client: TestClient) -> None:
        with client.websocket_connect("/ws") as ws:
            send(ws, "reset", {"seed": 1})
            reply = send(ws, "mcp", {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                                     "params": {"name": "notes__list_notes", "arguments": {}}})
            state = send(ws, "state")["data"]
        assert reply["type"] == "mcp" and reply["data"]["id"] == 7
        assert reply["data"]["result"]["tool_name"] == "notes__list_notes"
        assert state["step_count"] == 1


class TestBadFrames:
    @pytest.mark.parametrize(("raw", "code"), [
        ("{not json", "INVALID_JSON"),
        (b"\xff\xfe", "INVALID_JSON"),
        ("[1, 2]", "VALIDATION_ERROR"),
        ('{"type": "teleport"}', "UNKNOWN_TYPE"),
        ('{"type": "step", "data": {"type": "call_tool"}}', "VALIDATION_ERROR"),
        ('{"type": "step", "data": {"type": "fly"}}', "VALIDATION_ERROR"),
        ('{"type": "reset", "data": {"seed": -1}}', "VALIDATION_ERROR"),
        ('{"type": "reset", "data": {"scenario": "nope/none"}}', "VALIDATION_ERROR"),
        ('{"type": "reset", "data": {"episode_id": "ep_000000000000"}}', "EXECUTION_ERROR"),
        # A lone surrogate is JSON but no UTF-8 text: echoing it in the error once closed the connection.
        ('{"type": "step", "data": {"type": "call_tool", "tool_name": "notes__\\ud800"}}', "VALIDATION_ERROR"),
        ('{"type": "reset", "data": {"scenario": "\\ud800"}}', "VALIDATION_ERROR"),
        ('{"type": "\\ud800"}', "UNKNOWN_TYPE"),
    ])
    def test_a_bad_frame_gets_an_error_frame_and_the_connection_stays_usable(
        self, client: TestClient, raw: str | bytes, code: str
    ) -> None:
        with client.websocket_connect("/ws") as ws:
            if isinstance(raw, bytes):
                ws.send_bytes(raw)
            else:
                ws.send_text(raw)
            reply = ws.receive_json()
            assert send(ws, "state")["type"] == "state"
        assert reply["type"] == "error" and reply["data"]["code"] == code and reply["data"]["message"]
        if code == "VALIDATION_ERROR":
            assert reply["data"]["errors"]

    @pytest.mark.parametrize("raw", [
        "[" * 100_000, '{"type": "step", "data": ' + '{"a": ' * 50_000 + "1" + "}" * 50_001,
        '{"type": "mcp", "data": ' + "[" * 100_000 + "}",
    ])
    def test_a_frame_nested_past_the_parsers_stack_is_invalid_json_and_the_connection_stays_usable(
        self, client: TestClient, raw: str
    ) -> None:
        # json.loads raised RecursionError, which no handler caught: the connection dropped.
        with client.websocket_connect("/ws") as ws:
            ws.send_text(raw)
            reply = ws.receive_json()
            assert send(ws, "state")["type"] == "state"
        assert reply["type"] == "error" and reply["data"]["code"] == "INVALID_JSON"
        assert "nests deeper" in reply["data"]["message"]

    @pytest.mark.parametrize("raw", [
        '{"type": "reset", "data": {"seed": NaN}}', '{"type": "reset", "data": {"seed": 1e999}}',
        '{"type": "step", "data": {"type": "call_tool", "tool_name": -Infinity}}',
    ])
    def test_a_non_finite_number_echoed_in_an_error_frame_is_written_as_text(
        self, client: TestClient, raw: str
    ) -> None:
        with client.websocket_connect("/ws") as ws:
            ws.send_text(raw)
            text = ws.receive_text()
            assert send(ws, "state")["type"] == "state"
        reply = json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in the frame: not strict JSON"))
        assert reply["data"]["code"] == "VALIDATION_ERROR"
        assert reply["data"]["errors"][0]["input"] in ("NaN", "Infinity", "-Infinity")

    def test_an_oversized_frame_is_refused_and_the_connection_stays_usable(self) -> None:
        with serve(max_frame_bytes=1024) as c, c.websocket_connect("/ws") as ws:
            reply = send(ws, "step", {"type": "call_tool", "tool_name": "x", "arguments": {"pad": "x" * 2048}})
            ws.send_text('{"type": "state", "pad": "' + "\u00e9" * 600 + '"}')  # 600 characters, 1,200 bytes
            wide = ws.receive_json()
            assert send(ws, "state")["type"] == "state"
        assert reply["data"]["code"] == "VALIDATION_ERROR" and "larger than 1024" in reply["data"]["message"]
        assert wide["data"]["code"] == "VALIDATION_ERROR"

    def test_an_oversized_mcp_body_is_a_json_rpc_error(self) -> None:
        with serve(max_frame_bytes=1024) as c:
            answer = c.post("/mcp", content=b"{" + b" " * 4096 + b"}").json()
        assert answer["error"]["code"] == -32600


class TestSessions:
    def test_a_websocket_beyond_the_cap_gets_capacity_reached_then_close(self) -> None:
        with serve(max_sessions=1) as c, c.websocket_connect("/ws") as first:
            send(first, "reset", {"seed": 1})
            with c.websocket_connect("/ws") as second:
                reply = second.receive_json()
                with pytest.raises(WebSocketDisconnect) as closed:
                    second.receive_json()
            assert send(first, "state")["data"]["step_count"] == 0
        assert reply["data"]["code"] == "CAPACITY_REACHED" and reply["data"]["max_sessions"] == 1
        assert closed.value.code == 1013

    def test_reset_beyond_the_episode_cap_gets_capacity_reached(self) -> None:
        with serve(max_episodes=1) as c:
            c.post("/episodes", json={"scenario": SCENARIO, "seed": 0})
            with c.websocket_connect("/ws") as ws:
                reply = send(ws, "reset", {"seed": 1})
                with pytest.raises(WebSocketDisconnect):
                    ws.receive_json()
        assert reply["data"]["code"] == "CAPACITY_REACHED"

    def test_a_flood_of_session_creations_is_capped_and_closing_frees_the_slots(self) -> None:
        with serve(max_sessions=5) as c:
            answers = [rpc(c, "openenv/session/create") for _ in range(8)]
            created = [a["result"]["session_id"] for a in answers if "result" in a]
            refused = [a["error"] for a in answers if "error" in a]
            assert len(created) == 5 and len(refused) == 3
            assert refused[0]["code"] == -32000 and refused[0]["data"] == {"active_sessions": 5, "max_sessions": 5}
            for sid in created:
                assert rpc(c, "openenv/session/close", {"session_id": sid})["result"] == {"session_id": sid,
                                                                                          "closed": True}
            assert health(c)["sessions"] == 0
            assert "result" in rpc(c, "openenv/session/create")

    def test_a_websocket_attaches_to_a_session_made_over_mcp_and_shares_its_episode(self, client: TestClient) -> None:
        sid = rpc(client, "openenv/session/create")["result"]["session_id"]
        with client.websocket_connect(f"/ws?session_id={sid}") as ws:
            send(ws, "reset", {"seed": 1})
            listed = rpc(client, "tools/list", {"session_id": sid})["result"]["tools"]
            called = rpc(client, "tools/call", {"session_id": sid, "name": "notes__get_note",
                                                "arguments": {"note_id": "nt_000005"}})["result"]
            state = send(ws, "state")["data"]
            closing = rpc(client, "openenv/session/close", {"session_id": sid})["result"]
            assert health(client)["sessions"] == 1  # held by the WebSocket until it ends
        assert "submit" in [t["name"] for t in listed] and "inputSchema" in listed[0]
        assert called["result"]["id"] == "nt_000005" and called["error"] is None
        assert state["step_count"] == 1
        assert closing == {"session_id": sid, "closed": False, "closing": True}
        assert health(client)["sessions"] == 0 and health(client)["episodes"] == 0

    def test_a_detached_session_survives_its_websocket(self, client: TestClient) -> None:
        sid = rpc(client, "openenv/session/create")["result"]["session_id"]
        with client.websocket_connect(f"/ws?session_id={sid}") as ws:
            send(ws, "reset", {"seed": 1})
        assert rpc(client, "tools/call", {"session_id": sid, "name": "notes__list_notes"})["result"]["error"] is None
        rpc(client, "openenv/session/close", {"session_id": sid})
        assert health(client)["episodes"] == 0

    @pytest.mark.parametrize("busy", [False, True])
    def test_attaching_an_unknown_or_held_session_is_a_session_error(self, client: TestClient, busy: bool) -> None:
        sid = rpc(client, "openenv/session/create")["result"]["session_id"] if busy else "os_unknown"
        if busy:
            holder = client.websocket_connect(f"/ws?session_id={sid}")
            holder.__enter__()
        try:
            with client.websocket_connect(f"/ws?session_id={sid}") as ws:
                reply = ws.receive_json()
                with pytest.raises(WebSocketDisconnect) as closed:
                    ws.receive_json()
        finally:
            if busy:
                holder.__exit__(None, None, None)
        assert reply["data"]["code"] == "SESSION_ERROR" and closed.value.code == 1008


class TestSessionTable:
    async def test_idle_unheld_sessions_expire_and_held_ones_do_not(self) -> None:
        now = [0]
        released: list[str] = []

        async def release(session: OpenEnvSession) -> None:
            released.append(session.session_id)

        table = SessionTable(3, idle_ttl_s=10, release=release, now_ns=lambda: now[0])
        idle, held = await table.create(), await table.create()
        await table.attach(held.session_id)
        now[0] = 11 * 10**9
        assert await table.expire() == 1
        assert released == [idle.session_id] and len(table) == 1
        with pytest.raises(SessionError):
            await table.get(idle.session_id)
        await table.create()
        await table.create()
        with pytest.raises(SessionCapacityError):
            await table.create()
        await table.close_all()
        assert len(table) == 0 and len(released) == 4


class TestJsonRpc:
    @pytest.mark.parametrize("body", [b"[" * 100_000, b'{"jsonrpc": "2.0", "method": "tools/list", "params": ' +
                                      b'{"a": ' * 50_000 + b"1" + b"}" * 50_001])
    def test_a_body_nested_past_the_parsers_stack_is_a_parse_error_with_http_200(
        self, client: TestClient, body: bytes
    ) -> None:
        # json.loads raised RecursionError: a 500.
        r = client.post("/mcp", content=body, headers={"content-type": "application/json"})
        assert r.status_code == 200
        assert r.json()["error"]["code"] == -32700 and "nests deeper" in r.json()["error"]["message"]

    @pytest.mark.parametrize(("body", "code"), [
        (b"{oops", -32700),
        (b"{}", -32600),
        (b"[]", -32600),
        (b'{"jsonrpc": "2.0", "method": "tools/list", "params": [1]}', -32602),
        (b'{"jsonrpc": "2.0", "method": "resources/list", "id": 1}', -32601),
        (b'{"jsonrpc": "2.0", "method": "tools/call", "params": {}, "id": 1}', -32602),
        (b'{"jsonrpc": "2.0", "method": "tools/list", "params": {"session_id": "os_nope"}, "id": 1}', -32602),
        (b'{"jsonrpc": "2.0", "method": "openenv/session/close", "params": {}, "id": 1}', -32602),
        (b'{"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "notes__\\ud800"}, "id": 1}', -32602),
        (b'{"jsonrpc": "2.0", "method": "\\ud800", "id": "\\ud800"}', -32601),
    ])
    def test_a_bad_request_is_a_json_rpc_error_with_http_200(self, client: TestClient, body: bytes, code: int) -> None:
        r = client.post("/mcp", content=body, headers={"content-type": "application/json"})
        assert r.status_code == 200
        assert r.json()["jsonrpc"] == "2.0" and r.json()["error"]["code"] == code

    def test_tools_list_without_a_session_lists_the_default_scenarios_tools(self, client: TestClient) -> None:
        tools = rpc(client, "tools/list")["result"]["tools"]
        assert [t["name"] for t in tools][-1] == "submit" and "outputSchema" in tools[0]


class TestStatelessHttp:
    def test_reset_step_and_state_act_on_the_episode_reset_started(self, client: TestClient) -> None:
        reset = client.post("/reset", json={"seed": 1, "scenario": SCENARIO}).json()
        episode_id = reset["metadata"]["episode_id"]
        step = client.post("/step", json={"action": {"type": "call_tool", "tool_name": "notes__list_notes"},
                                          "episode_id": episode_id}).json()
        state = client.get("/state", params={"episode_id": episode_id}).json()
        assert reset["observation"]["seed"] == 1 and reset["done"] is False
        assert step["observation"]["tool_name"] == "notes__list_notes" and step["observation"]["error"] is None
        assert state["step_count"] == 1 and state["episode_id"] == episode_id

    def test_an_empty_reset_uses_the_default_scenario_and_seed_0(self, client: TestClient) -> None:
        reset = client.post("/reset").json()
        assert reset["observation"]["scenario"] == "notes/archive-and-follow-up@1" and reset["observation"]["seed"] == 0

    def test_step_without_an_episode_lists_tools_and_refuses_calls(self, client: TestClient) -> None:
        tools = client.post("/step", json={"action": {"type": "list_tools"}}).json()
        called = client.post("/step", json={"action": {"type": "call_tool", "tool_name": "submit"}}).json()
        assert tools["observation"]["tools"]
        assert called["observation"]["error"]["error_type"] == "execution_error"
        assert client.get("/state").json()["episode_id"] is None

    @pytest.mark.parametrize(("body", "status"), [
        ({"action": {"type": "fly"}}, 422),
        ({"action": {"type": "list_tools"}, "episode_id": "ep_000000000000"}, 404),
        ({"action": {"type": "list_tools"}, "episode_id": "not-an-id"}, 404),
        ({"nope": 1}, 422),
    ])
    def test_a_bad_step_is_a_clear_http_error(self, client: TestClient, body: dict[str, Any], status: int) -> None:
        assert client.post("/step", json=body).status_code == status

    def test_reset_of_an_unknown_scenario_is_422(self, client: TestClient) -> None:
        assert client.post("/reset", json={"scenario": "nope/none"}).status_code == 422

    def test_reset_beyond_the_episode_cap_is_429_with_retry_after(self) -> None:
        with serve(max_episodes=1) as c:
            assert c.post("/reset", json={"seed": 1}).status_code == 200
            refused = c.post("/reset", json={"seed": 2})
        assert refused.status_code == 429 and refused.headers["Retry-After"]

    def test_state_of_a_deleted_episode_is_409(self, client: TestClient) -> None:
        episode_id = client.post("/reset", json={"seed": 1}).json()["metadata"]["episode_id"]
        assert client.delete(f"/episodes/{episode_id}").status_code == 204
        assert client.get("/state", params={"episode_id": episode_id}).status_code == 409
