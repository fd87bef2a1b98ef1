"""Warm workers: sandboxed Pythons with pytest imported that fork one child per run.

A worker is started once (about 0.2 s: the sandbox plus importing pytest) and then serves runs one at a
time; the pool keeps idle workers for reuse and starts more when every one is busy. The worker times a
run out on the run's own clock (wall time less the time it waited for a CPU) and kills every process of
it. The host waits for the reply up to `STARVATION_ALLOWANCE` times the timeout as a backstop, then
writes a cancel byte. A worker that does not answer within `GRACE_S` after that, or that died (agent code
can kill its own worker: both run as the run user), is killed with its whole sandbox and replaced; that
run's outcome is recorded as a timeout or a failure, never raised. A worker found dead before a request
reached it never ran it: the request goes to another worker.

Workers are started only from the pool's own spawner threads, which live as long as the pool. bwrap's
`--die-with-parent` is `PR_SET_PDEATHSIG`, which the kernel ties to the *thread* that forked the
sandbox, not to the process: a worker started from a short-lived thread (anyio's effect threads exit
after 10 s idle) was killed when that thread ended, in the middle of whatever run another thread had
given it, and the run was scored as failed.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import json
import logging
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any

from saas_sim.core.clock import perf_ns
from saas_sim.domains.ide.sandbox.profile import (
    ENV,
    SCRATCH,
    Limits,
    detect_isolation,
    interpreter_prefixes,
    launch_command,
    run_user,
)
from saas_sim.domains.ide.sandbox.report import Isolation
from saas_sim.errors import HarnessError

__all__ = ["GRACE_S", "MAX_WORKERS", "RETIRE", "STARVATION_ALLOWANCE", "Reply", "Worker", "WorkerGoneError",
           "WorkerPool", "WorkerRetiredError", "default_pool", "wait_budget_s"]

log = logging.getLogger(__name__)

GRACE_S = 5.0
"""How long a worker may take to answer after a cancel before it is killed with its sandbox."""

STARVATION_ALLOWANCE = 4.0
"""The host's backstop, as a multiple of a run's wall timeout. The worker times a run out itself on the
run's own clock (wall time less the time it waited for a CPU), so a run on a busy host may take longer
than its timeout in wall time; past this multiple the host cancels it anyway."""


def wait_budget_s(timeout_s: float) -> float:
    """The longest a run with wall timeout `timeout_s` can hold its caller: a worker's start, the host's
    backstop and the cancel's grace. A caller that waits on a run (the runtime, for an effect) waits at
    least this long, so the sandbox's own verdict always comes first."""
    return START_TIMEOUT_S + timeout_s * STARVATION_ALLOWANCE + GRACE_S


MAX_WORKERS = min(8, 2 * (os.cpu_count() or 1))
"""How many workers (runs at once) a pool keeps at most: as many as the runtime's effect threads."""

ACK = b"A"
RETIRE = b"R"
"""What a worker answers a request with instead of `ACK` when an earlier run tampered with it (killed or stopped
its zygote, reniced it): it exits without running the request, which goes to another worker."""
"""What a worker writes as soon as a request has reached it, before it runs anything: a worker that dies
before it never ran the request (it goes to another worker); one that dies after it died under the run."""

START_TIMEOUT_S = 30.0
"""How long a worker may take to start (sandbox, interpreter, pytest import)."""

_SOURCE = (Path(__file__).with_name("worker_src.py")).read_text(encoding="utf-8")

# Read the worker's source from stdin with raw reads (a buffered read could swallow the next frame).
_BOOT = (
    "import os\n"
    "def _r(n):\n"
    "    b = b''\n"
    "    while len(b) < n:\n"
    "        c = os.read(0, n - len(b))\n"
    "        if not c: raise SystemExit(3)\n"
    "        b += c\n"
    "    return b\n"
    "g = {'__name__': '__saas_sim_worker__'}\n"
    "exec(compile(_r(int(_r(10))), '<saas-sim-worker>', 'exec'), g)\n"
    "g['main']()\n"
)

Reply = dict[str, Any]


def _deadline(seconds: float) -> int:
    """The `perf_ns` reading `seconds` from now."""
    return perf_ns() + int(seconds * 1e9)


@functools.cache
def _warn_shared_process_count() -> None:
    """Says once per process that this host's runs share one process count (no user namespaces here)."""
    log.warning("the sandbox could not give its workers user namespaces of their own: concurrent runs share "
                "the run user's process limit, so one run holding its processes can make another's forks fail")


class WorkerRetiredError(HarnessError):
    """The worker refused the request because an earlier run tampered with it; it is gone, and the request
    goes to another worker (never the request's failure)."""


