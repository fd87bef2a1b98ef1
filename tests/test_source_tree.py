"""The suite writes only under temporary folders: no bytecode from subprocesses, no `.hypothesis/` in the tree.

`tests/conftest.py` also fails the whole session if bytecode or Hypothesis files
appeared or changed in the source tree; these tests pin the mechanisms.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import hypothesis
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.configuration import storage_directory

from tests.conftest import ROOT, tree_artifacts


def test_a_subprocess_started_like_the_suite_does_writes_no_bytecode(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text("VALUE = 42\n")
    # The suite's subprocesses pass the test process's environment on, as this one does.
    proc = subprocess.run(
        [sys.executable, "-c", "import pkg.mod, sys; print(pkg.mod.VALUE, sys.dont_write_bytecode)"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)}, capture_output=True, text=True,
        timeout=60, check=True,
    )
    assert proc.stdout.split() == ["42", "True"]
    assert not list(tmp_path.rglob("*.pyc")), "the subprocess wrote bytecode next to its sources"


def test_hypothesis_keeps_no_example_database_and_no_storage_in_the_tree() -> None:
    assert hypothesis.settings().database is None
    home = storage_directory(intent_to_write=False).home_directory.resolve()
    assert not home.is_relative_to(ROOT), f"Hypothesis stores under {home}, inside the source tree"
    assert not home.is_relative_to(Path.cwd().resolve())


@given(st.text(min_size=1))
def test_a_text_property_runs_without_writing_into_the_tree(text: str) -> None:
    # Text strategies build Hypothesis's unicode tables, which it caches in its storage directory.
    assert len(text) >= 1


def test_the_source_tree_check_sees_new_bytecode(tmp_path: Path) -> None:
    cache = tmp_path / "pkg" / "__pycache__"
    cache.mkdir(parents=True)
    before = tree_artifacts(tmp_path)
    (cache / "mod.cpython-311.pyc").write_bytes(b"\0")
    (tmp_path / ".hypothesis" / "constants").mkdir(parents=True)
    (tmp_path / ".hypothesis" / "constants" / "abc").write_text("x")
    (tmp_path / "pkg" / "mod.py").write_text("")  # a source file is not an artifact
    assert set(tree_artifacts(tmp_path)) - set(before) == {
        "pkg/__pycache__/mod.cpython-311.pyc", ".hypothesis/constants/abc"
    }
