"""MCP over streamable HTTP at `/episodes/{id}/mcp`, driven by real clients connecting afresh for every call.

In-process: the installed SDK's own client (its current protocol, and its legacy handshake)
against uvicorn on a loopback port in the test's event loop, up to 512 clients at once.
Ecosystem: the official SDK 1.x and fastmcp's client, each in its own virtualenv
(`.ci/ecosystem.sh`; `SAAS_SIM_MCP130_PYTHON`, `SAAS_SIM_FASTMCP_PYTHON`), run driver
scripts (mcp_drive_*.py) against a server subprocess. Without the venvs those tests skip
locally and fail in CI.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import ssl
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import httpx2
import mcp_types as types
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from saas_sim.adapters.http import create_app
from saas_sim.adapters.mcp import CALL_ID_META, STEP_META, TASK_PROMPT
from saas_sim.adapters.mcp_http import DONE_META, EPISODE_UNAVAILABLE, GRADE_META, REWARD_META, SUBMIT_TOOL
from saas_sim.runtime.environment import Environment
from tests.adapters.conftest import SCENARIO
from tests.adapters.test_cli_adapters import free_loopback_port, log_text, plugin_env, stop_server
from tests.adapters.test_openenv_ecosystem import ecosystem_python, run, wait_until
from tests.runtime.conftest import notes_env

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CLIENTS = 512
UNKNOWN = "ep_000000000000"
MODERN = "2026-07-28"
"""The installed SDK's current protocol version."""
TOOLS = ["notes__archive_note", "notes__create_note", "notes__get_note", "notes__list_notes", SUBMIT_TOOL]
JSONRPC_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
_TASK = re.compile(r'Archive the note "[^"]*" \((?P<note>nt_\d+)\) and create a note titled "(?P<title>[^"]+)"')


@dataclass
class Live:
    """A server on a loopback port, and a JSON API client of it."""

    base: str
    api: httpx.AsyncClient

    async def start(self, seed: int = 1) -> tuple[str, str]:
        """Starts an episode over the JSON API; returns its id and its MCP URL."""
        episode_id, url, _ = await self.start_task(seed)
        return episode_id, url

    async def start_task(self, seed: int) -> tuple[str, str, str]:
        """Starts an episode over the JSON API; returns its id, its MCP URL and its instructions."""
        answer = await self.api.post("/episodes", json={"scenario": SCENARIO, "seed": seed})
        assert answer.status_code == 201, answer.text
        episode_id: str = answer.json()["episode_id"]
        return episode_id, self.url(episode_id), answer.json()["instructions"]

    def url(self, episode_id: str) -> str:
        return f"{self.base}/episodes/{episode_id}/mcp"


@pytest.fixture
async def live() -> AsyncIterator[Live]:
    async with notes_env() as env, serving(env) as server:
        yield server


@asynccontextmanager
async def serving(env: Environment) -> AsyncIterator[Live]:
    """Serves the app with uvicorn on a free loopback port, in this event loop, until the block ends."""
    # uvicorn closes a keep-alive connection idle for 5 s by default, racing a client that reuses it at that
    # moment (a reset the client sees as an error); a loaded test loop can leave one idle that long.
    config = uvicorn.Config(create_app(env), host="127.0.0.1", port=0, log_level="warning", backlog=4096,
                            timeout_keep_alive=120)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:  # readiness: uvicorn sets it once the socket listens
            assert not task.done(), "uvicorn stopped while starting"
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=base, timeout=60.0, trust_env=False,
                                     limits=httpx.Limits(max_connections=64)) as api:
            yield Live(base, api)
    finally:
        server.should_exit = True
        await task


_SSL = ssl.create_default_context()
"""One verification context for every test client: building one costs ~30 ms (the CA bundle), and a
fresh connection needs its own HTTP client, not its own trust store. The URLs are plain http anyway."""


@asynccontextmanager
async def fresh(url: str, mode: str = "auto") -> AsyncIterator[Client]:
    """A fresh MCP connection, as verifiers opens for every call: its own HTTP client, transport and session."""
    async with httpx2.AsyncClient(verify=_SSL, trust_env=False, timeout=httpx2.Timeout(60.0)) as http, Client(
        streamable_http_client(url, http_client=http), mode=mode
    ) as client:
        yield client


def oracle_plan(instructions: str) -> list[tuple[str, dict[str, Any]]]:
    """What a correct agent calls for the notes task, read off its instructions (ids move with the seed)."""
    found = _TASK.search(instructions)
    assert found is not None, instructions
    return [("notes__archive_note", {"note_id": found["note"]}),
            ("notes__create_note", {"title": found["title"], "body": f"from {found['note']}"})]


