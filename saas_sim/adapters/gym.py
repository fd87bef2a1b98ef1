"""Gymnasium text environments over saas_sim scenarios: `SaasSimEnv`, `TextSpace`, `ToolCallSpace`, `register_all`.

    import gymnasium as gym
    from saas_sim.adapters.gym import register_all

    register_all()  # saas_sim/<domain>-<name>-v<version>, one id per scenario
    env = gym.make("saas_sim/crm-advance-qualified-deal-v1")
    obs, info = env.reset(seed=3)           # obs: the task; info["tools"]: the tools' schemas
    obs, reward, terminated, truncated, info = env.step('{"tool": "crm.search_deals", "args": {"query": "Acme"}}')

This module imports gymnasium, so it imports only where gymnasium is installed; `import
saas_sim` never imports it. Gymnasium 1.x loads no plugins from package entry points, so
ids exist once `register_all()` ran (`gym.make("saas_sim.adapters.gym:saas_sim/<id>")`
does not register them: call `register_all()` first).

Actions are tool calls, as JSON text or a mapping: `{"tool": NAME, "args": {...}}` (an
optional `"call_id"` makes a retry idempotent), or OpenAI's `{"name": NAME, "arguments":
"<json>"}` (also wrapped as `{"type": "function", "function": {...}}`). `submit` ends the
episode (a domain's own `*.submit` does too, once it succeeded). No action raises: text that
is not JSON, an action of the wrong shape, an unknown tool or bad arguments are observations
carrying the typed tool error. A malformed action records no step in the episode, so the
registered ids wrap the env in gymnasium's `TimeLimit` at the scenario's `max_steps`.

Observations are text: the task's instructions at reset, then each call's JSON
`{"ok": true, "value": ...}` or `{"ok": false, "error": {code, message, retryable, details}}`.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium as gym

from saas_sim.adapters._sync_episode import (
    MEMORY_STORE_URL,
    SUBMIT_TOOL,
    SyncRuntime,
    SyncSession,
    Turn,
    error_observation,
)
from saas_sim.core.domain import Domain
from saas_sim.core.rng import SeedTree
from saas_sim.core.tool_errors import bad_args
from saas_sim.core.tools import ToolSpec
from saas_sim.errors import ToolError
from saas_sim.runtime.arg_bounds import loads_bounded
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.schema_args import fill_args
from saas_sim.runtime.tool_schemas import json_schema

__all__ = ["SEED_BOUND", "SaasSimEnv", "TextSpace", "ToolCallSpace", "env_id", "parse_action", "register_all"]

SEED_BOUND = 2**31
"""A `reset()` without a seed draws the task seed from `np_random` in [0, SEED_BOUND)."""

_SAMPLE_NOW = datetime(2025, 1, 1, tzinfo=UTC)
"""The base of the dates `ToolCallSpace.sample()` fills in (a space knows no episode's clock)."""


def env_id(scenario_id: str, version: int) -> str:
    """The registered id of a scenario version (`crm/x`, 1 -> `saas_sim/crm-x-v1`)."""
    return f"saas_sim/{scenario_id.replace('/', '-')}-v{version}"


class TextSpace(gym.spaces.Space[str]):
    """Unbounded Unicode text: `contains` accepts any `str` (spaces, JSON and non-ASCII included).

    `sample()` draws a short line of words with the space's own seeded `np_random`.
    """

    _WORDS = ("ok", "deal", "ticket", "Grüße", "note", "{}", "naïve", "über", "42", "done")

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        """Text cannot be flattened into a Box."""
        return False

    def contains(self, x: Any) -> bool:
        """Any `str` is a member."""
        return isinstance(x, str)

    def sample(self, mask: Any | None = None, probability: Any | None = None) -> str:
        """A few words drawn with this space's `np_random` (masks are not supported)."""
        if mask is not None or probability is not None:
            raise gym.error.Error("TextSpace.sample takes no mask or probability")
        count = int(self.np_random.integers(1, 6))
        return " ".join(self._WORDS[int(i)] for i in self.np_random.integers(0, len(self._WORDS), size=count))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return _type_hash(self)


class ToolCallSpace(TextSpace):
    """Tool calls as JSON text. `contains` accepts any `str` (a bad call is an observation, never a crash).

    `sample()` returns a valid JSON tool call, `{"tool": ..., "args": {...}}`: a tool of the
    scenario (or `submit`) with arguments filled from its schema, every choice drawn with the
    space's own seeded `np_random`.

    Args:
        tools: The scenario's tools (the env updates them when a reset changes scenario).
        submit: Whether `submit` is one of the choices.
        seed: The space's seed.
    """

    def __init__(self, tools: Sequence[ToolSpec] = (), *, submit: bool = True,
                 seed: int | None = None) -> None:
        super().__init__(seed=seed)
        self.set_tools(tools, submit=submit)

    def set_tools(self, tools: Sequence[ToolSpec], *, submit: bool) -> None:
        """Replaces the tools `sample()` draws from (their argument schemas are computed once here)."""
        self._schemas = [(t.name, json_schema(t.args_model)) for t in sorted(tools, key=lambda t: t.name)]
        self._submit = submit

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ToolCallSpace) and other._submit == self._submit
                and [n for n, _ in other._schemas] == [n for n, _ in self._schemas])

    def __hash__(self) -> int:  # the tools can change (a reset to another scenario): hash the type alone
        return _type_hash(self)

    def sample(self, mask: Any | None = None, probability: Any | None = None) -> str:
        """A JSON tool call drawn with this space's `np_random`."""
        if mask is not None or probability is not None:
            raise gym.error.Error("ToolCallSpace.sample takes no mask or probability")
        choices = len(self._schemas) + (1 if self._submit or not self._schemas else 0)
        pick = int(self.np_random.integers(0, choices))
        if pick >= len(self._schemas):
            return json.dumps({"tool": SUBMIT_TOOL, "args": {}})
        name, schema = self._schemas[pick]
        # The argument filler takes a random.Random: seed one from this space's generator (a sha256 seed tree).
        rng = SeedTree(f"gym-action:{int(self.np_random.integers(0, 2**63))}").random("args")
        args = fill_args(schema, rng, [], _SAMPLE_NOW)
        return json.dumps({"tool": name, "args": args}, ensure_ascii=False, default=str)


