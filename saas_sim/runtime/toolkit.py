"""The tools of an episode: lookup, argument validation and schema export.

Schemas are exported three ways from the same pydantic models:

* OpenAI function tools, valid in strict mode: every property required,
  `additionalProperties: false` on every object, optional fields nullable;
* Anthropic tools (`name`, `description`, `input_schema`);
* MCP tool definitions (`name`, `description`, `inputSchema`, annotations).

Validation never crashes on bad input. Unknown tools, tools outside the
scenario's action space, malformed JSON, payloads over `MAX_ARGS_BYTES` or
nested deeper than `MAX_DEPTH`, non-finite numbers, booleans for numbers,
wrong types, oversized strings and extra fields all become a `ToolError` the
agent can read. The schema shapes live in `tool_schemas.py`.
"""

from __future__ import annotations

import json
import math
import types
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from fnmatch import fnmatchcase
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from saas_sim.core.tool_errors import bad_args
from saas_sim.core.tools import ToolKind, ToolSpec
from saas_sim.errors import ScenarioError, ToolError
from saas_sim.runtime.arg_bounds import MAX_ARGS_BYTES, MAX_DEPTH, json_text_depth, python_depth
from saas_sim.runtime.tool_schemas import json_schema, openai_strict_schema, strict_compatible

__all__ = ["MAX_ARGS_BYTES", "MAX_DEPTH", "Toolkit", "openai_strict_schema", "strict_compatible", "wire_name"]


def _field_errors(exc: ValidationError) -> list[dict[str, str]]:
    return [
        {"path": ".".join(str(p) for p in err["loc"]) or "$", "message": err["msg"]}
        for err in exc.errors(include_url=False, include_input=False)
    ]


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    """Returns the one pydantic model a field holds (directly, optionally, or as list items)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _nested_model(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType or origin in (list, tuple, Sequence):
        found = {m for a in get_args(annotation) if (m := _nested_model(a)) is not None}
        return found.pop() if len(found) == 1 else None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _numeric_only(annotation: Any) -> bool:
    """Whether a field takes only numbers (maybe optional, maybe a list of them): a bool there is a mistake."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _numeric_only(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        members = [a for a in get_args(annotation) if a is not type(None)]
        return bool(members) and all(_numeric_only(a) for a in members)
    if origin in (list, tuple, Sequence):
        members = [a for a in get_args(annotation) if a is not Ellipsis]
        return bool(members) and all(_numeric_only(a) for a in members)
    return annotation in (int, float, Decimal)


_PLAIN = frozenset({str, int, bool, type(None)})


def _non_finite(value: Any, path: str) -> str | None:
    """Returns the path of the first NaN or infinite number inside validated arguments."""
    if type(value) in _PLAIN:  # the common case, without the slow ABC checks below
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else path
    if isinstance(value, Decimal):
        return None if value.is_finite() else path
    if isinstance(value, BaseModel):
        items: Iterable[tuple[Any, Any]] = value.__dict__.items()
    elif isinstance(value, Mapping):
        items = value.items()
    elif isinstance(value, list | tuple | set | frozenset):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        found = _non_finite(item, f"{path}.{key}" if path else str(key))
        if found is not None:
            return found
    return None


