"""The `saas-sim` command line, driven on the test domain through the plug-in environment variables."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from saas_sim.cli import app
from tests.runtime.conftest import FIXTURES, GOOD_SCENARIO
from tests.runtime.notes_domain import DOMAIN

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def notes_plugin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SAAS_SIM_DOMAINS", "tests.runtime.notes_domain")
    monkeypatch.setenv("COLUMNS", "250")
    monkeypatch.setenv("SAAS_SIM_SCENARIO_DIRS", str(FIXTURES / "scenarios"))
    monkeypatch.setenv("SAAS_SIM_SEEDS_DIRS", str(FIXTURES / "seeds"))
    monkeypatch.chdir(tmp_path)


def test_scenarios_lists_the_plugged_in_scenarios() -> None:
    result = runner.invoke(app, ["scenarios", "notes/*"])
    assert result.exit_code == 0, result.output
    assert "notes/archive-and-follow-up@1" in result.output


LONG_ID = "notes/archive-the-picked-note-and-write-the-follow-up"


def test_scenarios_at_80_columns_prints_ids_whole_and_counts_the_allowed_tools(tmp_path: Path) -> None:
    folder = tmp_path / "more" / "notes"
    folder.mkdir(parents=True)
    text = GOOD_SCENARIO.replace("id: notes/archive-and-follow-up", f"id: {LONG_ID}")
    text = "\n".join('tools: ["notes.*"]' if line.startswith("tools:") else line for line in text.splitlines())
    (folder / "long.yaml").write_text(text + "\n")
    env = {**os.environ, "COLUMNS": "80", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(ROOT),
           "SAAS_SIM_SCENARIO_DIRS": os.pathsep.join([str(FIXTURES / "scenarios"), str(tmp_path / "more")])}
    # A process of its own: rich reads COLUMNS once, when the console is made.
    proc = subprocess.run([sys.executable, "-m", "saas_sim.cli", "scenarios", "notes/*"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), proc.stdout
    assert "…" not in proc.stdout
    rows = {cells[0]: cells for line in lines if len(cells := [c.strip() for c in line.split("│")[1:-1]]) > 1}
    assert {f"{LONG_ID}@1", "notes/archive-and-follow-up@1", "notes/flaky-archive@2"} <= set(rows)
    header = [c.strip() for c in next(line for line in lines if "scenario" in line).split("┃")[1:-1]]
    tools = header.index("tools")
    assert rows[f"{LONG_ID}@1"][tools] == str(len(DOMAIN.tools))  # `notes.*` is every tool, not one pattern
    assert len(DOMAIN.tools) > 1
    assert rows["notes/flaky-archive@2"][tools] == "3"
    assert "left out to fit 80 columns: hacks, noop, checks, world" in proc.stdout


def test_run_prints_steps_and_grade_and_writes_a_replayable_trajectory(tmp_path: Path) -> None:
    traj = tmp_path / "t.jsonl"
    result = runner.invoke(app, ["run", "notes/archive-and-follow-up", "--seed", "2", "--agent", "oracle",
                                 "--out", str(traj), "--store", f"sqlite+aiosqlite:///{tmp_path}/e.db"])
    assert result.exit_code == 0, result.output
    assert "notes.archive_note" in result.output
    assert "created note nt_000013: 'Follow up nt_" in result.output  # the domain's narration
    assert "score 1.000" in result.output
    lines = [json.loads(x) for x in traj.read_text().splitlines()]
    assert lines[0]["kind"] == "header"
    assert lines[-1]["kind"] == "footer"
    assert lines[-1]["grade"]["score"] == 1.0
    replayed = runner.invoke(app, ["replay", str(traj)])
    assert replayed.exit_code == 0, replayed.output
    assert "identical" in replayed.output


def test_replay_reports_the_first_divergence_and_fails(tmp_path: Path) -> None:
    traj = tmp_path / "t.jsonl"
    runner.invoke(app, ["run", "notes/archive-and-follow-up", "--agent", "oracle", "--out", str(traj),
                        "--store", "sqlite+aiosqlite:///:memory:"])
    lines = traj.read_text().splitlines()
    step = json.loads(lines[2])
    step["state_hash"] = "0" * 64
    lines[2] = json.dumps(step)
    traj.write_text("\n".join(lines) + "\n")
    result = runner.invoke(app, ["replay", str(traj)])
    assert result.exit_code == 1
    assert "diverged at step 1, field 'state_hash'" in result.output


def test_check_json_has_the_documented_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    # The fixture scenario built to resist the self-audit's attacks (the loose ones fail them).
    monkeypatch.setenv("SAAS_SIM_SCENARIO_DIRS", str(FIXTURES / "audit"))
    result = runner.invoke(app, ["check", "notes/*", "--seeds", "2", "--hack-seeds", "6", "--blind-trials", "50",
                                 "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["ok"] is True
    assert report["harness_error_rate"] == 0
    keys = {"id", "domain", "seeds", "oracle_min", "noop_max", "hacks", "deterministic", "replay_ok",
            "rebuild_ok", "fork_ok", "isolation_ok", "world_source_ok", "harness_errors", "ok", "hack_seeds",
            "coverage", "transfer", "blind", "do_everything", "alternatives", "timings_s"}
    for entry in report["scenarios"]:
        assert keys <= set(entry)


def test_generate_writes_one_spec_per_seed(tmp_path: Path) -> None:
    out = tmp_path / "specs.jsonl"
    result = runner.invoke(app, ["generate", "--scenario", "notes/*", "--seeds", "0:3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    specs = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(specs) == 6
    assert set(specs[0]) == {"scenario", "seed", "world_hash", "instructions", "tools"}
    assert specs[0]["tools"][0]["type"] == "function"
    again = tmp_path / "again.jsonl"
    runner.invoke(app, ["generate", "--scenario", "notes/*", "--seeds", "0:3", "--out", str(again)])
    assert again.read_text() == out.read_text()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["run", "notes/nope"], "unknown scenario"),
        (["run", "notes/archive-and-follow-up", "--agent", "hack:nope"], "has no hack"),
        (["run", "notes/archive-and-follow-up", "--agent", "wizard"], "unknown agent"),
        (["replay", "missing.jsonl"], "cannot read trajectory"),
        (["generate", "--scenario", "notes/*", "--seeds", "5:2", "--out", "x.jsonl"], "bad seeds"),
        (["run", "notes/archive-and-follow-up", "--store", "mysql://nope"], "unsupported store URL"),
    ],
)
def test_errors_are_one_clean_line_and_a_nonzero_exit(args: list[str], needle: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code != 0
    assert needle in result.output
    assert "Traceback" not in result.output


def test_environment_variables_do_not_leak_between_tests() -> None:
    assert os.environ["SAAS_SIM_DOMAINS"] == "tests.runtime.notes_domain"


def test_run_plays_a_declared_alternative_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAAS_SIM_SCENARIO_DIRS", str(FIXTURES / "audit"))
    result = runner.invoke(app, ["run", "notes/follow-up-note", "--seed", "1", "--agent", "alt:without_reading"])
    assert result.exit_code == 0, result.output
    assert "score 1.000" in result.output
    unknown = runner.invoke(app, ["run", "notes/follow-up-note", "--agent", "alt:nope"])
    assert unknown.exit_code == 2 and "without_reading" in unknown.output


def test_conventions_prints_the_agent_facing_convention() -> None:
    from saas_sim.core.conventions import CONVENTIONS

    result = CliRunner().invoke(app, ["conventions"])
    assert result.exit_code == 0
    assert result.output == CONVENTIONS and "next_cursor" in result.output


def test_equivalence_record_and_compare_name_what_moved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAAS_SIM_DOMAINS", "tests.runtime.notes_domain")
    monkeypatch.setenv("SAAS_SIM_SCENARIO_DIRS", str(FIXTURES / "scenarios"))
    monkeypatch.setenv("SAAS_SIM_SEEDS_DIRS", str(FIXTURES / "seeds"))
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    runner = CliRunner()
    for path in (a, b):
        done = runner.invoke(app, ["equivalence", "record", str(path), "--scenarios", "notes/*", "--seeds", "0:1"])
        assert done.exit_code == 0, done.output
    same = runner.invoke(app, ["equivalence", "compare", str(a), str(b)])
    assert same.exit_code == 0 and "0 records differ" in same.output
    records = [json.loads(line) for line in a.read_text().splitlines()]
    oracle = next(r for r in records if r["key"].endswith("#oracle"))
    oracle["world_hash"] = "moved"
    b.write_text("".join(json.dumps(r) + "\n" for r in records))
    moved = runner.invoke(app, ["equivalence", "compare", str(a), str(b)])
    assert moved.exit_code == 1
    assert f"{oracle['key']}: .world_hash" in moved.output


def test_scenarios_groups_rows_by_domain_and_skill(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SAAS_SIM_DOMAINS")
    monkeypatch.delenv("SAAS_SIM_SCENARIO_DIRS")
    monkeypatch.delenv("SAAS_SIM_SEEDS_DIRS")
    result = runner.invoke(app, ["scenarios"])
    assert result.exit_code == 0, result.output
    rows = [cells for line in result.output.splitlines()
            if len(cells := [c.strip() for c in line.split("│")[1:-1]]) > 1 and "@" in cells[0]]
    groups = [(cells[0].split("/", 1)[0], cells[1]) for cells in rows]
    # One run of rows per (domain, skill): a group never reappears after another began.
    runs = [g for i, g in enumerate(groups) if i == 0 or g != groups[i - 1]]
    assert len(runs) == len(set(runs)) > 3
    assert ("support", "refunds") in runs and ("crm", "deduplication") in runs
