"""Schema-valid arguments for attack agents, and the entity ids they aim at.

The self-audit's blind and do-everything agents know nothing of a task's
meaning. They fill a tool's arguments from its exported JSON schema alone:

* an *id-typed* field (its name ends in `_id`, or `_ids` for a list) gets
  candidate entity ids;
* a *path-typed* field (`path`, `src`, `dst`, or a name ending in `_path`)
  gets candidate file paths (the root, `""`, before any is known);
* an enum gets one of its values, a `date`/`date-time` string a near-future
  instant, a number (or a number-or-string amount) a value inside its bounds;
* any other string gets short random text within its length bounds.

Entity ids are recognized generically by their shape, `<prefix>_<digits>`
(`ct_000042`, `tkt_000017`), and file paths by theirs (`acme/billing/invoice.py`):
no domain's prefixes or layout are known here.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

__all__ = [
    "ID_PATTERN", "PATH_PATTERN", "example_prefix", "fill_args", "fits_field", "harvest_ids", "id_fields",
    "is_path", "ref_fields", "text_ids", "unique",
]

ID_PATTERN = re.compile(r"^[a-z][a-z0-9]{0,11}_[0-9]+$")
"""What an entity id looks like in every domain: a lowercase prefix, `_`, digits."""

PATH_PATTERN = re.compile(r"^(?:[A-Za-z0-9_][A-Za-z0-9_.-]*/)*[A-Za-z0-9_][A-Za-z0-9_.-]*\.[A-Za-z][A-Za-z0-9]{0,7}$")
"""What a file path in a workspace looks like: relative, slash-separated, ending in a file extension."""

_PATH_IN_TEXT = re.compile(r"(?<![\w/.-])(?:[A-Za-z0-9_][A-Za-z0-9_.-]*/)+[A-Za-z0-9_][A-Za-z0-9_.-]*"
                           r"\.[A-Za-z][A-Za-z0-9]{0,7}(?![\w/-])")
_PATH_FIELDS = ("path", "src", "dst")

_ID_IN_TEXT = re.compile(r"(?<![\w-])[a-z][a-z0-9]{0,11}_[0-9]+(?![\w-])")
_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "gt", "ge", "lt", "le")
_WORDS = ("update", "ok", "done", "check", "please", "note", "follow", "up", "thanks", "info", "see", "item")
# Past this depth a schema is walked no further: tool schemas are shallow, and this bounds a cycle.
_MAX_DEPTH = 4


def text_ids(text: str) -> list[str]:
    """Returns the id-shaped words of a text, then its file paths (with a folder), in order of appearance."""
    return list(dict.fromkeys([*_ID_IN_TEXT.findall(text), *_PATH_IN_TEXT.findall(text)]))


def is_path(value: str) -> bool:
    """Whether a string is shaped like a workspace file path (not an entity id)."""
    return bool(PATH_PATTERN.match(value)) and not ID_PATTERN.match(value)


def harvest_ids(value: Any) -> list[str]:
    """Returns every id- or path-shaped string value in JSON data, in a depth-first walk, without repeats.

    Mapping keys are walked in sorted order, so the result does not depend on
    how a result happened to be built.
    """
    seen: dict[str, None] = {}

    def walk(node: Any, depth: int) -> None:
        if isinstance(node, str):
            if len(node) <= 255 and (ID_PATTERN.match(node) or PATH_PATTERN.match(node)):
                seen.setdefault(node, None)
        elif depth < 32 and isinstance(node, Mapping):
            for key in sorted(node, key=str):
                walk(node[key], depth + 1)
        elif depth < 32 and isinstance(node, list | tuple):
            for item in node:
                walk(item, depth + 1)

    walk(value, 0)
    return list(seen)


def id_fields(schema: Mapping[str, Any]) -> list[str]:
    """Returns a tool schema's top-level id-typed fields, in schema order."""
    return [name for name in schema.get("properties", {}) if _is_id_field(name)]


def ref_fields(schema: Mapping[str, Any]) -> list[str]:
    """Returns a tool schema's top-level fields that name a record or a file (id- or path-typed), in order."""
    return [name for name in schema.get("properties", {}) if _is_id_field(name) or _is_path_field(name)]


