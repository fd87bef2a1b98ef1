"""The difficulty report: what each level of each scenario changes, measured on seeds (`saas-sim scenarios
--difficulty-report`).

For every scenario, level and seed it plays the oracle, the no-op and the random agent (`random:0`, as
`saas-sim eval` names it) and measures:

* `oracle_steps`: the oracle's calls (retries of injected faults included);
* `entities_read`: distinct ids (and workspace paths) in the args and results of the oracle's READ calls;
* `entities_written`: distinct ids in the args of its WRITE calls and in the domain events they emitted;
* `distractors`: the `distractors` knob's value, and `distractors_bound`: the size of a setup's
  `distractors` binding where it binds one;
* `search_depth`: over the oracle's list and search calls, the largest rank (1-based) at which an id it
  later writes first appears in a result, or the number of ids scanned when none does;
* `hints`: the hints the instructions show;
* `random_mean` and `noop_mean`: the mean scores of the random agent and the no-op.

A level is harder than the one below when at least one measured quantity moved the hard way (more
distractors staged, steps, entities or depth; fewer hints; a lower random score). The report is `ok` when the oracle
scored 1.0 and the no-op at most its `noop_score` on every level and seed. Levels are the scenario's
own: a level equal to the file's own level is the file's own task.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from itertools import pairwise
from typing import Any

from saas_sim.core.tools import ToolKind
from saas_sim.errors import SaasSimError
from saas_sim.runtime.agents import make_agent
from saas_sim.runtime.attack_audits import shortfall
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import Episode
from saas_sim.runtime.records import RUNTIME_PROJECTION
from saas_sim.runtime.schema_args import harvest_ids
from saas_sim.scenarios.difficulty import choose
from saas_sim.scenarios.loader import Scenario
from saas_sim.scenarios.model import LEVELS

__all__ = ["HARDER_WHEN", "LevelMeasure", "ScenarioLadder", "difficulty_report", "measure_scenario"]

HARDER_WHEN: dict[str, int] = {
    "distractors": 1, "oracle_steps": 1, "entities_read": 1, "entities_written": 1, "distractors_bound": 1,
    "search_depth": 1,
    "hints": -1, "random_mean": -1,
}
"""The quantities the ladder compares, and the direction that is harder (+1: more, -1: less). `distractors` is
the count the setup was asked to stage (a numeric knob value); the others are measured on the episodes."""

_EPS = 1e-9


@dataclass(frozen=True)
class LevelMeasure:
    """One level of one scenario, measured over the seeds (means, except `oracle_min` and `noop_max`)."""

    level: str
    knobs: dict[str, Any]
    oracle_min: float
    noop_max: float
    oracle_steps: float
    entities_read: float
    entities_written: float
    distractors: Any
    distractors_bound: float | None
    search_depth: float | None
    hints: float
    random_mean: float
    noop_mean: float
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ScenarioLadder:
    """A scenario's levels, easiest first, and what makes each harder than the one below."""

    scenario: str
    own_level: str
    noop_score: float
    levels: list[LevelMeasure]
    harder: dict[str, list[str]]
    """Level -> the quantities by which it is harder than the level below (`oracle_steps 4 > 3`)."""

    @property
    def oracle_ok(self) -> bool:
        """The oracle scored 1.0 at every level and seed."""
        return all(m.oracle_min >= 1.0 - _EPS and not m.errors for m in self.levels)

    @property
    def noop_ok(self) -> bool:
        """The no-op stayed at or under the file's `noop_score` at every level."""
        return all(m.noop_max <= self.noop_score + _EPS for m in self.levels)

    @property
    def ladder_ok(self) -> bool:
        """Each level is harder than the one below by at least one measured quantity."""
        return all(self.harder.get(m.level) for m in self.levels[1:])

    def to_json(self) -> dict[str, Any]:
        """The ladder as JSON-ready data."""
        return {"scenario": self.scenario, "own_level": self.own_level, "noop_score": self.noop_score,
                "oracle_ok": self.oracle_ok, "noop_ok": self.noop_ok, "ladder_ok": self.ladder_ok,
                "harder": self.harder, "levels": [asdict(m) for m in self.levels]}


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


async def _emitted_ids(env: Environment, episode: Episode) -> list[str]:
    rows = await env.store.read(episode.stream_id)
    registry = env.store.registry
    out: list[str] = []
    for row in rows[len(episode.task.start_events):]:
        ev = registry.decode(row)
        if not RUNTIME_PROJECTION.handles(type(ev)):
            out += harvest_ids(ev.model_dump(mode="json"))
    return out


def _search_depth(steps: list[tuple[str, Any]], written: set[str]) -> int | None:
    depth: int | None = None
    for tool, result in steps:
        verb = tool.rsplit(".", 1)[-1]
        if not verb.startswith(("list_", "search", "find", "grep")):
            continue
        ids = harvest_ids(result)
        rank = next((i + 1 for i, x in enumerate(ids) if x in written), len(ids))
        depth = rank if depth is None else max(depth, rank)
    return depth