class WorkerGoneError(HarnessError):
    """A worker died before a request reached it: the run never started, so it may go to another worker."""


class Worker:
    """One sandboxed warm worker; used by one thread at a time.

    Args:
        isolation: The sandbox to start it in.
        limits: The limits (bwrap's tmpfs sizes come from them).
    """

    def __init__(self, isolation: Isolation, limits: Limits) -> None:
        self.isolation = isolation
        self.host_dir: str | None = None
        if isolation == "bwrap":
            self.scratch, disk = SCRATCH, [SCRATCH, "/tmp"]
        else:
            # Without bwrap the tree copy lives on the host, in a directory of its own owned by the run user.
            self.host_dir = tempfile.mkdtemp(prefix="saas-sim-run-")
            user = run_user()
            if os.geteuid() == 0:
                os.chown(self.host_dir, user.uid, user.gid)
            os.chmod(self.host_dir, 0o700)
            self.scratch, disk = self.host_dir, []
        self.tmp = "/tmp" if isolation == "bwrap" else os.path.join(self.scratch, "tmp")
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (closed by kill())
        cmd = [*launch_command(isolation, limits), sys.executable, "-B", "-s", "-P", "-c", _BOOT]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                                     env=ENV, cwd="/", start_new_session=True, close_fds=True)
        assert self.proc.stdout is not None
        # poll(2), not select(2): select cannot wait on a descriptor numbered 1024 or more, and a busy host
        # process (many stores, sockets, workers) opens that many; every read then failed as a timeout.
        self._replies = select.poll()
        self._replies.register(self.proc.stdout.fileno(), select.POLLIN)
        src = _SOURCE.encode()
        user = run_user()
        self._send(b"%010d" % len(src) + src)
        mounts = isolation == "unshare"
        if mounts:
            disk = [self.scratch, "/tmp"]
        self._send_frame({"uid": user.uid, "gid": user.gid, "pidns": isolation != "rlimits", "disk_paths": disk,
                          "scratch": self.scratch, "private_mounts": mounts, "expose": interpreter_prefixes(),
                          "tmpfs_bytes": limits.disk_bytes + (16 << 20)})
        try:
            hello = self._read_frame(_deadline(START_TIMEOUT_S))
        except EOFError:
            hello = None
        if hello is None or not hello.get("ready"):
            tail = self.stderr_tail()
            self.kill()
            raise HarnessError(f"the sandbox worker ({isolation}) did not start: {tail}")
        self.info = hello
        if not hello.get("own_userns"):
            _warn_shared_process_count()

    def _send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def _send_frame(self, value: dict[str, Any]) -> None:
        body = json.dumps(value, ensure_ascii=True, sort_keys=True).encode()
        self._send(b"%010d" % len(body) + body)

    def _read_exact(self, n: int, deadline: int) -> bytes | None:
        """`n` bytes of the reply pipe, or None at the deadline.

        Raises:
            EOFError: The worker is gone.
        """
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        chunks: list[bytes] = []
        while n > 0:
            left_ns = deadline - perf_ns()
            if left_ns <= 0:
                return None
            if not self._replies.poll(max(1, left_ns // 1_000_000)):
                return None
            chunk = os.read(fd, min(n, 1 << 20))
            if not chunk:
                raise EOFError("the sandbox worker closed its reply pipe")
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def _read_frame(self, deadline: int) -> Reply | None:
        """One reply frame, or None at `deadline` (a `perf_ns` reading).

        Raises:
            EOFError: The worker is gone.
        """
        head = self._read_exact(10, deadline)
        if head is None:
            return None
        body = self._read_exact(int(head), deadline)
        if body is None:
            return None
        reply: Reply = json.loads(body)
        return reply

    def alive(self) -> bool:
        """Whether the worker process still runs."""
        return self.proc.poll() is None

    def run(self, request: dict[str, Any], timeout_s: float) -> tuple[Reply | None, bool]:
        """Sends one request and waits for its reply.

        The worker times the run out itself, on the run's own clock (see worker_src); the host waits up to
        `timeout_s * STARVATION_ALLOWANCE` before it cancels the run as a backstop.

        Returns:
            (reply, timed_out): the reply (None when the worker died or hung and was killed) and whether the
            wall timeout hit.
        """
        tree = os.path.join(self.scratch, "tree")
        env = {**request["env"], "TMPDIR": self.tmp, "HOME": self.tmp}
        # One deadline for the acknowledgement and the reply: the backstop is what `wait_budget_s` promises.
        deadline = _deadline(timeout_s * STARVATION_ALLOWANCE)
        try:
            self._send_frame({**request, "env": env, "tree": tree, "wipe": [self.tmp], "wall_s": timeout_s})
            ack = self._read_exact(len(ACK), deadline)
        except (BrokenPipeError, ConnectionResetError, EOFError) as exc:
            self.kill()
            raise WorkerGoneError("the sandbox worker died before the request reached it") from exc
        if ack == RETIRE:
            self.kill()
            raise WorkerRetiredError("the sandbox worker retired: an earlier run tampered with it")
        try:
            if ack is not None and ack != ACK:
                raise ValueError(f"{ack!r} where the request's acknowledgement belongs")
            try:
                reply = None if ack is None else self._read_frame(deadline)
            except EOFError:
                self.kill()
                return None, False  # it died under the run (agent code can kill it): a failed run
            if reply is not None:
                return {**reply, "tree": tree}, bool(reply.get("timed_out"))
            try:
                self._send(b"C")
                reply = self._read_frame(_deadline(GRACE_S))
            except (BrokenPipeError, ConnectionResetError, EOFError):
                reply = None  # it died under the cancel
        except (ValueError, json.JSONDecodeError) as exc:
            # Only the worker writes this pipe (the child's descriptors are others): a harness bug, never a score.
            self.kill()
            raise HarnessError(f"the sandbox worker sent a malformed reply: {exc}") from exc
        if reply is None:
            self.kill()
            return None, True
        return {**reply, "tree": tree}, True

    def stderr_tail(self) -> str:
        """The last lines the worker wrote to its stderr (start-up failures)."""
        self._stderr.seek(0, os.SEEK_END)
        size = self._stderr.tell()
        self._stderr.seek(max(0, size - 2000))
        return self._stderr.read().decode("utf-8", "replace")

    def kill(self) -> None:
        """Kills the worker with its whole sandbox (its session); idempotent."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):  # a broken pipe to a dead worker
                    pipe.close()
        self._stderr.close()
        if self.host_dir is not None:
            import shutil

            shutil.rmtree(self.host_dir, ignore_errors=True)


class WorkerPool:
    """Idle warm workers, reused across runs; thread-safe.

    Args:
        isolation: The sandbox for every worker (default: the strongest this host has).
        limits: The limits of every run.
        max_workers: How many runs go at once; more callers wait for a worker.
    """

    def __init__(self, isolation: Isolation | None = None, limits: Limits | None = None,
                 max_workers: int = MAX_WORKERS) -> None:
        self.isolation: Isolation = isolation or detect_isolation()
        self.limits = limits or Limits()
        self.max_workers = max_workers
        self._idle: list[Worker] = []
        self._all: set[Worker] = set()
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(max_workers)
        # Long-lived threads that start every worker (see the module docstring): they exit only at close().
        self._spawner = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="saas-sim-sandbox-spawner")
        self.started = 0

    def _start(self) -> Worker:
        """A new worker, started from a spawner thread so that its death signal outlives the caller."""
        return self._spawner.submit(Worker, self.isolation, self.limits).result()

    def acquire(self) -> Worker:
        """An idle live worker, or a new one; waits while `max_workers` runs are under way."""
        self._slots.acquire()
        try:
            with self._lock:
                while self._idle:
                    worker = self._idle.pop()
                    if worker.alive():
                        return worker
                    self._all.discard(worker)
                    worker.kill()
            worker = self._start()
        except BaseException:
            self._slots.release()
            raise
        with self._lock:
            self._all.add(worker)
            self.started += 1
        return worker

    def release(self, worker: Worker) -> None:
        """Gives a worker back (a dead one is dropped)."""
        with self._lock:
            if worker.alive():
                self._idle.append(worker)
            else:
                self._all.discard(worker)
                worker.kill()
        self._slots.release()

    def warm(self, n: int) -> None:
        """Starts workers until `n` are idle."""
        fresh = [self._start() for _ in range(max(0, n - len(self._idle)))]
        with self._lock:
            self._all.update(fresh)
            self._idle.extend(fresh)
            self.started += len(fresh)

    def close(self) -> None:
        """Kills every worker; idempotent."""
        with self._lock:
            workers, self._all, self._idle = list(self._all), set(), []
        for worker in workers:
            worker.kill()
        # The spawner threads end only now: until every worker is dead, its death signal must not fire.
        self._spawner.shutdown(wait=False)


_DEFAULT: dict[str, WorkerPool] = {}
_DEFAULT_LOCK = threading.Lock()


def default_pool() -> WorkerPool:
    """The process's shared pool (workers hold no episode data: each run brings its whole tree)."""
    with _DEFAULT_LOCK:
        pool = _DEFAULT.get("pool")
        if pool is None:
            pool = _DEFAULT["pool"] = WorkerPool()
            atexit.register(pool.close)
        return pool
