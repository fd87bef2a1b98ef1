"""The IDE's sandbox: isolated, limited, deterministic runs of agent code (the only place that starts any).

Public API: `run_pytest`, `run_python`, `call_function` and `call_functions` (pure functions of a file map returning a
`RunReport`), `strict_equal` (compares a function task's results out of process), `detect_isolation`
and `WorkerPool`. See profile.py for the isolation and limits, pool.py for the warm workers and
worker_src.py for the code that runs inside the sandbox (it is sent to the worker, never imported here).
"""

from __future__ import annotations

from saas_sim.domains.ide.sandbox.compare import plain_value, strict_equal
from saas_sim.domains.ide.sandbox.pool import WorkerPool, default_pool, wait_budget_s
from saas_sim.domains.ide.sandbox.profile import Limits, detect_isolation, profile_hash, run_user
from saas_sim.domains.ide.sandbox.report import RunReport, RunStatus, TestOutcome
from saas_sim.domains.ide.sandbox.runner import CACHE, call_function, call_functions, run_pytest, run_python

__all__ = [
    "CACHE", "Limits", "RunReport", "RunStatus", "TestOutcome", "WorkerPool", "call_function", "call_functions",
    "default_pool",
    "detect_isolation", "plain_value", "profile_hash", "run_pytest", "run_python", "run_user", "strict_equal",
    "wait_budget_s",
]
