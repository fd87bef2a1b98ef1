"""Benchmarks: `saas-sim bench` (suite.py, every figure in docs/benchmarks.md) and its parts.

sustained.py (open-loop writes), latency.py (one-at-a-time calls and search), episodes.py
(whole oracle episodes and grading), store.py (the event store), runtime.py and ide.py (the
`bench runtime` and `bench ide` subcommands), compare_tau2.py with tau2_driver.py (`--compare tau2`).
"""

from __future__ import annotations

from saas_sim.bench.store import run_store_bench as run_store_bench

__all__ = ["run_store_bench"]
