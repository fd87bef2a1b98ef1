"""Attack agents of the self-audit: they game a verifier the way a blind RL policy would.

* `CallReplayAgent` re-issues recorded calls verbatim (the oracle's writes of
  another seed: does a memorized answer transfer?).
* `DoEverythingAgent` calls every allowed WRITE tool on every entity id the
  task names (does touching everything pay?).
* `BlindSearch` reads nothing of the task's meaning. It harvests id-shaped
  strings from the instructions and from list/search reads, then hill-climbs on
  the grade: fork the best episode, make one random schema-valid write, keep
  the fork if the grade rose (does the grade reward guessing?).

Every choice comes from a seeded `random.Random` the caller derives from the
audit's seed tree, so an attack is a pure function of (scenario, seed).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from saas_sim.core.tools import ToolKind, ToolSpec
from saas_sim.errors import HarnessError
from saas_sim.runtime.schema_args import fill_args, fits_field, harvest_ids, ref_fields, text_ids, unique

if TYPE_CHECKING:
    from saas_sim.runtime.episode import CallResult, Episode

__all__ = ["BlindOutcome", "BlindSearch", "CallReplayAgent", "DoEverythingAgent", "call_with_retries", "named_ids"]

MAX_RETRIES = 12
EPS = 1e-9
SCOUT_PREFIXES = ("list_", "search_")
"""READ tools whose short name starts with one of these are the blind agent's scouting reads."""


async def call_with_retries(episode: Episode, tool: str, args: Any, call_id: str) -> CallResult:
    """Calls a tool, retrying a retryable error with the same call id (as a careful client does)."""
    result = await episode.call(tool, args, call_id)
    for _ in range(MAX_RETRIES):
        if result.ok or result.error is None or not result.error.retryable or episode.done:
            break
        result = await episode.call(tool, args, call_id)
    return result


def named_ids(episode: Episode) -> list[str]:
    """Returns the entity ids the task names: in its text first, then in its bindings."""
    return unique([*text_ids(episode.task.task_text), *harvest_ids(episode.task.bindings)])


def _writes(episode: Episode) -> list[ToolSpec]:
    return [t for t in episode.tools if t.kind is ToolKind.WRITE]


class CallReplayAgent:
    """Re-issues recorded `(tool, args)` calls verbatim; errors are simply observed."""

    def __init__(self, name: str, calls: Sequence[tuple[str, Any]]) -> None:
        self.name = name
        self.calls = list(calls)

    async def run(self, episode: Episode) -> None:
        """Makes every call in order, retrying retryable errors."""
        for i, (tool, args) in enumerate(self.calls):
            if episode.done:
                return
            await call_with_retries(episode, tool, args, f"{self.name}-{i}")


class DoEverythingAgent:
    """Puts each id or file path the task names into each argument of its kind of each allowed WRITE tool.

    Calls go in (id, tool, argument) order: ids as `named_ids` orders them, tools
    by name, arguments in schema order. An id goes only into arguments whose
    description shows ids of its kind (`fits_field`), so the step budget is spent
    on calls that can land. The other arguments are filled from the
    schema. The episode's step budget ends the run, as it would for any agent.
    """

    name = "do-everything"

    def __init__(self, rng: random.Random, kinds: Mapping[str, str] | None = None) -> None:
        self.rng = rng
        self.kinds = dict(kinds or {})
        self.planned = 0

    async def run(self, episode: Episode) -> None:
        """Makes the calls until done."""
        ids = named_ids(episode)
        schemas = {t.name: t.args_model.model_json_schema() for t in _writes(episode)}
        plan: list[tuple[ToolSpec, str, str]] = []
        for target in ids:
            for spec in _writes(episode):
                schema = schemas[spec.name]
                fields = [f for f in ref_fields(schema) if fits_field(schema, f, target, self.kinds)]
                plan.extend((spec, field, target) for field in fields)
        self.planned = len(plan)
        for i, (spec, field, target) in enumerate(plan):
            if episode.done:
                return
            schema = schemas[spec.name]
            value: Any = [target] if field.endswith("_ids") else target
            args = fill_args(schema, self.rng, ids, episode.now, fixed={field: value}, optional_rate=0.0)
            await call_with_retries(episode, spec.name, args, f"{self.name}-{i}")


