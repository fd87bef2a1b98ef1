"""The tools of an episode: lookup, argument validation and schema export.

Schemas are exported three ways from the same pydantic models:

* OpenAI function tools, valid in strict mode: every property required,
  `additionalProperties: false` on every object, optional fields nullable;
* Anthropic tools (`name`, `description`, `input_schema`);
* MCP tool definitions (`name`, `description`, `inputSchema`, annotations).

Validation never crashes on bad input. Unknown tools, tools outside the
scenario's action space, malformed JSON, wrong types, oversized strings and
extra fields all become a `ToolError` the agent can read.
"""

from __future__ import annotations

import copy
import json
import math
import types
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from fnmatch import fnmatchcase
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from saas_sim.core.tools import ToolKind, ToolSpec
from saas_sim.errors import ScenarioError, ToolError

__all__ = ["MAX_ARGS_BYTES", "Toolkit", "openai_strict_schema", "strict_compatible"]

MAX_ARGS_BYTES = 64_000
"""The largest JSON argument payload a call may carry."""


# Keys whose value maps *names* (fields, definitions) to schemas: the names are data, never
# keywords. A field called `title` or `default` must survive the keyword stripping below.
_NAME_MAPS = frozenset({"properties", "$defs", "definitions", "patternProperties", "dependentSchemas"})
# Keys whose value is data (enum members, examples), not a schema.
_DATA_KEYS = frozenset({"enum", "const", "examples", "required"})


def _strictify(node: Any) -> Any:
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for k, v in node.items():
            if k in ("title", "default"):
                continue
            if k in _NAME_MAPS and isinstance(v, dict):
                out[k] = {name: _strictify(sub) for name, sub in v.items()}
            elif k in _DATA_KEYS:
                out[k] = v
            else:
                out[k] = _strictify(v)
        if out.get("type") == "object" and "properties" in out:
            props: dict[str, Any] = out["properties"]
            required = set(node.get("required", []))
            for name, prop in list(props.items()):
                if name not in required:
                    props[name] = _nullable(prop)
            out["required"] = list(props)
            out["additionalProperties"] = False
        return out
    if isinstance(node, list):
        return [_strictify(v) for v in node]
    return node


def _nullable(prop: dict[str, Any]) -> dict[str, Any]:
    any_of = prop.get("anyOf")
    if isinstance(any_of, list) and any(o.get("type") == "null" for o in any_of):
        return prop
    # An inline enum or const (a Literal) still refuses null when only `type` allows it.
    if isinstance(prop.get("type"), str) and not {"$ref", "enum", "const"} & prop.keys():
        return {**prop, "type": [prop["type"], "null"]}
    description = prop.get("description")
    inner = {k: v for k, v in prop.items() if k != "description"}
    result: dict[str, Any] = {"anyOf": [inner, {"type": "null"}]}
    if description:
        result["description"] = description
    return result


