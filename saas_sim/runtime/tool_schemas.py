"""Tool argument schemas in the shapes real model APIs accept.

Three flavors come from the same pydantic models:

* OpenAI function tools in strict mode. Strict mode accepts only a subset of
  JSON Schema; every object lists all its properties in `required` and has
  `additionalProperties: false`, and optional fields are nullable. Keywords
  outside the subset (`maxLength`, `minLength`, `propertyNames`...) are taken
  out and stated in the field's description instead; the server still
  enforces them, because the pydantic model does.
* Anthropic tools and MCP tools: plain JSON Schema 2020-12, as pydantic emits it.

In every flavor the bounds of a field (lengths, magnitudes, item counts,
patterns) are also written into its description, so a model reads them even
where the API ignores the keyword.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

__all__ = [
    "ANTHROPIC_KEYWORDS",
    "MCP_KEYWORDS",
    "OPENAI_STRICT_FORMATS",
    "OPENAI_STRICT_KEYWORDS",
    "document_bounds",
    "json_schema",
    "openai_strict_schema",
    "schema_keywords",
    "strict_compatible",
]

# OpenAI Structured Outputs, "Supported schemas" (strict mode):
# https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
# Types string, number, integer, boolean, object, array, enum, anyOf; strings: pattern, format;
# numbers: multipleOf, maximum, exclusiveMaximum, minimum, exclusiveMinimum; arrays: minItems,
# maxItems; objects need additionalProperties: false; definitions via $defs and $ref.
OPENAI_STRICT_KEYWORDS = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
    "$ref", "$defs", "description",
    "pattern", "format",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minItems", "maxItems",
})
"""The JSON Schema keywords OpenAI's strict mode accepts."""

OPENAI_STRICT_FORMATS = frozenset({
    "date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid",
})
"""The string formats OpenAI's strict mode accepts."""

# Anthropic tool use: `input_schema` is a JSON Schema object (non-strict tools accept the
# standard vocabulary): https://docs.anthropic.com/en/docs/build-with-claude/tool-use
# MCP: `inputSchema` / `outputSchema` are JSON Schema objects, 2020-12 by default:
# https://modelcontextprotocol.io/specification/2025-06-18/server/tools
# Both lists are the 2020-12 applicator, validation and annotation keywords our models may emit.
_JSON_SCHEMA_2020_12 = frozenset({
    "type", "properties", "required", "additionalProperties", "patternProperties", "propertyNames",
    "items", "prefixItems", "enum", "const", "anyOf", "oneOf", "allOf", "not",
    "$ref", "$defs", "description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly",
    "pattern", "format", "minLength", "maxLength",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
})
ANTHROPIC_KEYWORDS = _JSON_SCHEMA_2020_12
"""The JSON Schema keywords an Anthropic tool's `input_schema` may use."""
MCP_KEYWORDS = _JSON_SCHEMA_2020_12
"""The JSON Schema keywords an MCP tool's `inputSchema` may use."""

# Keys whose value maps *names* (fields, definitions) to schemas: the names are data, never
# keywords. A field called `title` or `default` must survive the keyword stripping below.
_NAME_MAPS = frozenset({"properties", "$defs", "definitions", "patternProperties", "dependentSchemas"})
# Keys whose value is data (enum members, examples), not a schema.
_DATA_KEYS = frozenset({"enum", "const", "examples", "required", "default"})


def _children(node: dict[str, Any]) -> list[Any]:
    """Returns the sub-schemas of a schema node (never its data or its names)."""
    out: list[Any] = []
    for k, v in node.items():
        if k in _NAME_MAPS and isinstance(v, dict):
            out.extend(v.values())
        elif k not in _DATA_KEYS and isinstance(v, dict | list):
            out.extend(v if isinstance(v, list) else [v])
    return out


