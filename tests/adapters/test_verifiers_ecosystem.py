"""verifiers 0.4's own `vf-eval` and built-in OpenEnv taskset drive `saas-sim serve --openenv`, with no adapter code.

The taskset (`verifiers.v1.tasksets.openenv`) connects `GenericEnvClient` to the server,
lists the tools, resets with each configured `{scenario, seed}`, and sends the model's
replies as OpenEnv actions; the reward it records is the sum of the steps' rewards, which
our server gives once, on `submit`: the grade's score. The model is the package's stub
server (`tests/adapters/verifiers_model.py`), playing each task's oracle or a named hack.
Its harness runs in verifiers' `subprocess` runtime, and `--no-push` keeps the run local:
nothing leaves the machine.

verifiers runs in its own virtualenv (`.ci/ecosystem.sh`, `SAAS_SIM_VERIFIERS_PYTHON`);
without it the test skips locally and fails in CI.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from saas_sim.runtime.agents import make_agent
from saas_sim.runtime.environment import Environment
from tests.adapters.test_cli_adapters import free_loopback_port, log_text, stop_server
from tests.adapters.test_openenv_ecosystem import ecosystem_python, wait_until

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
MEMORY = "sqlite+aiosqlite:///:memory:"
# (scenario, seed, agent): what the stub model plays on each reset.
TASKS = [
    ("crm/advance-qualified-deal", 0, "oracle"),
    ("support/refund-damaged-item", 1, "oracle"),
    ("support/escalate-threat", 0, "hack:right_team_generic_reason"),  # partial credit: a reward other than 0 or 1
]


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        stop_server(proc)


def _start(argv: list[str], log: Path, procs: list[subprocess.Popen[bytes]], cwd: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=log.open("w+b"), stderr=subprocess.STDOUT)
    procs.append(proc)
    return proc


def _first_line(path: Path) -> str:
    text = path.read_text(errors="replace")
    return text.split("\n", 1)[0] if "\n" in text else ""


async def _expected_scores() -> list[float | None]:
    async with Environment(MEMORY) as env:
        scores = []
        for scenario, seed, agent in TASKS:
            episode = await env.start(scenario, seed)
            await make_agent(agent, episode.task.scenario).run(episode)
            scores.append((await episode.grade()).score)
            await episode.close()
        return scores


def test_vf_eval_with_the_openenv_taskset_gets_our_grades_as_rewards(
        tmp_path: Path, processes: list[subprocess.Popen[bytes]]) -> None:
    python = ecosystem_python("SAAS_SIM_VERIFIERS_PYTHON")
    port = free_loopback_port()
    server_log, model_log = tmp_path / "server.log", tmp_path / "model.log"
    server = _start([sys.executable, "-m", "saas_sim.cli", "serve", "--openenv", "--port", str(port),
                     "--store", MEMORY], server_log, processes, tmp_path)
    hacks = [f"{s}={a.removeprefix('hack:')}" for s, _, a in TASKS if a.startswith("hack:")]
    model = _start([sys.executable, str(HERE / "verifiers_model.py"), *hacks], model_log, processes, tmp_path)
    wait_until(lambda: _first_line(model_log).startswith("http://"), 90.0, lambda: model_log.read_text(), proc=model)
    wait_until(lambda: "Uvicorn running" in server_log.read_text(errors="replace"), 90.0,
               lambda: server_log.read_text(), proc=server)

    resets = ", ".join(f'{{scenario = "{s}", seed = {n}}}' for s, n, _ in TASKS)
    (tmp_path / "eval.toml").write_text(f"""
model = "stub"
push = false
output_dir = "{tmp_path / 'outputs'}"

[run]
name = "saas-sim"

[env.taskset]
id = "openenv"
base_url = "http://127.0.0.1:{port}"
resets = [{resets}]

[env.player.runtime]
type = "subprocess"

[client]
base_url = "{_first_line(model_log)}"
api_key_var = "SAAS_SIM_STUB_KEY"
""")
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PRIME_API_KEY")}
    # HOME under tmp_path: verifiers keeps its subprocess runtimes and caches there.
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), SAAS_SIM_STUB_KEY="stub")
    done = subprocess.run([str(Path(python).parent / "vf-eval"), "@", str(tmp_path / "eval.toml"), "--no-rich"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, f"vf-eval failed ({done.returncode}):\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"

    episodes = [json.loads(line) for line in (tmp_path / "outputs" / "saas-sim" / "traces.jsonl").open()]
    rewards: dict[tuple[str, int], float] = {}
    for episode in episodes:
        assert episode["ok"] and not episode["errors"], episode["errors"]
        reset = episode["task"]["data"]["reset"]
        (trace,) = episode["traces"]
        rewards[(reset["scenario"], reset["seed"])] = trace["rewards"]["openenv_reward"]["score"]
    expected = asyncio.run(_expected_scores())
    assert rewards == {(s, n): score for (s, n, _), score in zip(TASKS, expected, strict=True)}
    assert sorted(set(expected)) == [0.2, 1.0]  # both full and partial credit came through
    assert "Traceback" not in log_text(server_log.open("rb")) + model_log.read_text()