def example_prefix(prop: Mapping[str, Any]) -> str | None:
    """Returns the id prefix a field's description shows by example (`such as dl_000042` -> `dl_`), or None."""
    example = text_ids(str(prop.get("description", "")))
    return example[0].rsplit("_", 1)[0] + "_" if example else None


def fits_field(schema: Mapping[str, Any], field: str, entity_id: str, kinds: Mapping[str, str] = {}) -> bool:
    """Whether an id could be meant for a field, as far as the schema and the domains' id kinds tell.

    The field's description may show an example id (`such as dl_000042`): then the prefix must match.
    Else, when the field's name names a kind the domains declare (`order_id` -> `order`, `line_id`
    -> `order_line`), the id's prefix must be of that kind. A field that says neither takes any id.
    An attack that puts a ticket id into an `order_id` only spends its step budget on `not_found`.

    Args:
        schema: The tool's argument JSON schema.
        field: The id-typed field.
        entity_id: The candidate id.
        kinds: Id prefix -> entity kind, as the domains declare them (`Domain.id_kinds`).
    """
    if _is_path_field(field) or is_path(entity_id):
        return _is_path_field(field) and is_path(entity_id)
    prop = schema.get("properties", {}).get(field, {})
    prefix = example_prefix(prop if isinstance(prop, Mapping) else {})
    if prefix is not None:
        return entity_id.startswith(prefix)
    stem = field.removesuffix("_ids").removesuffix("_id")
    wanted = {k for k in kinds.values() if k == stem or k.endswith("_" + stem)}
    return not wanted or kinds.get(entity_id.rsplit("_", 1)[0]) in wanted


def _is_id_field(name: str) -> bool:
    return name.endswith(("_id", "_ids"))


def _is_path_field(name: str) -> bool:
    return name in _PATH_FIELDS or name.endswith("_path")


def fill_args(
    schema: Mapping[str, Any],
    rng: random.Random,
    candidates: Sequence[str],
    now: datetime,
    *,
    fixed: Mapping[str, Any] | None = None,
    optional_rate: float = 0.5,
    preferred: Sequence[str] = (),
) -> dict[str, Any]:
    """Returns schema-valid-looking arguments for one tool call.

    An id-typed field draws from `preferred` half of the time (when there are
    any), else from `candidates`; a field whose description shows an example id
    (`such as dl_000042`) draws only ids of that prefix when some exist.

    Args:
        schema: The tool's argument JSON schema (pydantic's `model_json_schema()`).
        rng: The seeded source of every choice.
        candidates: Entity ids for id-typed fields; without any, such fields get a random id shape.
        now: The episode's sim time, the base of generated dates.
        fixed: Values to use as given for these fields (the do-everything agent's target).
        optional_rate: The probability that an optional field is filled.
        preferred: Ids to favour (the ones the task's text names).
    """
    filler = _Filler(schema.get("$defs", {}), rng, list(candidates), now, list(preferred))
    required = set(schema.get("required", []))
    out: dict[str, Any] = {}
    for name, prop in schema.get("properties", {}).items():
        if fixed and name in fixed:
            out[name] = fixed[name]
        elif name in required or rng.random() < optional_rate:
            out[name] = filler.value(name, prop, 0)
    return out


