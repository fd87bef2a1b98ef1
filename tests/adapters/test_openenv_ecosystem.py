"""The ecosystem's own OpenEnv code against a real server (uvicorn on a loopback port), and bad clients on sockets.

`openenv validate --url` and the clients of openenv-core 0.3.0 and openenv 0.10.0
run in their own virtualenvs (their releases pin conflicting `mcp` versions), which
`.ci/ecosystem.sh` creates; the tests find their interpreters through
`SAAS_SIM_OPENENV03_PYTHON` and `SAAS_SIM_OPENENV010_PYTHON`. Without them the
tests skip locally and fail in CI (`CI` set): they never skip silently there.

Every wait polls with a deadline; nothing sleeps a fixed time.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.adapters.test_cli_adapters import free_loopback_port, log_text, plugin_env, stop_server

HERE = Path(__file__).resolve().parent
DRIVE = HERE / "openenv_drive.py"
STARTUP_S = 90.0
MAX_SESSIONS = 16
PROTOCOL_MAX = 4 << 20
"""uvicorn's `ws_max_size` here: beyond it the WebSocket layer closes with 1009."""

# The server: the notes test domain beside the built-in ones, in memory, OpenEnv on. A short keepalive
# so a client that never reads (and so never answers a ping) is closed within seconds.
LAUNCH = f"""
import sys, uvicorn
from saas_sim.adapters.http import create_app
from saas_sim.cli import _env
app = create_app(_env("sqlite+aiosqlite:///:memory:"), openenv=True,
                 openenv_options={{"max_sessions": {MAX_SESSIONS}, "default_scenario": "notes/archive-and-follow-up",
                                  "send_timeout_s": 2.0}})
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning",
            ws_max_size={PROTOCOL_MAX}, ws_ping_interval=1.0, ws_ping_timeout=3.0)
"""


@dataclass
class Server:
    url: str
    port: int
    proc: subprocess.Popen[bytes]

    def health(self) -> dict[str, Any]:
        answer: dict[str, Any] = httpx.get(f"{self.url}/health", timeout=10.0, trust_env=False).json()
        return answer

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("openenv-server")
    port = free_loopback_port()
    log = (tmp / "server.log").open("w+b")
    proc = subprocess.Popen([sys.executable, "-c", LAUNCH, str(port)], cwd=tmp,
                            env={**os.environ, **plugin_env()}, stdout=log, stderr=subprocess.STDOUT)
    srv = Server(f"http://127.0.0.1:{port}", port, proc)
    try:
        wait_until(lambda: _answers(srv), STARTUP_S, lambda: f"no answer: {log_text(log)}", proc=proc)
        yield srv
    finally:
        stop_server(proc)
    assert "Traceback" not in log_text(log), log_text(log)


def _answers(srv: Server) -> bool:
    try:
        return srv.health()["status"] == "healthy"
    except httpx.TransportError:
        return False


