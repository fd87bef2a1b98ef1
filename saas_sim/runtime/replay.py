"""Exact replay: re-execute a trajectory's calls on a fresh episode and compare.

The report says `identical`, or names the first divergent step and field with
both values, so a nondeterminism bug is found at its first symptom.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import reissued_call_id
from saas_sim.runtime.trajectory import StepRecord, Trajectory, read_trajectory
from saas_sim.scenarios.model import FaultProfile

__all__ = ["COMPARED_FIELDS", "ReplayReport", "compare_steps", "replay", "replay_file"]

COMPARED_FIELDS = ("tool", "ok", "result", "error", "events", "state_hash", "sim_time", "fault", "replayed")


@dataclass(frozen=True)
class ReplayReport:
    """The outcome of a replay."""

    identical: bool
    steps: int
    step: int | None = None
    field: str | None = None
    expected: Any = None
    actual: Any = None

    def describe(self) -> str:
        """Returns a one-line human summary."""
        if self.identical:
            return f"identical ({self.steps} steps)"
        return f"diverged at step {self.step}, field {self.field!r}: expected {self.expected!r}, got {self.actual!r}"


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


async def replay(env: Environment, recorded: Trajectory) -> tuple[ReplayReport, Trajectory]:
    """Re-executes a trajectory's calls on a fresh episode of the same task."""
    header = recorded.header
    faults = None if header.get("faults") is None else FaultProfile.model_validate(header["faults"])
    episode = await env.start(header["scenario"], int(header["seed"]), faults=faults)
    try:
        if episode.task.world.world_hash != header.get("world_hash"):
            return ReplayReport(False, len(recorded.steps), None, "world_hash", header.get("world_hash"),
                                episode.task.world.world_hash), episode.trajectory
        for step in recorded.steps:
            await episode.call(step.tool, step.args, reissued_call_id(step.call_id))
        return compare_steps(recorded.steps, episode.trajectory.steps), episode.trajectory
    finally:
        await episode.close()


async def replay_file(env: Environment, path: Path) -> ReplayReport:
    """Replays a trajectory file."""
    report, _ = await replay(env, read_trajectory(path))
    return report
