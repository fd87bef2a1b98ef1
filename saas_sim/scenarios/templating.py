"""Templates over a setup's bindings.

`"{deal.id}"` alone is replaced by the bound value itself, keeping its type;
`"Deal {deal.name} closes"` interpolates text. Paths use dots, and digits
index lists (`{lines.0.sku}`). `{{` and `}}` are literal braces. A missing
path is an error, never an empty string.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from saas_sim.errors import ScenarioError

__all__ = ["lookup", "render"]

_FULL = re.compile(r"^\{([A-Za-z_][\w.]*)\}$")
_PART = re.compile(r"\{\{|\}\}|\{([A-Za-z_][\w.]*)\}")


def lookup(bindings: Mapping[str, Any], path: str) -> Any:
    """Returns the value at a dotted path."""
    node: Any = bindings
    for part in path.split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list | tuple) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise ScenarioError(f"template path {{{path}}} is not bound (stopped at {part!r})")
    return node


def render(value: Any, bindings: Mapping[str, Any]) -> Any:
    """Renders every template string inside `value` (dicts and lists recursively)."""
    if isinstance(value, str):
        full = _FULL.match(value)
        if full:
            return lookup(bindings, full.group(1))

        def sub(match: re.Match[str]) -> str:
            token = match.group(0)
            if token == "{{":
                return "{"
            if token == "}}":
                return "}"
            return str(lookup(bindings, match.group(1)))

        return _PART.sub(sub, value)
    if isinstance(value, Mapping):
        return {k: render(v, bindings) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [render(v, bindings) for v in value]
    return value
