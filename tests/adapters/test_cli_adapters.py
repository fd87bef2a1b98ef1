"""`saas-sim serve` and `saas-sim mcp` as real processes: a socket on loopback, and MCP over stdio.

Every wait is bounded and every process is ended, so a broken server fails the
test instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from typer.testing import CliRunner

from saas_sim.cli import app
from tests.adapters.conftest import SCENARIO
from tests.runtime.conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
MEMORY = "sqlite+aiosqlite:///:memory:"
STARTUP_S = 30.0


def plugin_env() -> dict[str, str]:
    """The variables that plug the notes test domain into the command line."""
    return {
        "PYTHONPATH": str(ROOT),
        "PYTHONDONTWRITEBYTECODE": "1",  # the suite writes nothing into the source tree
        "SAAS_SIM_DOMAINS": "tests.runtime.notes_domain",
        "SAAS_SIM_SCENARIO_DIRS": str(FIXTURES / "scenarios"),
        "SAAS_SIM_SEEDS_DIRS": str(FIXTURES / "seeds"),
    }


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    """Stops a server process: SIGTERM, then SIGKILL if it has not exited within 15 s."""
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_serve_binds_loopback_and_answers_health(tmp_path: Path) -> None:
    port = free_loopback_port()
    log = (tmp_path / "serve.log").open("w+b")
    proc = subprocess.Popen(
        [sys.executable, "-m", "saas_sim.cli", "serve", "--port", str(port), "--store", MEMORY],
        cwd=tmp_path, env={**os.environ, **plugin_env()}, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, trust_env=False, timeout=2.0) as client:
            deadline = time.monotonic() + STARTUP_S
            health = None
            while health is None and time.monotonic() < deadline and proc.poll() is None:
                try:
                    health = client.get("/health")
                except httpx.TransportError:
                    time.sleep(0.1)
            assert health is not None, f"no answer on {base}: {log_text(log)}"
            assert health.status_code == 200 and health.json()["status"] == "ok"
            started = client.post("/episodes", json={"scenario": SCENARIO, "seed": 0})
            assert started.status_code == 201
    finally:
        stop_server(proc)
    # A clean shutdown: the lifespan closed the episodes and the store. (uvicorn re-raises the
    # signal once it has shut down, so the status is that of a SIGTERM.)
    assert proc.returncode in (0, -signal.SIGTERM), log_text(log)
    assert "Application shutdown complete" in log_text(log)
    assert "Traceback" not in log_text(log)


def test_serve_with_a_grade_worker_grades_and_stops_it_at_shutdown(tmp_path: Path) -> None:
    from saas_sim.bench.http_server import ProcStats

    port = free_loopback_port()
    log = (tmp_path / "serve.log").open("w+b")
    proc = subprocess.Popen(
        [sys.executable, "-m", "saas_sim.cli", "serve", "--port", str(port), "--store", MEMORY, "--grade-worker"],
        cwd=tmp_path, env={**os.environ, **plugin_env()}, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", trust_env=False, timeout=10.0) as client:
            deadline = time.monotonic() + STARTUP_S
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    client.get("/health")
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            workers = ProcStats(proc.pid).descendants()
            assert workers, f"no grade worker: {log_text(log)}"
            episode = client.post("/episodes", json={"scenario": SCENARIO, "seed": 0}).json()["episode_id"]
            client.post(f"/episodes/{episode}/calls", json={"tool": "notes.list_notes", "arguments": {}})
            grade = client.post(f"/episodes/{episode}/grade")
            assert grade.status_code == 200 and grade.json()["valid"] is True, grade.text
    finally:
        stop_server(proc)
    assert proc.returncode in (0, -signal.SIGTERM), log_text(log)
    assert "Traceback" not in log_text(log)
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers), "the grade worker outlived the server"


def log_text(log: object) -> str:
    assert hasattr(log, "seek") and hasattr(log, "read")
    log.seek(0)
    text: bytes = log.read()
    return text.decode(errors="replace")


async def test_mcp_serves_one_episode_over_stdio_and_writes_the_graded_trajectory(tmp_path: Path) -> None:
    out = tmp_path / "trajectory.jsonl"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "saas_sim.cli", "mcp", SCENARIO, "--seed", "1", "--store", MEMORY, "--out", str(out)],
        env=plugin_env(), cwd=tmp_path,
    )
    with (tmp_path / "mcp.log").open("w") as errlog, anyio.fail_after(STARTUP_S):
        async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
            assert client.instructions is not None and "Archive the note" in client.instructions
            names = [t.name for t in (await client.list_tools()).tools]
            assert "notes__list_notes" in names
            listed = await client.call_tool("notes__list_notes", {"limit": 1})
            missing = await client.call_tool("notes__get_note", {"note_id": "nt_999999"})
    assert listed.is_error is False and len(listed.structured_content["items"]) == 1
    assert missing.is_error is True and missing.structured_content["code"] == "not_found"
    assert out.exists(), (tmp_path / "mcp.log").read_text()
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["kind"] for line in lines] == ["header", "step", "step", "footer"]
    assert lines[-1]["grade"]["attribution"] == "agent_failure"
    assert "trajectory written" in (tmp_path / "mcp.log").read_text()


def test_without_the_server_extra_the_commands_say_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "fastapi" else real(name, *a))
    result = CliRunner().invoke(app, ["serve"])
    assert result.exit_code == 2
    assert "pip install 'saas-sim[server]'" in result.output
    assert "Traceback" not in result.output


def test_the_command_line_imports_no_adapter_dependency() -> None:
    code = "import sys, saas_sim.cli; print(sorted(m for m in ('fastapi', 'uvicorn', 'mcp') if m in sys.modules))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert proc.stdout.strip() == "[]"


class RawMcp:
    """`saas-sim mcp` as a subprocess spoken to in raw JSON-RPC lines; every read waits on a bounded deadline."""

    def __init__(self, tmp_path: Path, *extra: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "saas_sim.cli", "mcp", SCENARIO, "--store", MEMORY, *extra],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=(tmp_path / "mcp.err").open("wb"),
            env={**os.environ, **plugin_env()}, cwd=tmp_path,
        )
        self.err_path = tmp_path / "mcp.err"
        self.replies: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.replies.put(line)
        self.replies.put(b"")  # end of output

    def send(self, line: str | dict[str, object]) -> None:
        assert self.proc.stdin is not None
        text = line if isinstance(line, str) else json.dumps(line)
        self.proc.stdin.write(text.encode() + b"\n")
        self.proc.stdin.flush()

    def reply(self) -> dict[str, object]:
        try:
            line = self.replies.get(timeout=STARTUP_S)
        except queue.Empty:
            raise AssertionError(f"no reply within {STARTUP_S} s: {self.err_path.read_text()}") from None
        assert line, f"the server exited: {self.err_path.read_text()}"
        reply: dict[str, object] = json.loads(line)
        return reply

    def initialize(self) -> dict[str, object]:
        """The handshake; its answer is the readiness signal (the server is serving stdin)."""
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
        answer = self.reply()
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=STARTUP_S)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()


@pytest.fixture
def raw_mcp(tmp_path: Path) -> Iterator[RawMcp]:
    server = RawMcp(tmp_path)
    yield server
    server.close()


def test_mcp_answers_malformed_lines_and_keeps_serving(raw_mcp: RawMcp) -> None:
    assert "result" in raw_mcp.initialize()
    raw_mcp.send("this is not json")
    assert raw_mcp.reply() == {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32700, "message": "Parse error", "data": "the line is not valid JSON (one JSON-RPC message per line)"}}
    raw_mcp.send({"hello": "world"})
    invalid = raw_mcp.reply()
    assert invalid["id"] is None and invalid["error"]["code"] == -32600  # type: ignore[index]
    raw_mcp.send({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                  "params": {"name": "notes__list_notes", "arguments": '{"limit": 1}'}})
    stringly = raw_mcp.reply()
    assert stringly["id"] == 7
    error = stringly["error"]
    assert isinstance(error, dict) and error["code"] == -32602
    assert error["data"] == {"errors": [{"path": "params.arguments", "message": "Input should be a valid dictionary"}]}
    raw_mcp.send({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
                  "params": {"name": "notes__list_notes", "arguments": {"limit": 1}}})
    listed = raw_mcp.reply()
    assert listed["id"] == 8 and listed["result"]["isError"] is False  # type: ignore[index]


def test_mcp_graded_trajectory_survives_a_sigterm(tmp_path: Path) -> None:
    out = tmp_path / "mcp-term.jsonl"
    server = RawMcp(tmp_path, "--seed", "2", "--out", str(out))
    try:
        # Ready once it answers the handshake; then stop it as MCP clients do.
        assert "result" in server.initialize()
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(timeout=STARTUP_S)
    finally:
        server.close()
    err = server.err_path.read_text()
    assert server.proc.returncode == 0, err
    assert out.exists(), err
    lines = [json.loads(line) for line in out.read_text().split("\n") if line]
    assert lines[0]["kind"] == "header"
    assert lines[-1]["kind"] == "footer"
    assert "trajectory written" in err


def test_serve_refuses_malformed_gc_thresholds_before_binding() -> None:
    proc = subprocess.run([sys.executable, "-m", "saas_sim.cli", "serve", "--gc-thresholds", "700,10",
                           "--store", MEMORY], capture_output=True, timeout=120, check=False)
    assert proc.returncode == 2
    assert b"three comma-separated integers" in proc.stderr + proc.stdout
