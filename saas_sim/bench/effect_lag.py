"""Event-loop lag while effects run: 100 concurrent real subprocess effects, and a ticker that measures lag.

The ticker asks to sleep `TICK_S` again and again; its lag is how much
later than asked it woke up. The effects are real child Pythons run through
the runtime's seam (`runtime.effects.run_effect`: worker threads, at most
`EFFECT_THREADS` at once). A loop that the effects blocked would show their
whole run time as lag; an unblocked loop shows scheduling noise.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from saas_sim.core.clock import perf_ns
from saas_sim.core.effects import Effect, EffectOutcome
from saas_sim.runtime.effects import run_effect

__all__ = ["TICK_S", "measure_effect_lag"]

TICK_S = 0.005
"""How long the ticker asks to sleep between ticks."""

_SCRIPT = "import sys; print(len(sys.stdin.read().split()))"


class _Done(BaseModel):
    """The bench completes nothing: it measures only the runs."""


def _count_words(inputs: Mapping[str, Any], timeout_s: float) -> EffectOutcome:
    env = {"PATH": os.defpath, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}
    try:
        done = subprocess.run([sys.executable, "-I", "-c", _SCRIPT], input=str(inputs["text"]),
                              capture_output=True, text=True, timeout=timeout_s, env=env, check=False)
    except subprocess.TimeoutExpired:
        return EffectOutcome.timeout(timeout_s)
    if done.returncode != 0:
        return EffectOutcome(status="failed", value={"exit_code": done.returncode})
    return EffectOutcome(status="ok", value={"words": int(done.stdout.strip())})


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


async def measure_effect_lag(n: int = 100) -> dict[str, Any]:
    """Runs `n` subprocess effects at once and returns the loop lag (ms) the ticker saw meanwhile."""
    effects = [
        Effect("bench.word_count", {"text": f"effect {i} " * 50}, run=_count_words,
               complete=lambda _ctx, _o: _Done(), timeout_s=60.0, cost_s=60.0)
        for i in range(n)
    ]
    lags: list[float] = []
    running = True

    async def ticker() -> None:
        while running:
            t0 = perf_ns()
            await asyncio.sleep(TICK_S)
            lags.append(max(0.0, (perf_ns() - t0) / 1e6 - TICK_S * 1000))

    tick = asyncio.create_task(ticker())
    t0 = perf_ns()
    outcomes = await asyncio.gather(*(run_effect(e) for e in effects))
    wall_s = (perf_ns() - t0) / 1e9
    running = False
    await tick
    bad = [o for o in outcomes if o.status != "ok"]
    return {
        "effects_concurrent": n,
        "effects_wall_s": round(wall_s, 3),
        "effects_failed": len(bad),
        "effects_loop_ticks": len(lags),
        "effects_loop_lag_p50_ms": round(_pct(lags, 0.5), 3),
        "effects_loop_lag_p99_ms": round(_pct(lags, 0.99), 3),
        "effects_loop_lag_max_ms": round(max(lags, default=0.0), 3),
    }
