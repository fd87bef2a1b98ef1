"""TRL environments: `environment_class(scenario)` makes a class for `GRPOTrainer(environment_factory=...)`.

    from saas_sim.adapters.trl import environment_class

    Deals = environment_class("crm/advance-qualified-deal")
    trainer = GRPOTrainer(model=..., train_dataset=Dataset.from_dict({"prompt": [...], "seed": [0, 1, ...]}),
                          environment_factory=Deals)

The class follows TRL's contract (trl 1.x `GRPOTrainer`): TRL makes instances with no
argument and reuses them; `reset(**columns)` gets every column of the dataset row (`seed`,
and optionally `scenario`; the others are ignored) and returns the task's instructions,
which TRL appends to the prompt. Every other public method is a tool: one per allowed tool
of the scenario(s), with type hints and a Google docstring built from the tool's argument
schema, so `transformers.utils.get_json_schema(method)` builds its schema. `get_reward()`
grades the episode once and returns its scalar score.

Method names: a tool's dots become double underscores (`crm.search_contacts` ->
`crm__search_contacts`, the wire name the other adapters use too), and `tool_of(cls, name)`
maps a method back. A name that would not be a public Python identifier, or that two tools
(or `reset`, `get_reward`) would share, is refused when the class is made.

A method returns the call's observation as JSON text, `{"ok": true, "value": ...}` or
`{"ok": false, "error": {code, message, retryable, details}}`: tool errors, unknown
arguments, wrong types and missing required arguments are observations, never raised. A
harness or verifier error raises `HarnessError` (it is never a reward). TRL turns any
exception a tool raises into a string for the model; the episode is invalid by then, so
`get_reward()` raises `HarnessError` for it and the run stops loudly rather than learn from it.

All instances of one class share a `SyncRuntime` (one private event loop, one store, one
world cache), made at the first reset, so G rollouts of one seed build its world once.
`close_environment_class(cls)` closes it.
"""

from __future__ import annotations

import inspect
import json
import keyword
import threading
import typing
from collections.abc import Callable, Mapping, Sequence
from numbers import Integral
from typing import Any, Literal

from saas_sim.adapters._sync_episode import MEMORY_STORE_URL, SyncRuntime, SyncSession, error_observation
from saas_sim.core.tool_errors import bad_args
from saas_sim.core.tools import ToolSpec
from saas_sim.errors import ToolError, UsageError
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.tool_schemas import json_schema
from saas_sim.runtime.toolkit import wire_name

__all__ = ["close_environment_class", "environment_class", "method_name", "tool_of", "type_hint"]

_RESERVED = frozenset({"reset", "get_reward"})
_JSON_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "null": type(None)}


def method_name(tool: str) -> str:
    """The method name of a tool: its wire name, dots become `__` (`crm.get_deal` -> `crm__get_deal`)."""
    return wire_name(tool)


def tool_of(cls: type, name: str) -> str:
    """The tool a method of an `environment_class` class calls.

    Raises:
        UsageError: The class has no such tool method.
    """
    tools: Mapping[str, str] = getattr(cls, "_saas_sim_tools", {})
    if name not in tools:
        raise UsageError(f"{cls.__name__} has no tool method {name!r}")
    return tools[name]


