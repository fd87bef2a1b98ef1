"""The HTTP bench's workload: each (scenario, seed)'s oracle calls and grade, recorded in-process.

The oracle is run once per (scenario, seed) on an in-memory store, before any clock starts,
through a recorder that keeps every call it makes (retries of injected faults included, with
their call ids). Replaying those calls over HTTP on the same (scenario, seed) reproduces the
episode exactly (the determinism contract), so the server's grade must equal the recorded
score; a different one is the bench's `wrong_grade` error.

IDE scenarios are left out unless asked for: grading one runs its hidden test suite in
sandboxed child processes, which then dominates the server's CPU and says nothing about HTTP.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from saas_sim.runtime.agents import make_agent
from saas_sim.runtime.call_result import CallResult
from saas_sim.runtime.environment import Environment

if TYPE_CHECKING:
    from saas_sim.runtime.episode import Episode

__all__ = ["OraclePlan", "PlannedCall", "domain_of", "record_plans"]


@dataclass(frozen=True)
class PlannedCall:
    """One recorded tool call: what to POST to /episodes/{id}/calls (body pre-encoded)."""

    tool: str
    call_id: str
    body: bytes


@dataclass(frozen=True)
class OraclePlan:
    """One (scenario, seed)'s oracle traffic and the grade it earns in-process."""

    scenario: str
    seed: int
    start_body: bytes
    calls: tuple[PlannedCall, ...]
    score: float | None

    @property
    def domain(self) -> str:
        """The scenario's domain (the first part of its id)."""
        return domain_of(self.scenario)


def domain_of(scenario: str) -> str:
    """Returns the domain of a scenario id (`crm/x@1` -> `crm`)."""
    return scenario.split("/", 1)[0]


class _Recorder:
    """Stands in for an episode and records each call the agent makes, then makes it."""

    def __init__(self, episode: Episode) -> None:
        self._episode = episode
        self.calls: list[PlannedCall] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._episode, name)

    async def call(self, tool: str, args: Any = None, call_id: str | None = None) -> CallResult:
        if call_id is None:  # the oracle always names its calls; a generated id could not be replayed
            raise ValueError(f"unnamed call to {tool}: the bench replays calls by their call_id")
        body = json.dumps({"tool": tool, "arguments": args, "call_id": call_id}, separators=(",", ":"),
                          ensure_ascii=False).encode()
        self.calls.append(PlannedCall(tool=tool, call_id=call_id, body=body))
        return await self._episode.call(tool, args, call_id)


async def record_plans(patterns: Sequence[str], seeds: Sequence[int], *, include_ide: bool = False,
                       faults: bool = True, store: str = "sqlite+aiosqlite:///:memory:") -> list[OraclePlan]:
    """Runs the oracle on every matching scenario and seed in-process and records its traffic.

    Args:
        patterns: Scenario-id globs (`*` for all).
        seeds: The task seeds of each scenario.
        include_ide: Keep IDE scenarios (their grades run real test suites).
        faults: Play the scenarios' seeded faults (as the server does by default).
        store: The store the oracle runs on. A server later opened on the same store loads the
            worlds' snapshots instead of building them again.

    Returns:
        One plan per (scenario, seed), sorted by scenario then seed.

    Raises:
        ValueError: No scenario matches.
    """
    plans: list[OraclePlan] = []
    async with Environment(store) as env:
        refs = sorted({s.ref for p in patterns for s in env.scenarios(p)})
        scenarios = [env.scenario(r) for r in refs if include_ide or domain_of(r) != "ide"]
        if not scenarios:
            raise ValueError(f"no scenario matches {list(patterns)} (IDE included: {include_ide})")
        for scenario in scenarios:
            for seed in seeds:
                episode = await env.start(scenario, seed, faults="scenario" if faults else None)
                recorder = _Recorder(episode)
                await make_agent("oracle", scenario).run(cast("Episode", recorder))
                grade = await episode.grade()
                await episode.close()
                start = {"scenario": scenario.ref, "seed": seed, "include_tools": False,
                         "faults": "scenario" if faults else None}
                plans.append(OraclePlan(scenario=scenario.ref, seed=seed,
                                        start_body=json.dumps(start, separators=(",", ":")).encode(),
                                        calls=tuple(recorder.calls), score=grade.score))
    return plans
