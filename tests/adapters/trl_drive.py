"""Builds every tool method's schema with transformers' own `get_json_schema`; runs in SAAS_SIM_TRL_PYTHON's venv.

    python trl_drive.py

For each scenario (the built-in CRM, support and IDE ones, and the notes test
domain's), it makes the `environment_class`, finds the tool methods the way TRL's
`GRPOTrainer` does (the class's public functions but `reset` and `get_reward`), and
compares each method's `get_json_schema` with the tool's own argument schema: the
names, the required ones, and each argument's JSON types, enum values and list item
types. Prints one JSON object `{scenario: "ok" or what differs}`;
tests/adapters/test_trl_ecosystem.py asserts on it. The repository root must be on
PYTHONPATH (the notes test domain lives in tests/).
"""

from __future__ import annotations

import inspect
import json
import traceback
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

from transformers.utils import get_json_schema

from saas_sim.adapters.trl import close_environment_class, environment_class, method_name, tool_of
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.tool_schemas import json_schema
from tests.runtime.notes_domain import DOMAIN

FIXTURES = Path(__file__).resolve().parents[1] / "runtime" / "fixtures"
NOTES: dict[str, Any] = {"scenario_dirs": [str(FIXTURES / "scenarios")], "seeds_dirs": [str(FIXTURES / "seeds")],
                         "domains": [DOMAIN]}
_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


def _resolve(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Mapping[str, Any]:
    if "$ref" in schema:
        return defs[str(schema["$ref"]).rsplit("/", 1)[-1]]
    return schema


def _members(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    schema = _resolve(schema, defs)
    if "anyOf" in schema:
        return [m for sub in schema["anyOf"] for m in _members(sub, defs)]
    return [schema]


def json_types(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> set[str]:
    """The JSON types a schema admits (anyOf, type lists, enums without a type and `nullable` included)."""
    out: set[str] = set()
    for member in _members(schema, defs):
        kind = member.get("type")
        if isinstance(kind, list):
            out.update(kind)
        elif kind:
            out.add(kind)
        elif "enum" in member:
            out.update(_SCALARS[type(v)] for v in member["enum"])
        if member.get("nullable"):
            out.add("null")
    if schema.get("nullable"):
        out.add("null")
    return out


def enum_values(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> set[Any]:
    return {v for m in _members(schema, defs) for v in m.get("enum", [])}


def item_types(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> set[str]:
    return {t for m in _members(schema, defs) if "items" in m for t in json_types(m["items"], defs)}


def compare(tool: str, built: dict[str, Any], own: dict[str, Any]) -> list[str]:
    """What differs between `get_json_schema`'s function schema and the tool's argument schema."""
    fn, defs = built["function"], own.get("$defs", {})
    params = fn["parameters"]
    problems = []
    if fn["name"] != method_name(tool) or not fn["description"]:
        problems.append(f"name {fn['name']!r} or an empty description")
    if set(params["properties"]) != set(own.get("properties", {})):
        problems.append(f"names {sorted(params['properties'])} != {sorted(own.get('properties', {}))}")
    if set(params.get("required", [])) != set(own.get("required", [])):
        problems.append(f"required {sorted(params.get('required', []))} != {sorted(own.get('required', []))}")
    for name, prop in own.get("properties", {}).items():
        got = params["properties"].get(name)
        if got is None:
            continue
        for what, fn_of in (("types", json_types), ("enum", enum_values), ("item types", item_types)):
            mine, theirs = fn_of(got, {}), fn_of(prop, defs)
            if mine != theirs:
                problems.append(f"{name}: {what} {sorted(mine, key=str)} != {sorted(theirs, key=str)}")
        if not got.get("description"):
            problems.append(f"{name}: no description")
    return problems


def check_scenario(scenario: str, options: dict[str, Any]) -> str:
    cls = environment_class(scenario, **options)
    try:
        instance = cls()
        env = Environment(None, **options)
        allowed = env.toolkit(env.scenario(scenario)).allowed
        # As GRPOTrainer finds them: the class's public functions, but reset and get_reward.
        methods = [name for name, _ in inspect.getmembers(type(instance), predicate=inspect.isfunction)
                   if name not in ("reset", "get_reward") and not name.startswith("_")]
        problems = []
        if sorted(tool_of(cls, m) for m in methods) != sorted(allowed):
            problems.append(f"methods {methods} are not the tools {sorted(allowed)}")
        for name in methods:
            tool = tool_of(cls, name)
            built = get_json_schema(getattr(instance, name))
            problems += [f"{tool}: {p}" for p in compare(tool, built, json_schema(allowed[tool].args_model))]
        return "ok" if not problems else "; ".join(problems)
    finally:
        close_environment_class(cls)


def comparison_catches_drift() -> str:
    """The comparison itself: a schema whose type, required list or enum drifted is reported."""
    cls = environment_class("crm/advance-qualified-deal")
    env = Environment(None)
    spec = env.toolkit(env.scenario("crm/advance-qualified-deal")).allowed["crm.update_deal_stage"]
    own = json_schema(spec.args_model)
    built = get_json_schema(cls().crm__update_deal_stage)
    assert compare("crm.update_deal_stage", built, own) == []
    drifts = []
    for mutate in (lambda p: p["properties"]["deal_id"].update(type="integer"),
                   lambda p: p["required"].remove("stage"),
                   lambda p: p["properties"]["stage"]["enum"].pop()):
        changed = json.loads(json.dumps(built))
        mutate(changed["function"]["parameters"])
        drifts.append(bool(compare("crm.update_deal_stage", changed, own)))
    return "ok" if all(drifts) else f"undetected drifts: {drifts}"


def main() -> None:
    report: dict[str, Any] = {"transformers": metadata.version("transformers")}
    try:
        report["comparison_catches_drift"] = comparison_catches_drift()
    except Exception:
        report["comparison_catches_drift"] = traceback.format_exc()
    builtin = Environment(None)
    notes = Environment(None, builtin=False, **NOTES)
    cases = [(s.spec.id, {}) for s in builtin.scenarios("*")]
    cases += [(s.spec.id, {**NOTES, "builtin": False}) for s in notes.scenarios("*")]
    for scenario, options in cases:
        try:
            report[scenario] = check_scenario(scenario, options)
        except Exception:
            report[scenario] = traceback.format_exc()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
