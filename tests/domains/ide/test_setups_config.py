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


def test_markers_without_distractors_is_todays_task() -> None:
    for seed in range(5):
        plain, zero = build_markers(random.Random(seed), None), build_markers(random.Random(seed), None, 0)
        assert (plain.files, plain.task, plain.bindings) == (zero.files, zero.task, zero.bindings)
        assert "distractors" not in plain.bindings and "distractors" not in plain.task.details


def test_markers_distractors_are_used_and_registered_and_the_fix_keeps_them() -> None:
    for seed in range(10):
        staged = build_markers(random.Random(seed), None, 4)
        extra = staged.bindings["distractors"]
        assert len(extra) == 4 and not set(extra) & set(staged.task.details["missing"])
        before = tomllib.loads(staged.files["pyproject.toml"])["tool"]["pytest"]["ini_options"]["markers"]
        after = tomllib.loads(staged.oracle["pyproject.toml"])["tool"]["pytest"]["ini_options"]["markers"]
        for m in extra:
            assert f"@pytest.mark.{m}\n" in staged.files[f"tests/test_marked_{m}.py"]
            assert any(line.startswith(f"{m}:") for line in before) and any(line.startswith(f"{m}:") for line in after)
        # The same missing markers as the task without distractors: only the bystanders were added.
        assert staged.task.details["missing"] == build_markers(random.Random(seed), None).task.details["missing"]


def test_pin_without_distractors_is_todays_task() -> None:
    for seed in range(5):
        plain, zero = build_pin(random.Random(seed)), build_pin(random.Random(seed), 0)
        assert (plain.files, plain.task, plain.bindings) == (zero.files, zero.task, zero.bindings)


def test_pin_distractors_hold_bystanders_back_at_older_indexed_versions_and_keep_the_answer() -> None:
    for seed in range(10):
        plain, held = build_pin(random.Random(seed)), build_pin(random.Random(seed), 2)
        assert held.task.details["answer"] == plain.task.details["answer"]
        assert held.task.details["package"] == plain.task.details["package"]
        index = held.files["wheelhouse/INDEX.txt"]
        lines = held.bindings["distractors"]
        assert len(lines) == 2
        for line in lines:
            name, version = line.split("==")
            assert f"{name} {version}" in index and line + "\n" in held.files["requirements.txt"]
            assert line + "\n" not in plain.files["requirements.txt"]  # older than the newest it used to pin
            assert name not in (held.bindings["package"], held.bindings["dependent"])
