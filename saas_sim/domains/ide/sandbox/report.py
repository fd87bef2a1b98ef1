"""What a sandboxed run reports: `RunReport`, plain JSON, recorded in events and effect outcomes."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, JsonValue

__all__ = ["Isolation", "RunReport", "RunStatus", "TestOutcome"]

RunStatus = Literal["ok", "failed", "timeout", "resource_limit"]
TestOutcome = Literal["passed", "failed", "error", "skipped"]
Isolation = Literal["bwrap", "unshare", "rlimits"]


class RunReport(BaseModel):
    """One run's outcome, read from the grader's own results pipe (never from stdout or the exit code).

    Attributes:
        status: `ok` (the run finished and every selected test passed, or the program exited 0), `failed`,
            `timeout` (the wall timeout killed it) or `resource_limit` (CPU, memory, disk, file size or
            output-results cap).
        exit: The child's exit code, or None when a signal or the sandbox ended it.
        tests: Per-test outcome by node id (pytest runs). A selected test with no result is `failed`.
        failures: The head of each failing test's report, by node id.
        collect_errors: Files pytest could not import, with the head of the error.
        output: The run's stdout and stderr, capped; `output_truncated` counts the bytes dropped.
        results: A function task's strictly typed results, one per input (`{"value": ...}` or `{"error": ...}`).
        limit: Which limit ended the run, if one did (`cpu`, `memory`, `disk`, `file_size`, `results`).
        tamper: What the grader found patched or forged (pytest internals, its plugin, forged records).
        complete: Whether the test session reached its end (not cut short by `os._exit` or a kill).
        sandbox: The isolation the run had (`bwrap` is the full one).
        profile: The hash of the determinism profile (environment, runner arguments, limits, interpreter).
        wall_ms: Wall time, for metrics only; never graded and never part of a cache key.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: RunStatus
    exit: int | None = None
    tests: dict[str, TestOutcome] = {}
    failures: dict[str, str] = {}
    collect_errors: dict[str, str] = {}
    output: str = ""
    output_truncated: int = 0
    results: list[dict[str, JsonValue]] = []
    limit: str | None = None
    tamper: list[str] = []
    complete: bool = False
    sandbox: Isolation
    profile: str
    wall_ms: float = 0.0

    def counts(self) -> dict[str, int]:
        """How many tests had each outcome."""
        out = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
        for outcome in self.tests.values():
            out[outcome] += 1
        return out
