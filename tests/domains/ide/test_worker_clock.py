"""The sandbox worker's run clock: wall time less the time a run's child waited for a CPU, including a wait
the kernel has not counted yet because it has not ended (a starved run read mid-wait timed out in CI)."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

WORKER_SRC = Path(__file__).parents[3] / "saas_sim" / "domains" / "ide" / "sandbox" / "worker_src.py"
WORKER: dict[str, Any] = runpy.run_path(str(WORKER_SRC), run_name="__saas_sim_worker_test__")
GIVE_UP_S = 60.0
"""A broken host's bound on the readiness loops below; never reached on a working one."""


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        proc.kill()
        proc.wait()


def _spin(processes: list[subprocess.Popen[bytes]], *, idle: bool) -> subprocess.Popen[bytes]:
    prelude = "import os\nos.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))\n" if idle else ""
    proc = subprocess.Popen([sys.executable, "-c", prelude + "while True: pass\n"])
    processes.append(proc)
    return proc


def test_a_child_always_waiting_for_a_cpu_shows_only_its_cpu_time(processes: list[subprocess.Popen[bytes]]) -> None:
    # A hog and an idle-class child share one CPU: the child is runnable throughout and waits for seconds at a
    # time. Read every poll the way the worker reads it, its clock must never count a wait as run time.
    cpu = {min(os.sched_getaffinity(0))}
    hog, child = _spin(processes, idle=False), _spin(processes, idle=True)
    os.sched_setaffinity(hog.pid, cpu)
    os.sched_setaffinity(child.pid, cpu)
    clock = WORKER["RunClock"](child.pid)
    highest = widest_gap = 0.0
    ran_ns = waited_ns = 0
    last_read = clock.started
    while waited_ns - clock.waited_at_start < 1.5e9:
        assert time.monotonic() - clock.started < GIVE_UP_S, "the kernel never reported the child's waits"
        highest = max(highest, clock.seconds())
        now = time.monotonic()
        widest_gap, last_read = max(widest_gap, now - last_read), now
        ran_ns, waited_ns = clock._sched()
        time.sleep(WORKER["POLL_S"])
    # A wait the clock has not seen yet began after the reading before the last change it saw: the clock is off
    # by less than the widest gap between two readings (about POLL_S, more if this process was starved too).
    # Counting the wait in progress as run time, the old clock read about 1.4 s here.
    assert highest <= ran_ns / 1e9 + widest_gap + 0.1


def test_a_sleeping_child_is_on_its_run_clock(processes: list[subprocess.Popen[bytes]]) -> None:
    # Sleeping and blocking are the run's own time: a run that sleeps past its timeout times out.
    child = subprocess.Popen([sys.executable, "-c", "import time\ntime.sleep(120)\n"])
    processes.append(child)
    clock = WORKER["RunClock"](child.pid)
    while clock.seconds() < 0.5:
        assert time.monotonic() - clock.started < GIVE_UP_S, "a sleeping child's clock stood still"
        time.sleep(WORKER["POLL_S"])


def test_a_child_the_kernel_says_nothing_about_runs_on_wall_time() -> None:
    # A pid already gone reads as no waits: the clock falls back to wall time rather than failing the run.
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    clock = WORKER["RunClock"](gone.pid)
    assert clock._sched() == (0, 0)
    assert clock.seconds() >= 0.0
