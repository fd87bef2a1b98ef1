"""Every exported tool schema of every scenario is one the model APIs accept.

Checked against the written keyword lists in `saas_sim/runtime/tool_schemas.py`
(OpenAI strict mode, Anthropic, MCP) and against the JSON Schema 2020-12
metaschema. A tool marked `strict: true` must really fit strict mode.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from pydantic import BaseModel, Field

from saas_sim.runtime.environment import Environment
from saas_sim.runtime.tool_schemas import (
    ANTHROPIC_KEYWORDS,
    MCP_KEYWORDS,
    OPENAI_STRICT_FORMATS,
    OPENAI_STRICT_KEYWORDS,
    openai_strict_schema,
    schema_keywords,
    strict_compatible,
)


@pytest.fixture(scope="module")
def exported() -> dict[str, dict[str, list[dict[str, Any]]]]:
    """scenario ref -> flavor -> the exported tools."""
    async def collect() -> dict[str, dict[str, list[dict[str, Any]]]]:
        async with Environment("sqlite+aiosqlite:///:memory:") as env:
            out: dict[str, dict[str, list[dict[str, Any]]]] = {}
            for sc in env.scenarios():
                ep = await env.start(sc.ref, 0)
                out[sc.ref] = {f: ep.tool_schemas(f) for f in ("openai", "anthropic", "mcp")}
                await ep.close()
            return out
    return asyncio.run(collect())


def _formats(schema: Any) -> set[str]:
    found: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("format"), str):
                found.add(node["format"])
            stack.extend(v for k, v in node.items() if k not in ("enum", "const", "default", "examples"))
        elif isinstance(node, list):
            stack.extend(node)
    return found


def test_every_scenario_exports_tools_in_every_flavor(exported: dict[str, Any]) -> None:
    assert len(exported) >= 20
    assert all(tools for flavors in exported.values() for tools in flavors.values())


def test_openai_schemas_use_only_the_strict_subset(exported: dict[str, Any]) -> None:
    for ref, flavors in exported.items():
        for tool in flavors["openai"]:
            params = tool["function"]["parameters"]
            extra = schema_keywords(params) - OPENAI_STRICT_KEYWORDS
            assert not extra, (ref, tool["function"]["name"], sorted(extra))
            assert _formats(params) <= OPENAI_STRICT_FORMATS, (ref, tool["function"]["name"])


def test_a_tool_is_strict_exactly_when_its_schema_fits_strict_mode(exported: dict[str, Any]) -> None:
    strict = 0
    for flavors in exported.values():
        for tool in flavors["openai"]:
            fn = tool["function"]
            assert fn["strict"] is strict_compatible(fn["parameters"])
            strict += fn["strict"]
    assert strict > 0


def test_submit_report_with_an_open_map_is_not_exported_as_strict(exported: dict[str, Any]) -> None:
    # Bug: its `values` map is typed ["object", "null"], which strict_compatible missed, so OpenAI's
    # strict mode would have rejected the request of crm/pipeline-report, graded on that tool.
    report = [t for t in exported["crm/pipeline-report@1"]["openai"] if t["function"]["name"] == "crm__submit_report"]
    assert report
    assert report[0]["function"]["strict"] is False


def test_anthropic_and_mcp_schemas_use_only_json_schema_keywords(exported: dict[str, Any]) -> None:
    for ref, flavors in exported.items():
        for tool in flavors["anthropic"]:
            assert schema_keywords(tool["input_schema"]) <= ANTHROPIC_KEYWORDS, (ref, tool["name"])
        for tool in flavors["mcp"]:
            for key in ("inputSchema", "outputSchema"):
                assert schema_keywords(tool[key]) <= MCP_KEYWORDS, (ref, tool["name"], key)
            assert tool["inputSchema"]["type"] == "object"


def test_every_exported_schema_is_valid_json_schema_2020_12(exported: dict[str, Any]) -> None:
    for flavors in exported.values():
        for tool in flavors["openai"]:
            Draft202012Validator.check_schema(tool["function"]["parameters"])
        for tool in flavors["anthropic"]:
            Draft202012Validator.check_schema(tool["input_schema"])
        for tool in flavors["mcp"]:
            Draft202012Validator.check_schema(tool["inputSchema"])
            Draft202012Validator.check_schema(tool["outputSchema"])


class _Bounded(BaseModel):
    name: str = Field(min_length=2, max_length=30, description="A name.")
    tags: dict[str, str] | None = Field(default=None, description="Free tags.")


def test_strict_export_moves_unsupported_bounds_into_the_description() -> None:
    schema = openai_strict_schema(_Bounded)
    name = schema["properties"]["name"]
    assert "maxLength" not in name
    assert "minLength" not in name
    assert "at least 2 characters" in name["description"]
    assert "at most 30 characters" in name["description"]


def test_an_object_or_null_open_map_is_not_strict_compatible() -> None:
    assert not strict_compatible(openai_strict_schema(_Bounded))
    open_map = {"type": "object", "properties": {"m": {"type": ["object", "null"], "additionalProperties": {}}},
                "required": ["m"], "additionalProperties": False}
    assert not strict_compatible(open_map)


def test_a_strict_schema_with_an_unsupported_keyword_is_not_strict_compatible() -> None:
    closed: dict[str, Any] = {"type": "object", "properties": {"s": {"type": "string", "maxLength": 3}},
                              "required": ["s"], "additionalProperties": False}
    assert not strict_compatible(closed)
    del closed["properties"]["s"]["maxLength"]
    assert strict_compatible(closed)
