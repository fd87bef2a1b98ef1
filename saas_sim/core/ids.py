"""Readable, deterministic identifiers such as `ct_000042`.

An id is a prefix, an underscore and a zero-padded sequence number. Sequence
numbers are allocated per prefix in order, so the same actions always produce
the same ids and ids are allocated in creation order. (A task's setup then deals
the ids of look-alike records out among them at random, `saas_sim.core.relabel`,
so there an id's number says nothing about which record came first.) Nothing
here reads a uuid or a clock.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping

from saas_sim.errors import UsageError

__all__ = ["ID_WIDTH", "IdFactory", "copy_token", "format_id", "parse_id", "unique_token"]

ID_WIDTH = 6
_PREFIX = re.compile(r"^[a-z][a-z0-9]{0,11}$")
_ID = re.compile(r"^([a-z][a-z0-9]{0,11})_(\d{6,})$")


def format_id(prefix: str, number: int) -> str:
    """Returns the id for `prefix` and `number` (`format_id("ct", 42) == "ct_000042"`)."""
    if not _PREFIX.match(prefix):
        raise UsageError(f"id prefix {prefix!r} must be 1-12 lowercase letters or digits")
    if number < 1:
        raise UsageError(f"id numbers start at 1, got {number}")
    return f"{prefix}_{number:0{ID_WIDTH}d}"


def parse_id(value: str) -> tuple[str, int] | None:
    """Returns `(prefix, number)` for a well-formed id, else None."""
    match = _ID.match(value)
    if match is None:
        return None
    return match.group(1), int(match.group(2))


class IdFactory:
    """Allocates sequential ids per prefix, continuing from known counters.

    Args:
        counters: The highest number already used for each prefix.
    """

    __slots__ = ("_counters",)

    def __init__(self, counters: Mapping[str, int] | None = None) -> None:
        self._counters: dict[str, int] = dict(counters or {})

    def next(self, prefix: str) -> str:
        """Allocates and returns the next id for `prefix`."""
        number = self._counters.get(prefix, 0) + 1
        new_id = format_id(prefix, number)
        self._counters[prefix] = number
        return new_id

    def peek(self, prefix: str) -> str:
        """Returns the id `next(prefix)` would allocate, without allocating it."""
        return format_id(prefix, self._counters.get(prefix, 0) + 1)

    def counters(self) -> dict[str, int]:
        """Returns a copy of the per-prefix counters."""
        return dict(self._counters)


def unique_token() -> str:
    """Returns a random 12-hex-digit token for naming storage (never for content or results)."""
    import uuid

    return uuid.uuid4().hex[:12]


_PROCESS_TOKEN = unique_token()
"""Drawn once, at import: episodes draw no randomness of their own."""
_copies = itertools.count()


def copy_token() -> str:
    """Returns a token unique to this process and call: it names one in-memory copy of a stream's writer.

    It is the process's token and a counter. It names storage only (command ids), never content or results.
    """
    return f"{_PROCESS_TOKEN}.{next(_copies)}"
