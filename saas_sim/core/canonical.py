"""Canonical JSON and sha256 hashing.

Two values that mean the same thing must hash the same, whatever process,
platform or `PYTHONHASHSEED` produced them. The canonical form is:

* object keys sorted, no insignificant whitespace, UTF-8;
* `Decimal` written as a plain fixed-point string with trailing zeros removed
  (`Decimal("25.00")` -> `"25"`), so money never goes through a float;
* floats that hold an integer written as that integer (`25.0` -> `25`), so
  `25` and `25.0` can never flip a verdict; other floats use `repr`;
* datetimes converted to UTC ISO-8601 with a `Z` suffix; naive datetimes are
  rejected, because guessing a timezone is a silent default;
* tuples and lists alike as JSON arrays; sets and frozensets sorted;
* pydantic models through `model_dump(mode="python")`; enums by value.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from enum import Enum
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

from saas_sim.errors import UsageError

__all__ = ["canonical_bytes", "canonical_decimal", "normalize", "sha256_hex", "stable_hash"]

_SCALARS = (str, bool, int, type(None))
_EXACT_SCALARS = frozenset(_SCALARS)

# One encoder for every call: `json.dumps` with options builds a new one each time.
_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def canonical_decimal(value: Decimal) -> str:
    """Returns the canonical fixed-point text of a decimal (`25.50` -> `25.5`)."""
    if not value.is_finite():
        raise UsageError(f"non-finite decimal {value!r} cannot be canonicalized")
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "0") else text


def _normalize_float(value: float) -> int | float:
    if not math.isfinite(value):
        raise UsageError(f"non-finite float {value!r} cannot be canonicalized")
    if value.is_integer():
        return int(value)
    return value


@lru_cache(maxsize=1024)
def _normalize_datetime(value: datetime) -> str:
    # Cached: a step records its instant on every event, and equal aware datetimes (equal instants,
    # whatever their offsets) hash alike and have one UTC form. A naive one raises, and is not cached.
    if value.tzinfo is None:
        raise UsageError(f"naive datetime {value.isoformat()} has no timezone; use UTC")
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def normalize(value: Any) -> Any:
    """Returns a JSON-ready structure in canonical form (see the module docstring)."""
    # Fast path on exact types (the common case in event payloads); it gives the
    # same results as the general dispatch below, which handles every subclass.
    kind = type(value)
    if kind in _EXACT_SCALARS:
        return value
    if kind is dict:
        return {str(k): normalize(v) for k, v in value.items()}
    if kind is Decimal:
        return canonical_decimal(value)
    if kind is list or kind is tuple:
        return [normalize(v) for v in value]
    if kind is datetime:
        return _normalize_datetime(value)
    return _normalize_general(value)


def _normalize_general(value: Any) -> Any:
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, float):
        return _normalize_float(value)
    if isinstance(value, Mapping):
        return {str(k): normalize(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [normalize(v) for v in value]
    if isinstance(value, Decimal):
        return canonical_decimal(value)
    if isinstance(value, datetime):
        return _normalize_datetime(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, BaseModel):
        return normalize(value.model_dump(mode="python"))
    if isinstance(value, Enum):
        return normalize(value.value)
    if isinstance(value, set | frozenset):
        return sorted((normalize(v) for v in value), key=_sort_key)
    raise UsageError(f"cannot canonicalize a value of type {type(value).__name__}")


def _sort_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_bytes(value: Any) -> bytes:
    """Encodes a value as canonical JSON bytes."""
    return _ENCODER.encode(normalize(value)).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    """Returns the hex sha256 of raw bytes."""
    return hashlib.sha256(data).hexdigest()


def stable_hash(value: Any) -> str:
    """Returns the hex sha256 of a value's canonical JSON."""
    return sha256_hex(canonical_bytes(value))