def parse_action(action: Any) -> tuple[Any, Any, Any]:
    """Returns `(tool, args, call_id)` of an action, or raises the `ToolError` the agent observes.

    Accepted: `{"tool", "args"?, "call_id"?}`, `{"name", "arguments"?}` and `{"type": "function",
    "function": {"name", "arguments"}}`, as a mapping or as JSON text (`args` may be JSON text too).
    """
    if isinstance(action, bytes | bytearray):
        try:
            action = bytes(action).decode("utf-8")
        except UnicodeDecodeError:
            raise bad_args("the action is not UTF-8 text", ["action"]) from None
    if isinstance(action, str):
        try:
            action = loads_bounded(action)  # a model's text: nested past json.loads' stack, it raised RecursionError
        except ValueError as exc:
            raise bad_args(f"the action is not JSON: {exc}", ["action"]) from None
    if not isinstance(action, Mapping):
        raise bad_args('the action must be a JSON object: {"tool": NAME, "args": {...}}', ["action"])
    if "function" in action and isinstance(action["function"], Mapping) and "tool" not in action:
        action = action["function"]
    if "tool" in action:
        tool, args = action["tool"], action.get("args")
    elif "name" in action:
        tool, args = action["name"], action.get("arguments")
    else:
        raise bad_args('the action names no tool: {"tool": NAME, "args": {...}}', ["tool"])
    if not isinstance(tool, str):
        raise bad_args("the tool name must be a string", ["tool"])
    return tool, args, action.get("call_id")


