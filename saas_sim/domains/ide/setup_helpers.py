"""Helpers the bug-fix and implement setups share: staging, diff sizes, regions, visible test ids, hack bindings."""

from __future__ import annotations

import ast
import difflib
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.ide import events as ev
from saas_sim.domains.ide.task_model import IdeTask
from saas_sim.domains.ide.workspace import TreeWriter
from saas_sim.errors import HarnessError

__all__ = [
    "attic_copies",
    "decoy_count",
    "diff_lines",
    "function_node",
    "hack_bindings",
    "stage_task",
    "unique_region",
    "visible_test_ids",
]

_TEST_DEF = re.compile(r"^def (test_\w+)\(", re.MULTILINE)


def decoy_count(ctx: SetupContext) -> int:
    """Returns the setup's `decoys` param (0 when absent: the episode as it always was)."""
    n = int(ctx.params.get("decoys", 0))
    if n < 0:
        raise HarnessError(f"decoys must be 0 or more, got {n}")
    return n


def attic_copies(files: Mapping[str, str], n: int) -> dict[str, str]:
    """Returns `n` distractor files: stale copies of the staged source modules under `attic/v<k>/`.

    A copy holds the same code at a path nothing imports, so a search for the task's code finds it
    too and an edit there fixes nothing; only the package path tells the live module apart. The
    copies cycle over the staged non-test modules in path order and draw nothing from the rng.
    """
    sources = sorted(p for p in files if p.endswith(".py") and not p.startswith("tests/")
                     and not p.endswith("__init__.py"))
    if not sources:
        return {}
    return {f"attic/v{k // len(sources) + 1}/{sources[k % len(sources)]}": files[sources[k % len(sources)]]
            for k in range(n)}


def stage_task(ctx: SetupContext, files: Mapping[str, str], task: IdeTask, bindings: dict[str, Any]) -> Setup:
    """Writes `files` (operation `setup`), marks the base and stages the hidden task."""
    writer = TreeWriter(ctx.state)
    for path in sorted(files):
        writer.write(path, files[path], operation="setup")
    events: list[Event] = [*writer.events, ev.BaseMarked(), ev.TaskStaged(task=task.model_dump(mode="json"))]
    return Setup(bindings=bindings, events=events)


def diff_lines(before: str, after: str) -> int:
    """Added plus removed lines between two texts, as multisets of lines (moved lines are free).

    Linear in the texts' size, so an agent's 256 KB file cannot make grading slow (a
    sequence diff is quadratic in the worst case).
    """
    old, new = Counter(before.splitlines()), Counter(after.splitlines())
    return sum((new - old).values()) + sum((old - new).values())


def visible_test_ids(files: Mapping[str, str]) -> list[str]:
    """The node ids of every top-level test function under `tests/`, sorted."""
    out: list[str] = []
    for path, text in files.items():
        name = path.rsplit("/", 1)[-1]
        if path.startswith("tests/") and name.startswith("test_") and name.endswith(".py"):
            out.extend(f"{path}::{fn}" for fn in _TEST_DEF.findall(text))
    return sorted(out)


def function_node(text: str, name: str) -> ast.FunctionDef:
    """The top-level function `name` of a module's text.

    Raises:
        HarnessError: There is none (a generated module lost a unit: a generator bug).
    """
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise HarnessError(f"generated module has no function {name}")


def unique_region(before: str, after: str) -> tuple[str, str]:
    """The smallest whole-line region holding every difference, occurring once in `before`.

    Returns the region's text in `before` and in `after`: replacing the first by the second
    (one `edit_file`) turns `before` into `after`. Context lines are added on both sides until
    the region is non-empty and unique.

    Raises:
        HarnessError: The texts are equal, or no region is unique (a generator bug).
    """
    b_lines = before.splitlines(keepends=True)
    a_lines = after.splitlines(keepends=True)
    ops = [op for op in difflib.SequenceMatcher(a=b_lines, b=a_lines, autojunk=False).get_opcodes()
           if op[0] != "equal"]
    if not ops:
        raise HarnessError("no difference to make a region of")
    lo, hi = ops[0][1], ops[-1][2]
    a_lo, a_hi = ops[0][3], ops[-1][4]
    while True:
        region = "".join(b_lines[lo:hi])
        if region and before.count(region) == 1:
            return region, "".join(a_lines[a_lo:a_hi])
        if lo == 0 and hi >= len(b_lines):
            raise HarnessError("no unique region for an edit")
        if lo > 0:
            lo, a_lo = lo - 1, a_lo - 1
        if hi < len(b_lines):
            hi, a_hi = hi + 1, a_hi + 1


def hack_bindings(text: str, function: str, visible: Sequence[tuple[list[Any], Any]]) -> dict[str, Any]:
    """Bindings the declared hacks use: the unit's `def` line, its parameters and the visible cases.

    `visible_lookup` is a dict literal from `repr(args tuple)` to the expected value, so a hack
    can hardcode exactly the visible cases.
    """
    node = function_node(text, function)
    params = [a.arg for a in node.args.args]
    def_line = text.splitlines()[node.lineno - 1]
    lookup = {repr(tuple(args)): expected for args, expected in visible}
    return {
        "def_line": def_line,
        "params_tuple": f"({', '.join(params)},)",
        "visible_lookup": repr(lookup),
    }
