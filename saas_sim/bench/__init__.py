"""Benchmarks: measured numbers for the store, the fold and snapshots."""

from __future__ import annotations

from saas_sim.bench.store import run_store_bench as run_store_bench

__all__ = ["run_store_bench"]
