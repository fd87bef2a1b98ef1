"""Agents: `oracle`, `noop`, `hack:NAME`, `random[:SEED]`, `replay:FILE`, and an LLM's `openai:MODEL`.

Scripted agents (the oracle and the hacks) render each step's arguments from
the task's bindings and earlier steps' saved results. Like a careful client,
they retry a retryable error (`rate_limited`, `unavailable`, `timeout`) with the
same `call_id`, so an injected lost response is never applied twice.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from saas_sim.core.rng import SeedTree
from saas_sim.errors import ScenarioError, UsageError
from saas_sim.runtime.schema_args import harvest_ids, text_ids, unique
from saas_sim.scenarios.model import Step
from saas_sim.scenarios.templating import render

if TYPE_CHECKING:
    from saas_sim.runtime.episode import Episode
    from saas_sim.runtime.task import TaskInstance

__all__ = ["Agent", "NoopAgent", "RandomAgent", "ReplayAgent", "ScriptedAgent", "make_agent"]

MAX_RETRIES = 12


class Agent(Protocol):
    """Anything that acts on an episode."""

    name: str

    async def run(self, episode: Episode) -> None:
        """Acts until done."""


class NoopAgent:
    """Does nothing: the baseline every scenario declares."""

    name = "noop"

    async def run(self, episode: Episode) -> None:
        """Makes no call."""


class ScriptedAgent:
    """Plays a list of templated steps (an oracle or a hack).

    Args:
        name: The agent's name (`oracle` makes a failed step a scenario error).
        steps: The templated steps.
        bindings_of: What the steps are rendered over (default: the task's bindings).
    """

    def __init__(self, name: str, steps: Sequence[Step],
                 bindings_of: Callable[[TaskInstance], Mapping[str, Any]] | None = None) -> None:
        self.name = name
        self.steps = list(steps)
        self.bindings_of = bindings_of

    async def run(self, episode: Episode) -> None:
        """Plays every step, retrying retryable errors with the same call id."""
        task = episode.task
        bound: dict[str, Any] = dict(task.bindings if self.bindings_of is None else self.bindings_of(task))
        for i, step in enumerate(self.steps):
            if episode.done:
                return
            args = render(step.args, bound)
            call_id = f"{self.name}-{i}"
            for _ in range(MAX_RETRIES):
                result = await episode.call(step.tool, args, call_id)
                if result.ok or result.error is None or not result.error.retryable:
                    break
            if result.ok and step.save_as:
                bound[step.save_as] = result.value
            if not result.ok and step.expect_error is None and self.name == "oracle":
                err = result.error
                raise ScenarioError(
                    f"{episode.task.scenario.ref} seed {episode.task.seed}: oracle step {i} "
                    f"({step.tool}) failed: {err and err.code}: {err and err.message}"
                )


class RandomAgent:
    """Seeded random calls drawn from the tool schemas, including invalid ones.

    Its ids come from what it has seen (the task's text, then every result), near-misses of
    them (another number of the same kind) and shapes no world allocates: no domain's id
    prefixes are known here.
    """

    def __init__(self, seed: int, calls: int = 25) -> None:
        self.name = f"random:{seed}"
        self.seed = seed
        self.calls = calls

    async def run(self, episode: Episode) -> None:
        """Makes `calls` random calls; errors are observations, never crashes."""
        rng = SeedTree(f"random-agent:{self.seed}:{episode.task.seed}").random("calls")
        specs = episode.tools
        seen = text_ids(episode.instructions)
        for i in range(self.calls):
            if episode.done:
                return
            spec = rng.choice(specs)
            schema = spec.args_model.model_json_schema()
            roll = rng.random()
            args: Any
            if roll < 0.1:
                args = "{not json"
            elif roll < 0.2:
                args = {**_fake_args(schema, rng, seen), "unexpected_field": 1}
            elif roll < 0.3:
                args = {k: [1, {"x": None}] for k in schema.get("properties", {})}
            elif roll < 0.35:
                args = dict.fromkeys(schema.get("properties", {}), "x" * 30000)
            else:
                args = _fake_args(schema, rng, seen)
            tool = spec.name if rng.random() > 0.05 else "nonexistent.tool"
            result = await episode.call(tool, args, f"random-{i}")
            seen = unique([*seen, *harvest_ids(result.value)])[:500]


def _fake_args(schema: dict[str, Any], rng: random.Random, seen: list[str]) -> dict[str, Any]:
    defs = schema.get("$defs", {})
    out: dict[str, Any] = {}
    for name, prop in schema.get("properties", {}).items():
        if name in schema.get("required", []) or rng.random() < 0.5:
            out[name] = _fake_value(prop, defs, rng, 0, seen)
    return out


def _fake_value(prop: dict[str, Any], defs: dict[str, Any], rng: random.Random, depth: int, seen: list[str]) -> Any:
    if "$ref" in prop:
        prop = defs.get(prop["$ref"].rsplit("/", 1)[-1], {})
    if "anyOf" in prop:
        return _fake_value(rng.choice(prop["anyOf"]), defs, rng, depth, seen)
    if "enum" in prop:
        return rng.choice(prop["enum"])
    kind = prop.get("type")
    if kind == "integer":
        return rng.randint(-2, 60)
    if kind == "number":
        return round(rng.uniform(-10, 5000), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "array" and depth < 3:
        return [_fake_value(prop.get("items", {}), defs, rng, depth + 1, seen) for _ in range(rng.randint(0, 2))]
    if kind == "object" and depth < 3:
        return _fake_args(prop, rng, seen) if "properties" in prop else {}
    if kind == "null":
        return None
    return rng.choice([_an_id(rng, seen), _an_id(rng, seen), "Acme", "", "closed_won", "hello"])


def _an_id(rng: random.Random, seen: list[str]) -> str:
    """An id it has seen, a near miss of one (another number of its kind), or a shape no world allocates."""
    if not seen or rng.random() < 0.2:
        return f"zz_{rng.randint(1, 60):06d}"
    known = rng.choice(seen)
    if rng.random() < 0.5 or "_" not in known or not known.rsplit("_", 1)[1].isdigit():
        return known
    return f"{known.rsplit('_', 1)[0]}_{rng.randint(1, 60):06d}"


class ReplayAgent:
    """Re-issues the calls of a recorded trajectory, with the same call ids and arguments."""

    def __init__(self, path: Path) -> None:
        from saas_sim.runtime.trajectory import read_trajectory

        self.name = f"replay:{path}"
        self.trajectory = read_trajectory(path)

    async def run(self, episode: Episode) -> None:
        """Replays every recorded call in order."""
        from saas_sim.runtime.episode import reissued_call_id

        for step in self.trajectory.steps:
            await episode.call(step.tool, step.args, reissued_call_id(step.call_id))


def make_agent(spec: str, episode_scenario: Any, *, base_url: str | None = None) -> Agent:
    """Builds an agent from its name: oracle, noop, hack:NAME, alt:NAME, random[:SEED], replay:FILE, openai:MODEL.

    Args:
        spec: The agent's name; `openai:MODEL[?temperature=0&seed=1]` is an LLM (`runtime/llm_agent.py`).
        episode_scenario: The scenario the agent acts on (its oracle, hacks and alternatives).
        base_url: The OpenAI-compatible endpoint of an `openai:` agent (refused for any other agent).
    """
    kind, _, arg = spec.partition(":")
    if kind == "openai":
        from saas_sim.runtime.llm_agent import LLMAgent, parse_openai_spec

        return LLMAgent(parse_openai_spec(arg, base_url=base_url))
    if base_url is not None:
        raise UsageError(f"--base-url is for openai:MODEL agents, not {spec!r}")
    scenario_file = episode_scenario.spec
    if kind == "oracle":
        return ScriptedAgent("oracle", scenario_file.oracle)
    if kind == "noop":
        return NoopAgent()
    if kind in ("hack", "alt"):
        # Both are named scripts the scenario file declares; a typo lists the names it has.
        scripts = {e.name: e.steps for e in (scenario_file.hacks if kind == "hack" else scenario_file.alternatives)}
        if arg not in scripts:
            what = "hack" if kind == "hack" else "alternative"
            raise UsageError(f"{scenario_file.ref} has no {what} {arg!r}; known: {sorted(scripts)}")
        return ScriptedAgent(spec, scripts[arg])
    if kind == "random":
        try:
            return RandomAgent(int(arg or "0"))
        except ValueError:
            raise UsageError(f"random agent seed must be an int, got {arg!r}") from None
    if kind == "replay":
        return ReplayAgent(Path(arg))
    raise UsageError(
        f"unknown agent {spec!r}; use oracle, noop, hack:NAME, alt:NAME, random[:SEED], replay:FILE or openai:MODEL"
    )


def dump_args(args: Any) -> str:
    """Returns arguments as compact JSON for display."""
    return json.dumps(args, sort_keys=True, default=str, ensure_ascii=False)
