"""The generated acme project: seeded, messy, sized by the profile, and its visible tests pass."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from datetime import UTC, datetime

from saas_sim.core.canonical import stable_hash
from saas_sim.core.domain import GenerateContext
from saas_sim.core.ids import IdFactory
from saas_sim.core.rng import SeedTree
from saas_sim.core.state import State
from saas_sim.domains.ide.gen_modules import CORE_MODULES
from saas_sim.domains.ide.generate import IdeParams, build_project, generate, visible_test_path
from saas_sim.domains.ide.sandbox import run_pytest
from saas_sim.domains.ide.state import BASE, PROJECTION
from saas_sim.domains.ide.workspace import base_files, tree_files


def test_same_seed_gives_the_same_files_and_another_seed_other_constants() -> None:
    assert build_project(3).files == build_project(3).files
    a, b = build_project(3).modules, build_project(4).modules
    assert a.keys() == b.keys()
    assert any(a[p] != b[p] for p in a)


def test_every_python_file_parses_and_paths_are_sorted() -> None:
    files = build_project(5, {"files": 120}).files
    assert list(files) == sorted(files)
    for path, text in files.items():
        if path.endswith(".py"):
            ast.parse(text, filename=path)


def test_profile_sizes_the_project_with_distractors() -> None:
    small, large = build_project(0, {"files": 10}).files, build_project(0, {"files": 300}).files
    assert len(small) <= 24
    assert 295 <= len(large) <= 305
    assert "acme/legacy/billing_v1.py" in large
    assert "acme/legacy/billing_v1.py" not in small


def test_every_unit_has_a_visible_test_file_and_a_pytest_config() -> None:
    files = build_project(1).files
    assert "[tool.pytest.ini_options]" in files["pyproject.toml"]
    for module in CORE_MODULES:
        assert module.path in files
        for unit in module.units:
            assert f"def test_{unit.function}_00" in files[visible_test_path(unit)]


def test_mess_appends_dead_code_only_when_asked() -> None:
    clean = build_project(2, IdeParams(mess=0.0)).modules
    messy = build_project(2, IdeParams(mess=1.0)).modules
    assert all("not used anymore" not in t for t in clean.values())
    assert all("not used anymore" in t for t in messy.values())


def test_visible_tests_pass_on_the_generated_project() -> None:
    report = run_pytest(build_project(7, {"files": 40}).files, selection=None, timeout_s=60)
    assert report.counts()["passed"] == sum(3 for m in CORE_MODULES for _ in m.units)
    assert report.status == "ok", report.failures


def test_generate_writes_every_file_and_marks_the_base() -> None:
    ctx = GenerateContext(params={"files": 30}, seed=SeedTree(11), state=State(),
                          now=datetime(2026, 3, 2, tzinfo=UTC), ids=IdFactory())
    state = PROJECTION.fold(State(), generate(ctx))
    files = tree_files(state)
    assert files == build_project(SeedTree(11).child("project"), {"files": 30}).files
    assert state.value(BASE) is not None
    assert base_files(state) == files


GOLDEN_DEFAULT_SEED0 = "b9b9135a421660ead74d3fc2bdb2aa42b60ab1f90c476012f41bd6994df562ef"
GOLDEN_LARGE_SEED1 = "a1ba6c28c35025c18f2d5ff18694fc5233f32e4ef30f6bbf553d9a66bae5d9cf"


def test_golden_project_hashes_make_any_drift_loud() -> None:
    # A change here changes every IDE world: bump the scenarios' versions when it is intended.
    assert stable_hash(build_project(0).files) == GOLDEN_DEFAULT_SEED0
    assert stable_hash(build_project(1, {"files": 300}).files) == GOLDEN_LARGE_SEED1


def test_project_is_the_same_in_another_process_with_another_hash_seed() -> None:
    code = ("from saas_sim.core.canonical import stable_hash;"
            "from saas_sim.domains.ide.generate import build_project;"
            "print(stable_hash(build_project(0).files))")
    env = {**os.environ, "PYTHONHASHSEED": "123", "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == GOLDEN_DEFAULT_SEED0
