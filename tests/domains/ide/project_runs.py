"""Runs pytest on a generated file map in a temporary folder (C's tests: projects, mutants, oracles).

The sandbox (`saas_sim.domains.ide.sandbox`) is the only place the product starts processes;
until it is there, these tests run the same pytest selection in a plain child process under a
temporary folder, with the determinism profile's environment, and read per-test outcomes from
a JUnit XML report the child writes outside the tree.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path


def run_tests(files: Mapping[str, str], selection: Sequence[str] | None = None,
              timeout_s: float = 120.0) -> dict[str, str]:
    """Returns {node id: passed|failed|error|skipped} of a pytest run over `files`."""
    with tempfile.TemporaryDirectory(prefix="saas-sim-ide-") as tmp:
        root = Path(tmp) / "tree"
        for path, text in files.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        report = Path(tmp) / "report.xml"
        env = {"PATH": os.environ.get("PATH", ""), "PYTHONHASHSEED": "0", "TZ": "UTC", "LC_ALL": "C.UTF-8",
               "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
               "--rootdir", str(root), *(selection or [])]
        subprocess.run(cmd, cwd=root, env=env, capture_output=True, timeout=timeout_s, check=False)
        return _outcomes(report)


def _outcomes(report: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    if not report.exists():
        return out
    for case in ET.parse(report).getroot().iter("testcase"):
        path = case.get("classname", "").replace(".", "/") + ".py"
        nodeid = f"{path}::{case.get('name')}"
        tags = {child.tag for child in case}
        out[nodeid] = ("failed" if "failure" in tags else "error" if "error" in tags
                       else "skipped" if "skipped" in tags else "passed")
    return out
