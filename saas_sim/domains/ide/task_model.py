"""The hidden task of an IDE episode (`hidden.ide.task`): what the grader runs and protects.

A setup builds an `IdeTask`, stages it with `ide.TaskStaged(task=task.model_dump(mode="json"))`,
and checks and the grade effects read it back with `IdeTask.model_validate(...)` (`load_task`).
Tools never read it: it is the only place the hidden tests exist.

Conventions every family keeps:

* Test ids are pytest node ids relative to the tree root (`tests/test_invoice.py::test_late_fee`,
  `_grader/test_hidden_billing.py::test_late_fee_hidden`), sorted.
* `hidden_files` are added to a *copy* of the final tree at grade time, after the protected
  paths were restored from the base; they never reach `ide.files`.
* `hidden_cases` are hidden tests kept as data, never as code: each is a few calls with the oracle's
  result. The grader makes the calls in the sandbox and compares the results here, out of process, so
  no expected value is ever in the process that runs the agent's code (a test file's literals are: an
  agent's function could read them off the calling test's bytecode). A task whose hidden tests are all
  plain calls keeps them as cases; its other selected tests (the visible ones) still run under pytest.
* Restoring protected paths means: every base path matching `protected` gets its base text and
  mode back, and every final path matching `protected` that the base lacks is removed (an
  agent's new `conftest.py` or `.pth` never runs under the grader).
"""

from __future__ import annotations

import fnmatch
import functools
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

__all__ = [
    "HIDDEN_DIR",
    "PROTECTED_GLOBS",
    "FunctionSpec",
    "HiddenCall",
    "HiddenCase",
    "IdeTask",
    "TaskFamily",
    "TaskScope",
    "load_task",
    "matches_any",
    "task_of",
]

TaskFamily = Literal["bugfix", "implement", "refactor", "flaky", "config", "review", "tests"]

HIDDEN_DIR = "_grader"
"""The folder (at the tree root) the hidden test files are placed in at grade time; protected."""