def wait_until(ready: Callable[[], bool], timeout_s: float, why: Callable[[], str],
               proc: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + timeout_s
    while not ready():
        assert proc is None or proc.poll() is None, why()
        assert time.monotonic() < deadline, why()
        time.sleep(0.05)  # a poll interval, not a wait for something to have happened


def idle(srv: Server) -> Callable[[], bool]:
    def check() -> bool:
        counts = srv.health()
        return counts["sessions"] == 0 and counts["episodes"] == 0

    return check


CLIENTS = [
    pytest.param("SAAS_SIM_OPENENV03_PYTHON", "openenv-core", "0.3.0", id="openenv-core-0.3.0"),
    pytest.param("SAAS_SIM_OPENENV010_PYTHON", "openenv", "0.10.0", id="openenv-0.10.0"),
]


def ecosystem_python(var: str) -> str:
    """The interpreter of one ecosystem venv; a missing one skips locally and fails in CI."""
    path = os.environ.get(var)
    hint = f'{var} is not set: create the venvs with eval "$(bash .ci/ecosystem.sh)"'
    if not path:
        if os.environ.get("CI"):
            pytest.fail(hint + " (CI must run them, never skip)")
        pytest.skip(hint)
    assert Path(path).is_file(), f"{var}={path} does not exist"
    return path


def run(argv: list[str], timeout_s: float = 180.0) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, check=False,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert done.returncode == 0, f"{argv[0]} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout


# the ecosystem's own code ------------------------------------------------------------------------
@pytest.mark.parametrize(("var", "package", "version"), CLIENTS)
def test_openenv_validate_url_passes_all_six_criteria(server: Server, var: str, package: str, version: str) -> None:
    python = ecosystem_python(var)
    cli = str(Path(python).parent / "openenv")
    report = json.loads(run([cli, "validate", "--url", server.url, "--json"]))
    failed = [c for c in report["criteria"] if not c["passed"]]
    assert report["passed"] is True and not failed, failed
    assert report["summary"]["passed_count"] == report["summary"]["total_count"] == 6
    assert report["mode"] == "simulation"


@pytest.mark.parametrize(("var", "package", "version"), CLIENTS)
def test_generic_and_mcp_clients_reset_list_call_and_read_state(
    server: Server, var: str, package: str, version: str
) -> None:
    python = ecosystem_python(var)
    out = run([python, str(DRIVE), server.url, "notes/archive-and-follow-up", "3", "notes__get_note",
               json.dumps({"note_id": "nt_000001"})])
    report = json.loads(out)
    assert report["versions"][package] == version

    generic = report["generic"]
    assert "submit" in generic["tools_before_reset"]  # list_tools works before reset
    reset = generic["reset"]["observation"]
    assert reset["scenario"] == "notes/archive-and-follow-up@1" and reset["seed"] == 3 and "nt_000012" in \
        reset["instructions"]
    assert generic["tools"] == ["notes__archive_note", "notes__create_note", "notes__get_note", "notes__list_notes",
                                "submit"]
    assert generic["call"]["observation"]["result"]["id"] == "nt_000001"
    assert generic["call"]["done"] is False and generic["call"]["reward"] is None
    assert generic["bad"]["result"] is None and generic["bad"]["error"]["error_type"] == "tool_not_found"
    assert generic["state"]["step_count"] == 2 and generic["state"]["episode_id"].startswith("ep_")
    assert generic["submit"]["done"] is True and generic["submit"]["reward"] == 0.25
    assert generic["submit"]["observation"]["metadata"]["grade"]["score"] == 0.25
    assert generic["state_after_submit"]["done"] is True

    # The same seed in another session: the same observations (the ids live only in the state).
    again = report["generic_again"]
    assert again["reset"] == generic["reset"] and again["call"] == generic["call"]
    assert again["state"]["episode_id"] != generic["state"]["episode_id"]

    mcp = report["mcp"]
    assert "notes__get_note" in mcp["tools"] and "submit" in mcp["tools"]
    # One call recorded on the episode reset started; 0.10 calls over HTTP /mcp on the session its
    # WebSocket attached to, 0.3 over the WebSocket itself.
    assert mcp["state"]["step_count"] == 1 and mcp["state"]["episode_id"].startswith("ep_")
    result = mcp["result"]
    if version == "0.10.0":
        assert mcp["production_mode"] is True
        assert result["error"] is None and result["result"]["id"] == "nt_000001"
    else:
        assert result["id"] == "nt_000001"
    wait_until(idle(server), 30.0, lambda: f"sessions left behind: {server.health()}")


@pytest.mark.parametrize(("var", "package", "version"), CLIENTS)
def test_clients_drive_a_crm_episode(server: Server, var: str, package: str, version: str) -> None:
    python = ecosystem_python(var)
    report = json.loads(run([python, str(DRIVE), server.url, "crm/advance-qualified-deal", "0", "crm__get_deal",
                             json.dumps({"deal_id": "dl_000026"})]))
    generic = report["generic"]
    assert generic["call"]["observation"]["result"]["deal"]["id"] == "dl_000026"
    assert "crm__update_deal_stage" in generic["tools"]
    assert generic["submit"]["done"] is True and isinstance(generic["submit"]["reward"], float)
    assert report["generic_again"]["call"] == generic["call"]
    assert report["mcp"]["state"]["step_count"] == 1
    wait_until(idle(server), 30.0, lambda: f"sessions left behind: {server.health()}")


# bad clients on real sockets ---------------------------------------------------------------------
def ws_url(srv: Server, query: str = "") -> str:
    return f"ws://127.0.0.1:{srv.port}/ws{query}"


def exchange(ws: Any, frame: dict[str, Any]) -> dict[str, Any]:
    ws.send(json.dumps(frame))
    reply: dict[str, Any] = json.loads(ws.recv(timeout=30))
    return reply


def test_frames_over_the_app_limit_get_an_error_and_over_the_protocol_limit_a_1009_close(server: Server) -> None:
    with connect(ws_url(server), max_size=None, open_timeout=30) as ws:
        big = exchange(ws, {"type": "step", "data": {"type": "list_tools", "metadata": {"pad": "x" * (2 << 20)}}})
        assert big["data"]["code"] == "VALIDATION_ERROR" and "larger than" in big["data"]["message"]
        assert exchange(ws, {"type": "state"})["type"] == "state"  # still usable
        ws.send("x" * (PROTOCOL_MAX + 1))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=30)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    wait_until(idle(server), 30.0, lambda: f"sessions left behind: {server.health()}")


