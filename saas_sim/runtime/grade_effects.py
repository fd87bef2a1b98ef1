"""An episode's grade effects: run once per request, recorded, read back on every later grade.

A domain's `grade_effects(state, bindings)` names the slow or impure work its checks need
(the IDE's hidden test runs). `GradeEffects` keeps each outcome by its request's key: a
regrade of the same state, a resume in another process (from the `GradeEffectCompleted`
records of the episode's grade stream) and a replay (from the trajectory footer, through
`RecordedOutcomes`) all read it back instead of running the work again.

The records go to a stream of their own beside the episode's (`grade_stream_of`): grading
observes an episode, so it must not move the episode's chain. A graded episode that goes on,
its fork and its replay keep the very same hashes as one that was never graded.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from saas_sim.core.domain import GradeEffectsFn
from saas_sim.core.effects import Effect, EffectOutcome
from saas_sim.core.state import State
from saas_sim.core.store import EventStore
from saas_sim.errors import ConcurrencyError, HarnessError
from saas_sim.runtime.effects import LiveOutcomes, grade_effect_record, record_view
from saas_sim.runtime.records import GradeEffectCompleted

__all__ = ["GradeEffects", "grade_stream_of"]


def grade_stream_of(stream_id: str) -> str:
    """The stream that keeps an episode's grade-effect records."""
    return f"{stream_id}#grades"


class GradeEffects:
    """The grade-effect records of one episode, by request key."""

    def __init__(self) -> None:
        self._records: dict[str, GradeEffectCompleted] = {}
        self._version = 0

    async def restore(self, store: EventStore, stream_id: str) -> None:
        """Takes back the records of an episode's grade stream (`Environment.resume`)."""
        rows = await store.read(stream_id)
        for row in rows:
            ev = store.registry.decode(row)
            if isinstance(ev, GradeEffectCompleted):
                self._records[ev.key] = ev
        self._version = len(rows)

    async def persist(self, store: EventStore, stream_id: str, records: Sequence[GradeEffectCompleted],
                      now: datetime) -> None:
        """Appends new records to the grade stream.

        Another process grading the same episode at once may win the version: its records are
        the same outcomes of the same requests or other ones, and this process keeps its own in
        memory, so the loser reloads the stream's version and does not write twice.
        """
        try:
            result = await store.append(stream_id, records, self._version, sim_time=now)
        except ConcurrencyError:
            self._version = len(await store.read(stream_id))
            return
        self._version = result.last_version

    def footer(self) -> dict[str, Any]:
        """What a trajectory footer keeps of them, by name (empty when the task has none)."""
        return {rec.name: record_view(rec) for rec in self._records.values()}

    async def outcomes(
        self, fns: Sequence[GradeEffectsFn], state: State, bindings: Mapping[str, Any], source: LiveOutcomes
    ) -> tuple[dict[str, EffectOutcome], list[GradeEffectCompleted]]:
        """Returns every grade effect's outcome for `state`, and the records that are new.

        Args:
            fns: The world's domains' grade-effect functions.
            state: The state to grade.
            bindings: The task's bindings (each function gets a private copy).
            source: Runs an effect, or reads a replay's recorded outcome.

        Raises:
            HarnessError: Two domains name the same grade effect.
            Exception: Whatever a domain's function or runner raised: the caller's verifier error.
        """
        wanted: dict[str, Effect[Any]] = {}
        for fn in fns:
            for name, effect in fn(state, copy.deepcopy(dict(bindings))).items():
                if name in wanted:
                    raise HarnessError(f"two domains declare the grade effect {name!r}")
                wanted[name] = effect
        out: dict[str, EffectOutcome] = {}
        fresh: list[GradeEffectCompleted] = []
        for name in sorted(wanted):
            effect = wanted[name]
            rec = self._records.get(effect.key())
            if rec is None or rec.name != name:
                rec = grade_effect_record(name, effect, await source.grade_outcome(name, effect))
                self._records[rec.key] = rec
                fresh.append(rec)
            out[name] = EffectOutcome.model_validate_json(rec.outcome)
        return out, fresh
