"""The README's examples keep working, run as written.

CI runs the Quickstart's two lines itself. The agent-loop example runs here in
a temporary folder, and so does every `sh` block (the HTTP walkthrough), against
a server on a free loopback port (the block reads `$PORT`, 8000 by default).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from saas_sim.runtime.trajectory import read_trajectory

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
_BEFORE, _INTEGRATIONS = README.split("\n## Integrations\n", 1)
_INTEGRATIONS, _AFTER = _INTEGRATIONS.split("\n## ", 1)
SH_BLOCKS = re.findall(r"^```sh\n(.*?)^```", _BEFORE + _AFTER, re.S | re.M)
"""The HTTP walkthrough's blocks (outside `## Integrations`)."""
INTEGRATION_BLOCKS = re.findall(r"^```(sh|python [A-Z0-9_]+)\n(.*?)^```", _INTEGRATIONS, re.S | re.M)
"""`## Integrations` snippets: (`sh` or `python ENV_VAR`, code); ENV_VAR names the ecosystem venv's interpreter."""
BLOCK_TIMEOUT_S = 180


def test_quickstart_block_holds_exactly_two_commands() -> None:
    block = README.split("## Quickstart", 1)[1].split("```", 2)[1]
    lines = [line for line in block.splitlines() if line.strip()]
    assert len(lines) == 2
    assert "saas-sim run" in lines[0]
    assert "--agent oracle" in lines[0]
    assert "pytest" in lines[1]


def test_agent_loop_example_runs_and_grades(tmp_path: Path) -> None:
    match = re.search(r"## An agent loop\n\n```python\n(.*?)```", README, re.S)
    assert match is not None
    script = tmp_path / "example.py"
    script.write_text(match.group(1), encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "agent_failure" in proc.stdout or "success" in proc.stdout
    assert (tmp_path / ".saas_sim" / "events.db").exists()


def test_every_fenced_example_is_run_by_ci_or_here() -> None:
    # The Quickstart (CI), the agent loop (python) and the sh blocks run; others must be labelled text.
    fences = re.findall(r"^```([\w ]*)\n.*?^```\n", README, re.S | re.M)  # the opening fences' labels
    assert fences.count("python") == 1
    integration = [label for label, _ in INTEGRATION_BLOCKS]
    assert len(SH_BLOCKS) + integration.count("sh") == fences.count("sh") >= 1
    venv_blocks = [f for f in fences if f.startswith("python ")]
    assert sorted(venv_blocks) == sorted(label for label in integration if label != "sh")
    assert set(fences) - set(venv_blocks) <= {"", "sh", "python"}
    assert fences.count("") == 2  # the Quickstart and the layout tree


def json_objects(text: str) -> list[dict[str, object]]:
    """The top-level JSON objects found in text, in order."""
    decoder, found, i = json.JSONDecoder(), [], text.find("{")
    while i != -1:
        try:
            value, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            end = i + 1
        else:
            found.append(value)
        i = text.find("{", end)
    return found


def run_block(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    """Runs an example in a session of its own; returns (exit status, stdout, stderr).

    A block stops what it starts (a server); killing the session afterwards only cleans up after a
    failure or a timeout.
    """
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=BLOCK_TIMEOUT_S)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    return proc.returncode, stdout, stderr


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.mark.skipif(shutil.which("curl") is None, reason="the README's HTTP example uses curl")
@pytest.mark.parametrize("block", SH_BLOCKS, ids=lambda b: b.splitlines()[0][:40])
def test_shell_example_runs_as_written(block: str, tmp_path: Path) -> None:
    # The block runs from the repository folder (it sources .venv); a link makes tmp_path look like one,
    # so everything it writes (run.jsonl, the store) lands under tmp_path.
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}  # curl talks to loopback
    env.update(PORT=str(free_loopback_port()), PYTHONDONTWRITEBYTECODE="1")
    returncode, stdout, stderr = run_block(["bash", "-c", block], tmp_path, env)
    assert returncode == 0, stderr
    assert "Traceback" not in stderr and "JSONDecodeError" not in stderr, stderr
    # curl's bodies share stdout with uvicorn's access log (and have no newline of their own).
    observation, grade = json_objects(stdout)
    assert observation["call_id"] == "c1" and observation["step"] == 0
    assert grade["attribution"] in ("success", "agent_failure") and "checks" in grade
    trajectory = read_trajectory(tmp_path / "run.jsonl")
    assert trajectory.header["scenario"].startswith("crm/advance-qualified-deal@")
    assert [step.tool for step in trajectory.steps] == ["crm.get_deal"]
    assert trajectory.footer is not None
    assert "Application shutdown complete" in stderr  # `kill $SERVER` stopped it cleanly


def _integration_id(block: tuple[str, str]) -> str:
    return f"{block[0]}: {block[1].splitlines()[0][:40]}"


@pytest.mark.parametrize("block", INTEGRATION_BLOCKS, ids=_integration_id)
def test_integration_snippet_runs_as_written(block: tuple[str, str], tmp_path: Path) -> None:
    # A `python ENV_VAR` block runs in that ecosystem client's venv (skipped locally without it, failing in CI);
    # a `sh` block runs in a temporary folder with the main venv's `saas-sim` first on the PATH.
    label, code = block
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(PORT=str(free_loopback_port()), PYTHONDONTWRITEBYTECODE="1",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    if label == "sh":
        argv = ["bash", "-euo", "pipefail", "-c", code]
    else:
        var = label.split(" ", 1)[1]
        python = os.environ.get(var)
        if not python:
            if os.environ.get("CI"):
                pytest.fail(f"{var} is not set: .ci/ecosystem.sh makes that venv and CI must run this snippet")
            pytest.skip(f"{var} is not set (run `eval \"$(bash .ci/ecosystem.sh)\"`)")
        script = tmp_path / "snippet.py"
        script.write_text(code, encoding="utf-8")
        argv = [python, str(script)]
    returncode, stdout, stderr = run_block(argv, tmp_path, env)
    assert returncode == 0, f"stdout:\n{stdout}\nstderr:\n{stderr}"
    assert "Traceback" not in stderr, stderr
