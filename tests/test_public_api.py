"""The public face: `saas_sim.__all__` is curated, sorted, complete and importable."""

from __future__ import annotations

import re
import subprocess
import sys
import types
from pathlib import Path

import saas_sim
from saas_sim.core.domain import Domain
from saas_sim.core.tools import tool
from saas_sim.errors import SaasSimError
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import CallResult, Episode
from saas_sim.runtime.grading import CheckScore, Grade, Violation

ROOT = Path(__file__).resolve().parents[1]

# What a user needs to run episodes and to write a domain; each must stay exported.
PROMISED = (
    "READ", "WRITE", "AppendResult", "CallResult", "CheckContext", "CheckOutcome", "CheckScore", "Domain",
    "Environment", "Episode", "Event", "EventRegistry", "EventStore", "GenerateContext", "Grade", "HarnessError",
    "RecordedEvent", "SaasSimError", "Setup", "SetupContext", "State", "ToolArgs", "ToolContext", "ToolError",
    "ToolResult", "Violation", "event", "open_store", "tool", "upcaster",
)


def _isort_key(name: str) -> tuple[int, str]:
    """ruff's RUF022 order: CONSTANTS, then Classes, then functions, each alphabetical."""
    kind = 0 if name.isupper() else 1 if name[0].isupper() else 2
    return kind, name


def test_all_is_sorted_and_unique() -> None:
    assert saas_sim.__all__ == sorted(saas_sim.__all__, key=_isort_key)
    assert len(set(saas_sim.__all__)) == len(saas_sim.__all__)


def test_all_holds_every_promised_name() -> None:
    assert sorted(set(PROMISED) - set(saas_sim.__all__)) == []


def test_every_exported_name_exists() -> None:
    missing = [name for name in saas_sim.__all__ if getattr(saas_sim, name, None) is None]
    assert missing == []


def test_every_public_name_of_the_package_is_exported() -> None:
    # Submodules become attributes once imported; they are reached by path, not exported.
    public = {
        name for name, value in vars(saas_sim).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    public.discard("annotations")  # the `from __future__ import annotations` feature flag
    assert sorted(public - set(saas_sim.__all__)) == []


def test_star_import_binds_exactly_all() -> None:
    namespace: dict[str, object] = {}
    exec("from saas_sim import *", namespace)
    assert sorted(k for k in namespace if k != "__builtins__") == sorted(saas_sim.__all__)


def test_exports_are_the_defining_objects() -> None:
    assert saas_sim.Environment is Environment
    assert saas_sim.Episode is Episode
    assert saas_sim.CallResult is CallResult
    assert (saas_sim.Grade, saas_sim.CheckScore, saas_sim.Violation) == (Grade, CheckScore, Violation)
    assert saas_sim.Domain is Domain
    assert saas_sim.tool is tool
    assert saas_sim.SaasSimError is SaasSimError


def test_unknown_attribute_raises_attribute_error() -> None:
    assert not hasattr(saas_sim, "NoSuchName")


def test_importing_the_package_does_not_load_the_runtime() -> None:
    code = "import sys, saas_sim; print(sorted(m for m in sys.modules if m.startswith('saas_sim.runtime')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"


def test_version_is_the_leaf_modules() -> None:
    from saas_sim._version import __version__

    assert saas_sim.__version__ == __version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)


def test_readme_python_examples_import_from_the_package_root() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", readme, re.S | re.M)
    assert blocks
    imports = [line for block in blocks for line in block.splitlines() if re.match(r"\s*(from|import) saas_sim", line)]
    assert imports
    assert [line for line in imports if not line.strip().startswith("from saas_sim import ")] == []