def type_hint(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Any:
    """The Python type hint `get_json_schema` turns back into (the JSON types of) a JSON schema.

    Nested objects (`$ref` to another model) become `dict`: transformers maps no richer
    type. Their fields are described in the argument's docstring line instead.
    """
    if "$ref" in schema:
        return type_hint(defs.get(str(schema["$ref"]).rsplit("/", 1)[-1], {}), defs)
    if "enum" in schema or "const" in schema:
        values = tuple(schema["enum"]) if "enum" in schema else (schema["const"],)
        return Literal[values]
    if "anyOf" in schema:
        members = tuple(type_hint(s, defs) for s in schema["anyOf"])
        return typing.Union[members]  # noqa: UP007 (a runtime union of a tuple of hints)
    kind = schema.get("type")
    if isinstance(kind, list):
        return typing.Union[tuple(type_hint({**schema, "type": k}, defs) for k in kind)]  # noqa: UP007
    if kind == "array":
        items = schema.get("items")
        return list[type_hint(items, defs)] if isinstance(items, Mapping) else list  # type: ignore[misc]
    if kind == "object":
        extra = schema.get("additionalProperties")
        return dict[str, type_hint(extra, defs)] if isinstance(extra, Mapping) and extra else dict  # type: ignore[misc]
    return _JSON_TYPES.get(str(kind), Any)


def _one_line(text: str) -> str:
    # The docstring parser splits arguments at line starts; one line each keeps a colon in a text harmless.
    return " ".join(text.split()) or "No description."


def _nested_fields(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> str:
    """A sentence naming a nested object's fields (a `$ref` directly, in a list, or optional)."""
    for sub in [schema, schema.get("items") or {}, *schema.get("anyOf", [])]:
        if isinstance(sub, Mapping) and "items" in sub and sub is not schema:
            sub = sub["items"]
        if isinstance(sub, Mapping) and "$ref" in sub:
            model = defs.get(str(sub["$ref"]).rsplit("/", 1)[-1], {})
            required = set(model.get("required", []))
            parts = [
                f"{name} ({'required' if name in required else 'optional'}): {_one_line(prop.get('description', ''))}"
                for name, prop in model.get("properties", {}).items()
            ]
            return " Each object has the fields " + "; ".join(parts)
    return ""


def _docstring(spec: ToolSpec, schema: Mapping[str, Any]) -> str:
    defs = schema.get("$defs", {})
    lines = [_one_line(spec.description or spec.name), ""]
    props: Mapping[str, Any] = schema.get("properties", {})
    if props:
        lines.append("Args:")
        for name, prop in props.items():
            lines.append(f"    {name}: {_one_line(str(prop.get('description', '')))}{_nested_fields(prop, defs)}")
        lines.append("")
    lines += ["Returns:", '    The observation as JSON: {"ok": true, "value": ...} or {"ok": false, "error": {...}}.']
    return "\n".join(lines)


def _tool_method(cls_name: str, name: str, tool: str, spec: ToolSpec) -> Callable[..., str]:
    """A method that calls `tool` with its keyword arguments, typed and documented from the tool's schema."""
    schema = json_schema(spec.args_model)
    defs = schema.get("$defs", {})
    required = set(schema.get("required", []))

    def method(env: _Base, /, *args: Any, **kwargs: Any) -> str:
        if args:
            return _text(error_observation(bad_args("pass the arguments by name", [])))
        return env._call(tool, kwargs)

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    hints: dict[str, Any] = {}
    for field, prop in schema.get("properties", {}).items():
        hints[field] = type_hint(prop, defs)
        default = inspect.Parameter.empty if field in required else prop.get("default")
        params.append(inspect.Parameter(field, inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=hints[field]))
    hints["return"] = str
    method.__name__ = name
    method.__qualname__ = f"{cls_name}.{name}"
    method.__doc__ = _docstring(spec, schema)
    method.__annotations__ = hints
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    return method


def _text(observation: Mapping[str, Any]) -> str:
    return json.dumps(observation, ensure_ascii=False, sort_keys=True, default=str)


class _Shared:
    """The runtime all instances of one class share, made at the first reset."""

    def __init__(self, store_url: str | None, options: dict[str, Any]) -> None:
        self.store_url, self.options = store_url, options
        self._lock = threading.Lock()
        self._runtime: SyncRuntime | None = None

    def runtime(self) -> SyncRuntime:
        with self._lock:
            if self._runtime is None or self._runtime.closed:
                self._runtime = SyncRuntime(Environment(self.store_url or MEMORY_STORE_URL, **self.options))
            return self._runtime

    def close(self) -> None:
        with self._lock:
            runtime, self._runtime = self._runtime, None
        if runtime is not None:
            runtime.close()


class _Base:
    """What every `environment_class` class shares: `reset`, `get_reward` and the call path."""

    _saas_sim_shared: _Shared
    _saas_sim_scenarios: tuple[str, ...]
    _saas_sim_tools: dict[str, str]

    def __init__(self) -> None:
        self._session: SyncSession | None = None

    def reset(self, **columns: Any) -> str:
        """Starts the episode of the row's `seed` (and `scenario`, default: the class's first); returns the task.

        A `difficulty` column (as `saas-sim generate --difficulty` writes it) sets up the task at that level.

        Raises:
            UsageError: The row has no integer `seed`, or names a scenario this class was not made for.
        """
        seed = columns.get("seed")
        if isinstance(seed, bool) or not isinstance(seed, Integral):
            raise UsageError(f"the dataset row needs an integer `seed` column, got {seed!r}")
        scenario = columns.get("scenario") or self._saas_sim_scenarios[0]
        if scenario not in self._saas_sim_scenarios and not any(
            str(scenario) == s.split("@", 1)[0] for s in self._saas_sim_scenarios
        ):
            raise UsageError(f"{type(self).__name__} plays {list(self._saas_sim_scenarios)}, not {scenario!r}")
        if self._session is None:
            self._session = SyncSession(self._saas_sim_shared.runtime())
        return self._session.start(str(scenario), int(seed), columns.get("difficulty")).instructions

    def get_reward(self) -> float:
        """Grades the episode (once) and returns its score in [0, 1].

        Raises:
            UsageError: No episode was reset.
            HarnessError: A harness or verifier error: the episode carries no reward.
        """
        if self._session is None:
            raise UsageError("no episode yet: reset first")
        score = self._session.grade().score
        assert score is not None  # grade() refuses invalid grades
        return float(score)

    def _call(self, tool: str, kwargs: dict[str, Any]) -> str:
        if self._session is None or self._session.episode is None:
            return _text(error_observation(ToolError("episode_closed", "no episode yet: reset first")))
        return _text(self._session.call(tool, kwargs).observation)


def environment_class(
    scenarios: str | Sequence[str],
    *,
    name: str = "SaasSimEnvironment",
    store_url: str | None = None,
    **environment_options: Any,
) -> type:
    """Makes a TRL environment class for one scenario, or several (one tool method per tool of any of them).

    Args:
        scenarios: Scenario ids (`id` or `id@version`); a row's `scenario` column picks one, default the first.
        name: The class name (TRL logs the reward under it).
        store_url: The event store of the shared runtime (default: SQLite in memory).
        **environment_options: Passed to `Environment` (`scenario_dirs`, `seeds_dirs`, `domains`, ...).

    Raises:
        UsageError: Two tools map to one method name, or a tool name makes no public identifier.
    """
    names = [scenarios] if isinstance(scenarios, str) else list(scenarios)
    if not names:
        raise UsageError("environment_class needs at least one scenario")
    env = Environment(store_url, **environment_options)
    specs: dict[str, ToolSpec] = {}
    refs = []
    for scenario_name in names:
        scenario = env.scenario(scenario_name)
        refs.append(scenario.ref if "@" in scenario_name else scenario.spec.id)
        specs.update(env.toolkit(scenario).allowed)
    namespace: dict[str, Any] = {
        "__doc__": f"saas_sim scenarios {', '.join(refs)} as a TRL environment (saas_sim.adapters.trl).",
        "__module__": __name__,
        "_saas_sim_shared": _Shared(store_url, environment_options),
        "_saas_sim_scenarios": tuple(refs),
    }
    tools: dict[str, str] = {}
    for tool, spec in sorted(specs.items()):
        method = method_name(tool)
        if not method.isidentifier() or keyword.iskeyword(method) or method.startswith("_") or method in _RESERVED:
            raise UsageError(f"tool {tool!r} makes no usable method name ({method!r})")
        if method in tools:
            raise UsageError(f"tools {tools[method]!r} and {tool!r} both map to method {method!r}")
        tools[method] = tool
        namespace[method] = _tool_method(name, method, tool, spec)
    namespace["_saas_sim_tools"] = tools
    return type(name, (_Base,), namespace)


def close_environment_class(cls: type) -> None:
    """Closes the runtime an `environment_class` class's instances share (a later reset makes a new one)."""
    shared = getattr(cls, "_saas_sim_shared", None)
    if not isinstance(shared, _Shared):
        raise UsageError(f"{cls.__name__} was not made by environment_class")
    shared.close()
