"""What the IDE's EXECUTE tools return: a test run, a python run, a submission."""

from __future__ import annotations

from pydantic import Field

from saas_sim.core.tools import ToolResult
from saas_sim.domains.ide.models import RunStatus, TestOutcome

__all__ = ["PythonRunView", "SubmitView", "TestCounts", "TestFailure", "TestResult", "TestRunView"]


class TestCounts(ToolResult):
    """How many tests had each outcome."""

    passed: int = Field(description="Tests that passed.")
    failed: int = Field(description="Tests that failed (an assertion or an exception in the test).")
    error: int = Field(description="Tests whose set-up or tear-down failed.")
    skipped: int = Field(description="Tests that were skipped.")


class TestResult(ToolResult):
    """One test's outcome."""

    test_id: str = Field(description="The pytest node id (`tests/test_invoice.py::test_total`).")
    outcome: TestOutcome = Field(description="passed, failed, error or skipped.")


class TestFailure(ToolResult):
    """The head of one failing test's report."""

    test_id: str = Field(description="The failing test's node id.")
    head: str = Field(description="The end of its traceback and assertion message, cut to a few hundred lines.")


class TestRunView(ToolResult):
    """The outcome of one ide.run_tests call."""

    run_id: str = Field(description="The run's id (`run_000001`).")
    status: RunStatus = Field(description="ok (every selected test passed), failed, timeout or resource_limit.")
    counts: TestCounts = Field(description="How many tests had each outcome.")
    tests: list[TestResult] = Field(description="Per-test outcomes, sorted by test id (failing ones first when cut).")
    tests_omitted: int = Field(description="Passing tests left out of `tests` to keep the answer short.")
    failures: list[TestFailure] = Field(description="The heads of the first failing tests' reports.")
    collect_errors: list[TestFailure] = Field(description="Test files that could not be imported, with the error.")
    output: str = Field(description="The end of pytest's output when no per-test result explains the run.")
    limit: str | None = Field(description="The limit that ended the run (cpu, memory, disk, file_size), if any.")
    sandbox: str = Field(description="The isolation the run had.")


class PythonRunView(ToolResult):
    """The outcome of one ide.run_python call."""

    run_id: str = Field(description="The run's id (`run_000002`).")
    status: RunStatus = Field(description="ok (exit code 0), failed, timeout or resource_limit.")
    exit_code: int | None = Field(description="The program's exit code; null when a limit or the timeout ended it.")
    output: str = Field(description="Its stdout and stderr, interleaved, cut to the first 16 KB.")
    output_truncated: int = Field(description="Bytes of output left out.")
    limit: str | None = Field(description="The limit that ended the run (cpu, memory, disk, file_size), if any.")


class SubmitView(ToolResult):
    """The recorded submission."""

    tree_hash: str = Field(description="The hash of the submitted tree.")
    changed_files: list[str] = Field(description="The files that differ from the starting tree, sorted.")