class Toolkit:
    """The tools one episode may call.

    Args:
        tools: Every tool the domains offer.
        allowed: The scenario's action space: tool names or glob patterns.
    """

    def __init__(self, tools: Iterable[ToolSpec], allowed: Sequence[str]) -> None:
        self.all: dict[str, ToolSpec] = {}
        for spec in tools:
            if spec.name in self.all:
                raise ScenarioError(f"tool {spec.name} is defined twice")
            self.all[spec.name] = spec
        chosen: dict[str, ToolSpec] = {}
        for pattern in allowed:
            hits = [n for n in self.all if fnmatchcase(n, pattern)]
            if not hits:
                raise ScenarioError(f"allowed tool {pattern!r} matches no known tool")
            for name in hits:
                chosen[name] = self.all[name]
        self.allowed: dict[str, ToolSpec] = dict(sorted(chosen.items()))
        # Per args model: field name -> (null means "use the default", nested model, numbers only).
        # Derived from code only.
        self._null_plans: dict[type[BaseModel], dict[str, tuple[bool, type[BaseModel] | None, bool]]] = {}
        self._schema_texts: dict[str, str] = {}

    def __contains__(self, name: object) -> bool:
        return name in self.allowed

    def spec(self, name: object) -> ToolSpec:
        """Returns an allowed tool, or raises the `ToolError` the agent should see."""
        if not isinstance(name, str):
            raise ToolError("invalid_argument", "tool name must be a string", details={"fields": ["tool"]})
        spec = self.allowed.get(name)
        if spec is not None:
            return spec
        if name in self.all:
            raise ToolError(
                "permission_denied",
                f"tool {name} exists but is not available in this task",
                details={"fields": ["tool"], "available": list(self.allowed)},
            )
        raise ToolError("unknown_tool", f"no tool named {name!r}", details={"available": list(self.allowed)})

    def parse_args(self, spec: ToolSpec, raw: object) -> BaseModel:
        """Validates raw arguments (a mapping or a JSON string) into the tool's args model.

        Every malformed input is a `ToolError(invalid_argument)`: oversized or too
        deeply nested payloads (checked before anything recurses into them), text
        that is not JSON, non-finite numbers, booleans for numbers, and whatever
        the args model refuses, with the field paths.
        """
        if isinstance(raw, str | bytes):
            if len(raw) > MAX_ARGS_BYTES:
                raise bad_args(f"arguments exceed {MAX_ARGS_BYTES} bytes", [])
            if json_text_depth(raw) > MAX_DEPTH:
                raise bad_args(f"arguments nest deeper than {MAX_DEPTH} levels", [])
            try:
                raw = json.loads(raw or "{}")
            except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, an int of over 4,300 digits
                raise bad_args(f"arguments are not valid JSON: {exc}", []) from None
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            raise bad_args("arguments must be a JSON object", [])
        depth = python_depth(raw)
        if depth is None:
            raise bad_args("arguments must be finite JSON (no NaN, Infinity or cycles)", [])
        if depth > MAX_DEPTH:
            raise bad_args(f"arguments nest deeper than {MAX_DEPTH} levels", [])
        try:
            size = len(json.dumps(raw, default=str, allow_nan=False))
        except (TypeError, ValueError):
            # NaN and Infinity (JSON literals, 1e999, Python floats) can never be stored or hashed.
            raise bad_args("arguments must be finite JSON (no NaN, Infinity or cycles)", []) from None
        if size > MAX_ARGS_BYTES:
            raise bad_args(f"arguments exceed {MAX_ARGS_BYTES} bytes", [])
        # Strict-mode clients send null for every optional field they leave out, nested ones
        # included (the exported schema says so): let the default apply.
        bools: list[str] = []
        data = self._prepare(spec.args_model, raw, "", bools)
        if bools:
            message = "Input should be a number, not a boolean"
            raise ToolError(
                "invalid_argument", f"invalid arguments for {spec.name}: {bools[0]}: {message}",
                details={"fields": bools, "errors": [{"path": b, "message": message} for b in bools]},
            )
        try:
            parsed = spec.args_model.model_validate(data)
        except ValidationError as exc:
            errors = _field_errors(exc)
            summary = "; ".join(f"{e['path']}: {e['message']}" for e in errors[:5])
            raise ToolError(
                "invalid_argument", f"invalid arguments for {spec.name}: {summary}",
                details={"fields": [e["path"] for e in errors], "errors": errors},
            ) from None
        # pydantic parses the strings "nan" and "inf" into float fields: refuse them here, or the
        # handler's events fail to encode and the agent's typo becomes a harness error.
        bad = _non_finite(parsed, "")
        if bad is not None:
            message = "Input should be a finite number"
            raise ToolError(
                "invalid_argument", f"invalid arguments for {spec.name}: {bad}: {message}",
                details={"fields": [bad], "errors": [{"path": bad, "message": message}]},
            )
        return parsed

    def _prepare(self, model: type[BaseModel], raw: Mapping[Any, Any], path: str, bools: list[str]) -> dict[Any, Any]:
        """Drops nulls that stand for "use the default", and collects booleans sent for numbers.

        pydantic reads `true` as the integer 1 (`quantity: true` would order one unit), so a
        boolean in a field that takes only numbers is refused here, by path.
        """
        plan = self._null_plans.get(model)
        if plan is None:
            plan = {
                name: (not f.is_required() and f.default is not None, _nested_model(f.annotation),
                       _numeric_only(f.annotation))
                for name, f in model.model_fields.items()
            }
            self._null_plans[model] = plan
        out: dict[Any, Any] = {}
        for key, value in raw.items():
            rule = plan.get(key) if isinstance(key, str) else None
            if rule is not None:
                droppable, nested, numeric = rule
                where = f"{path}.{key}" if path else str(key)
                if value is None:
                    if droppable:
                        continue
                elif numeric:
                    if isinstance(value, bool):
                        bools.append(where)
                    elif isinstance(value, list | tuple):
                        bools.extend(f"{where}.{i}" for i, v in enumerate(value) if isinstance(v, bool))
                elif nested is not None:
                    if isinstance(value, Mapping):
                        value = self._prepare(nested, value, where, bools)
                    elif isinstance(value, list | tuple):
                        value = [self._prepare(nested, v, f"{where}.{i}", bools) if isinstance(v, Mapping) else v
                                 for i, v in enumerate(value)]
            out[key] = value
        return out

    # schema export -----------------------------------------------------------
    def _exported(self, flavor: str, build: Any) -> list[dict[str, Any]]:
        # Generating pydantic schemas costs milliseconds per toolkit; the kit is immutable, so each flavor is
        # built once and kept as JSON text. Every caller gets its own copy (a JSON parse, ~50x cheaper),
        # so one that edits its schemas cannot change another's.
        text = self._schema_texts.get(flavor)
        if text is None:
            text = self._schema_texts[flavor] = json.dumps(build(), ensure_ascii=False)
        tools: list[dict[str, Any]] = json.loads(text)
        return tools

    def openai(self) -> list[dict[str, Any]]:
        """Returns the allowed tools as OpenAI function tools (strict mode wherever the schema allows it)."""
        return self._exported("openai", self._openai)

    def anthropic(self) -> list[dict[str, Any]]:
        """Returns the allowed tools as Anthropic tool definitions."""
        return self._exported("anthropic", self._anthropic)

    def mcp(self) -> list[dict[str, Any]]:
        """Returns the allowed tools as MCP tool definitions."""
        return self._exported("mcp", self._mcp)

    def _openai(self) -> list[dict[str, Any]]:
        tools = []
        for s in self.allowed.values():
            params = openai_strict_schema(s.args_model)
            tools.append({
                "type": "function",
                "function": {
                    "name": wire_name(s.name),
                    "description": s.description,
                    "parameters": params,
                    "strict": strict_compatible(params),
                },
            })
        return tools

    def _anthropic(self) -> list[dict[str, Any]]:
        return [
            {
                "name": wire_name(s.name),
                "description": s.description,
                "input_schema": json_schema(s.args_model),
            }
            for s in self.allowed.values()
        ]

    def _mcp(self) -> list[dict[str, Any]]:
        return [
            {
                "name": wire_name(s.name),
                "description": s.description,
                "inputSchema": json_schema(s.args_model),
                "outputSchema": s.result_model.model_json_schema(mode="serialization"),
                "annotations": {
                    "readOnlyHint": s.kind is ToolKind.READ,
                    "idempotentHint": s.kind is ToolKind.READ,
                },
            }
            for s in self.allowed.values()
        ]

    def resolve(self, name: object) -> object:
        """Maps a wire name (`crm__get_deal`) back to a tool name; other values pass through."""
        if isinstance(name, str) and "__" in name and name not in self.all:
            return name.replace("__", ".", 1)
        return name


def wire_name(name: str) -> str:
    """A tool's name on the wire: `__` for the dot (`crm.get_deal` -> `crm__get_deal`), as providers allow only
    [a-zA-Z0-9_-]. `Toolkit.resolve` maps it back."""
    return name.replace(".", "__")
