"""EXECUTE tools: run the visible tests, run a Python program on a throwaway copy, and submit.

`run_tests` and `run_python` are effects (saas_sim/core/effects.py): the handler validates the call and
returns the request; the runtime runs it off the event loop in the sandbox (`sandbox.run_pytest`,
`sandbox.run_python`: a warm worker forks a child with no network, rlimits, an unprivileged user and the
tree copy as its only writable folder); `complete` turns the recorded outcome into `ide.BlobStored` (the
output) and `ide.CommandRan` events. Replays fold the recorded outcome and never run anything. Both move
the simulated clock by a fixed cost per run, never by wall time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import Field

from saas_sim.core.effects import Effect, EffectOutcome
from saas_sim.core.tool_errors import bad_args, not_found
from saas_sim.core.tools import WRITE, ToolArgs, ToolContext
from saas_sim.domains.ide import sandbox
from saas_sim.domains.ide.events import BlobStored, CommandRan, Submitted
from saas_sim.domains.ide.grade_runs import report_outcome
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.models import RunKind, RunRecord, RunStatus, TestOutcome
from saas_sim.domains.ide.state import BLOBS, FILES
from saas_sim.domains.ide.tool_helpers import arg_path
from saas_sim.domains.ide.views_runs import PythonRunView, SubmitView, TestCounts, TestFailure, TestResult, TestRunView
from saas_sim.domains.ide.workspace import base_table, blob_sha, is_dir, tree_files, tree_hash

__all__ = [
    "MAX_SHOWN_FAILURES", "MAX_SHOWN_TESTS", "PYTHON_COST_S", "RUN_TIMEOUT_S", "TESTS_COST_S", "run_python",
    "run_tests", "submit",
]

RUN_TIMEOUT_S = 30.0
"""The wall timeout of one run; past it the run is recorded as `timeout`."""
TESTS_COST_S = 60.0
"""Simulated seconds one run_tests call takes, whatever its wall time."""
PYTHON_COST_S = 10.0
"""Simulated seconds one run_python call takes."""
MAX_SHOWN_TESTS = 200
"""The most per-test outcomes one answer lists (failing ones first)."""
MAX_SHOWN_FAILURES = 10
"""The most failure heads one answer shows."""
MAX_SHOWN_OUTPUT = 16 * 1024
"""The most output characters one answer shows."""
MAX_TARGETS = 50
MAX_CODE_CHARS = 64 * 1024
MAX_STDIN_CHARS = 64 * 1024

_TEST_NAME = re.compile(r"^[^\x00\n\r]{1,500}$")
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


class RunTestsArgs(ToolArgs):
    targets: list[str] = Field(
        default_factory=list, max_length=MAX_TARGETS,
        description="Test files, folders or node ids to run (`tests/test_invoice.py`, "
                    "`tests/test_invoice.py::test_total`); empty runs every test of the project.")
    keyword: str | None = Field(default=None, max_length=200,
                                description="A pytest -k expression that selects tests by name (`late and not fee`).")


class RunPythonArgs(ToolArgs):
    code: str | None = Field(default=None, max_length=MAX_CODE_CHARS,
                             description="Python source to run as a script (give this or `module`).")
    module: str | None = Field(default=None, max_length=200,
                               description="A module to run as `python -m <module>`, such as `acme.cli`.")
    args: list[str] = Field(default_factory=list, max_length=50,
                            description="Command-line arguments (`sys.argv[1:]`).")
    stdin: str = Field(default="", max_length=MAX_STDIN_CHARS, description="Text for the program's standard input.")


class SubmitArgs(ToolArgs):
    summary: str = Field(min_length=1, max_length=4000,
                         description="What you changed and why, in a few sentences.")


def _targets(ctx: ToolContext, raw: list[str]) -> list[str]:
    """The normalized targets; each must name a file or folder of the tree."""
    files = ctx.table(FILES)
    out: list[str] = []
    for i, target in enumerate(raw):
        field = f"targets.{i}"
        path_part, sep, name = target.partition("::")
        path = arg_path(path_part, field)
        if sep and not _TEST_NAME.match(name):
            raise bad_args(f"{field}: the test name after '::' is empty or has a line break or NUL", [field])
        if path not in files and not is_dir(files, path):
            raise not_found("test file or folder", path, field)
        if sep and path not in files:
            raise bad_args(f"{field}: {path} is a folder; a node id names a test file", [field])
        out.append(f"{path}::{name}" if sep else path)
    return sorted(set(out))


def _store_blob(ctx: ToolContext, text: str) -> str:
    sha = blob_sha(text)
    if ctx.table(BLOBS).get(sha) is None:
        ctx.emit(BlobStored(sha=sha, text=text))
    return sha


def _report(outcome: EffectOutcome) -> dict[str, Any]:
    """The run report in an outcome; a runtime timeout (no report) reads as an empty timed-out run."""
    if outcome.status == "timeout" and "status" not in outcome.value:
        return {"status": "timeout", "exit": None, "tests": {}, "failures": {}, "output": "", "sandbox": "none",
                "profile": "", "limit": None, "collect_errors": {}, "output_truncated": 0}
    return dict(outcome.value)


def _record(ctx: ToolContext, kind: RunKind, report: Mapping[str, Any], tree: str, selection: list[str],
            keyword: str | None, command: str | None, cost_s: float) -> RunRecord:
    output_blob = _store_blob(ctx, str(report.get("output", "")))
    command_blob = None if command is None else _store_blob(ctx, command)
    status: RunStatus = report["status"]
    tests: dict[str, TestOutcome] = dict(report.get("tests") or {})
    run = RunRecord(
        id=ctx.ids.next("run"), kind=kind, tree_hash=tree, selection=tuple(selection), keyword=keyword,
        profile=str(report.get("profile", "")), status=status, exit=report.get("exit"), tests=tests,
        failures=dict(report.get("failures") or {}), output_blob=output_blob, command_blob=command_blob,
        sandbox=str(report.get("sandbox", "none")), cost_s=cost_s,
    )
    ctx.emit(CommandRan(run=run))
    return run


def _test_view(run: RunRecord, report: Mapping[str, Any]) -> TestRunView:
    order = {"failed": 0, "error": 1, "skipped": 2, "passed": 3}
    ranked = sorted(run.tests.items(), key=lambda kv: (order[kv[1]], kv[0]))
    shown = sorted(ranked[:MAX_SHOWN_TESTS])
    counts = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    for outcome in run.tests.values():
        counts[outcome] += 1
    failures = [TestFailure(test_id=k, head=v) for k, v in sorted(run.failures.items())[:MAX_SHOWN_FAILURES]]
    collect = [TestFailure(test_id=k, head=str(v)) for k, v in sorted((report.get("collect_errors") or {}).items())]
    explained = bool(run.tests) and not collect
    output = "" if explained else str(report.get("output", ""))[-MAX_SHOWN_OUTPUT:]
    return TestRunView(
        run_id=run.id, status=run.status, counts=TestCounts(**counts),
        tests=[TestResult(test_id=k, outcome=v) for k, v in shown], tests_omitted=len(ranked) - len(shown),
        failures=failures, collect_errors=collect[:MAX_SHOWN_FAILURES], output=output,
        limit=report.get("limit"), sandbox=run.sandbox,
    )


@kit.tool(WRITE, cost_s=5)
def run_tests(ctx: ToolContext, args: RunTestsArgs) -> Effect[TestRunView]:
    """Runs the project's tests with pytest in a sandbox and returns each test's outcome.

    Give test files, folders or node ids in `targets` (empty runs every test), and optionally a `-k`
    `keyword` expression. The answer lists per-test outcomes and the head of each failure. Runs have a
    wall timeout of 30 s, no network, and limits on CPU, memory, disk and processes. Identical runs on an
    identical tree are answered from a cache.
    """
    targets = _targets(ctx, args.targets)
    if args.keyword is not None and not _TEST_NAME.match(args.keyword):
        raise bad_args("keyword must be one line without NUL", ["keyword"])
    files, tree = tree_files(ctx.state), tree_hash(ctx.state)
    keyword = args.keyword

    def run(_: Mapping[str, Any], __: float) -> EffectOutcome:
        return report_outcome(sandbox.run_pytest(files, selection=targets or None, keyword=keyword,
                                                 timeout_s=RUN_TIMEOUT_S, tree_key=tree))

    def complete(ctx: ToolContext, outcome: EffectOutcome) -> TestRunView:
        report = _report(outcome)
        record = _record(ctx, "tests", report, tree, targets, keyword, None, TESTS_COST_S)
        return _test_view(record, report)

    return Effect("ide.run_tests", {"tree": tree, "targets": targets, "keyword": keyword}, run=run,
                  complete=complete, timeout_s=RUN_TIMEOUT_S + 10,
                  wait_s=sandbox.wait_budget_s(RUN_TIMEOUT_S), cost_s=TESTS_COST_S)


@kit.tool(WRITE, cost_s=5)
def run_python(ctx: ToolContext, args: RunPythonArgs) -> Effect[PythonRunView]:
    """Runs Python code or a module of the project in a sandbox, on a throwaway copy of the project.

    Give exactly one of `code` (a script) and `module` (`python -m`). Files the program writes are
    discarded afterwards: change files with the edit tools. Runs have a wall timeout of 30 s, no network,
    and limits on CPU, memory, disk and processes; output is cut to its first 16 KB.
    """
    if (args.code is None) == (args.module is None):
        raise bad_args("give exactly one of code and module", ["code", "module"])
    if args.code is not None and "\x00" in args.code:
        raise bad_args("code contains a NUL byte", ["code"])
    if args.module is not None and not _MODULE.match(args.module):
        raise bad_args(f"module {args.module[:80]!r} is not a dotted module name", ["module"])
    for i, arg in enumerate(args.args):
        if "\x00" in arg or len(arg) > 4000:
            raise bad_args(f"args.{i} has a NUL byte or is over 4000 characters", [f"args.{i}"])
    if "\x00" in args.stdin:
        raise bad_args("stdin contains a NUL byte", ["stdin"])
    files, tree = tree_files(ctx.state), tree_hash(ctx.state)
    code, module, argv, stdin = args.code, args.module, list(args.args), args.stdin
    command = code if code is not None else " ".join(["python", "-m", str(module), *argv])

    def run(_: Mapping[str, Any], __: float) -> EffectOutcome:
        return report_outcome(sandbox.run_python(files, code=code, module=module, args=argv, stdin=stdin,
                                                 timeout_s=RUN_TIMEOUT_S, tree_key=tree))

    def complete(ctx: ToolContext, outcome: EffectOutcome) -> PythonRunView:
        report = _report(outcome)
        record = _record(ctx, "python", report, tree, [], None, command, PYTHON_COST_S)
        output = str(report.get("output", ""))
        return PythonRunView(
            run_id=record.id, status=record.status, exit_code=record.exit, output=output[:MAX_SHOWN_OUTPUT],
            output_truncated=int(report.get("output_truncated") or 0) + max(0, len(output) - MAX_SHOWN_OUTPUT),
            limit=report.get("limit"),
        )

    inputs = {"tree": tree, "code": code, "module": module, "args": argv, "stdin": stdin}
    return Effect("ide.run_python", inputs, run=run, complete=complete, timeout_s=RUN_TIMEOUT_S + 10,
                  wait_s=sandbox.wait_budget_s(RUN_TIMEOUT_S),
                  cost_s=PYTHON_COST_S)


@kit.tool(WRITE)
def submit(ctx: ToolContext, args: SubmitArgs) -> SubmitView:
    """Submits your work with a summary of what you changed. The project as it is now is what gets graded."""
    if "\x00" in args.summary:
        raise bad_args("summary contains a NUL byte", ["summary"])
    tree = tree_hash(ctx.state)
    ctx.emit(Submitted(summary=args.summary, tree_hash=tree))
    base, files = base_table(ctx.state), ctx.table(FILES)
    changed = sorted({e.id for e in files if (b := base.get(e.id)) is None or b.blob != e.blob or b.mode != e.mode}
                     | {e.id for e in base if files.get(e.id) is None})
    return SubmitView(tree_hash=tree, changed_files=changed)
