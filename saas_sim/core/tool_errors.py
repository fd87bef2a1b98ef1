"""The agent-facing error convention: which details each error code carries, and helpers that build them.

Agents read errors as data, so an error code means the same thing, with the
same detail keys, in every domain (docs/conventions.md):

* `invalid_argument`: `fields`, the argument paths at fault (empty when the
  arguments as a whole are at fault, such as text that is not JSON);
* `not_found`: `id`, the id that names nothing, and `fields`, the argument that held it;
* `conflict` and `permission_denied`: `fields`, the arguments whose values the
  current state refuses (empty when the call as a whole is refused);
* `unknown_tool`: `available`, the tools of the task;
* `rate_limited`: `retry_after_s`.

Domains may add keys of their own (`merged_into`, `candidates`), never drop these.
Build domain errors with the helpers below, never with a bare `ToolError`, so
that a conformance test (tests/domains/test_conventions.py) has one place to hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from saas_sim.errors import ToolError, ToolErrorCode

if TYPE_CHECKING:
    from saas_sim.core.state import Entity, TableKey
    from saas_sim.core.tools import ToolContext

__all__ = ["ERROR_DETAIL_KEYS", "bad_args", "conflict", "denied", "not_found", "require"]

T = TypeVar("T", bound="Entity")

ERROR_DETAIL_KEYS: Mapping[ToolErrorCode, frozenset[str]] = {
    "invalid_argument": frozenset({"fields"}),
    "not_found": frozenset({"id", "fields"}),
    "conflict": frozenset({"fields"}),
    "permission_denied": frozenset({"fields"}),
    "unknown_tool": frozenset({"available"}),
    "rate_limited": frozenset({"retry_after_s"}),
    "unavailable": frozenset(),
    "timeout": frozenset(),
    "episode_closed": frozenset(),
}
"""The detail keys every error of a code carries, in every domain and in the runtime."""


def bad_args(message: str, fields: Sequence[str], **extra: Any) -> ToolError:
    """Returns an `invalid_argument` error naming the offending argument paths."""
    return ToolError("invalid_argument", message, details={"fields": list(fields), **extra})


def not_found(what: str, entity_id: str, field: str | None = None, **extra: Any) -> ToolError:
    """Returns a `not_found` error: "<what> <id> does not exist", with the id and the argument that held it."""
    return ToolError("not_found", f"{what} {entity_id} does not exist",
                     details={"id": entity_id, "fields": [field] if field else [], **extra})


def conflict(message: str, fields: Sequence[str] = (), **extra: Any) -> ToolError:
    """Returns a `conflict` error: the call is well-formed but the current state refuses it."""
    return ToolError("conflict", message, details={"fields": list(fields), **extra})


def denied(message: str, fields: Sequence[str] = (), **extra: Any) -> ToolError:
    """Returns a `permission_denied` error: the acting user may not do this (policy, role, approval)."""
    return ToolError("permission_denied", message, details={"fields": list(fields), **extra})


def require(ctx: ToolContext, key: TableKey[T], entity_id: str, what: str, field: str | None = None) -> T:
    """Returns the record `entity_id` of a visible table, or raises `not_found` naming it.

    Args:
        ctx: The tool's context (hidden tables are refused).
        key: The table.
        entity_id: The id the agent passed.
        what: The record's kind, as the message names it ("deal").
        field: The argument that held the id.
    """
    entity: T | None = ctx.table(key).get(entity_id)
    if entity is None:
        raise not_found(what, entity_id, field)
    return entity