def _lone_refs(node: Any, root: dict[str, Any]) -> Any:
    """Inlines every `$ref` that has sibling keywords: strict mode accepts a `$ref` only alone.

    (This is what the OpenAI SDK's own `to_strict_json_schema` does.) The inlined
    definition keeps its own, lone, `$ref`s, so recursive models still terminate.
    """
    if isinstance(node, list):
        return [_lone_refs(v, root) for v in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and len(node) > 1 and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target[part]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    out: dict[str, Any] = {}
    for k, v in node.items():
        if k in _NAME_MAPS and isinstance(v, dict):
            out[k] = {name: _lone_refs(sub, root) for name, sub in v.items()}
        elif k in _DATA_KEYS:
            out[k] = v
        else:
            out[k] = _lone_refs(v, root)
    return out


def openai_strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """Returns the model's JSON schema in the shape OpenAI's strict mode accepts."""
    strict = _strictify(copy.deepcopy(model.model_json_schema()))
    schema = _lone_refs(strict, strict)
    if not schema.get("properties"):
        schema["properties"] = {}
        schema["required"] = []
        schema["additionalProperties"] = False
    return dict(schema)


def strict_compatible(schema: Any) -> bool:
    """Returns whether a schema fits OpenAI's strict mode: every object closed with `additionalProperties: false`.

    A free-form map (`dict[str, str]`) cannot be closed, so such a tool is exported with
    `strict: false` rather than with a strict flag the provider would reject.
    """
    if isinstance(schema, dict):
        if schema.get("type") == "object" and schema.get("additionalProperties") is not False:
            return False
        return all(strict_compatible(v) for k, v in schema.items() if k not in _DATA_KEYS)
    if isinstance(schema, list):
        return all(strict_compatible(v) for v in schema)
    return True


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
        # Per args model: field name -> (null means "use the default", nested model). Derived from code only.
        self._null_plans: dict[type[BaseModel], dict[str, tuple[bool, type[BaseModel] | None]]] = {}

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
                details={"available": list(self.allowed)},
            )
        raise ToolError("unknown_tool", f"no tool named {name!r}", details={"available": list(self.allowed)})

    def parse_args(self, spec: ToolSpec, raw: object) -> BaseModel:
        """Validates raw arguments (a mapping or a JSON string) into the tool's args model."""
        if isinstance(raw, str | bytes):
            if len(raw) > MAX_ARGS_BYTES:
                raise ToolError("invalid_argument", f"arguments exceed {MAX_ARGS_BYTES} bytes")
            try:
                raw = json.loads(raw or "{}")
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise ToolError("invalid_argument", f"arguments are not valid JSON: {exc}") from None
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            raise ToolError("invalid_argument", "arguments must be a JSON object")
        try:
            size = len(json.dumps(raw, default=str, allow_nan=False))
        except (TypeError, ValueError):
            # NaN and Infinity (JSON literals, 1e999, Python floats) can never be stored or hashed.
            raise ToolError(
                "invalid_argument", "arguments must be finite JSON (no NaN, Infinity or cycles)"
            ) from None
        if size > MAX_ARGS_BYTES:
            raise ToolError("invalid_argument", f"arguments exceed {MAX_ARGS_BYTES} bytes")
        # Strict-mode clients send null for every optional field they leave out, nested ones
        # included (the exported schema says so): let the default apply.
        data = self._drop_nulls(spec.args_model, raw)
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

    def _drop_nulls(self, model: type[BaseModel], raw: Mapping[Any, Any]) -> dict[Any, Any]:
        plan = self._null_plans.get(model)
        if plan is None:
            plan = {
                name: (not f.is_required() and f.default is not None, _nested_model(f.annotation))
                for name, f in model.model_fields.items()
            }
            self._null_plans[model] = plan
        out: dict[Any, Any] = {}
        for key, value in raw.items():
            rule = plan.get(key) if isinstance(key, str) else None
            if rule is not None:
                droppable, nested = rule
                if value is None:
                    if droppable:
                        continue
                elif nested is not None:
                    if isinstance(value, Mapping):
                        value = self._drop_nulls(nested, value)
                    elif isinstance(value, list | tuple):
                        value = [self._drop_nulls(nested, v) if isinstance(v, Mapping) else v for v in value]
            out[key] = value
        return out

    # schema export -----------------------------------------------------------
    def openai(self) -> list[dict[str, Any]]:
        """Returns the allowed tools as OpenAI function tools (strict mode wherever the schema allows it)."""
        tools = []
        for s in self.allowed.values():
            params = openai_strict_schema(s.args_model)
            tools.append({
                "type": "function",
                "function": {
                    "name": _wire_name(s.name),
                    "description": s.description,
                    "parameters": params,
                    "strict": strict_compatible(params),
                },
            })
        return tools

    def anthropic(self) -> list[dict[str, Any]]:
        """Returns the allowed tools as Anthropic tool definitions."""
        return [
            {
                "name": _wire_name(s.name),
                "description": s.description,
                "input_schema": s.args_model.model_json_schema(),
            }
            for s in self.allowed.values()
        ]

    def mcp(self) -> list[dict[str, Any]]:
        """Returns the allowed tools as MCP tool definitions."""
        return [
            {
                "name": _wire_name(s.name),
                "description": s.description,
                "inputSchema": s.args_model.model_json_schema(),
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


def _wire_name(name: str) -> str:
    """Tool names on the wire use `__` for the dot: providers allow only [a-zA-Z0-9_-]."""
    return name.replace(".", "__")
