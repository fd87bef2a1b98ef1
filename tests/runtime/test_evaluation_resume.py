"""`saas-sim eval` killed mid-run and started again with the same arguments finishes without redoing episodes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

CLI = [sys.executable, "-m", "saas_sim.cli"]
# Named, so that scenarios added later do not change the count.
SCENARIOS = ["crm/advance-qualified-deal", "crm/close-won-from-line-items", "crm/convert-inbound-lead",
             "crm/convert-lead-existing-contact", "crm/dedupe-before-create", "crm/log-call-schedule-followup",
             "crm/merge-true-duplicates", "crm/pipeline-report"]
ARGS = ["eval", "--agent", "random:1", "--scenario", ",".join(SCENARIOS), "--seeds", "0:2", "--trials", "2",
        "--concurrency", "1"]
TOTAL = len(SCENARIOS) * 2 * 2  # scenarios x seeds x trials
KILL_AFTER = 3


def complete_lines(path: Path) -> list[str]:
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    return text[: text.rfind("\n") + 1].splitlines()


def wait_for_lines(proc: subprocess.Popen[bytes], path: Path, n: int, timeout_s: float = 240.0) -> None:
    deadline = time.monotonic() + timeout_s
    while len(complete_lines(path)) < n:
        assert proc.poll() is None, f"eval exited ({proc.returncode}) before writing {n} results"
        assert time.monotonic() < deadline, f"no {n} results within {timeout_s} s"
        time.sleep(0.02)  # a poll interval, not a wait for something to happen


def test_an_interrupted_run_resumes_without_redoing_finished_episodes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    results = out / "results.jsonl"
    proc = subprocess.Popen([*CLI, *ARGS, "--out", str(out), "--json"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for_lines(proc, results, KILL_AFTER)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    before = complete_lines(results)
    assert KILL_AFTER <= len(before) < TOTAL, "the kill must land mid-run"
    finished = [json.loads(line) for line in before]
    stamps = {r["trajectory"]: (out / r["trajectory"]).stat().st_mtime_ns for r in finished}

    again = subprocess.run([*CLI, *ARGS, "--out", str(out), "--json"], cwd=tmp_path, capture_output=True, text=True,
                           timeout=600, check=False)
    assert again.returncode == 0, again.stderr
    after = complete_lines(results)
    assert after[: len(before)] == before  # the finished lines stand as they were
    keys = [(r["scenario"], r["seed"], r["trial"]) for r in map(json.loads, after)]
    assert len(keys) == len(set(keys)) == TOTAL  # each episode once: none redone, none missing
    assert {r: (out / r).stat().st_mtime_ns for r in stamps} == stamps  # their trajectories were not rewritten
    report = json.loads(again.stdout)
    assert report["complete"] and report["episodes_finished"] == TOTAL
    assert json.loads((out / "report.json").read_text(encoding="utf-8"))["episodes_finished"] == TOTAL


def test_a_folder_holding_another_run_is_refused_with_a_usage_error(tmp_path: Path) -> None:
    out = tmp_path / "run"
    base = ["eval", "--agent", "noop", "--scenario", "crm/advance-qualified-deal", "--seeds", "0:1", "--out", str(out)]
    first = subprocess.run([*CLI, *base, "--json"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                           check=False)
    assert first.returncode == 0, first.stderr
    other = subprocess.run([*CLI, *base, "--trials", "2"], cwd=tmp_path, capture_output=True, text=True,
                           timeout=300, check=False)
    assert other.returncode == 2
    assert "holds a run with other arguments (trials: 1 there, 2 here)" in " ".join(other.stderr.split())
    assert "Traceback" not in other.stderr
    assert len(complete_lines(out / "results.jsonl")) == 1
