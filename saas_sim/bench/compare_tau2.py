"""`saas-sim bench --compare tau2 PATH`: saas_sim against a local tau2-bench checkout, interleaved in one run.

tau2 runs in its own interpreter (its virtualenv: its pins conflict with ours), driven through
`bench/tau2_driver.py` over a pipe; each side times its own operations in its own process, so
the pipe is not in any figure. Every round measures each operation on both sides back to back,
and the side that goes first alternates from round to round, so machine noise (other processes,
a load spike) hits both. Operations, saas_sim / tau2:

* `reset`: `env.start` of a built `crm/advance-qualified-deal` task / retail `get_environment()`;
* `read`: `crm.get_deal` / `get_user_details` (through `Environment.get_response`);
* `write`: a durable (SQLite, synchronous=FULL) `crm.update_deal` / an in-memory
  `modify_user_address`; `write_memory` is saas_sim's write on an in-memory SQLite store, the
  closer like-for-like (tau2 persists nothing);
* `episode`: a whole oracle episode (start, its calls, `grade()`, durable) / retail task 0
  (reset, its expected actions, `EnvironmentEvaluator.calculate_reward`).

Figures per operation: `<op>_saas_p50_us`, `_p99_us`, `_cpu_us_per_op`, `_errors`, the same with
`tau2`, and `<op>_tau2_over_saas_p50` (how many times slower tau2's median is; below 1 it is
faster), pooled over the rounds; `write_tau2_over_saas_memory_p50` sets tau2's write against
saas_sim's in-memory one; `meta` has both interpreters, the rounds and the load.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from saas_sim.bench.latency import time_calls
from saas_sim.bench.probes import BENCH_SCENARIO, READ_PROBE, WRITE_PROBE, unlimited
from saas_sim.bench.stats import pct
from saas_sim.core.clock import cpu_ns, perf_ns
from saas_sim.errors import UsageError
from saas_sim.runtime.agents import make_agent
from saas_sim.runtime.environment import Environment

__all__ = ["DRIVER", "Tau2Driver", "run_compare"]

DRIVER = Path(__file__).with_name("tau2_driver.py")
"""The script tau2's interpreter runs."""

Progress = Callable[[str], None]
_SIZES = {"reset": (1000, 10), "read": (1000, 1000), "write": (500, 500), "write_memory": (500, 0),
          "episode": (20, 3)}
"""Operations per round, (saas_sim, tau2): tau2's reset and episode take tens to hundreds of ms."""
_QUICK_SIZES = {"reset": (20, 2), "read": (20, 20), "write": (20, 20), "write_memory": (20, 0), "episode": (2, 1)}


class Tau2Driver:
    """The tau2 driver process: one JSON request per line in, one JSON answer per line out."""

    def __init__(self, proc: asyncio.subprocess.Process, log: Path) -> None:
        self._proc = proc
        self._log = log

    @classmethod
    async def start(cls, checkout: Path, python: Path, log: Path) -> Tau2Driver:
        """Starts the driver with tau2's interpreter and waits until tau2 is imported."""
        with log.open("wb") as err:
            proc = await asyncio.create_subprocess_exec(
                str(python), str(DRIVER), str(checkout), stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=err, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
            )
        driver = cls(proc, log)
        await driver._answer()
        return driver

    async def _answer(self) -> dict[str, Any]:
        assert self._proc.stdout is not None
        line = await self._proc.stdout.readline()
        if not line:
            tail = self._log.read_text(encoding="utf-8", errors="replace")[-2000:]
            raise UsageError(f"the tau2 driver stopped (exit {await self._proc.wait()}):\n{tail}")
        answer: dict[str, Any] = json.loads(line)
        if "error" in answer:
            raise UsageError(f"tau2 driver: {answer['error']}")
        return answer

    async def run(self, op: str, n: int, **extra: Any) -> dict[str, Any]:
        """Asks for `n` timed operations `op`; returns `{"us", "cpu_us_per_op", "errors"}`."""
        assert self._proc.stdin is not None
        self._proc.stdin.write((json.dumps({"op": op, "n": n, **extra}) + "\n").encode())
        await self._proc.stdin.drain()
        return await self._answer()

    async def close(self) -> None:
        """Asks the driver to quit and waits for it."""
        if self._proc.returncode is None:
            assert self._proc.stdin is not None
            self._proc.stdin.write(b'{"op": "quit"}\n')
            await self._proc.stdin.drain()
            self._proc.stdin.close()
            try:
                await asyncio.wait_for(self._proc.wait(), 30)
            except TimeoutError:
                self._proc.kill()
                await self._proc.wait()


def _python_for(checkout: Path, python: Path | None) -> Path:
    chosen = python if python is not None else checkout / ".venv" / "bin" / "python"
    if not (checkout / "src" / "tau2").is_dir():
        raise UsageError(f"{checkout} is not a tau2-bench checkout (no src/tau2)")
    if not chosen.exists():
        raise UsageError(f"no tau2 interpreter at {chosen}; pass --tau2-python (a venv with tau2's dependencies)")
    return chosen


