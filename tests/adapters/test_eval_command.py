"""`saas-sim eval` on the console: JSON alone on stdout with `--json`, a bar only on a terminal, loud warnings."""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from saas_sim.adapters.eval_command import environment_warning, eval_main
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import Episode
from saas_sim.runtime.evaluation import EvalConfig

CLI = [sys.executable, "-m", "saas_sim.cli"]
BAR = "\u2501"  # rich's bar segment
TINY = ["eval", "--agent", "noop", "--scenario", "crm/advance-qualified-deal,support/refund-damaged-item",
        "--seeds", "0:3", "--trials", "2"]


def on_a_terminal(args: list[str], cwd: Path) -> tuple[int, str]:
    """Runs the CLI with stdout and stderr on a pseudo-terminal; returns its status and everything it wrote."""
    leader, follower = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120"}
    proc = subprocess.Popen([*CLI, *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower,
                            env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return proc.wait(timeout=300), b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


def test_json_on_a_pipe_is_one_document_and_nothing_else(tmp_path: Path) -> None:
    proc = subprocess.run([*CLI, *TINY, "--out", str(tmp_path / "run"), "--json"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["episodes_finished"] == 12 and report["overall"]["mean_score"] == 0.0
    assert proc.stderr == ""
    assert BAR not in proc.stdout
    for name in ("report.json", "report.html", "results.jsonl", "run.json"):
        assert (tmp_path / "run" / name).is_file()
    assert json.loads((tmp_path / "run" / "report.json").read_text(encoding="utf-8")) == report
    page = SvgIds()
    page.feed((tmp_path / "run" / "report.html").read_text(encoding="utf-8"))
    assert page.ids == ["pass-k", "score-distribution", "check-failures"]


class SvgIds(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "svg":
            self.ids.append(dict(attrs).get("id"))


def test_json_on_a_terminal_draws_no_bar(tmp_path: Path) -> None:
    status, text = on_a_terminal([*TINY, "--out", str(tmp_path / "run"), "--json"], tmp_path)
    assert status == 0, text
    assert BAR not in text and "\x1b[" not in text
    assert json.loads(text)["episodes_finished"] == 12


def test_a_terminal_gets_a_bar_and_the_summary(tmp_path: Path) -> None:
    status, text = on_a_terminal([*TINY, "--out", str(tmp_path / "run")], tmp_path)
    assert status == 0, text
    assert BAR in text  # drawn while it ran (transient: erased at the end)
    assert "pass^2" in text and "report.html" in text


def test_the_default_folder_is_under_dot_saas_sim(tmp_path: Path) -> None:
    proc = subprocess.run([*CLI, *TINY, "--json"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    [folder] = (tmp_path / ".saas_sim" / "eval").iterdir()
    assert folder.name.startswith("noop-") and (folder / "report.html").is_file()


def test_environment_warnings_grow_louder_past_one_and_five_percent() -> None:
    def env(rate: float, level: str) -> dict[str, object]:
        return {"failure_rate": rate, "level": level, "harness_errors": 3, "verifier_errors": 0, "episodes": 100}

    assert environment_warning(env(0.0, "ok")) is None
    warning = environment_warning(env(0.03, "warning"))
    assert warning is not None and "WARNING" in warning and "3.0%" in warning
    alarm = environment_warning(env(0.06, "harness"))
    assert alarm is not None and "the harness, not the model, is the problem" in alarm


async def test_a_run_with_harness_errors_says_the_harness_is_the_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def broken(self: Episode, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the harness broke")

    monkeypatch.setattr(Episode, "_run", broken)
    err = Console(file=io.StringIO(), width=200)
    config = EvalConfig(agent="oracle", pattern="crm/advance-qualified-deal", seeds=[0, 1], trials=1)
    report = await eval_main(Environment("sqlite+aiosqlite:///:memory:"), config, tmp_path, as_json=True,
                             out=Console(file=io.StringIO()), err=err)
    assert report["environment"]["level"] == "harness"
    assert "the harness, not the model, is the problem" in err.file.getvalue()  # type: ignore[attr-defined]
    assert json.loads(capsys.readouterr().out)["environment"]["failure_rate"] == 1.0
