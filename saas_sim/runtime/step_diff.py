"""State diffs per step: which entities a trajectory's calls changed, field by field.

A trajectory holds only event refs, so the diffs are rebuilt: the recorded
task (scenario@version and seed) is started afresh, its calls are re-issued in
order (as `ReplayAgent` does, recorded effect outcomes folded, never re-run),
and the state before and after each call is compared. Each rebuilt step's
chain hash must equal the recorded `state_hash`; from the first one that does
not (or when the scenario version or world no longer exists) no diff is given
and `Rebuild.warning` says why. Diffs of the steps before it were verified and
are kept.

Orders are stable: entities by (kind, table, id), fields by their path. Nested
objects are walked into dotted paths (`address.city`); lists are compared as a
whole; an empty object has no fields of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from saas_sim.core.canonical import normalize
from saas_sim.core.state import State
from saas_sim.errors import SaasSimError
from saas_sim.runtime.call_ids import reissued_call_id
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.replay import start_recorded
from saas_sim.runtime.trajectory import Trajectory

__all__ = ["EntityChange", "FieldChange", "Rebuild", "diff_fields", "diff_states", "rebuild_diffs"]

Change = Literal["created", "updated", "deleted"]


@dataclass(frozen=True, slots=True)
class FieldChange:
    """One field's value before and after (None where the entity did not exist or the field was absent)."""

    path: str
    before: Any
    after: Any


@dataclass(frozen=True, slots=True)
class EntityChange:
    """One entity (a table row) or singleton value that a step changed.

    Attributes:
        kind: `table` for a row, `value` for a singleton value.
        table: The table's (or value's) name.
        entity_id: The row's id; the value's name for values.
        change: `created`, `updated` or `deleted`.
        fields: The changed fields, by path.
    """

    kind: Literal["table", "value"]
    table: str
    entity_id: str
    change: Change
    fields: tuple[FieldChange, ...]

    def to_json(self) -> dict[str, Any]:
        """Returns the change as JSON-ready data."""
        return {
            "kind": self.kind, "table": self.table, "id": self.entity_id, "change": self.change,
            "fields": [{"path": f.path, "before": f.before, "after": f.after} for f in self.fields],
        }


_MISSING: Any = object()


def _flatten(data: Mapping[str, Any], prefix: str, out: dict[str, Any]) -> dict[str, Any]:
    for key in sorted(data):
        value = data[key]
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            _flatten(value, path + ".", out)  # an empty mapping has no leaves: {} -> {"k": 1} is one change
        else:
            out[path] = value
    return out


def diff_fields(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> tuple[FieldChange, ...]:
    """Returns the fields whose values differ, sorted by path.

    Args:
        before: The entity as JSON data before, or None if it did not exist.
        after: The entity as JSON data after, or None if it no longer exists.
    """
    old = _flatten(before or {}, "", {})
    new = _flatten(after or {}, "", {})
    changes = []
    for path in sorted(old.keys() | new.keys()):
        a, b = old.get(path, _MISSING), new.get(path, _MISSING)
        # Canonical forms, so 25 and 25.0 (or equal Decimals written differently) are no change.
        if a is _MISSING or b is _MISSING or normalize(a) != normalize(b):
            changes.append(FieldChange(path, None if a is _MISSING else a, None if b is _MISSING else b))
    return tuple(changes)


def _dump(item: Any) -> dict[str, Any] | None:
    return None if item is None else dict(normalize(item.model_dump(mode="json")))


def _entity_change(kind: Literal["table", "value"], table: str, entity_id: str,
                   old: Any, new: Any) -> EntityChange | None:
    if old is new:
        return None
    a, b = _dump(old), _dump(new)
    fields = diff_fields(a, b)
    if not fields and (a is None) == (b is None):
        return None  # changed and changed back, or an equal copy
    change: Change = "created" if a is None else "deleted" if b is None else "updated"
    return EntityChange(kind, table, entity_id, change, fields)


def diff_states(before: State, after: State) -> list[EntityChange]:
    """Returns every entity and value that differs between two states, in (kind, table, id) order.

    O(changes) when `after` derives from `before` (`State.changed_since`); a full comparison otherwise.
    Id counters are not entities and are left out.
    """
    changed = after.changed_since(before)
    if changed is None:
        keys: set[tuple[str, str, str]] = set()
        for name in set(before.table_names()) | set(after.table_names()):
            if not before.raw_table(name).same_as(after.raw_table(name)):
                ids = set(before.raw_table(name).ids()) | set(after.raw_table(name).ids())
                keys.update(("t", name, i) for i in ids)
        keys.update(("v", name, "") for name in set(before.value_names()) | set(after.value_names()))
    else:
        keys = {k for k in changed if k[0] in ("t", "v")}
    out: list[EntityChange] = []
    for kind, name, entity_id in sorted(keys, key=lambda k: (k[0] != "t", k[1], k[2])):
        if kind == "t":
            found = _entity_change("table", name, entity_id, before.raw_table(name).get(entity_id),
                                   after.raw_table(name).get(entity_id))
        else:
            found = _entity_change("value", name, name, before.raw_value(name), after.raw_value(name))
        if found is not None:
            out.append(found)
    return out


@dataclass
class Rebuild:
    """The rebuilt diffs of one trajectory.

    Attributes:
        diffs: One entry per recorded step: its changes, or None where no verified diff exists.
        verified: How many leading steps were rebuilt with matching state hashes.
        warning: Why some or all diffs are missing; None when every step matched.
    """

    diffs: list[list[EntityChange] | None] = field(default_factory=list)
    verified: int = 0
    warning: str | None = None


async def rebuild_diffs(env: Environment, recorded: Trajectory) -> Rebuild:
    """Re-issues a trajectory's calls on a fresh episode and diffs the state around each one.

    Never raises for a trajectory that cannot be rebuilt (an unknown scenario version, another
    world, a diverging step, a call the harness refuses): the answer carries a warning instead.

    Args:
        env: An open environment; a fresh in-memory one keeps the rebuild out of any real store.
        recorded: The trajectory.
    """
    header = recorded.header
    steps = recorded.steps
    result = Rebuild(diffs=[None] * len(steps))
    try:
        episode, _ = await start_recorded(env, recorded)
    except (SaasSimError, KeyError, TypeError, ValueError) as exc:
        result.warning = f"cannot rebuild {header.get('scenario')!r} seed {header.get('seed')!r}: {exc}"
        return result
    try:
        if episode.task.world.world_hash != header.get("world_hash"):
            result.warning = (f"the world differs from the recorded one (world hash "
                              f"{episode.task.world.world_hash[:12]}, recorded {str(header.get('world_hash'))[:12]})")
            return result
        for i, step in enumerate(steps):
            before = episode.state
            try:
                await episode.call(step.tool, step.args, reissued_call_id(step.call_id))
            except SaasSimError as exc:
                result.warning = f"step {i} could not be re-issued: {exc}"
                return result
            rebuilt = episode.trajectory.steps
            if len(rebuilt) != i + 1 or rebuilt[i].state_hash != step.state_hash:
                result.warning = f"step {i} ({step.tool}) rebuilt to another state hash than recorded; no diffs from it"
                return result
            result.diffs[i] = diff_states(before, episode.state)
            result.verified = i + 1
        return result
    finally:
        await episode.close()