class _Saas:
    """saas_sim's side: a durable environment for the probes and episodes, an in-memory one for `write_memory`."""

    def __init__(self, workdir: Path) -> None:
        self.probes = Environment(f"sqlite+aiosqlite:///{workdir / 'compare-probes.db'}", durable=True)
        self.memory = Environment("sqlite+aiosqlite:///:memory:")
        self.episodes = Environment(f"sqlite+aiosqlite:///{workdir / 'compare-episodes.db'}", durable=True)
        self.writes = 0

    async def open(self) -> None:
        for env in (self.probes, self.memory, self.episodes):
            await env.open()
            await env.task(unlimited(env.scenario(BENCH_SCENARIO)) if env is not self.episodes
                           else env.scenario(BENCH_SCENARIO), 0)

    async def close(self) -> None:
        for env in (self.probes, self.memory, self.episodes):
            await env.close()

    async def run(self, op: str, n: int) -> dict[str, Any]:
        if op == "reset":
            scenario = unlimited(self.probes.scenario(BENCH_SCENARIO))
            return await _timed(n, lambda: self.probes.start(scenario, 0, faults=None))
        if op == "read":
            episode = await self.probes.start(unlimited(self.probes.scenario(BENCH_SCENARIO)), 0, faults=None)
            us, cpu = await time_calls(episode, READ_PROBE.tool, [READ_PROBE.render(episode)] * n)
            return {"us": us, "cpu_us_per_op": cpu, "errors": 0}
        if op in ("write", "write_memory"):
            env = self.probes if op == "write" else self.memory
            episode = await env.start(unlimited(env.scenario(BENCH_SCENARIO)), 0, faults=None)
            us, cpu = await time_calls(episode, WRITE_PROBE.tool, [WRITE_PROBE.args(episode, k) for k in range(n)])
            return {"us": us, "cpu_us_per_op": cpu, "errors": 0}
        if op == "episode":
            return await _timed(n, self._episode)
        raise UsageError(f"unknown operation {op!r}")

    async def _episode(self) -> int:
        scenario = self.episodes.scenario(BENCH_SCENARIO)
        episode = await self.episodes.start(scenario, 0)
        await make_agent("oracle", scenario).run(episode)
        grade = await episode.grade()
        await episode.close()
        return 0 if grade.valid and grade.score == 1.0 else 1


async def _timed(n: int, op: Callable[[], Awaitable[Any]]) -> dict[str, Any]:
    us: list[float] = []
    errors = 0
    cpu0 = cpu_ns()
    for _ in range(n):
        t0 = perf_ns()
        result = await op()
        us.append((perf_ns() - t0) / 1000)
        errors += result if isinstance(result, int) else 0
    return {"us": us, "cpu_us_per_op": (cpu_ns() - cpu0) / 1000 / max(1, n), "errors": errors}


def _summary(op: str, side: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    us = [u for p in parts for u in p["us"]]
    n = max(1, len(us))
    cpu = sum(p["cpu_us_per_op"] * len(p["us"]) for p in parts) / n
    return {f"{op}_{side}_p50_us": round(pct(us, 0.5), 2), f"{op}_{side}_p99_us": round(pct(us, 0.99), 2),
            f"{op}_{side}_cpu_us_per_op": round(cpu, 2), f"{op}_{side}_errors": sum(p["errors"] for p in parts),
            f"{op}_{side}_samples": len(us)}


def _checkout_version(checkout: Path) -> str:
    text = (checkout / "pyproject.toml").read_text(encoding="utf-8") if (checkout / "pyproject.toml").exists() else ""
    line = next((ln for ln in text.splitlines() if ln.startswith("version")), "")
    return line.split("=", 1)[-1].strip().strip('"') or "unknown"


async def run_compare(
    checkout: Path, *, python: Path | None, workdir: Path, rounds: int = 5, quick: bool = False,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Runs the interleaved comparison; returns `{"meta", "figures"}` (see the module docstring)."""
    say = progress or (lambda _m: None)
    interpreter = _python_for(checkout, python)
    sizes = _QUICK_SIZES if quick else _SIZES
    meta: dict[str, Any] = {
        "tau2_checkout": str(checkout), "tau2_version": _checkout_version(checkout), "tau2_python": str(interpreter),
        "saas_sim_python": platform.python_version(), "rounds": rounds, "quick": quick,
        "load_1m_at_start": round(os.getloadavg()[0], 2), "saas_scenario": BENCH_SCENARIO,
        "tau2_domain": "retail", "sizes_per_round": {op: list(s) for op, s in sizes.items()},
    }
    say(f"starting tau2 ({interpreter})")
    driver = await Tau2Driver.start(checkout, interpreter, workdir / "tau2-driver.log")
    saas = _Saas(workdir)
    samples: dict[tuple[str, str], list[dict[str, Any]]] = {}
    try:
        await saas.open()
        for r in range(rounds):
            say(f"round {r + 1} of {rounds}")
            for op, (n_saas, n_tau2) in sizes.items():
                sides = [("saas", n_saas), ("tau2", n_tau2)]
                for side, n in sides if r % 2 == 0 else sides[::-1]:
                    if n == 0:
                        continue
                    if side == "saas":
                        part = await saas.run(op, n)
                    else:
                        part = await driver.run(op, n, base=r * n)
                    samples.setdefault((op, side), []).append(part)
    finally:
        await driver.close()
        await saas.close()
    figures: dict[str, Any] = {}
    for (op, side), parts in sorted(samples.items()):
        figures.update(_summary(op, side, parts))
    for op in sizes:
        saas_p50, tau2_p50 = figures.get(f"{op}_saas_p50_us"), figures.get(f"{op}_tau2_p50_us")
        if saas_p50 and tau2_p50:
            figures[f"{op}_tau2_over_saas_p50"] = round(tau2_p50 / saas_p50, 3)
    figures["write_tau2_over_saas_memory_p50"] = (
        round(figures["write_tau2_p50_us"] / figures["write_memory_saas_p50_us"], 3)
        if figures.get("write_tau2_p50_us") and figures.get("write_memory_saas_p50_us") else None)
    meta["load_1m_at_end"] = round(os.getloadavg()[0], 2)
    return {"meta": meta, "figures": figures}
