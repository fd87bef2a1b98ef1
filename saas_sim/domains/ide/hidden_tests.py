"""Cases of a function, as test files (the visible tests) or as hidden cases (the grader's data).

Every case is `(args, expected)` where `expected` comes from the clean module
(`gen_reference`). A case whose reference raised is rendered as `pytest.raises`. The
generated assertions compare with `_same` (same types all the way down), so an object
whose `==` is always true, or an int subclass, fails.

Hidden tests are never rendered as code: `hidden_cases` keeps them as calls and tagged results
(`task_model.HiddenCase`), with the ids a rendered file would give, so the expected values stay on the
grader's side of the sandbox.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from saas_sim.domains.ide.gen_reference import Raised
from saas_sim.domains.ide.sandbox.compare import plain_value
from saas_sim.domains.ide.task_model import HIDDEN_DIR, HiddenCall, HiddenCase

__all__ = ["Case", "case_ids", "hidden_cases", "hidden_path", "render_tests"]

Case = tuple[list[Any], Any]
"""(positional args, the clean module's result or `Raised`)."""

_SAME = '''

def _same(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return sorted(a) == sorted(b) and all(_same(a[k], b[k]) for k in a)
    return a == b
'''


def hidden_path(function: str) -> str:
    """The path of a unit's hidden test file (under `HIDDEN_DIR`)."""
    return f"{HIDDEN_DIR}/test_hidden_{function}.py"


def _test_name(prefix: str, function: str, k: int) -> str:
    return f"test_{prefix}{function}_{k:02d}"


def case_ids(path: str, function: str, count: int, *, prefix: str = "") -> list[str]:
    """The node ids `render_tests` gives `count` cases, in order."""
    return [f"{path}::{_test_name(prefix, function, k)}" for k in range(count)]


def hidden_cases(path: str, module: str, function: str, cases: Sequence[Case], *,
                 prefix: str = "") -> list[HiddenCase]:
    """The cases as hidden cases, one call each, with the ids `case_ids` gives (test k is case k).

    Args:
        path: The test file the ids name (it need not exist).
        module: The dotted module holding the function.
        function: The function under test.
        cases: The cases, in order; a `Raised` expectation becomes `raises`.
        prefix: Inserted in the test names, as in `render_tests`.
    """
    ids = case_ids(path, function, len(cases), prefix=prefix)
    out: list[HiddenCase] = []
    for test_id, (args, expected) in zip(ids, cases, strict=True):
        if isinstance(expected, Raised):
            call = HiddenCall(module=module, function=function, args=list(args), raises=expected.error)
        else:
            call = HiddenCall(module=module, function=function, args=list(args), expected=plain_value(expected))
        out.append(HiddenCase(id=test_id, calls=[call]))
    return out


def render_tests(module: str, function: str, cases: Sequence[Case], *, prefix: str = "",
                 header: str = "") -> str:
    """Renders one test function per case, calling `module.function`.

    Args:
        module: The dotted module to import.
        function: The function under test.
        cases: The cases, in order (test k is case k).
        prefix: Inserted in the test names (`test_<prefix><function>_<k>`).
        header: A docstring for the file.
    """
    alias = "_mod"
    needs_raises = any(isinstance(expected, Raised) for _, expected in cases)
    lines = [f'"""{header or f"Tests of {module}.{function}."}"""', ""]
    if needs_raises:
        lines.append("import pytest")
    lines.append(f"import {module} as {alias}")
    body = [_SAME]
    for k, (args, expected) in enumerate(cases):
        name = _test_name(prefix, function, k)
        call = f"{alias}.{function}({', '.join(repr(a) for a in args)})"
        body.append("")
        body.append(f"def {name}():")
        if isinstance(expected, Raised):
            body.append(f"    with pytest.raises({expected.error}):")
            body.append(f"        {call}")
        else:
            body.append(f"    assert _same({call}, {expected!r})")
    return "\n".join(lines + body) + "\n"
