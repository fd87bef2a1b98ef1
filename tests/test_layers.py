"""The import contracts of pyproject.toml ([tool.importlinter]) hold, and they catch what they claim to.

The first test lints the real package. The others lint a miniature `saas_sim`
(one empty module per layer) under a temporary folder with the same contracts,
once clean and once per planted violation, so a contract that stopped
guarding its rule fails here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_LINT = (
    "import sys; from importlinter.cli import lint_imports; "
    "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True, no_logo=True))"
)

# Modules of the miniature package: enough for every layer and sibling the contracts name.
_MINI_MODULES = (
    "__init__",
    "_version",
    "errors",
    "cli",
    "adapters/__init__",
    "adapters/http",
    "bench/__init__",
    "testing/__init__",
    "runtime/__init__",
    "runtime/episode",
    "runtime/resume",
    "scenarios/__init__",
    "scenarios/model",
    "domains/__init__",
    "domains/crm/__init__",
    "domains/support/__init__",
    "core/__init__",
    "core/store",
    "core/sqlite",
)


def _lint(cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run(
        [sys.executable, "-c", _LINT], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def _mini_package(tmp_path: Path, plant: dict[str, str]) -> Path:
    """Writes a miniature saas_sim under `tmp_path` with our pyproject; `plant` maps module -> its source."""
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text(encoding="utf-8"), encoding="utf-8")
    for module in _MINI_MODULES:
        path = tmp_path / "saas_sim" / f"{module}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(plant.get(module, ""), encoding="utf-8")
    return tmp_path


def test_package_keeps_its_import_contracts() -> None:
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_miniature_package_without_violations_passes(tmp_path: Path) -> None:
    plant = {  # every allowed direction once
        "cli": "import saas_sim.adapters.http\nimport saas_sim.bench\n",
        "adapters/http": "import saas_sim.runtime.episode\n",
        "runtime/episode": "import saas_sim.scenarios.model\nimport saas_sim.runtime.resume\n",
        "scenarios/model": "import saas_sim.domains.crm\n",
        "domains/crm/__init__": "import saas_sim.core.store\n",
        "core/sqlite": "import saas_sim.core.store\nimport saas_sim.errors\n",
        "core/store": "import saas_sim._version\n",
    }
    result = _lint(_mini_package(tmp_path, plant))
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("module", "source", "broken"),
    [
        ("scenarios/model", "import saas_sim.runtime.episode\n", "Layers point one way"),
        ("domains/crm/__init__", "import saas_sim.scenarios.model\n", "Layers point one way"),
        ("domains/support/__init__", "import saas_sim.runtime\n", "Layers point one way"),
        ("domains/crm/__init__", "import saas_sim.adapters.http\n", "Layers point one way"),
        ("core/store", "import saas_sim.domains\n", "Layers point one way"),
        ("core/store", "def f() -> None:\n    import saas_sim.runtime.episode\n", "Layers point one way"),
        ("runtime/episode", "import saas_sim.adapters\n", "Layers point one way"),
        ("runtime/episode", "import saas_sim.cli\n", "Layers point one way"),
        ("errors", "import saas_sim.core\n", "Layers point one way"),
        ("domains/support/__init__", "import saas_sim.domains.crm\n", "Domains are independent"),
        ("core/store", "def f() -> None:\n    import saas_sim.core.sqlite\n", "No import cycles"),
    ],
    ids=[
        "scenarios-to-runtime", "domain-to-scenarios", "domain-to-runtime", "domain-to-adapters",
        "core-to-domains", "core-to-runtime-lazily", "runtime-to-adapters", "runtime-to-cli",
        "errors-to-core", "domain-to-domain", "store-sqlite-cycle",
    ],
)
def test_contracts_break_on_a_planted_violation(tmp_path: Path, module: str, source: str, broken: str) -> None:
    plant = {"core/sqlite": "import saas_sim.core.store\n", module: source}
    result = _lint(_mini_package(tmp_path, plant))
    assert result.returncode == 1, result.stdout + result.stderr
    section = result.stdout.split("Broken contracts", 1)[-1]
    assert broken in section, result.stdout
