"""Reference values of the core modules' functions, computed from their clean text.

Why this runs generated code in-process: the text is ours (a `gen_modules` template with
seeded constants), evaluated before any agent acts, with only the standard library, no I/O
and no unbounded loop; agent code never comes here (it runs in the sandbox). Evaluating the
clean module is what makes every expected value right by construction, and evaluating a
mutant is how a setup proves that an injected bug changes at least one hidden result.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Raised", "call", "call_all", "load_namespace", "same"]

_CACHE_LIMIT = 64
_namespaces: dict[str, dict[str, Any]] = {}
# Keyed by the module's text: pure, bounded, and holds no episode data (the text is generated).


@dataclass(frozen=True)
class Raised:
    """A call that raised: the exception's class name stands for the result."""

    error: str


def load_namespace(text: str) -> dict[str, Any]:
    """Executes a generated module's text and returns its namespace (cached by text)."""
    ns = _namespaces.get(text)
    if ns is None:
        ns = {"__name__": "acme_reference", "__builtins__": __builtins__}
        exec(compile(text, "<generated>", "exec"), ns)  # generated text: see the module docstring
        if len(_namespaces) >= _CACHE_LIMIT:
            _namespaces.pop(next(iter(_namespaces)))
        _namespaces[text] = ns
    return ns


def call(fn: Callable[..., Any], args: Sequence[Any]) -> Any:
    """Calls `fn(*args)` on a deep copy of the arguments; an exception becomes `Raised`."""
    try:
        return fn(*_copy(args))
    except Exception as exc:  # the behaviour under test, not a harness bug
        return Raised(type(exc).__name__)


def call_all(text: str, function: str, inputs: Sequence[Sequence[Any]]) -> list[Any]:
    """The results of `function` of the module `text` on each input."""
    fn = load_namespace(text)[function]
    return [call(fn, args) for args in inputs]


def same(a: Any, b: Any) -> bool:
    """Strict equality: same types all the way down (`1` is not `1.0` nor `True`)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return sorted(a) == sorted(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return bool(a == b)


def _copy(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return [_copy(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    return value
