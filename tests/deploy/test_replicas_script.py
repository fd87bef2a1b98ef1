"""deploy/replicas.sh, the shipped launcher: it serves through HAProxy, and SIGTERM stops everything it started.

Needs `SAAS_SIM_TEST_PG_URL` and haproxy: locally the test skips without them; under CI it fails.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.adapters.test_cli_adapters import free_loopback_port
from tests.deploy.cluster import DEPLOY, REPLICA_HEADER, healthy, log_tail, poll, require_haproxy, saas_sim_bin

SCRIPT = DEPLOY / "replicas.sh"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_replicas_sh_refuses_a_store_that_is_not_postgresql(tmp_path: Path) -> None:
    done = subprocess.run(["bash", str(SCRIPT), "--store", f"sqlite+aiosqlite:///{tmp_path}/e.db",
                           "--run-dir", str(tmp_path / "run")], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "PostgreSQL" in done.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.postgres
def test_replicas_sh_serves_an_episode_through_haproxy_and_stops_everything(tmp_path: Path, pg_url: str) -> None:
    require_haproxy()
    port, lb = free_loopback_port(), free_loopback_port()
    run, log = tmp_path / "run", tmp_path / "replicas.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            ["bash", str(SCRIPT), "--store", pg_url, "-n", "1", "--base-port", str(port),
             "--listen", f"127.0.0.1:{lb}", "--run-dir", str(run)],
            env={**os.environ, "SAAS_SIM_BIN": str(saas_sim_bin()), "PYTHONDONTWRITEBYTECODE": "1"},
            cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{lb}"
    try:
        poll(lambda: healthy(url), "replicas.sh", alive=lambda: proc.poll() is None, detail=lambda: log_tail(log))
        pids = [int((run / name).read_text()) for name in ("r1.pid", "haproxy.pid")]
        with httpx.Client(base_url=url, timeout=60.0, trust_env=False) as client:
            created = client.post("/episodes", json={"scenario": "crm/close-won-from-line-items", "seed": 0,
                                                     "faults": None, "include_tools": False})
            assert created.status_code == 201, created.text
            episode = created.json()["episode_id"]
            called = client.post(f"/episodes/{episode}/calls",
                                 json={"tool": "crm.search_deals", "arguments": {}, "call_id": "c0"})
        assert called.status_code == 200 and called.headers[REPLICA_HEADER] == "r1", called.text
        assert (run / "haproxy.cfg").read_text().count("server r1 127.0.0.1:") == 3  # one line per backend
    finally:
        proc.send_signal(signal.SIGTERM)
        returncode = proc.wait(timeout=60)
    assert returncode == 143, log_tail(log)
    assert not [p for p in pids if _alive(p)], log_tail(log)
    assert not list(run.glob("*.pid"))
    assert "replicas: stopped" in log.read_text()
