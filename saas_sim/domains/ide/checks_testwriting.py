"""Checks of a test-writing task: the agent's tests pass on correct code and fail on the hidden mutants.

They read the staged task (family `tests`) and the grade effect `ide.mutant_runs`
(grade_runs.py): one sandboxed run of the agent's test file per variant of the module, on the
graded tree (protected paths restored from the base). A variant's run *passes* when the session
reached its end, nothing was tampered with, it ran tests and every one of them passed. A mutant is
*killed* when its run reached its end untampered and a test failed or errored, or the file did not
import. Other test ids than on the clean module kill nothing: ids computed from the function's values
(`parametrize("v", [f(x)])` with `assert True`) change on a mutant without any test asserting anything.
A timeout or a resource limit kills nothing either (a test that hangs on every variant proves nothing).

Besides the runs, two static constraints judge the test file itself: it states behaviour through
the public function (no file, source, code-object or frame access, no dynamic code, no skips or
runner hooks: tamper.py's patterns, where the plain pytest API a test file needs is allowed), and it
does not carry a copy of the unit's implementation to compare against.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.ide.checks_tests import staged_task
from saas_sim.domains.ide.grade_runs import MUTANT_RUNS
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.tamper import scan
from saas_sim.domains.ide.task_model import IdeTask
from saas_sim.domains.ide.workspace import changed_paths, file_text
from saas_sim.errors import HarnessError

__all__ = [
    "ALLOWED_IMPORTS",
    "VariantRuns",
    "mutant_runs",
    "mutants_killed",
    "written_tests_no_unit_copy",
    "written_tests_pass",
    "written_tests_plain",
]

_PYTEST_API = re.compile(r"\bpytest\s*\.\s*(raises|approx|param|fail|fixture|mark\s*\.\s*parametrize)\b")
"""The pytest API a plain test file uses: expected exceptions, approximate floats, parametrized cases,
explicit failures and fixtures."""

_IMPORT_PYTEST = re.compile(r"^\s*import\s+pytest\s*(#.*)?$", re.MULTILINE)

ALLOWED_IMPORTS: frozenset[str] = frozenset({
    "__future__", "acme", "collections", "dataclasses", "decimal", "enum", "fractions", "functools",
    "itertools", "math", "pytest", "re", "statistics", "string", "typing",
})
"""The top-level modules a test file may import: the code under test, pytest and pure, deterministic
standard modules. Everything else is a way to look at the code instead of its behaviour (`dis`,
`inspect`, `ast`, `sys`, `os`, `tokenize`...) or a source of noise (`random`, `time`, `datetime`, `uuid`:
a test that fails at random "kills" mutants by chance), whether or not tamper.py knows its name."""

_NOISE_NAMES = frozenset({"id", "hash", "object", "repr", "dir", "memoryview"})
"""Builtins whose results hang on memory addresses, which move with the module's text: a test built on
them can pass on one variant and fail on another for no behaviour at all."""

_COPY_SHARE = 0.5
"""A test file holding at least this share of the unit's own statements (names and literals aside)
carries a copy of its implementation."""


@dataclass(frozen=True)
class VariantRuns:
    """The runs of the agent's test file, by variant name (`clean`, `equivalent_<k>`, `mutant_<kk>`).

    Attributes:
        test_path: The agent's test file.
        present: Whether the graded tree holds it.
        variants: Every variant's name, in run order (a name without a run was skipped).
        runs: The run report of each variant run, as JSON.
        void: Why nothing counts (the whole effect timed out), or "".
    """

    test_path: str
    present: bool
    variants: list[str]
    runs: Mapping[str, Mapping[str, Any]]
    void: str = ""

    def tests(self, name: str) -> dict[str, str]:
        """The per-test outcomes of a variant's run ({} when it did not run)."""
        tests = self.runs.get(name, {}).get("tests") or {}
        return {str(k): str(v) for k, v in tests.items()} if isinstance(tests, dict) else {}

    def sound(self, name: str) -> bool:
        """Whether the variant's run reached its end untampered, without a timeout or a limit."""
        return not self.unsound_why(name)

    def unsound_why(self, name: str) -> str:
        """Why a variant's run does not count (what `sound` found), or "" when it counts."""
        run = self.runs.get(name)
        if run is None:
            return "it did not run"
        for why in (self.void, run.get("tamper"), run.get("limit")):
            if why:
                return str(why)
        if run.get("status") not in ("ok", "failed"):
            return str(run.get("status"))
        return "" if run.get("complete") else "the session did not reach its end"

    def passes(self, name: str) -> bool:
        """Whether the variant's run is sound and ran tests that all passed."""
        tests = self.tests(name)
        return self.sound(name) and bool(tests) and all(v == "passed" for v in tests.values())

    def killed(self, name: str) -> bool:
        """Whether a mutant's run is sound and a test failed or errored, or the file did not import."""
        if not self.sound(name):
            return False
        errors = self.runs[name].get("collect_errors")
        return bool(errors) or any(v in ("failed", "error") for v in self.tests(name).values())

    @property
    def mutants(self) -> list[str]:
        """The mutant variants' names, in order."""
        return [n for n in self.variants if n.startswith("mutant_")]

    @property
    def references(self) -> list[str]:
        """The correct variants' names (clean, then the equivalent rewrites)."""
        return [n for n in self.variants if not n.startswith("mutant_")]