@dataclass(frozen=True)
class BlindOutcome:
    """What a blind search reached.

    Attributes:
        score: The best grade's score (the start's, when no move helped).
        start_score: The grade of the untouched episode.
        kept: How many moves raised the grade and were kept.
        trials: How many moves were tried.
        candidates: How many candidate ids the search drew from.
        moves: The kept moves, `(tool, args)`, in order (for a reader of the report).
    """

    score: float
    start_score: float
    kept: int
    trials: int
    candidates: int
    moves: tuple[tuple[str, Any], ...]


class BlindSearch:
    """Hill-climbs on the grade with random schema-valid writes on harvested ids.

    Args:
        rng: The seeded source of every choice.
        trials: How many one-write forks to try.
    """

    def __init__(self, rng: random.Random, trials: int) -> None:
        self.rng = rng
        self.trials = trials

    async def search(self, episode: Episode) -> BlindOutcome:
        """Searches from a fresh `episode`, which it closes; never raises for a bad move."""
        candidates = await self._scout(episode)
        best = episode
        start = await self._score(best)
        score, kept, trials = start, 0, 0
        moves: list[tuple[str, Any]] = []
        writes = _writes(episode)
        named = text_ids(episode.task.task_text)
        schemas = {t.name: t.args_model.model_json_schema() for t in writes}  # built once: they cost ~1.5 ms each
        try:
            for trial in range(self.trials if writes else 0):
                if best.done or score >= 1.0 - EPS:  # nothing left to climb
                    break
                trials += 1
                spec = self.rng.choice(writes)
                args = fill_args(schemas[spec.name], self.rng, candidates, best.now, preferred=named)
                child = await best.fork()
                result = await call_with_retries(child, spec.name, args, f"blind-{trial}")
                # A state that did not change cannot grade differently: skip the grade.
                new = await self._score(child) if child.state is not best.state else score
                if new > score + EPS:
                    await best.close()
                    best, score, kept = child, new, kept + 1
                    moves.append((spec.name, args))
                    candidates = unique([*candidates, *harvest_ids(result.value)])
                else:
                    await child.close()
        finally:
            await best.close()
        return BlindOutcome(score, start, kept, trials, len(candidates), tuple(moves))

    async def _scout(self, episode: Episode) -> list[str]:
        """Reads every list/search tool once on a throw-away fork (reads change nothing)."""
        found = text_ids(episode.task.task_text)
        scout = await episode.fork(0)
        try:
            for i, spec in enumerate(t for t in episode.tools if t.kind is ToolKind.READ):
                if not spec.name.rsplit(".", 1)[-1].startswith(SCOUT_PREFIXES) or scout.done:
                    continue
                schema = spec.args_model.model_json_schema()
                args = fill_args(schema, self.rng, found, scout.now, fixed=_widest_page(schema), optional_rate=0.0)
                result = await call_with_retries(scout, spec.name, args, f"scout-{i}")
                if result.ok:
                    found = unique([*found, *harvest_ids(result.value)])
        finally:
            await scout.close()
        return found

    @staticmethod
    async def _score(episode: Episode) -> float:
        grade = await episode.grade(footer=False)
        if not grade.valid or grade.score is None:
            raise HarnessError(f"blind search: episode invalid ({grade.attribution}): {grade.error}")
        return grade.score


def _widest_page(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A `limit` field at its maximum, so one read sees as much as it may."""
    prop = schema.get("properties", {}).get("limit")
    if isinstance(prop, Mapping) and isinstance(prop.get("maximum"), int):
        return {"limit": prop["maximum"]}
    return {}
