"""The server under test: a `saas-sim serve` child process, and what /proc says about any server process.

The bench never measures a server in its own process: the load generator's CPU would be
counted as the server's, and the two would share one event loop. `ServerProcess` starts
`saas-sim serve` on a free loopback port, waits until `/health` answers, and stops it
(SIGTERM, then SIGKILL). `ProcStats` reads a process's CPU (user + sys, from
`/proc/<pid>/stat`) and memory (VmRSS and VmHWM, from `/proc/<pid>/status`), so a server
started elsewhere (behind a load balancer) can be measured by its pid.
"""

from __future__ import annotations

import asyncio
import os
import resource
import signal
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from saas_sim.bench.http_client import Connection, HttpProtocolError
from saas_sim.core.clock import perf_ns

__all__ = ["ProcStats", "ServerProcess", "free_port", "raise_nofile", "wait_healthy"]

_TICKS = os.sysconf("SC_CLK_TCK")


def free_port(host: str = "127.0.0.1") -> int:
    """Returns a TCP port nothing listens on now (the OS's pick)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
        return port


def raise_nofile(needed: int) -> int:
    """Raises this process's soft RLIMIT_NOFILE to at least `needed` (up to the hard limit); returns it.

    Child processes inherit the limit, so a server started afterwards gets it too.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return int(soft)


class ProcStats:
    """Reads one process's CPU seconds and memory from /proc."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def cpu_s(self) -> float:
        """User + system CPU seconds the process and its live descendants have used so far.

        The descendants count: a server's grade worker (`--grade-worker`) or IDE sandbox workers
        do the server's work on other cores, and leaving them out would flatter its CPU per request.
        """
        return sum(_stat_cpu_s(pid) for pid in (self.pid, *self.descendants()))

    def descendants(self) -> list[int]:
        """The pids of the process's live descendants, from /proc (empty when it has none)."""
        children: dict[int, list[int]] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    raw = (entry / "stat").read_text()
                except OSError:  # exited meanwhile
                    continue
                children.setdefault(int(raw[raw.rindex(")") + 2:].split()[1]), []).append(int(entry.name))
        found, todo = [], [self.pid]
        while todo:
            kids = children.get(todo.pop(), [])
            found.extend(kids)
            todo.extend(kids)
        return sorted(found)

    def runqueue_wait_s(self) -> float | None:
        """Seconds the main thread (the event loop) has waited runnable for a CPU (None without schedstats).

        Over a window, this against the window's length says how much of the server's slowness is
        other processes holding the cores, not the server.
        """
        try:
            return int(Path(f"/proc/{self.pid}/schedstat").read_text().split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return None

    def memory_kb(self) -> tuple[int, int]:
        """(VmRSS, VmHWM) in KiB of the process and its live descendants: resident now, and the sum of peaks."""
        rss = hwm = 0
        for pid in (self.pid, *self.descendants()):
            try:
                lines = Path(f"/proc/{pid}/status").read_text().splitlines()
            except OSError:
                continue
            for line in lines:
                if line.startswith("VmRSS:"):
                    rss += int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm += int(line.split()[1])
        return rss, hwm

    def open_files_limit(self) -> int | None:
        """The process's soft 'Max open files' (None if /proc does not say)."""
        for line in Path(f"/proc/{self.pid}/limits").read_text().splitlines():
            if line.startswith("Max open files"):
                value = line.split()[3]
                return None if value == "unlimited" else int(value)
        return None


def _stat_cpu_s(pid: int) -> float:
    """User + system CPU seconds of one process (0 once it has exited)."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    # The command name (field 2) may hold spaces; the fields after its ')' are fixed.
    fields = raw[raw.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


async def wait_healthy(host: str, port: int, *, timeout_s: float = 120.0,
                       proc: subprocess.Popen[bytes] | None = None) -> None:
    """Polls GET /health until it answers 200.

    Raises:
        RuntimeError: The process exited, or nothing answered within `timeout_s`.
    """
    deadline = perf_ns() + int(timeout_s * 1e9)
    conn = Connection(host, port, timeout_s=5.0)
    try:
        while perf_ns() < deadline:
            if proc is not None and proc.poll() is not None:
                raise RuntimeError(f"the server exited with code {proc.returncode} before it was ready")
            try:
                if (await conn.request("GET", "/health")).status == 200:
                    return
            except (OSError, HttpProtocolError):
                pass
            await asyncio.sleep(0.05)  # a readiness poll, not a timed wait
    finally:
        conn.close()
    raise RuntimeError(f"no answer from http://{host}:{port}/health within {timeout_s:g} s")


class ServerProcess:
    """`saas-sim serve` as a child process on a free loopback port (an async context manager)."""

    def __init__(self, store: str, options: Sequence[str] = (), *, log_path: Path, host: str = "127.0.0.1",
                 cwd: Path | None = None) -> None:
        self.store = store
        self.options = list(options)
        self.host = host
        self.port = free_port(host)
        self.log_path = log_path
        self.cwd = cwd
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The server's base URL."""
        return f"http://{self.host}:{self.port}"

    @property
    def pid(self) -> int:
        """The server's process id."""
        assert self.proc is not None, "not started"
        return self.proc.pid

    async def __aenter__(self) -> ServerProcess:
        self.proc = self._spawn()
        try:
            await wait_healthy(self.host, self.port, proc=self.proc)
        except BaseException:
            self.stop()
            raise
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await asyncio.to_thread(self.stop)

    def _spawn(self) -> subprocess.Popen[bytes]:
        argv = [sys.executable, "-m", "saas_sim.cli", "serve", "--host", self.host, "--port", str(self.port),
                "--store", self.store, *self.options]
        with self.log_path.open("ab") as log:
            return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=self.cwd)

    def stop(self) -> None:
        """Stops the server: SIGTERM (it closes its episodes), then SIGKILL after 20 s."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)

    def log_tail(self, lines: int = 20) -> str:
        """The last lines of the server's log (for an error message)."""
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""
