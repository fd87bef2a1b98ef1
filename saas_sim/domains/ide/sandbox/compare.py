"""Strict, out-of-process comparison of a function task's results.

The sandboxed child tags every value with its exact type (worker_src.plain): `{"__float__": "0.1"}`,
`{"__list__": [...]}`, `{"__tuple__": [...]}`, `{"__dict__": {...}}`, `{"__decimal__": "1.10"}`; None, bool,
int and str stay bare. The grader tags its expected values the same way (`plain_value`) and compares with
`strict_equal`, here, in the server: `True` is not `1`, `1` is not `1.0`, a tuple is not a list, and
nothing the agent's code defines takes part, so an always-equal object cannot pass.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from pydantic import JsonValue

__all__ = ["MAX_DEPTH", "is_plain", "plain_value", "strict_equal"]

MAX_DEPTH = 50
"""How deep a tagged value may nest (the sandbox's `plain` refuses deeper values)."""


def plain_value(value: Any) -> JsonValue:
    """Tags a trusted value exactly as the sandbox tags a result.

    Raises:
        TypeError: The value is not plain data (a bug in the grader's reference, never agent input).
    """
    kind = type(value)
    if value is None or kind in (bool, int, str):
        return value  # type: ignore[no-any-return]
    if kind is float:
        return {"__float__": repr(value)}
    if kind in (list, tuple):
        return {f"__{kind.__name__}__": [plain_value(v) for v in value]}
    if kind is dict:
        if not all(type(k) is str for k in value):
            raise TypeError("dict keys must be str")
        return {"__dict__": {k: plain_value(v) for k, v in value.items()}}
    if kind is Decimal:
        return {"__decimal__": str(value)}
    raise TypeError(f"{kind.__qualname__} is not plain data")


def is_plain(value: Any, depth: int = 0) -> bool:
    """Whether `value` is tagged plain data as the sandbox writes it, at most `MAX_DEPTH` deep: what a result
    record must hold before anything compares or stores it (a forged record may hold anything)."""
    if depth > MAX_DEPTH:
        return False
    if value is None or type(value) in (bool, int, str):
        return True
    if type(value) is not dict or len(value) != 1:
        return False
    ((tag, inner),) = value.items()
    if tag in ("__float__", "__decimal__"):
        return type(inner) is str
    if tag in ("__list__", "__tuple__"):
        return type(inner) is list and all(is_plain(v, depth + 1) for v in inner)
    if tag == "__dict__":
        return type(inner) is dict and all(type(k) is str and is_plain(v, depth + 1) for k, v in inner.items())
    return False


def strict_equal(got: JsonValue, want: JsonValue, *, rel_tol: float = 1e-9, abs_tol: float = 0.0) -> bool:
    """Whether two tagged values are equal with the same exact types (floats within `rel_tol`/`abs_tol`)."""
    if type(got) is not type(want):
        return False
    if isinstance(want, dict):
        assert isinstance(got, dict)
        if set(got) != set(want):
            return False
        if set(want) == {"__float__"}:
            try:
                g, w = float(str(got["__float__"])), float(str(want["__float__"]))
            except ValueError:
                return False
            if math.isnan(w):
                return math.isnan(g)
            return math.isclose(g, w, rel_tol=rel_tol, abs_tol=abs_tol)
        return all(strict_equal(got[k], want[k], rel_tol=rel_tol, abs_tol=abs_tol) for k in want)
    if isinstance(want, list):
        assert isinstance(got, list)
        return len(got) == len(want) and all(
            strict_equal(g, w, rel_tol=rel_tol, abs_tol=abs_tol) for g, w in zip(got, want, strict=True))
    return got == want