PROTECTED_GLOBS: tuple[str, ...] = (
    "tests/*",
    "tests/**",
    "_grader/**",
    "conftest.py",
    "**/conftest.py",
    "pyproject.toml",
    "pytest.ini",
    "setup.cfg",
    "tox.ini",
    "sitecustomize.py",
    "**/sitecustomize.py",
    "usercustomize.py",
    "**/usercustomize.py",
    "*.pth",
    "**/*.pth",
)
"""The default protected paths (fnmatch globs over POSIX paths; `*` also crosses `/`)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TaskScope(_Strict):
    """Which files the task allows to change, and how large the diff may be.

    Attributes:
        allowed: fnmatch globs of the paths the agent may change (create, edit, delete, move).
        oracle_diff_lines: Changed lines (added + removed) of the oracle's diff against the base.
        max_ratio: The diff may be at most this multiple of the oracle's ...
        slack_lines: ... plus this many lines (a one-line fix may be written in three).
    """

    allowed: list[str]
    oracle_diff_lines: int = Field(ge=0)
    max_ratio: float = Field(default=4.0, gt=0)
    slack_lines: int = Field(default=12, ge=0)

    def max_diff_lines(self) -> int:
        """The largest diff (added + removed lines) the scope allows."""
        return int(self.oracle_diff_lines * self.max_ratio) + self.slack_lines


class FunctionSpec(_Strict):
    """A function task: the grader calls `module.function(*args)` on hidden inputs in the sandbox.

    Attributes:
        module: The importable module (`acme.pricing.tiers`).
        function: The function's name in it.
        inputs: One positional-argument list per call (hidden; drawn from `seed` at setup).
        expected: The oracle's JSON result of each call, compared with strict types
            (`1` is not `1.0`, `True` is not `1`).
        seed: The seed the inputs were drawn from (recorded for audits).
    """

    module: str
    function: str
    inputs: list[list[JsonValue]]
    expected: list[JsonValue]
    seed: str


class HiddenCall(_Strict):
    """One call a hidden case makes: `module.function(*args)`, and what it must give.

    Attributes:
        module: The importable module.
        function: The function's name in it.
        args: The positional arguments (plain JSON).
        expected: The oracle's result, tagged as the sandbox tags results (`compare.plain_value`);
            ignored when `raises` is set.
        raises: The name of the builtin exception the call must raise (a subclass counts, as with
            `pytest.raises`), or None when it must return `expected`.
        item: Compare only this key of the (dict) result.
    """

    module: str
    function: str
    args: list[JsonValue]
    expected: JsonValue = None
    raises: str | None = None
    item: str | None = None


class HiddenCase(_Strict):
    """A hidden test kept as data: it passes when every one of its calls gives what it must.

    Attributes:
        id: Its test id, as in `fail_to_pass`/`pass_to_pass` (`_grader/test_hidden_quote.py::test_quote_03`).
        calls: The calls, made in order in one sandboxed process.
    """

    id: str
    calls: list[HiddenCall] = Field(min_length=1)


class IdeTask(_Strict):
    """Everything hidden about one IDE task.

    Attributes:
        family: The task family.
        hidden_files: Hidden test files, path -> text (paths under `HIDDEN_DIR`).
        hidden_cases: Hidden tests kept as calls and results (see the module docstring); their ids
            are in `fail_to_pass`/`pass_to_pass` like any other test's.
        fail_to_pass: Test ids that fail on the base and must pass after the fix (sorted).
        pass_to_pass: Test ids that pass on the base and must keep passing (sorted).
        protected: Globs of the paths the grader restores from the base and that must not change.
        scope: The allowed paths and the diff budget.
        function: The function under test, for function tasks (`implement`).
        details: Family specifics, plain JSON (the injected bugs, refactor targets...).
    """

    family: TaskFamily
    hidden_files: dict[str, str] = Field(default_factory=dict)
    hidden_cases: list[HiddenCase] = Field(default_factory=list)
    fail_to_pass: list[str] = Field(default_factory=list)
    pass_to_pass: list[str] = Field(default_factory=list)
    protected: list[str] = Field(default_factory=lambda: list(PROTECTED_GLOBS))
    scope: TaskScope
    function: FunctionSpec | None = None
    details: dict[str, JsonValue] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _cases_are_selected(self) -> IdeTask:
        ids = [c.id for c in self.hidden_cases]
        if len(set(ids)) != len(ids):
            raise ValueError("hidden case ids must be unique")
        unselected = set(ids) - set(self.fail_to_pass) - set(self.pass_to_pass)
        if unselected:
            raise ValueError(f"hidden cases not in fail_to_pass or pass_to_pass: {sorted(unselected)[:3]}")
        return self

    def pytest_selection(self) -> list[str]:
        """The selected test ids pytest runs: every fail-to-pass and pass-to-pass id but the hidden cases', sorted."""
        cases = {c.id for c in self.hidden_cases}
        return sorted((set(self.fail_to_pass) | set(self.pass_to_pass)) - cases)

    def is_protected(self, path: str) -> bool:
        """Whether `path` matches one of the task's protected globs."""
        return matches_any(path, self.protected)

    def in_scope(self, path: str) -> bool:
        """Whether `path` matches one of the scope's allowed globs (and is not protected)."""
        return matches_any(path, self.scope.allowed) and not self.is_protected(path)


def matches_any(path: str, globs: Iterable[str]) -> bool:
    """Whether a POSIX path matches any fnmatch glob (case-sensitive; `*` crosses `/`)."""
    return any(fnmatch.fnmatchcase(path, g) for g in globs)


def load_task(value: Mapping[str, Any] | None) -> IdeTask | None:
    """Validates the staged `hidden.ide.task` value; None when no task was staged.

    Memoized by the value's identity: a grade reads the task in its grade effects and in several
    checks, and every episode of a task shares its staged value (states are immutable), so each is
    validated once. The task is frozen; callers must not change its lists or dicts either.
    """
    return None if value is None else task_of(value)


def task_of(value: Mapping[str, Any]) -> IdeTask:
    """Validates a staged `hidden.ide.task` value (memoized, see `load_task`)."""
    return _validated(_ByIdentity(value))


class _ByIdentity:
    """A key that is its object's identity (a staged value is a dict, which hashes by content, if at all).

    The key holds its object, so the object's id cannot be reused while the key is cached.
    """

    __slots__ = ("value",)

    def __init__(self, value: Mapping[str, Any]) -> None:
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _ByIdentity) and other.value is self.value


@functools.lru_cache(maxsize=256)
def _validated(key: _ByIdentity) -> IdeTask:
    return IdeTask.model_validate(dict(key.value))
