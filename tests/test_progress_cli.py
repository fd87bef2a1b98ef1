"""The commands' progress bars: none when stdout is not a terminal or `--json` is given, a bar on a terminal."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from saas_sim import progress
from saas_sim.cli import app
from tests.runtime.conftest import FIXTURES
from tests.test_progress import BAR_CHARS

runner = CliRunner()
CHEAP_CHECK = ["check", "notes/*", "--seeds", "1", "--hack-seeds", "1", "--blind-seeds", "0",
               "--min-alternatives", "0", "--jobs", "1"]


@pytest.fixture(autouse=True)
def notes_plugin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SAAS_SIM_DOMAINS", "tests.runtime.notes_domain")
    monkeypatch.setenv("SAAS_SIM_SCENARIO_DIRS", str(FIXTURES / "audit"))
    monkeypatch.setenv("SAAS_SIM_SEEDS_DIRS", str(FIXTURES / "seeds"))
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stdout counts as a terminal, and rich draws on the captured stderr as on one."""
    monkeypatch.setattr(progress, "wants_progress", lambda *, quiet=False: not quiet)
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)


def _has_bar(text: str) -> bool:
    """Bar characters on stderr (tables, on stdout, draw their borders with some of the same)."""
    return any(ch in text for ch in BAR_CHARS)


def test_generate_and_check_draw_no_bar_when_stdout_is_not_a_terminal(tmp_path: Path) -> None:
    done = runner.invoke(app, ["generate", "--scenario", "notes/*", "--seeds", "0:2", "--out", str(tmp_path / "s")])
    assert done.exit_code == 0, done.output
    assert "wrote" in done.output
    assert not _has_bar(done.stderr)
    checked = runner.invoke(app, CHEAP_CHECK)
    assert "scenarios, 1 seeds each" in checked.output
    assert not _has_bar(checked.stderr)


@pytest.mark.usefixtures("terminal")
def test_generate_draws_a_bar_on_a_terminal(tmp_path: Path) -> None:
    done = runner.invoke(app, ["generate", "--scenario", "notes/*", "--seeds", "0:2", "--out", str(tmp_path / "s")])
    assert done.exit_code == 0, done.output
    assert _has_bar(done.stderr)


@pytest.mark.usefixtures("terminal")
def test_check_draws_a_bar_on_a_terminal_and_none_with_json() -> None:
    assert _has_bar(runner.invoke(app, CHEAP_CHECK).stderr)
    quiet = runner.invoke(app, [*CHEAP_CHECK, "--json"])
    assert quiet.stdout.lstrip().startswith("{")
    assert not _has_bar(quiet.stderr)


@pytest.mark.usefixtures("terminal")
def test_run_and_data_report_show_the_world_build_on_a_terminal() -> None:
    done = runner.invoke(app, ["run", "notes/follow-up-note", "--store", "sqlite+aiosqlite:///:memory:"])
    assert done.exit_code == 0, done.output
    assert _has_bar(done.stderr)
    report = runner.invoke(app, ["data-report", "notes-small"])
    assert report.exit_code == 0, report.output
    assert _has_bar(report.stderr)
    assert report.stdout.lstrip().startswith("{")


def test_run_and_data_report_show_no_bar_when_piped() -> None:
    done = runner.invoke(app, ["run", "notes/follow-up-note", "--store", "sqlite+aiosqlite:///:memory:"])
    assert done.exit_code == 0, done.output
    assert not _has_bar(done.stderr)
