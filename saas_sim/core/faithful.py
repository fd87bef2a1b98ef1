"""Faithful JSON: the storage encoding of event payloads and snapshots.

Canonical JSON (`saas_sim.core.canonical`) is for *hashing*: it folds values
that mean the same into one form (`Decimal("22950.00")` -> `"22950"`, dict keys
sorted), so cosmetic differences never flip a verdict. That folding is lossy,
so it must never be what a state is rebuilt from: a world loaded from a
snapshot, or an episode rebuilt from its log, would then show an agent
`"22950"` where the freshly built world showed `"22950.00"`.

Faithful JSON keeps everything a model's fields can observe, and is still a
pure function of the value (the same value gives the same bytes in every
process and under every `PYTHONHASHSEED`):

* `Decimal` as its own text (`"22950.00"` stays `"22950.00"`);
* floats through `repr`, so `25.0` stays a float;
* datetimes and dates through `isoformat()`, keeping their UTC offset (a
  naive datetime is refused: guessing a timezone is a silent default);
* dicts in insertion order (the order a reducer built them in);
* sets and frozensets sorted by their canonical form, the one order that
  does not depend on the process's string hashing;
* tuples and lists as arrays; enums by value; pydantic models through
  `model_dump(mode="python")`.

Decoding is `json.loads` and the model's own validation, which gives back the
value that was encoded. `saas_sim.core.snapshots` checks that round trip when
it loads a world, so a type that cannot round-trip is caught, never served.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from pydantic import BaseModel

from saas_sim.core.canonical import canonical_bytes
from saas_sim.errors import UsageError

__all__ = ["FORMAT_VERSION", "faithful", "faithful_bytes"]

FORMAT_VERSION = 2
"""The storage format: 1 was canonical (lossy) JSON, 2 is faithful JSON. Part of the code version."""

_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_EXACT_SCALARS = frozenset({str, bool, int, type(None)})


def faithful(value: Any) -> Any:
    """Returns a JSON-ready structure that decodes back to `value` (see the module docstring).

    Raises:
        UsageError: The value holds a non-finite number, or a type with no JSON form.
    """
    kind = type(value)
    if kind in _EXACT_SCALARS:
        return value
    if kind is dict:
        return {str(k): faithful(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [faithful(v) for v in value]
    if kind is Decimal:
        return _decimal(value)
    return _general(value)


def _decimal(value: Decimal) -> str:
    if not value.is_finite():
        raise UsageError(f"non-finite decimal {value!r} cannot be stored")
    return str(value)


def _general(value: Any) -> Any:
    if isinstance(value, str | bool | int) or value is None:
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise UsageError(f"non-finite float {value!r} cannot be stored")
        return value
    if isinstance(value, Decimal):
        return _decimal(value)
    if isinstance(value, Mapping):
        return {str(k): faithful(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [faithful(v) for v in value]
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise UsageError(f"naive datetime {value.isoformat()} has no timezone; use UTC")
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, BaseModel):
        return faithful(value.model_dump(mode="python"))
    if isinstance(value, Enum):
        return faithful(value.value)
    if isinstance(value, set | frozenset):
        return sorted((faithful(v) for v in value), key=canonical_bytes)
    raise UsageError(f"cannot store a value of type {type(value).__name__}")


def faithful_bytes(value: Any) -> bytes:
    """Encodes a value as faithful JSON bytes (UTF-8, no insignificant whitespace)."""
    return _ENCODER.encode(faithful(value)).encode("utf-8")
