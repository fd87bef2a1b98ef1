"""A loopback deployment for the replica tests: N `saas-sim serve` replicas over one PostgreSQL, HAProxy in front.

The replicas are subprocesses of the venv's `saas-sim serve --durable-reads`, on free loopback ports; the
load balancer is Debian's `haproxy`, run in the foreground on the configuration `deploy/haproxy-config.sh`
prints for those ports (the file users get). Every wait polls a readiness condition with a deadline; the
deadline only ends a hung run, nothing is timed by it.

HAProxy and PostgreSQL are external: `require_haproxy` skips a test locally when haproxy is missing, and
fails it under CI (`CI` set), as `pg_base_url` does for PostgreSQL.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.adapters.test_cli_adapters import free_loopback_port, stop_server
from tests.conftest import ROOT

DEPLOY = ROOT / "deploy"
CONFIG_SCRIPT = DEPLOY / "haproxy-config.sh"
STARTUP_S = 120.0
"""How long a replica or HAProxy may take to answer /health before the run is declared hung."""

REPLICA_HEADER = "x-saas-sim-replica"
"""The response header HAProxy sets to the name (r1, r2, ...) of the replica that answered."""


def require_haproxy() -> str:
    """Returns the haproxy executable; skips without it, or fails under CI (which installs it)."""
    found = shutil.which("haproxy") or next((p for p in ("/usr/sbin/haproxy",) if Path(p).exists()), None)
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail("haproxy is missing, but the replica tests must run in CI: run .ci/setup_haproxy.sh")
    pytest.skip("the replica tests need haproxy (Debian's package; .ci/setup_haproxy.sh installs it)")


def saas_sim_bin() -> Path:
    """The `saas-sim` entry point of the interpreter running the tests (the venv's)."""
    path = Path(sys.executable).with_name("saas-sim")
    if not path.exists():
        pytest.fail(f"no saas-sim entry point beside {sys.executable}; install the package (pip install -e .)")
    return path


def haproxy_config(listen: str, servers: list[str]) -> str:
    """The configuration the shipped generator prints for these addresses."""
    done = subprocess.run(["bash", str(CONFIG_SCRIPT), "--listen", listen, *servers],
                          capture_output=True, text=True, check=False, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


def log_tail(path: Path, lines: int = 40) -> str:
    """The last lines of a log file, for failure messages."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log)"


def poll(ready: Callable[[], bool], what: str, *, alive: Callable[[], bool] = lambda: True,
         timeout_s: float = STARTUP_S, detail: Callable[[], str] = lambda: "") -> None:
    """Polls `ready` until true; fails if `alive` turns false or after `timeout_s` (a hang, not a measure)."""
    deadline = time.monotonic() + timeout_s
    while not ready():
        if not alive():
            pytest.fail(f"{what}: the process exited\n{detail()}")
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not ready after {timeout_s:g}s\n{detail()}")
        time.sleep(0.05)


def healthy(url: str) -> bool:
    """Whether GET {url}/health answers 200."""
    try:
        return httpx.get(f"{url}/health", timeout=2.0, trust_env=False).status_code == 200
    except httpx.HTTPError:
        return False


@dataclass
class Replica:
    """One `saas-sim serve` process.

    Attributes:
        name: Its server name in HAProxy's configuration (r1, r2, ...).
        port: Its loopback port.
        proc: The process.
        log: Its stdout and stderr.
    """

    name: str
    port: int
    proc: subprocess.Popen[bytes]
    log: Path

    @property
    def url(self) -> str:
        """Its own base URL (bypassing the load balancer)."""
        return f"http://127.0.0.1:{self.port}"

    def kill9(self) -> None:
        """Kills it with SIGKILL: no shutdown, no flush, as a crash or an OOM kill would."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)


@dataclass
class Cluster:
    """Replicas behind HAProxy.

    Attributes:
        url: The load balancer's base URL.
        replicas: The replicas, r1 first.
        haproxy: The HAProxy process (None until started).
        haproxy_log: HAProxy's log (failed, retried and redispatched requests).
        config: The configuration HAProxy runs.
    """

    url: str
    replicas: list[Replica]
    haproxy_log: Path
    config: Path
    haproxy: subprocess.Popen[bytes] | None = None

    def replica(self, name: str) -> Replica:
        """The replica HAProxy calls `name`."""
        return next(r for r in self.replicas if r.name == name)


def launch_replicas(tmp_path: Path, store_url: str, count: int, *, idle_ttl_s: float = 60.0,
                    extra: tuple[str, ...] = ()) -> list[Replica]:
    """Starts `count` replicas (not waiting for them: the caller may prepare meanwhile, then `wait_ready`)."""
    binary = saas_sim_bin()
    replicas = []
    for i in range(1, count + 1):
        port = free_loopback_port()
        log = tmp_path / f"r{i}.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [str(binary), "serve", "--host", "127.0.0.1", "--port", str(port), "--store", store_url,
                 "--durable-reads", "--idle-ttl", f"{idle_ttl_s:g}", *extra],
                cwd=tmp_path, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
                stdout=out, stderr=subprocess.STDOUT,
            )
        replicas.append(Replica(f"r{i}", port, proc, log))
    return replicas


