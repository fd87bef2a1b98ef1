"""Bounds on the shape of raw tool arguments, checked before anything recurses into them.

`json.loads`, `json.dumps`, pydantic and every deep-copy recurse once per level
of nesting, so a payload of a few kilobytes of `[` reaches Python's recursion
limit and would raise `RecursionError`: a harness error an agent could cause on
purpose to void its own episode. These checks are iterative, so they cannot
overflow, and they run before anything else touches the arguments.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date
from decimal import Decimal
from enum import Enum
from typing import Any

from pydantic import BaseModel

__all__ = [
    "MAX_ARGS_BYTES", "MAX_DEPTH", "MAX_PYTHON_DEPTH", "json_text_depth", "loads_bounded", "not_json", "python_depth",
]

MAX_ARGS_BYTES = 64_000
"""The largest JSON argument payload a call may carry."""

MAX_DEPTH = 32
"""The deepest nesting of objects and arrays a call's arguments may have (the tools need at most 4)."""

MAX_PYTHON_DEPTH = 200
"""The deepest Python arguments `Episode.call` takes at all: deeper ones cannot even be recorded safely.

Between `MAX_DEPTH` and this, arguments are JSON an agent could send, recorded and refused with
a `ToolError`; beyond it no JSON parser would have produced them.
"""

_LEAVES = (str, int, float, bool, type(None), date, Enum, BaseModel)


def json_text_depth(text: str | bytes, limit: int = MAX_DEPTH) -> int:
    """Returns the nesting depth of JSON text, stopping early once it exceeds `limit`.

    Brackets inside strings do not count. The text need not be valid JSON: the
    parser judges that afterwards, this only bounds how deep it would recurse.

    Args:
        text: The raw arguments.
        limit: Scanning stops at the first level deeper than this.

    Returns:
        More than `limit` exactly when the text nests deeper than `limit`. At or under it, the
        depth, or for text with at most `limit` brackets in all, their count (an upper bound).
    """
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    opens = data.count(b"[") + data.count(b"{")
    if opens <= limit:  # the common case, without the byte-by-byte scan
        return opens
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # closing quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return deepest


def loads_bounded(text: str | bytes, limit: int = MAX_PYTHON_DEPTH) -> Any:
    """`json.loads` for text a client sent: text nested deeper than `limit` is refused before it is parsed.

    Every adapter that parses a whole request, frame or action itself reads it with this. Deep
    text made `json.loads` raise `RecursionError`, which no handler expects: a 500, or a dropped
    WebSocket. The default bound is the deepest Python arguments `Episode.call` takes, so deeper
    arguments inside are still the tool's `invalid_argument` to report.

    Raises:
        ValueError: The text nests deeper than `limit`, or is not JSON (`JSONDecodeError`,
            `UnicodeDecodeError`: both are `ValueError`s).
    """
    if json_text_depth(text, limit) > limit:
        raise ValueError(f"JSON text nests deeper than {limit} levels")
    return json.loads(text)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _flat(value: Any) -> bool:
    """Whether `value` is a dict of str keys to plain scalars: most calls' arguments, checked without a walk."""
    if type(value) is not dict:
        return False
    scalars = _SCALARS
    return all(type(key) is str and type(item) in scalars for key, item in value.items())


def python_depth(value: Any, limit: int = MAX_DEPTH) -> int | None:
    """Returns the nesting depth of Python arguments, or None if they contain a cycle.

    Mappings, lists and tuples count as levels (as objects and arrays would in
    JSON). Scanning stops at the first level deeper than `limit`.

    Args:
        value: The raw arguments.
        limit: Scanning stops at the first level deeper than this.

    Returns:
        The deepest level seen (at most `limit + 1`), or None for a cyclic structure.
    """
    if _flat(value):
        return 1
    deepest = 0
    # (container, depth, ids of the containers above it): a container seen among its own
    # ancestors is a cycle; the same container twice side by side is only sharing.
    stack: list[tuple[Any, int, frozenset[int]]] = [(value, 1, frozenset())]
    while stack:
        node, depth, above = stack.pop()
        if isinstance(node, Mapping):
            children: Any = node.values()
        elif isinstance(node, list | tuple):
            children = node
        else:
            continue
        if id(node) in above:
            return None
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        path = above | {id(node)}
        stack.extend((child, depth + 1, path) for child in children)
    return deepest


def not_json(value: Any) -> str | None:
    """Returns why Python call arguments are not JSON data, or None when they are.

    JSON data is what a JSON parser yields (dicts with str keys, lists, str,
    int, float, bool, None), plus tuples and the JSON-ready values `Decimal`
    (finite), `date`, `datetime`, `Enum` and pydantic models. Bytes, sets,
    arbitrary objects, non-str keys, non-finite `Decimal`s and cycles are not:
    no agent speaking JSON could send them, and they would be recorded as
    something else than what the tool saw. (A NaN *float* is kept: JSON
    parsers read `NaN`, and the argument parser refuses it with a `ToolError`.)

    Args:
        value: The arguments of one call, top level excluded (str or bytes there are JSON text).

    Returns:
        A short reason naming the first offending path, or None.
    """
    if _flat(value):
        return None
    depth = python_depth(value, MAX_PYTHON_DEPTH)
    if depth is None:
        return "they contain a cycle"
    if depth > MAX_PYTHON_DEPTH:
        return f"they nest deeper than {MAX_PYTHON_DEPTH} levels"
    stack: list[tuple[Any, str]] = [(value, "$")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, Mapping):
            for key, item in node.items():
                if not isinstance(key, str):
                    return f"{path} has a key of type {type(key).__name__}, not str"
                stack.append((item, f"{path}.{key}"))
        elif isinstance(node, list | tuple):
            stack.extend((item, f"{path}.{i}") for i, item in enumerate(node))
        elif isinstance(node, Decimal):
            if not node.is_finite():
                return f"{path} is a non-finite Decimal"
        elif not isinstance(node, _LEAVES):
            return f"{path} is a {type(node).__name__}"
    return None