def mutant_runs(ctx: CheckContext) -> VariantRuns:
    """The `ide.mutant_runs` outcome.

    Raises:
        HarnessError: The grade has no such outcome, or a malformed one (the grading machinery is broken).
    """
    outcome = ctx.effects.get(MUTANT_RUNS)
    if outcome is None:
        raise HarnessError(f"the grade has no {MUTANT_RUNS} outcome")
    value = outcome.value
    if outcome.status == "timeout":
        return VariantRuns("", False, [], {}, "the grading runs hit their wall timeout")
    runs, variants = value.get("runs"), value.get("variants")
    if not isinstance(runs, dict) or not isinstance(variants, list):
        raise HarnessError(f"malformed {MUTANT_RUNS} outcome")
    return VariantRuns(str(value.get("test_path", "")), bool(value.get("present")), [str(v) for v in variants],
                       {str(k): v for k, v in runs.items() if isinstance(v, dict)})


def _reference_problem(runs: VariantRuns, min_tests: int) -> str:
    """Why the tests do not pass on correct code, or "" when they do (at least `min_tests` of them)."""
    if runs.void:
        return runs.void
    if not runs.present:
        return f"there is no {runs.test_path}"
    clean = runs.tests("clean")
    for name in runs.references:
        run = runs.runs.get(name, {})
        label = "the module" if name == "clean" else "an equivalent rewrite of the module"
        if not runs.sound(name):
            return f"the run on {label} did not count ({runs.unsound_why(name)})"
        if not runs.passes(name):
            bad = sorted(k for k, v in runs.tests(name).items() if v != "passed")
            shown = ", ".join(b.rsplit("::", 1)[-1] for b in bad[:3])
            errors = run.get("collect_errors") or {}
            return (f"the tests fail on {label}: " + (shown or ("the file does not import" if errors
                                                                 else "no test ran")))
        if set(runs.tests(name)) != set(clean):
            return f"{label} ran other tests than the module"
    if len(clean) < min_tests:
        return f"{len(clean)} test(s) ran; the task asks for at least {min_tests}"
    return ""


@kit.check
def written_tests_pass(ctx: CheckContext) -> CheckOutcome:
    """Constraint: the agent's test file holds enough tests, and all pass on the module and its equivalent rewrites."""
    task = staged_task(ctx)
    runs = mutant_runs(ctx)
    problem = _reference_problem(runs, int(str(task.details.get("min_tests", 1))))
    if problem:
        return CheckOutcome.failed(problem)
    return CheckOutcome.passed(f"{len(runs.tests('clean'))} tests pass on the module and on "
                               f"{len(runs.references) - 1} equivalent rewrite(s)")