def wait_ready(replicas: list[Replica]) -> None:
    """Waits until every replica answers /health."""
    for r in replicas:
        _wait_replica(r)


def _wait_replica(r: Replica) -> None:
    poll(lambda: healthy(r.url), f"replica {r.name} on {r.url}", alive=lambda: r.proc.poll() is None,
         detail=lambda: log_tail(r.log))


def start_haproxy(tmp_path: Path, replicas: list[Replica]) -> Cluster:
    """Writes the generated configuration for `replicas` and runs HAProxy on it until it answers /health."""
    haproxy = require_haproxy()
    port = free_loopback_port()
    config = tmp_path / "haproxy.cfg"
    config.write_text(haproxy_config(f"127.0.0.1:{port}", [f"127.0.0.1:{r.port}" for r in replicas]))
    log = tmp_path / "haproxy.log"
    cluster = Cluster(f"http://127.0.0.1:{port}", replicas, log, config)
    with log.open("wb") as out:
        cluster.haproxy = subprocess.Popen([haproxy, "-db", "-f", str(config)], cwd=tmp_path,
                                           stdout=out, stderr=subprocess.STDOUT)
    proc = cluster.haproxy
    poll(lambda: healthy(cluster.url), f"HAProxy on {cluster.url}", alive=lambda: proc.poll() is None,
         detail=lambda: log_tail(log))
    return cluster


def stop(cluster_or_replicas: Cluster | list[Replica]) -> None:
    """Stops HAProxy (if any) and every replica still running."""
    if isinstance(cluster_or_replicas, Cluster):
        if cluster_or_replicas.haproxy is not None and cluster_or_replicas.haproxy.poll() is None:
            stop_server(cluster_or_replicas.haproxy)
        replicas = cluster_or_replicas.replicas
    else:
        replicas = cluster_or_replicas
    for r in replicas:
        if r.proc.poll() is None:
            with suppress(ProcessLookupError):
                stop_server(r.proc)


@asynccontextmanager
async def running_cluster(tmp_path: Path, store_url: str, count: int, *,
                          prepare: Callable[[], Awaitable[object]] | None = None,
                          idle_ttl_s: float = 60.0) -> AsyncIterator[Cluster]:
    """Runs `count` replicas and HAProxy for the block; `prepare` runs in this process while the replicas start."""
    require_haproxy()
    replicas = launch_replicas(tmp_path, store_url, count, idle_ttl_s=idle_ttl_s)
    cluster: Cluster | None = None
    try:
        if prepare is not None:
            await prepare()
        wait_ready(replicas)
        cluster = start_haproxy(tmp_path, replicas)
        yield cluster
    finally:
        stop(cluster if cluster is not None else replicas)