def _schema_nodes(schema: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Yields every schema node of `schema`, depth first; a caller may change a node before its children are read."""
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            yield node
            stack.extend(_children(node))


def schema_keywords(schema: Any) -> set[str]:
    """Returns every keyword used anywhere in a schema (property and definition names excluded)."""
    found: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            found.update(node)
            stack.extend(_children(node))
    return found


# --- bounds in words ------------------------------------------------------------------------

def _number(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _bounds(node: dict[str, Any]) -> list[str]:
    """Returns the bounds one schema node states, in words."""
    words: list[str] = []
    if "minLength" in node:
        words.append(f"at least {node['minLength']} characters")
    if "maxLength" in node:
        words.append(f"at most {node['maxLength']} characters")
    for key, phrase in (("minimum", "at least"), ("exclusiveMinimum", "more than"),
                        ("maximum", "at most"), ("exclusiveMaximum", "less than")):
        if key in node:
            words.append(f"{phrase} {_number(node[key])}")
    if "pattern" in node:
        words.append(f"text matching {node['pattern']}")
    if "minItems" in node:
        words.append(f"at least {node['minItems']} items")
    if "maxItems" in node:
        words.append(f"at most {node['maxItems']} items")
    if "maxProperties" in node:
        words.append(f"at most {node['maxProperties']} entries")
    names = node.get("propertyNames")
    if isinstance(names, dict) and _bounds(names):
        words.append(f"keys {', '.join(_bounds(names))}")
    items = node.get("items")
    if isinstance(items, dict) and _bounds(items):
        words.append(f"each item {', '.join(_bounds(items))}")
    values = node.get("additionalProperties")
    if isinstance(values, dict) and _bounds(values):
        words.append(f"each value {', '.join(_bounds(values))}")
    for branch in node.get("anyOf", []):
        if isinstance(branch, dict):
            words.extend(w for w in _bounds(branch) if w not in words)
    return words


def document_bounds(schema: dict[str, Any]) -> dict[str, Any]:
    """Appends each property's bounds, in words, to its description (in place; returns `schema`)."""
    for node in _schema_nodes(schema):
        props = node.get("properties")
        if isinstance(props, dict):
            for prop in props.values():
                if isinstance(prop, dict):
                    words = _bounds(prop)
                    if words:
                        text = f"Limits: {'; '.join(words)}."
                        base = str(prop.get("description", "")).strip()
                        prop["description"] = f"{base} {text}".strip() if text not in base else base
    return schema


# pydantic writes a numeric bound it cannot place (on an Optional amount, whose schema is an anyOf of
# number and string) as its own keyword, `gt`, which no JSON Schema reader knows.
_STRAY_BOUNDS = {"gt": "exclusiveMinimum", "ge": "minimum", "lt": "exclusiveMaximum", "le": "maximum"}


def _place_bounds(schema: dict[str, Any]) -> dict[str, Any]:
    """Moves pydantic's stray `gt`/`ge`/`lt`/`le` onto the number branches they bound (in place)."""
    for node in _schema_nodes(schema):
        stray = {k: node.pop(k) for k in list(node) if k in _STRAY_BOUNDS}
        if stray:
            branches = [b for b in node.get("anyOf", []) if isinstance(b, dict) and b.get("type") in ("number",
                                                                                                      "integer")]
            for branch in branches or [node]:
                for key, value in stray.items():
                    branch.pop({"gt": "minimum", "ge": "exclusiveMinimum", "lt": "maximum",
                                "le": "exclusiveMaximum"}[key], None)
                    branch[_STRAY_BOUNDS[key]] = value
    return schema


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """Returns the model's JSON Schema 2020-12 (for Anthropic and MCP), bounds written into descriptions."""
    return document_bounds(_place_bounds(copy.deepcopy(model.model_json_schema())))


# --- OpenAI strict ----------------------------------------------------------------------------

def _strictify(node: Any) -> Any:
    if isinstance(node, list):
        return [_strictify(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for k, v in node.items():
        if k in _NAME_MAPS and isinstance(v, dict):
            out[k] = {name: _strictify(sub) for name, sub in v.items()}
        elif k in ("enum", "const", "required"):
            out[k] = v
        elif k in OPENAI_STRICT_KEYWORDS:
            out[k] = _strictify(v)
        # Anything else (title, default, maxLength, propertyNames...) is dropped: strict mode
        # refuses it. The bounds among them are already in the description (document_bounds).
    if out.get("format") is not None and out["format"] not in OPENAI_STRICT_FORMATS:
        del out["format"]
    if out.get("type") == "object" and "properties" in out:
        props: dict[str, Any] = out["properties"]
        required = set(node.get("required", []))
        for name, prop in list(props.items()):
            if name not in required:
                props[name] = _nullable(prop)
        out["required"] = list(props)
        out["additionalProperties"] = False
    return out


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
    strict = _strictify(json_schema(model))
    schema = _lone_refs(strict, strict)
    if not schema.get("properties"):
        schema["properties"] = {}
        schema["required"] = []
        schema["additionalProperties"] = False
    return dict(schema)


def _is_object(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in node


def strict_compatible(schema: Any) -> bool:
    """Returns whether a schema fits OpenAI's strict mode.

    Every object (also one typed `["object", "null"]`) must be closed with
    `additionalProperties: false` and list all its properties as required, and
    only the strict subset's keywords may appear. A free-form map
    (`dict[str, str]`) cannot be closed, so such a tool is exported with
    `strict: false` rather than with a strict flag the provider would reject.
    """
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        if not set(node) <= OPENAI_STRICT_KEYWORDS:
            return False
        if _is_object(node):
            if node.get("additionalProperties") is not False:
                return False
            if sorted(node.get("required", [])) != sorted(node.get("properties", {})):
                return False
        stack.extend(_children(node))
    return True
