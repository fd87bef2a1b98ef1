"""The IDE benchmark: its figures come from real sandboxed runs (timed by the bench, never asserted here)."""

from __future__ import annotations

from typer.testing import CliRunner

from saas_sim.bench.ide import run_ide_bench
from saas_sim.cli import IDE_RESET_SCENARIOS, app
from saas_sim.runtime.environment import Environment


def test_the_ide_bench_times_real_runs_that_all_pass() -> None:
    figures = run_ide_bench(repeats=2, in_flight=4)
    assert figures["loop_runs_failed"] == 0 and figures["loop_runs_in_flight"] == 4
    for key in ("run_tests_20_p50_ms", "cached_rerun_p50_ms", "grade_repo_p50_ms", "loop_lag_p99_ms"):
        assert figures[key] > 0, key


def test_the_reset_scenarios_compare_a_small_and_a_300_file_world() -> None:
    env = Environment("sqlite+aiosqlite:///:memory:")
    worlds = [env.scenario(ref).spec.world for ref in IDE_RESET_SCENARIOS]
    assert worlds == ["ide-default", "ide-large"]
    assert int(env.profiles["ide-large"].domains["ide"]["files"]) == 300


def test_bench_ide_is_a_command() -> None:
    assert "ide" in CliRunner().invoke(app, ["bench", "--help"]).output