async def drive(url: str, mode: str = "auto", instructions: str | None = None) -> (
    tuple[str, list[types.CallToolResult]]
):
    """Reads the task (unless given), then makes every oracle call and `submit`, each over a fresh connection."""
    if instructions is None:
        async with fresh(url, mode) as client:
            instructions = client.instructions
            if instructions is None:  # a pinned version skips discovery, which carries them: ask for the prompt
                content = (await client.get_prompt(TASK_PROMPT)).messages[0].content
                assert isinstance(content, types.TextContent)
                instructions = content.text
    results = []
    for tool, args in [*oracle_plan(instructions), (SUBMIT_TOOL, {})]:
        async with fresh(url, mode) as client:
            results.append(await client.call_tool(tool, args))
    return instructions, results


# the installed SDK's client, in-process ------------------------------------------------------------
@pytest.mark.parametrize("mode", ["auto", "legacy", MODERN])
async def test_the_sdk_client_connecting_fresh_per_call_drives_an_episode_to_a_grade(live: Live, mode: str) -> None:
    episode_id, url = await live.start()
    _, results = await drive(url, mode)
    archived, created, submitted = results
    assert not archived.is_error and isinstance(archived.structured_content, dict)
    assert archived.structured_content["archived"] is True
    assert archived.meta is not None and archived.meta[STEP_META] == 0 and archived.meta[CALL_ID_META] == "auto:0"
    assert not created.is_error and created.meta is not None and created.meta[STEP_META] == 1
    assert not submitted.is_error and submitted.structured_content is not None
    assert submitted.structured_content["done"] is True and submitted.structured_content["reward"] == 1.0
    assert submitted.meta is not None and submitted.meta[DONE_META] is True and submitted.meta[REWARD_META] == 1.0
    assert submitted.meta[GRADE_META]["attribution"] == "success"
    # The episode stays readable over the JSON API until deleted, and its grade is the one submitted.
    grade = (await live.api.post(f"/episodes/{episode_id}/grade")).json()
    assert grade == submitted.structured_content["grade"]
    status = (await live.api.get(f"/episodes/{episode_id}")).json()
    assert status["steps"] == 2 and status["done"] is True


async def test_each_url_serves_its_own_episode_tools_instructions_and_task_prompt(live: Live) -> None:
    (first, first_url), (second, second_url) = await live.start(seed=1), await live.start(seed=2)
    seen = {}
    for episode_id, url in [(first, first_url), (second, second_url)]:
        async with fresh(url) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            prompt = await client.get_prompt(TASK_PROMPT)
            instructions = client.instructions
        assert sorted(tools) == TOOLS
        schemas = (await live.api.get(f"/episodes/{episode_id}/tools", params={"flavor": "mcp"})).json()["tools"]
        for schema in schemas:
            assert tools[schema["name"]].input_schema == schema["inputSchema"]
            assert tools[schema["name"]].output_schema == schema["outputSchema"]
        content = prompt.messages[0].content
        assert isinstance(content, types.TextContent) and content.text == instructions
        seen[episode_id] = instructions
    assert seen[first] != seen[second]  # the seeds pick other notes: each URL answers for its own episode


async def test_a_tool_error_is_an_is_error_result_naming_tools_by_wire_name(live: Live) -> None:
    _, url = await live.start()
    async with fresh(url) as client:
        missing = await client.call_tool("notes__get_note", {"note_id": "nt_999999"})
        unknown = await client.call_tool("notes__teleport", {})
    assert missing.is_error and missing.structured_content is not None
    assert missing.structured_content["code"] == "not_found"
    assert unknown.is_error and unknown.structured_content is not None
    assert unknown.structured_content["details"]["available"] == TOOLS[:-1]


async def test_a_retried_call_id_is_answered_once(live: Live) -> None:
    episode_id, url = await live.start()
    async with fresh(url) as client:
        instructions = client.instructions
    assert instructions is not None
    tool, args = oracle_plan(instructions)[1]
    answers = []
    for _ in range(2):  # a retry after a lost response: another connection, the same key
        async with fresh(url) as client:
            answers.append(await client.call_tool(tool, args, meta={CALL_ID_META: "agent-7"}))
    async with fresh(url) as client:
        listed = await client.call_tool("notes__list_notes", {"limit": 100})
    assert answers[0].structured_content == answers[1].structured_content
    assert all(a.meta is not None and a.meta[CALL_ID_META] == "agent-7" for a in answers)
    assert listed.structured_content is not None
    assert [n["title"] for n in listed.structured_content["items"]].count(args["title"]) == 1
    # The retry is recorded as a step (so a resume knows of it) that wrote nothing.
    lines = [json.loads(line) for line in (await live.api.get(f"/episodes/{episode_id}/trajectory")).text.splitlines()]
    steps = [line for line in lines if line.get("kind") == "step"]
    assert len(steps) == 3 and steps[1]["replayed"] and steps[1]["events"] == []


