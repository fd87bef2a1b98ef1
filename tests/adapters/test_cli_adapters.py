"""`saas-sim serve` and `saas-sim mcp` as real processes: a socket on loopback, and MCP over stdio.

Every wait is bounded and every process is ended, so a broken server fails the
test instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
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
        "SAAS_SIM_DOMAINS": "tests.runtime.notes_domain",
        "SAAS_SIM_SCENARIO_DIRS": str(FIXTURES / "scenarios"),
        "SAAS_SIM_SEEDS_DIRS": str(FIXTURES / "seeds"),
    }


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_serve_binds_loopback_and_answers_healthz(tmp_path: Path) -> None:
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
                    health = client.get("/healthz")
                except httpx.TransportError:
                    time.sleep(0.1)
            assert health is not None, f"no answer on {base}: {log_text(log)}"
            assert health.status_code == 200 and health.json()["status"] == "ok"
            started = client.post("/episodes", json={"scenario": SCENARIO, "seed": 0})
            assert started.status_code == 201
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
    # A clean shutdown: the lifespan closed the episodes and the store. (uvicorn re-raises the
    # signal once it has shut down, so the status is that of a SIGTERM.)
    assert proc.returncode in (0, -signal.SIGTERM), log_text(log)
    assert "Application shutdown complete" in log_text(log)
    assert "Traceback" not in log_text(log)


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


def test_mcp_graded_trajectory_survives_a_sigterm(tmp_path: Path) -> None:
    out = tmp_path / "mcp-term.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "saas_sim.cli", "mcp", SCENARIO, "--seed", "2", "--store", MEMORY, "--out", str(out)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, **plugin_env()}, cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + STARTUP_S
        # The server is up once it waits on stdin; give it a bounded moment, then stop it as MCP clients do.
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.5)
            if time.monotonic() > deadline - STARTUP_S + 3:
                break
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=STARTUP_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert out.exists(), err.decode()
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0]["kind"] == "header"
    assert lines[-1]["kind"] == "footer"