class _Filler:
    """Fills one call's fields; holds what every field shares."""

    def __init__(self, defs: Mapping[str, Any], rng: random.Random, candidates: list[str], now: datetime,
                 preferred: list[str]) -> None:
        self.defs = defs
        self.rng = rng
        self.candidates = candidates
        self.now = now
        self.preferred = preferred

    def _an_id(self, prop: Mapping[str, Any]) -> str:
        pool = self.preferred if self.preferred and self.rng.random() < 0.5 else self.candidates
        pool = [c for c in pool if not is_path(c)]
        prefix = example_prefix(prop)
        if prefix is not None:
            pool = [c for c in pool if c.startswith(prefix)] or pool
        if pool:
            return self.rng.choice(pool)
        return f"x_{self.rng.randint(1, 60):06d}"

    def value(self, name: str, prop: Mapping[str, Any], depth: int) -> Any:
        prop = self._resolve(prop)
        if "anyOf" in prop:
            branches = self._branches(prop)
            real = [b for b in branches if b.get("type") != "null"] or branches
            kinds = {b.get("type") for b in real}
            if {"number", "string"} <= kinds:  # an amount that also accepts a decimal string
                number = next(b for b in real if b.get("type") == "number")
                return f"{self._number(number):.2f}"
            return self.value(name, self.rng.choice(real), depth)
        if "enum" in prop:
            return self.rng.choice(list(prop["enum"]))
        kind = prop.get("type")
        if kind == "string":
            return self._string(name, prop)
        if kind == "integer":
            low = int(prop.get("minimum", 1))
            return self.rng.randint(low, max(low, min(int(prop.get("maximum", low + 9)), low + 9)))
        if kind == "number":
            return round(self._number(prop), 2)
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "array":
            if depth >= _MAX_DEPTH:
                return []
            low = int(prop.get("minItems", 0))
            count = self.rng.randint(max(low, 1), max(low, 2))
            items = {"description": prop.get("description", ""), **self._resolve(prop.get("items", {}))}
            return [self.value(name[:-1] if name.endswith("_ids") else name, items, depth + 1) for _ in range(count)]
        if kind == "object":
            if depth >= _MAX_DEPTH or "properties" not in prop:
                return {}
            required = set(prop.get("required", []))
            return {k: self.value(k, p, depth + 1) for k, p in prop["properties"].items()
                    if k in required or self.rng.random() < 0.5}
        return None

    def _resolve(self, prop: Mapping[str, Any]) -> Mapping[str, Any]:
        ref = prop.get("$ref")
        if isinstance(ref, str):
            return dict(self.defs.get(ref.rsplit("/", 1)[-1], {}))
        return prop

    def _branches(self, prop: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        """Flattens nested `anyOf`s; an outer bound (`gt: 0` around number-or-string) joins each branch."""
        bounds = {k: v for k, v in prop.items() if k in _BOUNDS}
        out: list[Mapping[str, Any]] = []
        for branch in prop["anyOf"]:
            resolved = {**self._resolve(branch), **bounds}
            out.extend(self._branches(resolved) if "anyOf" in resolved else [resolved])
        return out

    def _number(self, prop: Mapping[str, Any]) -> float:
        # Attack amounts are small and positive: a huge or negative bound is a sanity limit, not a hint.
        floor = max(float(prop.get(k, 0.0)) for k in ("minimum", "exclusiveMinimum", "gt", "ge") if k in prop) \
            if any(k in prop for k in ("minimum", "exclusiveMinimum", "gt", "ge")) else 0.0
        low = max(floor, 0.0)
        ceiling = min((float(prop[k]) for k in ("maximum", "exclusiveMaximum", "lt", "le") if k in prop),
                      default=low + 500.0)
        high = min(ceiling, low + 500.0)
        return min(high, max(low + 0.01, self.rng.uniform(low, high))) if high > low else low

    def _string(self, name: str, prop: Mapping[str, Any]) -> str:
        fmt = prop.get("format")
        if fmt == "date-time":
            when = self.now + timedelta(hours=self.rng.randint(1, 96))
            return when.strftime("%Y-%m-%dT%H:%M:%SZ")
        if fmt == "date":
            return (self.now + timedelta(days=self.rng.randint(1, 60))).date().isoformat()
        if _is_id_field(name):  # an item of an `_ids` list arrives named `..._id` (see `value`)
            return self._an_id(prop)
        if _is_path_field(name):
            paths = [c for c in (self.preferred if self.preferred and self.rng.random() < 0.5 else self.candidates)
                     if is_path(c)] or [c for c in self.candidates if is_path(c)]
            return self.rng.choice(paths) if paths else ""
        low = int(prop.get("minLength", 1))
        high = int(prop.get("maxLength", 60))
        words: list[str] = []
        while len(" ".join(words)) < max(low, self.rng.randint(1, 24)):
            words.append(self.rng.choice(_WORDS))
        return " ".join(words)[: max(low, min(high, 60))]


def unique(items: Iterable[str]) -> list[str]:
    """Returns the items without repeats, in first-seen order."""
    return list(dict.fromkeys(items))