# unknown, closed and malformed ---------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_unknown_episode_initializes_then_says_so_in_an_error_result(live: Live, mode: str) -> None:
    async with fresh(live.url(UNKNOWN), mode) as client:
        assert client.instructions is not None and f"episode {UNKNOWN} is unknown" in client.instructions
        result = await client.call_tool("notes__list_notes", {})
        with pytest.raises(MCPError) as listing:
            await client.list_tools()
    assert result.is_error and result.structured_content is not None
    assert result.structured_content["code"] == "episode_not_found"
    assert UNKNOWN in result.structured_content["message"]
    assert listing.value.code == EPISODE_UNAVAILABLE
    assert listing.value.data == {"code": "episode_not_found", "episode_id": UNKNOWN}


async def test_a_deleted_episode_says_it_is_closed(live: Live) -> None:
    episode_id, url = await live.start()
    assert (await live.api.delete(f"/episodes/{episode_id}")).status_code == 204
    async with fresh(url) as client:
        result = await client.call_tool("notes__list_notes", {})
        with pytest.raises(MCPError) as listing:
            await client.get_prompt(TASK_PROMPT)
    assert result.is_error and result.structured_content is not None
    assert result.structured_content["code"] == "episode_closed"
    assert f"episode {episode_id} is closed" in result.structured_content["message"]
    assert listing.value.code == EPISODE_UNAVAILABLE and listing.value.data["code"] == "episode_closed"


async def test_after_submit_calls_say_closed_and_submit_again_answers_the_same_grade(live: Live) -> None:
    _, url = await live.start()
    async with fresh(url) as client:
        first = await client.call_tool(SUBMIT_TOOL, {})
        after = await client.call_tool("notes__list_notes", {})
        again = await client.call_tool(SUBMIT_TOOL, {})
    assert first.structured_content is not None and first.structured_content["reward"] == 0.25  # the no-op score
    assert after.is_error and after.structured_content is not None
    assert after.structured_content["code"] == "episode_closed"
    assert again.structured_content == first.structured_content


async def test_a_call_that_uses_up_the_step_budget_ends_and_grades_the_episode(live: Live) -> None:
    _, url = await live.start()
    async with fresh(url) as client:  # one connection is fine here: this is about the budget
        results = [await client.call_tool("notes__list_notes", {"limit": 1}) for _ in range(20)]
        after = await client.call_tool("notes__list_notes", {"limit": 1})
    assert all(r.meta is not None and DONE_META not in r.meta for r in results[:-1])
    last = results[-1]
    assert last.meta is not None and last.meta[DONE_META] is True and last.meta[GRADE_META]["truncated"] is True
    assert after.is_error and after.structured_content is not None
    assert after.structured_content["code"] == "episode_closed"


MALFORMED = [
    pytest.param(b"{not json", id="not-json"),
    pytest.param(b"[1, 2]", id="array-of-numbers"),
    pytest.param(b'"tools/list"', id="a-string"),
    pytest.param(b'{"jsonrpc": "2.0"}', id="no-method"),
    pytest.param(b'{"jsonrpc": "1.0", "id": 1, "method": "tools/list"}', id="wrong-version"),
    pytest.param(b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "x"}', id="params-not-object"),
    pytest.param(b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": 5}}', id="bad-name"),
    pytest.param(b'{"jsonrpc": "2.0", "id": 1, "method": "no/such/method", "params": {}}', id="unknown-method"),
]


@pytest.mark.parametrize("version", ["2025-11-25", MODERN])
@pytest.mark.parametrize("body", MALFORMED)
async def test_a_malformed_body_is_a_json_rpc_error_never_a_500(live: Live, body: bytes, version: str) -> None:
    _, url = await live.start()
    for target in (url, live.url(UNKNOWN)):
        answer = await live.api.post(target, content=body,
                                     headers={**JSONRPC_HEADERS, "mcp-protocol-version": version})
        assert answer.status_code < 500, answer.text
        error = answer.json()["error"]
        assert isinstance(error["code"], int) and error["message"], error


async def test_get_answers_405_at_once_since_there_is_no_sse_stream_to_hold_open(live: Live) -> None:
    _, url = await live.start()
    answer = await live.api.get(url, headers={"accept": "text/event-stream"})
    assert answer.status_code == 405 and answer.headers["allow"] == "POST"
    assert answer.json()["error"]["code"] == types.INVALID_REQUEST


# 512 at once ---------------------------------------------------------------------------------------
async def test_512_concurrent_clients_each_drive_an_episode_to_a_grade_with_no_errors() -> None:
    # The clients run in two processes (mcp_drive_many), the server here: the SDK's client costs several
    # times what the server spends per call, so this way both of the machine's cores work.
    async with notes_env() as env, serving(env) as server:
        drivers = [await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.adapters.mcp_drive_many", server.base, str(CLIENTS // 2), cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"},
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        ) for _ in range(2)]
        try:
            for driver in drivers:  # every episode started: then all clients go at once
                assert driver.stdout is not None
                line = await asyncio.wait_for(driver.stdout.readline(), 300.0)
                assert line == b"ready\n", line + (await driver.communicate())[1]
            outputs = await asyncio.wait_for(asyncio.gather(*(d.communicate(b"go\n") for d in drivers)), 600.0)
        finally:
            for driver in drivers:
                if driver.returncode is None:
                    driver.kill()
                    await driver.wait()
        assert [d.returncode for d in drivers] == [0, 0], [err.decode()[-2000:] for _, err in outputs]
        assert (await server.api.get("/health")).json()["episodes"] == 0  # every episode deleted
    reports = [json.loads(out.decode().splitlines()[-1]) for out, _ in outputs]
    errors = [e for r in reports for e in r["errors"]]
    assert not errors, f"{len(errors)} of {CLIENTS} failed; first: {errors[0]}"
    assert [x for r in reports for x in r["rewards"]] == [1.0] * CLIENTS


