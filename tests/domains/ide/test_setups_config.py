"""Config setups are pure, seeded, and stage a real breakage with a unique fix."""

from __future__ import annotations

import random
import tomllib

from saas_sim.domains.ide.setups_config import build_markers, build_pin, build_stale_import
from saas_sim.domains.ide.task_model import HIDDEN_DIR


def test_builders_are_pure_functions_of_the_rng() -> None:
    assert build_stale_import(random.Random(2)).task == build_stale_import(random.Random(2)).task
    assert build_markers(random.Random(2), None).files == build_markers(random.Random(2), None).files
    assert build_pin(random.Random(2)).task == build_pin(random.Random(2)).task


def test_stale_import_breaks_two_or_three_callers_and_keeps_hidden_tests_hidden() -> None:
    for seed in range(20):
        task = build_stale_import(random.Random(seed)).task
        assert 2 <= len(task.fail_to_pass) <= 3 and task.pass_to_pass
        assert all(p.startswith(f"{HIDDEN_DIR}/") for p in task.hidden_files)
        assert task.scope.allowed == task.details["paths"]


def test_markers_config_parses_keeps_the_world_project_and_lacks_a_used_marker() -> None:
    world = '[project]\nname = "acme-backoffice"\nversion = "0.7.0"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n'
    staged = build_markers(random.Random(8), world)
    doc = tomllib.loads(staged.files["pyproject.toml"])
    assert doc["project"]["version"] == "0.7.0"
    registered = {m.split(":")[0] for m in doc["tool"]["pytest"]["ini_options"]["markers"]}
    missing = staged.task.details["missing"]
    assert isinstance(missing, list) and missing and not set(map(str, missing)) & registered
    assert "pyproject.toml" not in staged.task.protected and "tests/**" in staged.task.protected


def test_pin_answers_move_with_the_seed() -> None:
    answers = {(build_pin(random.Random(s)).task.details["package"], build_pin(random.Random(s)).task.details["answer"])
               for s in range(20)}
    assert len(answers) >= 10
