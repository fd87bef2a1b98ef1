"""The self-audit's scenarios shared out over worker processes (`saas-sim check --processes N`).

One process audits on one core: its scenarios' checks and attacks are Python, and asyncio only
overlaps their waits. With `processes` > 1 the scenario audits run in that many worker processes
(`python -m saas_sim.runtime.audit_pool`), each an environment built from the caller's config.
A worker audits the scenarios it is handed, `jobs` at a time, and the pool hands the next one to
whichever worker returns a result, so a worker that drew long scenarios takes fewer of them.

A scenario's audit reads nothing another scenario's audit wrote (each episode is its own stream,
and worlds and tasks are pure functions of their seeds), so where it ran changes no verdict.

The protocol, one JSON object per line: the pool writes the worker a header
`{"config", "seeds", "options", "jobs"}`, then `{"ref": ...}` per scenario, and closes its stdin
when none is left; the worker answers `{"say": msg}` (the audit's progress), `{"world": msg}` (a
world being built) and `{"ref", "audit", "sequential"}` per scenario, in the order they finish.
The worker's own stdout is its stderr, so a stray print cannot break the protocol.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from typing import IO, Any

from saas_sim.errors import HarnessError
from saas_sim.runtime.attack_audits import AuditOptions
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.scenario_audit import ScenarioAudit, audit_scenario
from saas_sim.scenarios.loader import Scenario

__all__ = ["audit_in_processes", "worker_main"]

# A scenario's audit takes seconds to minutes; this bounds a worker that hangs, not one that works.
_WORKER_TIMEOUT_S = 3 * 3600
# A result line carries a scenario's whole report (hack details, blind search, timings).
_LINE_LIMIT = 64 * 1024 * 1024

Audited = tuple[ScenarioAudit, dict[int, list[str]]]


class _Worker:
    """One worker process and the scenarios handed to it that it has not answered yet."""

    def __init__(self, proc: asyncio.subprocess.Process, errors: IO[bytes]) -> None:
        self.proc = proc
        self.errors = errors
        self.pending = 0

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode("utf-8") + b"\n")

    def error_tail(self) -> str:
        self.errors.seek(0)
        return self.errors.read().decode("utf-8", "replace")[-2000:]


async def audit_in_processes(
    config: dict[str, Any], scenarios: Sequence[Scenario], seeds: Sequence[int], options: AuditOptions,
    say: Callable[[str], None], world_say: Callable[[str], None] | None, *, jobs: int, processes: int,
) -> list[Audited]:
    """Audits `scenarios` in `processes` worker processes; returns their audits in the scenarios' order.

    Args:
        config: The environment's config (`Environment.config`); each worker builds one like it.
        scenarios: What to audit.
        seeds: The audited seeds.
        options: How hard the attacks try.
        say: Called with each progress message a worker's audit gives.
        world_say: Called with each message of a world being built in a worker, if given.
        jobs: How many scenarios are audited at once, over all workers.
        processes: How many worker processes (at most one per scenario).

    Raises:
        HarnessError: A worker ended or broke the protocol before its scenarios were audited.
    """
    refs = [s.ref for s in scenarios]
    count = max(1, min(processes, len(refs)))
    per_worker = max(1, jobs // count)
    header = {"config": config, "seeds": list(seeds), "options": dataclasses.asdict(options), "jobs": per_worker}
    queue = list(reversed(refs))
    results: dict[str, Audited] = {}
    workers: list[_Worker] = []
    try:
        for _ in range(count):
            errors = tempfile.TemporaryFile(prefix="saas-sim-audit-")  # noqa: SIM115 (closed with the pool)
            try:
                proc = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "saas_sim.runtime.audit_pool", stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE, stderr=errors, limit=_LINE_LIMIT,
                    # Same import path as this process, so plug-in domains resolve there too.
                    env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
                )
            except BaseException:
                errors.close()
                raise
            workers.append(_Worker(proc, errors))
        async with asyncio.timeout(_WORKER_TIMEOUT_S):
            await asyncio.gather(*(_drive(w, header, queue, results, say, world_say, per_worker) for w in workers))
    finally:
        for w in workers:
            if w.proc.returncode is None:
                w.proc.kill()
                await w.proc.wait()
            w.errors.close()
    return [results[ref] for ref in refs]


async def _drive(worker: _Worker, header: dict[str, Any], queue: list[str], results: dict[str, Audited],
                 say: Callable[[str], None], world_say: Callable[[str], None] | None, per_worker: int) -> None:
    """Feeds one worker from the shared queue until it is empty and the worker has answered all."""
    proc = worker.proc
    stdin, stdout = proc.stdin, proc.stdout
    assert stdin is not None and stdout is not None

    def hand_out() -> None:
        while queue and worker.pending < per_worker:
            worker.send({"ref": queue.pop()})
            worker.pending += 1
        if not queue and worker.pending == 0 and not stdin.is_closing():
            stdin.close()  # the worker finishes what it holds and exits

    worker.send(header)
    hand_out()
    await stdin.drain()
    while worker.pending:
        line = await stdout.readline()
        if not line:
            await proc.wait()
            raise HarnessError(f"an audit worker ended (exit {proc.returncode}) with {worker.pending} scenario(s) "
                               f"unanswered: {worker.error_tail()}")
        message = json.loads(line)
        if "say" in message:
            say(str(message["say"]))
        elif "world" in message:
            if world_say is not None:
                world_say(str(message["world"]))
        else:
            sequential = {int(k): list(v) for k, v in message["sequential"].items()}
            results[message["ref"]] = (ScenarioAudit(**message["audit"]), sequential)
            worker.pending -= 1
            hand_out()
            if not stdin.is_closing():
                await stdin.drain()
    await proc.wait()
    if proc.returncode != 0:
        raise HarnessError(f"an audit worker exited {proc.returncode}: {worker.error_tail()}")


async def _serve(header: dict[str, Any], requests: asyncio.StreamReader, out: IO[str]) -> None:
    """The worker's side: audits each scenario it is handed and writes its result."""

    lock = threading.Lock()  # a world's build reports from its worker thread

    def emit(message: dict[str, Any]) -> None:
        text = json.dumps(message) + "\n"
        with lock:
            out.write(text)
            out.flush()

    options = AuditOptions(**header["options"])
    seeds = [int(s) for s in header["seeds"]]
    gate = asyncio.Semaphore(max(1, int(header["jobs"])))
    env = Environment.from_config(header["config"])
    env.world_progress = lambda msg: emit({"world": msg})

    async def one(ref: str) -> None:
        async with gate:
            result, sequential = await audit_scenario(env, env.scenario(ref), seeds, options,
                                                       lambda msg: emit({"say": msg}))
        emit({"ref": ref, "audit": dataclasses.asdict(result), "sequential": sequential})

    async with env:
        running: list[asyncio.Task[None]] = []
        while line := await requests.readline():
            running.append(asyncio.ensure_future(one(str(json.loads(line)["ref"]))))
        await asyncio.gather(*running)


async def _worker(out: IO[str]) -> None:
    loop = asyncio.get_running_loop()
    requests = asyncio.StreamReader(limit=_LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(requests), sys.stdin)
    header = json.loads(await requests.readline())
    await _serve(header, requests, out)


def worker_main() -> None:
    """Entry point of an audit worker process: the protocol above on stdin and stdout."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints go to the worker's error log
    asyncio.run(_worker(out))


if __name__ == "__main__":
    worker_main()