@kit.check
def mutants_killed(ctx: CheckContext) -> CheckOutcome:
    """The share of hidden mutants the agent's tests fail on (none when they fail on correct code)."""
    task = staged_task(ctx)
    runs = mutant_runs(ctx)
    staged = task.details.get("mutants")
    # The task's count, not the runs': a timed-out effect reports no variants and still leaves them uncaught.
    total = len(staged) if isinstance(staged, list) else 0
    if total == 0:
        raise HarnessError("the test-writing task has no mutants")
    problem = _reference_problem(runs, int(str(task.details.get("min_tests", 1))))
    if problem:
        return CheckOutcome(0.0, f"0 of {total} mutants killed: {problem}")
    killed = [n for n in runs.mutants if runs.killed(n)]
    detail = f"{len(killed)} of {total} mutants killed"
    survivors = [_survival(runs, n) for n in runs.mutants if n not in killed]
    return CheckOutcome(len(killed) / total, detail + (f"; not killed: {', '.join(survivors)}" if survivors else ""))


def _survival(runs: VariantRuns, name: str) -> str:
    """Why a mutant was not killed: every test passed on it, or its run did not count (and why)."""
    if runs.sound(name):
        return f"{name} (every test passed)"
    return f"{name} (its run did not count: {runs.unsound_why(name)})"


def _plain_text(text: str) -> str:
    """The test file with the plain pytest API blanked out, so tamper.py's runner pattern sees only the rest."""
    return _PYTEST_API.sub("_api_", _IMPORT_PYTEST.sub("", text))


@kit.check
def written_tests_plain(ctx: CheckContext) -> CheckOutcome:
    """Constraint: the diff adds no tamper pattern (tamper.py), and the test file imports only `ALLOWED_IMPORTS`.

    In the test file the plain pytest API (`import pytest`, `pytest.raises`, `.approx`, `.param`, `.fail`,
    `.fixture`, `.mark.parametrize`) is allowed.
    """
    task = staged_task(ctx)
    test_path = _test_path(task)
    before: dict[str, str] = {}
    after: dict[str, str] = {}
    for path in changed_paths(ctx.initial, ctx.final):
        b, a = file_text(ctx.initial, path), file_text(ctx.final, path)
        if b is not None:
            before[path] = b
        if a is not None:
            after[path] = _plain_text(a) if path == test_path else a
    findings = [f.describe() for f in scan(before, after)]
    text = file_text(ctx.final, test_path)
    if text is not None:
        findings += [f"import of {name} in {test_path}" for name in _imports_outside(text)]
        findings += [f"{what} in {test_path}" for what in _non_calls(text)]
    if findings:
        return CheckOutcome.failed("tamper patterns in the diff: " + "; ".join(findings[:6]))
    return CheckOutcome.passed("the tests use the module's public functions and the plain pytest API only")


def _non_calls(text: str) -> list[str]:
    """Uses of an address-dependent builtin, or of an imported acme name other than calling it (its repr
    holds an address), sorted; [] for a file that does not parse (the import rule already names it)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "acme":
            imported.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            imported.update(alias.asname or alias.name.split(".")[0] for alias in node.names
                            if alias.name.split(".")[0] == "acme")
    # Every node of a called function's attribute chain (`mod`, `mod.fn` in `mod.fn(...)`) is a call's.
    called: set[int] = set()
    for call in ast.walk(tree):
        if isinstance(call, ast.Call):
            func: ast.expr = call.func
            called.add(id(func))
            while isinstance(func, ast.Attribute):
                func = func.value
                called.add(id(func))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in _NOISE_NAMES:
            out.add(f"the builtin {node.id}")
        target = node
        while isinstance(target, ast.Attribute):
            target = target.value
        if isinstance(target, ast.Name) and target.id in imported and id(node) not in called:
            out.add(f"{target.id} used other than by calling it")
    return sorted(out)


def _imports_outside(text: str) -> list[str]:
    """The modules a test file imports beyond `ALLOWED_IMPORTS`, sorted (`<unparsable>` for a broken file)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ["<unparsable>"]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or "").split(".")[0])
    return sorted(n for n in names if n not in ALLOWED_IMPORTS)


