"""Every tool method's schema, built by transformers 5.24.0's own `get_json_schema`, matches the tool's.

transformers is never a dependency of saas_sim: `.ci/ecosystem.sh` makes a venv with it (no
torch) and this checkout installed editable, and `tests/adapters/trl_drive.py` runs there (found
through `SAAS_SIM_TRL_PYTHON`; without it the tests skip locally and fail in CI).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from saas_sim.runtime.environment import Environment
from tests.adapters.test_openenv_ecosystem import ecosystem_python
from tests.runtime.conftest import notes_env

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SCENARIOS = [s.spec.id for s in Environment(None).scenarios("*")] + [s.spec.id for s in notes_env().scenarios("*")]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    python = ecosystem_python("SAAS_SIM_TRL_PYTHON")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([python, str(HERE / "trl_drive.py")], capture_output=True, text=True, timeout=600,
                          check=False, env=env, cwd=tmp_path_factory.mktemp("trl"))
    assert done.returncode == 0, f"trl_drive.py failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    answer: dict[str, str] = json.loads(done.stdout)
    return answer


def test_the_driver_used_transformers_5_24_0_and_caught_a_drifted_schema(report: dict[str, str]) -> None:
    assert report["transformers"] == "5.24.0"
    assert report["comparison_catches_drift"] == "ok", report["comparison_catches_drift"]
    assert set(report) - {"transformers", "comparison_catches_drift"} == set(SCENARIOS)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_get_json_schema_matches_every_tool_method(scenario: str, report: dict[str, str]) -> None:
    assert report[scenario] == "ok", report[scenario]