# the ecosystem's clients, each in its own venv -----------------------------------------------------
LAUNCH = """
import sys, uvicorn
from saas_sim.adapters.http import create_app
from saas_sim.cli import _env
uvicorn.run(create_app(_env("sqlite+aiosqlite:///:memory:")), host="127.0.0.1", port=int(sys.argv[1]),
            log_level="warning")
"""

ECOSYSTEM = [
    pytest.param("SAAS_SIM_MCP130_PYTHON", "mcp_drive_sdk1.py", "legacy", "2025-11-25", id="mcp-1.30.0"),
    pytest.param("SAAS_SIM_FASTMCP_PYTHON", "mcp_drive_fastmcp.py", "auto", "2026-07-28", id="fastmcp-4.2.3"),
    pytest.param("SAAS_SIM_FASTMCP_PYTHON", "mcp_drive_fastmcp.py", "legacy", "2025-11-25", id="fastmcp-4.2.3-legacy"),
]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("mcp-http-server")
    port = free_loopback_port()
    log = (tmp / "server.log").open("w+b")
    proc = subprocess.Popen([sys.executable, "-c", LAUNCH, str(port)], cwd=tmp,
                            env={**os.environ, **plugin_env()}, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: _answers(url), 90.0, lambda: f"no answer: {log_text(log)}", proc=proc)
        yield url
    finally:
        stop_server(proc)
    assert "Traceback" not in log_text(log), log_text(log)


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/health", timeout=10.0, trust_env=False).status_code == 200
    except httpx.TransportError:
        return False


@pytest.mark.parametrize(("var", "driver", "mode", "protocol"), ECOSYSTEM)
def test_an_ecosystem_client_connecting_fresh_per_call_drives_an_episode_to_a_grade(
    server_url: str, var: str, driver: str, mode: str, protocol: str
) -> None:
    python = ecosystem_python(var)
    created = httpx.post(f"{server_url}/episodes", json={"scenario": SCENARIO, "seed": 3}, timeout=30.0,
                         trust_env=False).json()
    episode_id = created["episode_id"]
    plan = [{"tool": tool, "arguments": args} for tool, args in oracle_plan(created["instructions"])]
    url = f"{server_url}/episodes/{episode_id}/mcp"
    report = json.loads(run([python, str(HERE / driver), url, json.dumps([*plan, {"tool": SUBMIT_TOOL,
                                                                                    "arguments": {}}]), mode]))
    assert report["protocol"] == protocol
    assert report["instructions"] == report["prompt"] == created["instructions"]
    assert report["tools"] == TOOLS
    archived, made, submitted = report["results"]
    assert not archived["is_error"] and archived["structured"]["archived"] is True
    assert archived["meta"][STEP_META] == 0
    assert not made["is_error"] and made["structured"]["title"] == plan[1]["arguments"]["title"]
    assert not submitted["is_error"] and submitted["structured"]["reward"] == 1.0
    assert submitted["meta"][REWARD_META] == 1.0
    grade = httpx.post(f"{server_url}/episodes/{episode_id}/grade", timeout=30.0, trust_env=False).json()
    assert grade == submitted["structured"]["grade"]
    assert report["unknown_call"]["is_error"] and report["unknown_call"]["structured"]["code"] == "episode_not_found"
    assert report["unknown_list_error"]["code"] == EPISODE_UNAVAILABLE
    assert "is unknown" in report["unknown_instructions"]
    assert httpx.delete(f"{server_url}/episodes/{episode_id}", timeout=30.0, trust_env=False).status_code == 204
