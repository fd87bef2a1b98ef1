"""The runtime's own events: how an episode started, and which faults it injected.

A fork is recorded in its trajectory header, not in its stream: the fork's log
must chain exactly like the original's.

They live in every episode stream beside the domain events, so the log alone
tells how an episode began and which observations were injected. They leave
the domain state untouched.
"""

from __future__ import annotations

from saas_sim.core.events import Event, event
from saas_sim.core.state import Projection, State

__all__ = ["RUNTIME_PROJECTION", "EpisodeStarted", "FaultInjected"]


@event("runtime.EpisodeStarted")
class EpisodeStarted(Event):
    """An episode began from a world snapshot."""

    scenario: str
    seed: int
    world_hash: str
    bindings_hash: str
    faults_enabled: bool


@event("runtime.FaultInjected")
class FaultInjected(Event):
    """The fault injector decided this call's observation."""

    step: int
    tool: str
    call_id: str
    fault: str
    retry_after_s: float | None = None


RUNTIME_PROJECTION = Projection("runtime")


@RUNTIME_PROJECTION.on(EpisodeStarted)
def _started(state: State, ev: EpisodeStarted) -> State:
    return state


@RUNTIME_PROJECTION.on(FaultInjected)
def _fault(state: State, ev: FaultInjected) -> State:
    return state
