"""`saas_sim.adapters.gym` driven by gymnasium 1.4.0's own code (`check_env`, `make`, `TimeLimit`) in its venv.

Gymnasium is never a dependency of saas_sim: `.ci/ecosystem.sh` makes a venv with it and this
checkout installed editable, and `tests/adapters/gym_drive.py` runs there (found through
`SAAS_SIM_GYM_PYTHON`; without it the tests skip locally and fail in CI). The driver runs
every check once and reports each; one test per check asserts it passed.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.adapters.test_openenv_ecosystem import ecosystem_python

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DRIVE = HERE / "gym_drive.py"
# The check names, read from the driver's source (importing it would import gymnasium here).
CHECK_NAMES = [chunk.split("def ", 1)[1].split("(", 1)[0]
               for chunk in DRIVE.read_text(encoding="utf-8").split("\n@check\n")[1:]]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    python = ecosystem_python("SAAS_SIM_GYM_PYTHON")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([python, str(DRIVE), str(tmp_path_factory.mktemp("gym"))], capture_output=True,
                          text=True, timeout=600, check=False, env=env, cwd=tmp_path_factory.getbasetemp())
    assert done.returncode == 0, f"gym_drive.py failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    answer: dict[str, str] = json.loads(done.stdout)
    return answer


def test_the_driver_ran_against_gymnasium_1_4_0(report: dict[str, str]) -> None:
    assert report["gymnasium"] == "1.4.0"
    assert set(report) - {"gymnasium"} == set(CHECK_NAMES) and len(CHECK_NAMES) >= 10


@pytest.mark.parametrize("name", CHECK_NAMES)
def test_gym_check(name: str, report: dict[str, str]) -> None:
    assert report[name] == "ok", report[name]


# One episode's reset and first steps, printed as JSON (reset info and step infos included).
EPISODE = """
import json, gymnasium as gym
from saas_sim.adapters.gym import register_all
ids = register_all()
env = gym.make(next(i for i in ids if i.startswith("saas_sim/crm-advance-qualified-deal-v")))
env.action_space.seed(4)
out = [env.reset(seed=9)]
out += [env.step(env.action_space.sample()) for _ in range(3)]
print(json.dumps(out, sort_keys=True))
env.close()
"""


def test_same_seed_same_actions_give_identical_output_across_processes_and_hash_seeds(tmp_path: Path) -> None:
    python = ecosystem_python("SAAS_SIM_GYM_PYTHON")
    outputs = []
    for hash_seed in ("1", "2"):
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env.update(PYTHONHASHSEED=hash_seed, PYTHONDONTWRITEBYTECODE="1")
        done = subprocess.run([python, "-c", EPISODE], capture_output=True, text=True, timeout=300, check=False,
                              env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]
    (obs, info), *steps = outputs[0]
    assert obs and info["seed"] == 9 and len(steps) == 3