def test_a_websocket_dropped_mid_call_frees_its_session_and_episode(server: Server) -> None:
    for _ in range(5):
        with connect(ws_url(server), open_timeout=30) as ws:
            exchange(ws, {"type": "reset", "data": {"seed": 1}})
            ws.send(json.dumps({"type": "step", "data": {"type": "call_tool", "tool_name": "notes__archive_note",
                                                         "arguments": {"note_id": "nt_000005"}}}))
            ws.socket.shutdown(socket.SHUT_RDWR)  # gone without a close handshake, the answer unread
    wait_until(idle(server), 30.0, lambda: f"sessions left behind: {server.health()}")
    with connect(ws_url(server), open_timeout=30) as ws:  # and the server serves on
        assert exchange(ws, {"type": "reset", "data": {"seed": 1}})["type"] == "observation"


def _raw_websocket(srv: Server) -> socket.socket:
    """A WebSocket opened by hand, so it can never read (libraries answer pings in the background)."""
    sock = socket.create_connection(("127.0.0.1", srv.port), timeout=30)
    key = base64.b64encode(b"saas-sim-openenv").decode()
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def _masked_frame(text: str) -> bytes:
    payload, mask = text.encode(), b"\x11\x22\x33\x44"
    n = len(payload)
    length = bytes([0x80 | n]) if n < 126 else (bytes([0x80 | 126]) + n.to_bytes(2, "big") if n < 1 << 16
                                                else bytes([0x80 | 127]) + n.to_bytes(8, "big"))
    return b"\x81" + length + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def test_a_client_that_never_reads_stalls_only_itself_and_is_closed(server: Server) -> None:
    # The scenario's world is built once per server, whoever asks first: built here, it is not the growth measured.
    with connect(ws_url(server), open_timeout=30) as ws:
        reset = {"type": "reset", "data": {"scenario": "crm/advance-qualified-deal"}}
        assert exchange(ws, reset)["type"] == "observation"
    wait_until(idle(server), 60.0, lambda: f"warm-up session not freed: {server.health()}")
    rss_before = server.rss_kb()
    sock = _raw_websocket(server)
    sock.sendall(_masked_frame(json.dumps({"type": "reset", "data": {"scenario": "crm/advance-qualified-deal"}})))
    # 16 KB frames asking for ~30 KB answers: 32 MB sent and 60 MB answered if nothing held it back.
    padded = {"type": "list_tools", "metadata": {"pad": "x" * 16_384}}
    frame = _masked_frame(json.dumps({"type": "step", "data": padded}))
    sock.settimeout(2.0)
    sent = 0
    try:
        for _ in range(2_000):
            sock.sendall(frame)
            sent += 1
    except (TimeoutError, OSError):
        pass  # backpressure: the server stopped reading this connection
    try:
        # Meanwhile everyone else is served.
        with connect(ws_url(server), open_timeout=30) as ws:
            assert exchange(ws, {"type": "reset", "data": {"seed": 2}})["type"] == "observation"
        # The unanswered keepalive closes the stalled connection and frees its session.
        wait_until(idle(server), 60.0, lambda: f"stalled session not freed: {server.health()}")
        growth_mb = (server.rss_kb() - rss_before) / 1024
        assert growth_mb < 64, f"RSS grew {growth_mb:.0f} MB for one stalled client"
        print(f"stalled client: {sent} frames taken before backpressure, server RSS {growth_mb:+.1f} MB")
    finally:
        sock.close()
    assert sent < 2_000  # held back by TCP once the server stopped reading it, not buffered without bound


def test_a_flood_of_session_creations_is_refused_beyond_the_cap_and_leaves_nothing(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30.0, trust_env=False) as client:
        answers = [client.post("/mcp", json={"jsonrpc": "2.0", "id": i, "method": "openenv/session/create"}).json()
                   for i in range(MAX_SESSIONS + 24)]
        created = [a["result"]["session_id"] for a in answers if "result" in a]
        refused = [a["error"] for a in answers if "error" in a]
        assert len(created) == MAX_SESSIONS and len(refused) == 24
        assert {e["code"] for e in refused} == {-32000}
        with connect(ws_url(server), open_timeout=30) as ws:  # a WebSocket now: refused, then closed
            reply = json.loads(ws.recv(timeout=30))
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=30)
        assert reply["data"]["code"] == "CAPACITY_REACHED"
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
        for sid in created:
            client.post("/mcp", json={"jsonrpc": "2.0", "id": 0, "method": "openenv/session/close",
                                      "params": {"session_id": sid}})
    wait_until(idle(server), 30.0, lambda: f"sessions left behind: {server.health()}")
