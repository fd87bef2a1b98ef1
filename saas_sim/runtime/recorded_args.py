"""Call arguments and results as the trajectory and the log keep them: faithful JSON copies."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from pydantic import BaseModel

__all__ = ["bytes_text", "copy_json", "plain_json", "recordable_args"]


def copy_json(value: Any) -> Any:
    """Copies JSON-ready data (dicts and lists; the leaves are immutable)."""
    kind = type(value)
    if kind is dict:
        return {k: copy_json(v) for k, v in value.items()}
    if kind is list:
        return [copy_json(v) for v in value]
    return value


def plain_json(value: Any) -> Any:
    """Returns a faithful JSON-ready deep copy of call arguments, or raises TypeError/ValueError.

    Faithful, not canonical: `Decimal("12.50")` stays "12.50" (the tool would echo
    it back that way), and nothing aliases the caller's objects.
    """
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("non-finite number")
        return value
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError("non-finite number")
        return str(value)
    if isinstance(value, Mapping):
        return {k if isinstance(k, str) else json.dumps(plain_json(k)): plain_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_json(v) for v in value]
    if isinstance(value, set | frozenset):
        return [plain_json(v) for v in sorted(value)]
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Enum):
        return plain_json(value.value)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    raise TypeError(f"{type(value).__name__} is not JSON")


def bytes_text(raw: bytes) -> str:
    """The JSON text that argument bytes hold: decoded as `json.loads` would (UTF-8, -16 or -32, a BOM dropped).

    Bytes no such encoding decodes become UTF-8 text with `\\xNN` for each bad byte: never valid JSON (a
    backslash outside a string, or an invalid escape inside one), so the call and its replay fail alike.
    `Episode.call` parses and records this text, so a replay reads what the original call read.
    """
    try:
        return raw.decode(json.detect_encoding(raw))
    except UnicodeDecodeError:
        return raw.decode("utf-8", "backslashreplace")


def recordable_args(args: Any) -> Any:
    """Returns the arguments as the trajectory keeps them: JSON, a copy, and replayable.

    Replaying the recorded value must give the agent the same observation as the
    original call: bytes that held JSON are kept as that text, a tuple or a
    Mapping as the list or object they were, and anything with NaN or non-JSON
    leaves as the JSON text the argument parser would have seen.
    """
    if args is None or isinstance(args, str):
        return args
    if isinstance(args, bytes):
        return bytes_text(args)
    try:
        return plain_json(args)
    except (TypeError, ValueError, RecursionError):
        pass
    try:
        return json.dumps(args, default=repr)
    except (TypeError, ValueError, RecursionError):
        return repr(args)
