"""The OpenAI strict-mode export of tool argument models.

Strict mode (what `strict: true` requires, and what the OpenAI SDK's own
`to_strict_json_schema` produces): every object lists all its properties in
`required` and has `additionalProperties: false`; a `$ref` stands alone (no
sibling keywords); optional fields are nullable, so a strict client sends
null for a field it leaves out, and the runtime then applies the default.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import BaseModel, Field

from saas_sim.runtime.toolkit import Toolkit, openai_strict_schema
from tests.runtime.notes_domain import DOMAIN, CreateNoteArgs, ListNotesArgs
from tests.runtime.test_rich_tool_models import LEDGER, GetEntryArgs, Line, Meta, PostEntryArgs


class RequiredNested(BaseModel):
    """A required nested object with a description, and a list of them."""

    meta: Meta = Field(description="Required metadata.")
    lines: list[Line] = Field(description="Required lines.")
    maybe: list[Line] | None = Field(default=None, description="Optional lines.")


def _resolve(root: dict[str, Any], ref: str) -> dict[str, Any]:
    assert ref.startswith("#/"), ref
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part]
    assert isinstance(node, dict)
    return node


def _admits_null(root: dict[str, Any], node: dict[str, Any]) -> bool:
    """Whether JSON null validates against `node` (for the keywords pydantic emits)."""
    if "$ref" in node:
        return _admits_null(root, _resolve(root, node["$ref"]))
    if "anyOf" in node:
        return any(_admits_null(root, n) for n in node["anyOf"])
    if "enum" in node and None not in node["enum"]:
        return False
    if "const" in node and node["const"] is not None:
        return False
    kind = node.get("type")
    return kind == "null" or (isinstance(kind, list) and "null" in kind)


def _strict_violations(root: dict[str, Any]) -> list[str]:
    problems: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, list):
            for i, item in enumerate(node):
                walk(item, f"{path}[{i}]")
            return
        if not isinstance(node, dict):
            return
        if "$ref" in node:
            _resolve(root, node["$ref"])
            if len(node) > 1:
                problems.append(f"{path}: $ref with sibling keywords {sorted(set(node) - {'$ref'})}")
        for keyword in ("default", "title"):
            if keyword in node:
                problems.append(f"{path}: keyword {keyword!r}")
        kinds = node.get("type")
        is_object = kinds == "object" or (isinstance(kinds, list) and "object" in kinds)
        if is_object:
            props = node.get("properties", {})
            if node.get("additionalProperties") is not False:
                problems.append(f"{path}: additionalProperties is not false")
            if sorted(node.get("required", [])) != sorted(props):
                problems.append(f"{path}: required {node.get('required')} != properties {sorted(props)}")
        for key, value in node.items():
            if key in ("properties", "$defs"):
                for name, sub in value.items():
                    walk(sub, f"{path}.{key}.{name}")
            elif key not in ("enum", "const", "required"):
                walk(value, f"{path}.{key}")

    walk(root, "$")
    if root.get("type") != "object":
        problems.append("$: the root is not an object")
    return problems


def _model_fields_are_kept_and_optional_ones_nullable(model: type[BaseModel], schema: dict[str, Any],
                                                      root: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    props = schema.get("properties", {})
    if sorted(props) != sorted(model.model_fields):
        problems.append(f"{model.__name__}: properties {sorted(props)} != fields {sorted(model.model_fields)}")
    for name, field in model.model_fields.items():
        if name in props and not field.is_required() and not _admits_null(root, props[name]):
            problems.append(f"{model.__name__}.{name}: optional but does not admit null: {props[name]}")
    return problems


@pytest.mark.parametrize("model", [CreateNoteArgs, ListNotesArgs, PostEntryArgs, GetEntryArgs, RequiredNested])
def test_strict_schema_keeps_every_field_and_follows_strict_rules(model: type[BaseModel]) -> None:
    # Bug: keys named "title" or "default" were stripped at every level of the schema, including
    # inside `properties`, so `notes.create_note` was exported without its `title` argument (and a
    # field named `default` vanished too): a strict client could never send them. Also, a required
    # nested model with a description was exported as {"$ref", "description"}, which strict mode
    # refuses (the OpenAI SDK inlines such refs).
    schema = openai_strict_schema(model)
    problems = _strict_violations(schema)
    problems += _model_fields_are_kept_and_optional_ones_nullable(model, schema, schema)
    assert not problems, "\n".join(problems)


def test_nested_models_in_defs_are_strict_and_their_optional_fields_nullable() -> None:
    schema = openai_strict_schema(PostEntryArgs)
    defs = schema["$defs"]
    problems: list[str] = []
    for model in (Line, Meta):
        problems += _model_fields_are_kept_and_optional_ones_nullable(model, defs[model.__name__], schema)
    assert not problems, "\n".join(problems)


def test_optional_literal_and_enum_fields_admit_null() -> None:
    # Bug: an optional `Literal[...]` field became {"enum": [...], "type": [..., "null"]}: the enum
    # still forbids null, so the schema contradicted "optional fields are nullable".
    props = openai_strict_schema(PostEntryArgs)["properties"]
    root = openai_strict_schema(PostEntryArgs)
    assert _admits_null(root, props["side"]) and _admits_null(root, props["kind"])
    assert not _admits_null(root, props["amount"]) and not _admits_null(root, props["title"])


def test_every_exported_tool_schema_is_strict() -> None:
    kit = Toolkit([*DOMAIN.tools, *LEDGER.tools], ["notes.*", "ledger.*"])
    problems: list[str] = []
    for tool in kit.openai():
        fn = tool["function"]
        assert fn["strict"] is True
        problems += [f"{fn['name']}: {p}" for p in _strict_violations(fn["parameters"])]
        spec = kit.spec(kit.resolve(fn["name"]))
        props = fn["parameters"]["properties"]
        assert sorted(props) == sorted(spec.args_model.model_fields), fn["name"]
    assert not problems, "\n".join(problems)


def test_strict_export_does_not_mutate_pydantic_schemas() -> None:
    before = PostEntryArgs.model_json_schema()
    openai_strict_schema(PostEntryArgs)
    assert PostEntryArgs.model_json_schema() == before


@pytest.mark.parametrize("flavor", ["openai", "anthropic", "mcp"])
def test_schema_exports_are_built_once_and_each_caller_gets_its_own_copy(flavor: str) -> None:
    kit = Toolkit([*DOMAIN.tools, *LEDGER.tools], ["notes.*", "ledger.*"])
    first = getattr(kit, flavor)()
    pristine = copy.deepcopy(first)
    first[0]["name"] = "edited"  # one caller edits its schemas in place
    first.append({"extra": True})
    second = getattr(kit, flavor)()
    assert second == pristine and second is not first
    assert list(kit._schema_texts) == [flavor]  # built once, kept as text