class SaasSimEnv(gym.Env[str, str]):
    """One saas_sim scenario as a Gymnasium text environment.

    Seeding contract: `reset(seed=s)` plays the scenario's task for seed `s` (the same
    task `saas-sim run --seed s` plays), and seeds `np_random` with `s`. `reset()` without a
    seed draws the task seed from `np_random` (so after `reset(seed=s)` the following
    unseeded resets repeat too), and on a fresh env from gymnasium's entropy-seeded generator.
    The same seed and the same scenario give an identical observation AND an identical `info`
    (no episode id, no wall time), and the same actions then give identical steps: the
    simulation itself is deterministic (a sim clock, sha256 seed trees).

    `terminated` is true once the agent submitted or the episode ended; `truncated` once the
    scenario's step or sim-time limit was hit. The reward is the grade's scalar score on the
    step that ends the episode (either way), 0 before. `info` holds, at reset, the scenario,
    seed, world hash, limits and the tools (`tools`: OpenAI function schemas, `tool_names`);
    on every step the step number, call id, error and fault; on the last step the grade
    (`grade`: checks, violations, attribution), its named vector (`checks`: name -> score)
    and `attribution`. A harness or verifier error raises `HarnessError`: it is never a reward.

    Args:
        scenario: The scenario, `id` (latest version) or `id@version`.
        store_url: The event store (default: SQLite in memory).
        render_mode: None, or `"ansi"` (`render()` returns the last observation).
        environment_config: An `Environment.config` (plain data: folders, domain refs), as
            `register_all` passes it; gymnasium deep-copies registered kwargs, and a copied
            domain object is no longer importable by reference.
        **environment_options: Passed to `Environment` (`scenario_dirs`, `seeds_dirs`, `domains`, ...).
    """

    # gymnasium's class attribute; the fps only silences check_env (text frames have no rate).
    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, scenario: str, *, store_url: str | None = None, render_mode: str | None = None,
                 environment_config: dict[str, Any] | None = None, **environment_options: Any) -> None:
        if render_mode not in (None, "ansi"):
            raise gym.error.Error(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        url = store_url or MEMORY_STORE_URL
        env = (Environment(url, **environment_options) if environment_config is None
               else Environment.from_config(environment_config, url))
        self._runtime = SyncRuntime(env)
        try:
            self._default = self._runtime.env.scenario(scenario).ref
            self._session = SyncSession(self._runtime)
            self._scenario = self._default
            self.observation_space = TextSpace()
            tools = self._runtime.env.toolkit(self._runtime.env.scenario(self._default)).allowed
            self.action_space = ToolCallSpace(list(tools.values()), submit=not _has_submit(tools))
        except BaseException:
            self._runtime.close()
            raise
        self._last = ""
        self._reset_info: dict[str, Any] = {}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Starts the task of a seed; `options={"scenario": ...}` switches scenario until the next switch."""
        super().reset(seed=seed)
        name = (options or {}).get("scenario") or self._scenario
        task_seed = seed if seed is not None else int(self.np_random.integers(0, SEED_BOUND))
        episode = self._session.start(str(name), task_seed)
        scenario = episode.task.scenario
        if scenario.ref != self._scenario:
            self._scenario = scenario.ref
            self.action_space.set_tools(episode.tools, submit=not _has_submit(episode.toolkit.allowed))
        limits = scenario.spec.limits
        self._reset_info = {
            "scenario": scenario.ref, "seed": task_seed, "world_hash": episode.task.world.world_hash,
            "max_steps": limits.max_steps, "sim_time_s": limits.sim_time_s,
            "tool_names": self._session.tool_names(), "tools": _tool_schemas(episode.tool_schemas("openai"),
                                                                               self._session.tool_names()),
        }
        self._last = episode.instructions
        return episode.instructions, copy.deepcopy(self._reset_info)

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        """Makes one tool call; see the class docstring for what it returns."""
        was_over = self._session.ended
        try:
            tool, args, call_id = parse_action(action)
        except ToolError as exc:
            turn = Turn(error_observation(exc))
        else:
            turn = self._session.call(tool, args, call_id)
        info: dict[str, Any] = {"scenario": self._scenario, "ok": bool(turn.observation["ok"])}
        if turn.result is not None:
            info.update(step=turn.result.step, call_id=turn.result.call_id, fault=turn.result.fault)
        if not turn.observation["ok"]:
            info["error"] = copy.deepcopy(turn.observation["error"])
        reward = 0.0
        ended = turn.ended or self._session.ended
        if ended and not was_over:  # graded once, on the step that ends the episode
            grade = self._session.grade()
            reward = float(grade.score or 0.0)
            info.update(grade=grade.model_dump(mode="json"), attribution=grade.attribution,
                        checks={c.name: c.score for c in grade.checks})
        truncated = turn.truncated or (self._session.episode is not None and self._session.episode.truncated)
        self._last = json.dumps(turn.observation, ensure_ascii=False, sort_keys=True, default=str)
        return self._last, reward, ended and not truncated, bool(ended and truncated), info

    def render(self) -> str | None:
        """The last observation (render_mode `"ansi"`), or None."""
        return self._last if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Ends the current episode and closes the private event loop and store. Idempotent."""
        if not self._runtime.closed:
            try:
                self._session.end()
            finally:
                self._runtime.close()
        super().close()


def _has_submit(tools: Mapping[str, ToolSpec]) -> bool:
    return any(name.endswith(".submit") for name in tools)


def _tool_schemas(schemas: list[dict[str, Any]], names: list[str]) -> list[dict[str, Any]]:
    """The OpenAI function tools, plus `submit` when the adapter adds it (a fresh copy every time)."""
    out = copy.deepcopy(schemas)
    if SUBMIT_TOOL in names:
        out.append({"type": "function", "function": {
            "name": SUBMIT_TOOL, "description": "Finish the task: end the episode and grade it. Call it once, last.",
            "parameters": {"type": "object", "properties": {}, "required": [], "additionalProperties": False},
            "strict": True,
        }})
    return out


def register_all(
    *,
    store_url: str | None = None,
    scenario_dirs: Sequence[str | Path] = (),
    seeds_dirs: Sequence[str | Path] = (),
    domains: Sequence[Domain] = (),
    builtin: bool = True,
) -> list[str]:
    """Registers one gymnasium id per scenario (`saas_sim/crm-advance-qualified-deal-v1`); returns them.

    The id's version is the scenario's latest version. Each id makes a `SaasSimEnv` of it,
    wrapped in `TimeLimit` at the scenario's `max_steps`. Registering again replaces the ids
    (gymnasium warns).

    Args:
        store_url: The event store of every env (default: SQLite in memory, one per env).
        scenario_dirs: Extra scenario folders.
        seeds_dirs: Extra world-profile folders.
        domains: Extra domains; each must be a module-level attribute (envs import it by reference).
        builtin: Whether to include the built-in domains and scenarios.
    """
    env = Environment(store_url, scenario_dirs=scenario_dirs, seeds_dirs=seeds_dirs, domains=domains,
                      builtin=builtin)
    ids = []
    for scenario in env.scenarios("*"):
        spec = scenario.spec
        gid = env_id(spec.id, spec.version)
        gym.register(gid, entry_point=f"{__name__}:SaasSimEnv", max_episode_steps=spec.limits.max_steps,
                     kwargs={"scenario": scenario.ref, "store_url": store_url, "environment_config": env.config})
        ids.append(gid)
    return ids


def _type_hash(space: object) -> int:
    """A hash of the space's type name that is the same in every process (`hash()` of a str is salted)."""
    return int.from_bytes(hashlib.sha256(type(space).__name__.encode()).digest()[:8], "big")
