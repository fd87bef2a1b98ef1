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
from collections.abc import Iterable, Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Any

from pydantic import BaseModel, ValidationError

from saas_sim.core.tools import ToolKind, ToolSpec
from saas_sim.errors import ScenarioError, ToolError

__all__ = ["MAX_ARGS_BYTES", "Toolkit", "openai_strict_schema"]

MAX_ARGS_BYTES = 64_000
"""The largest JSON argument payload a call may carry."""


def _strictify(node: Any) -> Any:
    if isinstance(node, dict):
        out = {k: _strictify(v) for k, v in node.items() if k not in ("title", "default")}
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
    if isinstance(prop.get("type"), str) and "$ref" not in prop:
        return {**prop, "type": [prop["type"], "null"]}
    description = prop.get("description")
    inner = {k: v for k, v in prop.items() if k != "description"}
    result: dict[str, Any] = {"anyOf": [inner, {"type": "null"}]}
    if description:
        result["description"] = description
    return result


def openai_strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """Returns the model's JSON schema in the shape OpenAI's strict mode accepts."""
    schema = _strictify(copy.deepcopy(model.model_json_schema()))
    if not schema.get("properties"):
        schema["properties"] = {}
        schema["required"] = []
        schema["additionalProperties"] = False
    return dict(schema)


def _field_errors(exc: ValidationError) -> list[dict[str, str]]:
    return [
        {"path": ".".join(str(p) for p in err["loc"]) or "$", "message": err["msg"]}
        for err in exc.errors(include_url=False, include_input=False)
    ]


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
            size = len(json.dumps(raw, default=str))
        except (TypeError, ValueError):
            raise ToolError("invalid_argument", "arguments must be JSON-serializable") from None
        if size > MAX_ARGS_BYTES:
            raise ToolError("invalid_argument", f"arguments exceed {MAX_ARGS_BYTES} bytes")
        fields = spec.args_model.model_fields
        # Strict-mode clients send null for optional fields they leave out: let the default apply.
        data = {
            k: v for k, v in raw.items()
            if not (v is None and k in fields and not fields[k].is_required() and fields[k].default is not None)
        }
        try:
            return spec.args_model.model_validate(data)
        except ValidationError as exc:
            errors = _field_errors(exc)
            summary = "; ".join(f"{e['path']}: {e['message']}" for e in errors[:5])
            raise ToolError(
                "invalid_argument", f"invalid arguments for {spec.name}: {summary}",
                details={"fields": [e["path"] for e in errors], "errors": errors},
            ) from None

    # schema export -----------------------------------------------------------
    def openai(self) -> list[dict[str, Any]]:
        """Returns the allowed tools as OpenAI function tools (strict mode)."""
        return [
            {
                "type": "function",
                "function": {
                    "name": _wire_name(s.name),
                    "description": s.description,
                    "parameters": openai_strict_schema(s.args_model),
                    "strict": True,
                },
            }
            for s in self.allowed.values()
        ]

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
                "outputSchema": s.result_model.model_json_schema(),
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
