"""`saas-sim generate --difficulty` and `saas-sim scenarios --difficulty-report`, on the test domain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from saas_sim.cli import app
from tests.runtime.conftest import FIXTURES
from tests.runtime.test_difficulty import LADDER

runner = CliRunner()

@pytest.fixture(autouse=True)
def notes_plugin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    folder = tmp_path / "scen" / "notes"
    folder.mkdir(parents=True)
    (folder / "x.yaml").write_text(LADDER)
    monkeypatch.setenv("SAAS_SIM_DOMAINS", "tests.runtime.notes_domain")
    monkeypatch.setenv("COLUMNS", "250")
    monkeypatch.setenv("SAAS_SIM_SCENARIO_DIRS", str(tmp_path / "scen"))
    monkeypatch.setenv("SAAS_SIM_SEEDS_DIRS", str(FIXTURES / "seeds"))
    monkeypatch.chdir(tmp_path)
    return folder


def _generate(tmp_path: Path, *difficulty: str) -> list[dict[str, object]]:
    out = tmp_path / f"specs{len(difficulty)}.jsonl"
    args = ["generate", "--scenario", "notes/*", "--seeds", "0:2", "--out", str(out)]
    for item in difficulty:
        args += ["--difficulty", item]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return [json.loads(x) for x in out.read_text().splitlines()]


def test_generate_without_difficulty_writes_the_lines_it_always_did(tmp_path: Path) -> None:
    specs = _generate(tmp_path)
    assert len(specs) == 2
    assert set(specs[0]) == {"scenario", "seed", "world_hash", "instructions", "tools"}


def test_generate_writes_the_difficulty_into_each_line_and_sets_the_task_up_at_it(tmp_path: Path) -> None:
    specs = _generate(tmp_path, "easy", "specificity=1")
    assert [s["difficulty"] for s in specs] == [
        {"level": "easy", "entities": "Easy note", "specificity": 1, "mess": 0.75}] * 2
    assert all("Hints:\n- The note is nt_" in str(s["instructions"]) for s in specs)
    hard = _generate(tmp_path, "hard")
    assert hard[0]["difficulty"] == {"level": "hard", "entities": "Hard note", "faults": "mild", "mess": 1.5}
    assert "Hard note" in str(hard[0]["instructions"])


def test_generate_line_difficulty_rebuilds_the_same_task(tmp_path: Path) -> None:
    import asyncio

    from saas_sim.cli import _env

    spec = _generate(tmp_path, "hard", "entities=Other note")[1]

    async def instructions() -> str:
        async with _env("sqlite+aiosqlite:///:memory:") as env:
            task = await env.task(str(spec["scenario"]), int(str(spec["seed"])), difficulty=spec["difficulty"])
            return task.instructions

    assert asyncio.run(instructions()) == spec["instructions"]


def test_generate_refuses_a_bad_difficulty_with_one_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["generate", "--scenario", "notes/*", "--seeds", "0:1", "--out",
                                 str(tmp_path / "x.jsonl"), "--difficulty", "crowds=2"])
    assert result.exit_code == 2
    assert "unknown difficulty knob 'crowds'" in result.output


def test_the_difficulty_report_measures_every_level_and_passes(tmp_path: Path) -> None:
    result = runner.invoke(app, ["scenarios", "--difficulty-report", "--scenario", "notes/*", "--seeds", "0:2",
                                 "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["ok"] is True
    (ladder,) = report["scenarios"]
    assert [m["level"] for m in ladder["levels"]] == ["easy", "medium", "hard"]
    easy, medium, hard = ladder["levels"]
    assert easy["hints"] == 1 and medium["hints"] == 0
    assert all(m["oracle_min"] == 1.0 for m in ladder["levels"])
    assert medium["oracle_steps"] == 4 and medium["entities_written"] >= 2
    assert hard["knobs"]["faults"] == "mild"
    assert ladder["harder"]["medium"] == ["hints 0 < 1"]


def test_the_difficulty_report_table_and_its_exit_status_when_an_oracle_fails_a_level(
    tmp_path: Path, notes_plugin: Path
) -> None:
    table = runner.invoke(app, ["scenarios", "--difficulty-report", "--scenario", "notes/*", "--seeds", "1"])
    assert table.exit_code == 0, table.output
    assert "harder than below by" in table.output and "hints 0 < 1" in table.output
    # The follow-up must be titled after the staged note, which only the medium oracle writes.
    broken = LADDER.replace('title: "{new_title}"}}', 'title: "{staged.title} 2"}}').replace(
        'args: {title: "{new_title}", body', 'args: {title: "Medium note 2", body')
    assert broken != LADDER
    (notes_plugin / "x.yaml").write_text(broken)
    failed = runner.invoke(app, ["scenarios", "notes/*", "--difficulty-report", "--seeds", "1"])
    assert failed.exit_code == 1, failed.output


def test_run_plays_the_task_at_the_difficulty(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "notes/archive-and-follow-up", "--seed", "1", "--difficulty", "hard",
                                 "--difficulty", "faults=none"])
    assert result.exit_code == 0, result.output
    assert "Hard note" in result.output and "score 1.000" in result.output
    bad = runner.invoke(app, ["run", "notes/archive-and-follow-up", "--difficulty", "distractors=2"])
    assert bad.exit_code == 2 and "no 'distractors' knob" in bad.output
