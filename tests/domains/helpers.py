"""Helpers the CRM and support-desk tests share: seed worlds, record picks, tool runners, scores, seeds found by
their task."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest
from pydantic import BaseModel

from saas_sim.core.domain import Domain
from saas_sim.core.events import Event
from saas_sim.core.state import Entity, Projection, State, TableKey
from saas_sim.core.tools import ToolContext, ToolSpec
from saas_sim.errors import ToolError
from saas_sim.runtime.agents import ScriptedAgent, make_agent
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.grading import Grade
from saas_sim.runtime.task import TaskInstance
from saas_sim.runtime.world import World, build_world, load_profiles
from saas_sim.scenarios.model import Step

T = TypeVar("T", bound=Entity)

ROOT = Path(__file__).resolve().parents[2]
"""The repository root (holds `seeds/` and `scenarios/`)."""


def seed_world(profile: str, seed: int, domain: Domain) -> World:
    """Builds the world of a `seeds/` profile for one domain, exactly as the runtime does."""
    return build_world(load_profiles([ROOT / "seeds"])[profile], seed, {domain.name: domain})


def first(state: State, key: TableKey[T], pred: Callable[[T], bool]) -> T:
    """Returns the record of `key` with the lowest id that fits `pred` (the test fails if none does)."""
    for item in state.table(key):
        if pred(item):
            return item
    raise AssertionError(f"no {key.name} record fits")


class ToolRunner:
    """Runs a domain's tool handlers on a state, keeping the state each WRITE produces.

    Subclasses decide how raw arguments are validated (`parse`).
    """

    def __init__(self, state: State, now: datetime, projection: Projection) -> None:
        self.state = state
        self.now = now
        self.projection = projection
        self.events: list[Event] = []

    def parse(self, tool: str, args: dict[str, Any]) -> tuple[ToolSpec, BaseModel]:
        """Returns the spec of `tool` and its validated arguments."""
        raise NotImplementedError

    def call(self, tool: str, /, **args: Any) -> Any:
        """Runs one tool and returns its result."""
        spec, parsed = self.parse(tool, args)
        ctx = ToolContext(self.state, self.now, self.projection, random.Random(0), spec.kind)
        # A pure tool returns its result model; an effect tool's Effect has no place in these unit drivers.
        result = spec.handler(ctx, parsed)
        assert isinstance(result, spec.result_model)
        self.state = ctx.state
        self.events += ctx.events
        return result

    def error(self, tool: str, /, **args: Any) -> ToolError:
        """Runs a tool that must fail; returns its error after checking that it wrote nothing."""
        before = self.state
        with pytest.raises(ToolError) as info:
            self.call(tool, **args)
        assert self.state is before
        return info.value


async def score(env: Environment, ref: str, seed: int, agent: str) -> float:
    """Plays one episode of scenario `ref` with a reference agent and returns its valid grade's score."""
    scenario = env.scenario(ref)
    episode = await env.start(scenario, seed)
    try:
        await make_agent(agent, scenario).run(episode)
        grade = await episode.grade()
        assert grade.valid, grade.error
        assert grade.score is not None
        return grade.score
    finally:
        await episode.close()


async def scripted_grade(env: Environment, ref: str, seed: int, steps: list[dict[str, Any]]) -> Grade:
    """Plays Step-shaped dicts (templated over the task's bindings) on scenario `ref` and returns the valid grade."""
    episode = await env.start(env.scenario(ref), seed)
    try:
        await ScriptedAgent("test", [Step(**s) for s in steps]).run(episode)
        grade = await episode.grade(footer=False)
        assert grade.valid and grade.score is not None, grade.error
        return grade
    finally:
        await episode.close()


async def scripted_scores(env: Environment, ref: str, seeds: Iterable[int], steps: list[dict[str, Any]]) -> list[float]:
    """The valid score of `steps` on scenario `ref`, per seed."""
    out: list[float] = []
    for seed in seeds:
        grade = await scripted_grade(env, ref, seed, steps)
        assert grade.score is not None
        out.append(grade.score)
    return out


async def find_seeds(env: Environment, ref: str, fits: Callable[[TaskInstance], bool], what: str, *, count: int = 1,
                     seeds: Iterable[int] = range(80)) -> list[int]:
    """The first `count` seeds whose task of scenario `ref` fits `fits` (it sees the bindings and the start state).

    A scenario's version is in its tasks' seed tree, so a version bump re-seeds every task: a test that needs
    a task with some property finds its seed by that property instead of pinning a number. Fails, naming
    `what`, if fewer than `count` of `seeds` fit, so the test never passes vacuously.
    """
    found: list[int] = []
    for seed in seeds:
        if fits(await env.task(env.scenario(ref), seed)):
            found.append(seed)
            if len(found) == count:
                return found
    raise AssertionError(f"{ref}: only {len(found)} of the seeds tried ({found}) have {what}; {count} needed")


async def find_seed(env: Environment, ref: str, fits: Callable[[TaskInstance], bool], what: str, *,
                    seeds: Iterable[int] = range(80)) -> int:
    """The first seed whose task of scenario `ref` fits `fits` (see `find_seeds`)."""
    return (await find_seeds(env, ref, fits, what, seeds=seeds))[0]