async def _oracle_seed(env: Environment, sc: Scenario, seed: int, level: Any) -> dict[str, Any]:
    try:
        episode = await env.start(sc, seed, difficulty=level)
    except SaasSimError as exc:  # a setup that cannot stage this level: the level fails, the report goes on
        return {"score": 0.0, "error": f"seed {seed}: {exc}", "steps": 0, "read": 0, "written": 0, "depth": None,
                "bound": None, "hints": 0}
    try:
        error = None
        try:
            await make_agent("oracle", sc).run(episode)
        except SaasSimError as exc:
            error = f"seed {seed}: {exc}"
        grade = await episode.grade()
        if error is None and (grade.score is None or grade.score < 1.0 - _EPS):
            # Say why, so that a level that misses 1.0 can be told from a flake without a rerun.
            error = f"seed {seed}: the oracle scored {grade.score} ({grade.attribution}): {shortfall(grade)}"
        kit = episode.toolkit
        read: list[str] = []
        written: list[str] = []
        listed: list[tuple[str, Any]] = []
        for step in episode.trajectory.steps:
            try:
                kind = kit.spec(kit.resolve(step.tool)).kind
            except SaasSimError:
                continue
            if kind is ToolKind.READ:
                read += harvest_ids(step.args) + harvest_ids(step.result)
                listed.append((step.tool, step.result))
            else:
                written += harvest_ids(step.args)
        written += await _emitted_ids(env, episode)
        bound = episode.task.bindings.get("distractors")
        return {
            "score": grade.score or 0.0, "error": error, "steps": episode.steps,
            "read": len(set(read)), "written": len(set(written)),
            "depth": _search_depth(listed, set(written)),
            "bound": len(bound) if isinstance(bound, list | dict) else None,
            "hints": len(episode.task.difficulty.hints),
        }
    finally:
        await episode.close()


async def _score(env: Environment, sc: Scenario, seed: int, level: Any, agent: str) -> float:
    try:
        episode = await env.start(sc, seed, difficulty=level)
    except SaasSimError:
        return 0.0  # the oracle's run of this seed reports the setup's error
    try:
        await make_agent(agent, sc).run(episode)
        return (await episode.grade()).score or 0.0
    finally:
        await episode.close()


async def _measure_level(env: Environment, sc: Scenario, level: str, seeds: Sequence[int]) -> LevelMeasure:
    difficulty = choose(sc.spec, level)
    runs = [await _oracle_seed(env, sc, seed, difficulty) for seed in seeds]
    noops = [await _score(env, sc, seed, difficulty, "noop") for seed in seeds]
    randoms = [await _score(env, sc, seed, difficulty, "random:0") for seed in seeds]
    bound = [r["bound"] for r in runs if r["bound"] is not None]
    depths = [r["depth"] for r in runs if r["depth"] is not None]
    return LevelMeasure(
        level=level, knobs=dict(difficulty.knobs),
        oracle_min=min(r["score"] for r in runs), noop_max=max(noops),
        oracle_steps=_mean([r["steps"] for r in runs]), entities_read=_mean([r["read"] for r in runs]),
        entities_written=_mean([r["written"] for r in runs]),
        distractors=difficulty.knobs.get("distractors"), distractors_bound=_mean(bound) if bound else None,
        search_depth=_mean(depths) if depths else None, hints=_mean([r["hints"] for r in runs]),
        random_mean=_mean(randoms), noop_mean=_mean(noops), errors=[r["error"] for r in runs if r["error"]],
    )


def _harder(upper: LevelMeasure, lower: LevelMeasure) -> list[str]:
    out: list[str] = []
    for name, sign in HARDER_WHEN.items():
        a, b = getattr(upper, name), getattr(lower, name)
        numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (a, b))
        if not numeric or math.isclose(a, b, abs_tol=_EPS):
            continue
        if (a - b) * sign > 0:
            out.append(f"{name} {a:g} {'>' if sign > 0 else '<'} {b:g}")
    return out


async def measure_scenario(env: Environment, sc: Scenario, seeds: Sequence[int]) -> ScenarioLadder:
    """Measures every level of one scenario on `seeds` (see the module docstring)."""
    levels = [await _measure_level(env, sc, level, seeds) for level in LEVELS]
    harder = {upper.level: _harder(upper, lower) for lower, upper in pairwise(levels)}
    return ScenarioLadder(scenario=sc.ref, own_level=sc.spec.difficulty.level, noop_score=sc.spec.noop_score,
                          levels=levels, harder=harder)


async def difficulty_report(
    env: Environment, pattern: str = "*", seeds: Sequence[int] = tuple(range(10)), *, jobs: int = 4,
    progress: Callable[[str], None] | None = None,
) -> list[ScenarioLadder]:
    """Measures the ladder of every scenario matching a glob, `jobs` scenarios at a time, sorted by id.

    Worlds and tasks are built once per (profile, mess scale, seed) and shared through `env`'s caches.
    """
    chosen = env.scenarios(pattern)
    gate = asyncio.Semaphore(max(1, jobs))

    async def one(sc: Scenario) -> ScenarioLadder:
        async with gate:
            ladder = await measure_scenario(env, sc, seeds)
            if progress is not None:
                progress(sc.ref)
            return ladder

    return list(await asyncio.gather(*(one(sc) for sc in chosen)))
