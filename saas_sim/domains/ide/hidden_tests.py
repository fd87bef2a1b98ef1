"""Test files with literal expected values: the visible tests of a project and the hidden ones of a task.

Every case is `(args, expected)` where `expected` comes from the clean module
(`gen_reference`). A case whose reference raised is rendered as `pytest.raises`. The
generated assertions compare with `_same` (same types all the way down), so an object
whose `==` is always true, or an int subclass, fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from saas_sim.domains.ide.gen_reference import Raised
from saas_sim.domains.ide.task_model import HIDDEN_DIR

__all__ = ["Case", "case_ids", "hidden_path", "render_tests"]

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
