"""Harbor's own validator accepts our ATIF exports (oracle, no-op, hack, faulty random and LLM runs).

It runs `python -m harbor.utils.trajectory_validator FILE` in Harbor's virtualenv, which
`.ci/ecosystem.sh` creates and names in `SAAS_SIM_HARBOR_PYTHON`. Without it the test
skips locally and fails in CI (`CI` set).
"""

from __future__ import annotations

import asyncio
import importlib.util
import subprocess
from pathlib import Path

from saas_sim.adapters.atif import export_atif
from saas_sim.runtime.environment import Environment
from tests.adapters.atif_episodes import SCENARIOS, agents_of, play, play_llm
from tests.adapters.test_openenv_ecosystem import ecosystem_python

VALIDATE_TIMEOUT_S = 120.0
HARBOR_SCENARIOS = (*SCENARIOS, "ide/fix-off-by-one")
"""The mapping tests' scenarios and an IDE one, whose calls run tests as effects."""


async def _export_all(folder: Path) -> list[Path]:
    exported: list[Path] = []
    async with Environment("sqlite+aiosqlite:///:memory:") as env:
        for scenario in HARBOR_SCENARIOS:
            for agent in agents_of(env, scenario):
                native = folder / f"{scenario.replace('/', '_')}-{agent.replace(':', '_')}.jsonl"
                (await play(env, scenario, 3, agent)).write(native)
                target = native.with_suffix(".atif.json")
                export_atif(native, target, agent_name=agent.split(":", 1)[0], agent_version="1")
                exported.append(target)
        if importlib.util.find_spec("openai") is not None:  # the LLM agent's model turns and token usage
            native = folder / "llm.jsonl"
            (await play_llm(env, SCENARIOS[0], 3)).write(native)
            exported.append(native.with_suffix(".atif.json"))
            export_atif(native, exported[-1])
    return exported


def test_harbors_validator_accepts_every_agents_export(tmp_path: Path) -> None:
    python = ecosystem_python("SAAS_SIM_HARBOR_PYTHON")
    exported = asyncio.run(_export_all(tmp_path))
    assert len(exported) >= 3 * len(HARBOR_SCENARIOS)
    for target in exported:
        done = subprocess.run([python, "-m", "harbor.utils.trajectory_validator", str(target)], capture_output=True,
                              text=True, timeout=VALIDATE_TIMEOUT_S, check=False)
        assert done.returncode == 0, f"{target.name}: {done.stdout}{done.stderr}"
        assert "Trajectory is valid" in done.stdout


def test_harbors_validator_rejects_a_broken_export(tmp_path: Path) -> None:
    """The check has teeth: a tool call's observation pointing at an unknown call id fails validation."""
    python = ecosystem_python("SAAS_SIM_HARBOR_PYTHON")
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": "ATIF-v1.8", "agent": {"name": "a", "version": "1"}, "steps": ['
                   '{"step_id": 1, "source": "agent", "message": "", "tool_calls": [{"tool_call_id": "c1", '
                   '"function_name": "crm.get_deal", "arguments": {}}], "observation": {"results": '
                   '[{"source_call_id": "c2", "content": "{}"}]}}]}', encoding="ascii")
    done = subprocess.run([python, "-m", "harbor.utils.trajectory_validator", str(bad)], capture_output=True,
                          text=True, timeout=VALIDATE_TIMEOUT_S, check=False)
    assert done.returncode == 1
    assert "c2" in done.stderr
