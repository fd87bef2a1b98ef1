"""Exact replay: re-execute a trajectory's calls on a fresh episode and compare.

The report says `identical`, or names the first divergent step and field with
both values, so a nondeterminism bug is found at its first symptom.

Effects are never re-run: each effect step folds the outcome its trajectory
recorded. With `rerun_effects=True` (`saas-sim replay --rerun-effects`) each
effect is also run again, and every one whose outcome differs is reported as
a nondeterministic effect, naming its step.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from saas_sim.runtime.effects import EffectMismatch, RecordedOutcomes
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import Episode, reissued_call_id
from saas_sim.runtime.trajectory import StepRecord, Trajectory, read_trajectory
from saas_sim.scenarios.model import FaultProfile

__all__ = ["COMPARED_FIELDS", "ReplayReport", "compare_steps", "replay", "replay_file", "start_recorded"]

COMPARED_FIELDS = ("tool", "ok", "result", "error", "events", "state_hash", "sim_time", "fault", "replayed", "effect")


@dataclass(frozen=True)
class ReplayReport:
    """The outcome of a replay."""

    identical: bool
    steps: int
    step: int | None = None
    field: str | None = None
    expected: Any = None
    actual: Any = None
    nondeterministic: tuple[EffectMismatch, ...] = ()

    @property
    def ok(self) -> bool:
        """Identical, and no re-run effect differed."""
        return self.identical and not self.nondeterministic

    def describe(self) -> str:
        """Returns a human summary: the verdict, then one line per nondeterministic effect."""
        if self.identical:
            head = f"identical ({self.steps} steps)"
        else:
            head = (f"diverged at step {self.step}, field {self.field!r}: expected {self.expected!r}, "
                    f"got {self.actual!r}")
        return "\n".join([head, *(m.describe() for m in self.nondeterministic)])


def compare_steps(expected: list[StepRecord], actual: list[StepRecord]) -> ReplayReport:
    """Returns the first difference between two step lists."""
    for i, (a, b) in enumerate(zip(expected, actual, strict=False)):
        ja, jb = _comparable(a), _comparable(b)
        for field in COMPARED_FIELDS:
            if ja.get(field) != jb.get(field):
                return ReplayReport(False, len(expected), i, field, ja.get(field), jb.get(field))
    if len(expected) != len(actual):
        return ReplayReport(False, len(expected), min(len(expected), len(actual)), "length", len(expected), len(actual))
    return ReplayReport(True, len(expected))


def _comparable(step: StepRecord) -> dict[str, Any]:
    # Global positions depend on what else the store holds; type and stream version must match.
    data = step.to_json()
    data["events"] = [e[:2] for e in data["events"]]
    return data


async def replay(env: Environment, recorded: Trajectory, *,
                 rerun_effects: bool = False) -> tuple[ReplayReport, Trajectory]:
    """Re-executes a trajectory's calls on a fresh episode of the same task.

    Args:
        env: The environment to replay in.
        recorded: The trajectory.
        rerun_effects: Also re-run every recorded effect and report those whose outcome differs.
    """
    header = recorded.header
    episode, outcomes = await start_recorded(env, recorded, rerun_effects=rerun_effects)
    try:
        if episode.task.world.world_hash != header.get("world_hash"):
            return ReplayReport(False, len(recorded.steps), None, "world_hash", header.get("world_hash"),
                                episode.task.world.world_hash), episode.trajectory
        for step in recorded.steps:
            await episode.call(step.tool, step.args, reissued_call_id(step.call_id))
        report = compare_steps(recorded.steps, episode.trajectory.steps)
        graded = (recorded.footer or {}).get("grade")
        if report.ok and graded is not None:
            # The grade folds the recorded grade effects too, so it must come out the same.
            regraded = (await episode.grade()).model_dump(mode="json")
            if regraded != graded:
                report = ReplayReport(False, len(recorded.steps), None, "grade", graded, regraded)
        if outcomes.mismatches:
            report = dataclasses.replace(report, nondeterministic=tuple(outcomes.mismatches))
        return report, episode.trajectory
    finally:
        await episode.close()


async def start_recorded(env: Environment, recorded: Trajectory, *,
                         rerun_effects: bool = False) -> tuple[Episode, RecordedOutcomes]:
    """Starts a fresh episode of a trajectory's task (its scenario@version, seed, difficulty and faults).

    Its effects fold the outcomes the trajectory recorded (`rerun_effects`: also run them again
    and note those that differ), so re-issuing the recorded calls rebuilds the recorded states.
    The caller closes the episode and compares the world hash with the header's.

    Raises:
        SaasSimError: The scenario version is unknown.
        KeyError, TypeError, ValueError: The header lacks or garbles the scenario, seed or faults.
    """
    header = recorded.header
    faults = None if header.get("faults") is None else FaultProfile.model_validate(header["faults"])
    episode = await env.start(str(header["scenario"]), int(header["seed"]), faults=faults,
                              difficulty=header.get("difficulty"))
    outcomes = RecordedOutcomes.of(recorded.steps, rerun=rerun_effects, footer=recorded.footer)
    episode.effects = outcomes
    return episode, outcomes


async def replay_file(env: Environment, path: Path, *, rerun_effects: bool = False) -> ReplayReport:
    """Replays a trajectory file (see `replay`)."""
    report, _ = await replay(env, read_trajectory(path), rerun_effects=rerun_effects)
    return report
