"""Episodes that live in the log: read a stream back into its steps, and resume it in any process.

An episode's stream holds everything it needs to continue (ARCHITECTURE.md
section 8): the task's first events (`EpisodeStarted`: scenario@version and
seed), its `EpisodeConfigured` (the fault profile), then per step the domain
events, any `EffectCompleted` and `FaultInjected`, and one `StepRecorded`, all
in one commit.
Tasks are pure functions of (scenario, seed), so resuming rebuilds the task,
folds the tail over its initial state and replays the step records.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from saas_sim.core.events import Event, RecordedEvent
from saas_sim.errors import HarnessError, UsageError
from saas_sim.runtime.effects import record_view
from saas_sim.runtime.records import (
    EffectCompleted,
    EpisodeConfigured,
    EpisodeEnded,
    EpisodeStarted,
    FaultInjected,
    GradeEffectCompleted,
    StepRecorded,
)
from saas_sim.runtime.step_outcome import StepOutcome
from saas_sim.scenarios.model import FaultProfile

if TYPE_CHECKING:
    from saas_sim.runtime.environment import Environment
    from saas_sim.runtime.episode import Episode

__all__ = ["logged_steps", "resume_episode"]


def logged_steps(
    rows: Sequence[RecordedEvent], events: Sequence[Event]
) -> Iterator[tuple[StepOutcome, list[list[Any]], str, int]]:
    """Yields each step of a stream's tail: (outcome, `[type, version, position]` refs, head, version).

    Args:
        rows: The stored rows after the episode's configuration, in version order.
        events: The same rows, decoded.

    Raises:
        HarnessError: Events follow the last step record (a half-written step cannot exist).
    """
    domain: list[Event] = []
    refs: list[list[Any]] = []
    effect: dict[str, Any] | None = None
    for row, ev in zip(rows, events, strict=True):
        if isinstance(ev, StepRecorded):
            yield StepOutcome.from_event(ev, tuple(domain), effect), refs, row.hash, row.version
            domain, refs, effect = [], [], None
        elif isinstance(ev, EffectCompleted):
            effect = record_view(ev)  # the outcome is read back, never re-run
        elif not isinstance(ev, FaultInjected | GradeEffectCompleted | EpisodeEnded):  # see Episode.restore
            domain.append(ev)
            refs.append([row.event_type, row.version, row.global_position])
    if domain or effect is not None:
        raise HarnessError(f"stream {rows[-1].stream_id}: events after the last step record")


async def resume_episode(env: Environment, stream_id: str) -> Episode:
    """Rebuilds a live episode from its stream, in this process.

    Its later calls, hashes and grade equal those of an episode that never left memory.

    Raises:
        UsageError: No such stream, or it is not an episode's.
        HarnessError: The stream does not match what this code builds for its task.
    """
    from saas_sim.runtime.episode import Episode

    rows = await env.store.read(stream_id)
    if not rows:
        raise UsageError(f"no episode stream {stream_id!r} in the store")
    registry = env.store.registry
    started = registry.decode(rows[0])
    if not isinstance(started, EpisodeStarted):
        raise UsageError(f"stream {stream_id!r} is not an episode (it starts with {rows[0].event_type})")
    task = await env.task(started.scenario, started.seed, difficulty=started.difficulty)
    n = len(task.start_events)
    configured = registry.decode(rows[n]) if len(rows) > n else None
    if not isinstance(configured, EpisodeConfigured):
        raise HarnessError(f"stream {stream_id!r} has no episode configuration after its first {n} events")
    faults = None if configured.faults is None else FaultProfile.model_validate(configured.faults)
    if rows[-1].event_type == EpisodeEnded.event_type:
        raise UsageError(f"episode stream {stream_id!r} was ended; it cannot be resumed")
    episode = Episode(task, env.store, env.toolkit(task.scenario), faults, stream_id=stream_id,
                      durable_reads=env.durable_reads, grader=env.grader)
    episode.restore(rows)
    await episode.restore_grades()
    return episode