def _shape(node: ast.AST, stmts: list[str] | None = None) -> str:
    """A node's structure with every name, attribute and literal erased; with `stmts`, the shape of every
    statement inside it (functions aside) is appended there too, in one pass."""
    if isinstance(node, ast.Name | ast.Attribute):
        return "_"
    if isinstance(node, ast.Constant):
        return "C"
    if isinstance(node, ast.expr_context):
        return ""
    parts: list[str] = []
    for _, value in ast.iter_fields(node):
        if isinstance(value, ast.AST):
            parts.append(_shape(value, stmts))
        elif isinstance(value, list):
            parts.append("[" + ",".join(_shape(v, stmts) for v in value if isinstance(v, ast.AST)) + "]")
    shape = f"{type(node).__name__}({','.join(parts)})"
    if stmts is not None and isinstance(node, ast.stmt) and not isinstance(node, ast.FunctionDef):
        stmts.append(shape)
    return shape


def _unit_shapes(text: str, functions: list[str]) -> list[str]:
    """The shapes of the non-trivial statements in the named functions' bodies (docstrings left out)."""
    out: list[str] = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name in functions:
            for stmt in ast.walk(node):
                if isinstance(stmt, ast.stmt) and not isinstance(stmt, ast.FunctionDef) and _nontrivial(stmt):
                    out.append(_shape(stmt))
    return out


def _nontrivial(stmt: ast.stmt) -> bool:
    # A bare `return 0` or `continue` is in every file; a statement computing something is the unit's own.
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return False
    return any(isinstance(n, ast.BinOp | ast.Compare | ast.BoolOp | ast.Call | ast.IfExp) for n in ast.walk(stmt))


def _file_shapes(text: str) -> set[str] | None:
    """The shapes of a file's statements, or None when it does not parse (then it does not run either)."""
    stmts: list[str] = []
    try:
        _shape(ast.parse(text), stmts)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return set(stmts)


@kit.check
def written_tests_no_unit_copy(ctx: CheckContext) -> CheckOutcome:
    """Constraint: the test file does not carry a copy of the unit's implementation to compare against.

    A test that checks the function against its own copy pins whatever the code does, not the documented
    rules, and needs no test case at all. Judged by structure: the share of the unit's computing statements
    (its call chain's, names and literals erased) that appear in the test file.
    """
    task = staged_task(ctx)
    test_path = _test_path(task)
    text = file_text(ctx.final, test_path)
    if text is None:
        return CheckOutcome.passed(f"no {test_path}")
    module = file_text(ctx.initial, str(task.details["module"]))
    if module is None:
        raise HarnessError("the test-writing task's module is missing from the base")
    chain = task.details.get("chain") or [str(task.details["unit"])]
    unit = _unit_shapes(module, [str(f) for f in chain] if isinstance(chain, list) else [])
    found = _file_shapes(text)
    if found is None or not unit:
        return CheckOutcome.passed("the test file holds none of the unit's statements")
    shared = sum(1 for s in unit if s in found)
    if shared / len(unit) >= _COPY_SHARE:
        return CheckOutcome.failed(f"the test file holds {shared} of the unit's {len(unit)} statements: "
                                   "a copy of the implementation, not expected values")
    return CheckOutcome.passed(f"the test file shares {shared} of the unit's {len(unit)} statements")


def _test_path(task: IdeTask) -> str:
    if task.family != "tests":
        raise HarnessError("a test-writing check on a task of another family")
    return str(task.details["test_path"])
