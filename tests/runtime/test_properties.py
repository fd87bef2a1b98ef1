"""Property tests: replay, rebuild, fork and isolation hold for arbitrary call sequences."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import reissued_call_id
from saas_sim.runtime.replay import compare_steps, replay
from saas_sim.scenarios.model import FaultProfile, FaultRates
from tests.runtime.conftest import notes_env

SCENARIO = "notes/archive-and-follow-up"

note_ids = st.integers(min_value=1, max_value=14).map(lambda n: f"nt_{n:06d}")
calls = st.lists(
    st.one_of(
        st.tuples(st.just("notes.get_note"), st.fixed_dictionaries({"note_id": note_ids})),
        st.tuples(st.just("notes.archive_note"), st.fixed_dictionaries({"note_id": note_ids})),
        st.tuples(st.just("notes.create_note"), st.fixed_dictionaries({"title": st.sampled_from("abcd")})),
        st.tuples(st.just("notes.list_notes"), st.fixed_dictionaries({"limit": st.integers(-1, 5)})),
        st.tuples(st.just("notes.create_note"), st.just("{broken json")),
    ),
    max_size=12,
)
FAULTS = FaultProfile(
    read=FaultRates(rate_limited=0.2, unavailable=0.1),
    write=FaultRates(timeout=0.1, lost_response=0.2),
)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


async def _play(env: Environment, seed: int, seq: list[tuple[str, Any]], faults: FaultProfile | None) -> Any:
    ep = await env.start(SCENARIO, seed, faults=faults)
    for i, (tool, args) in enumerate(seq):
        # Retry each call once with the same id, as a careful client does after a timeout.
        first = await ep.call(tool, args, f"c{i}")
        if not first.ok and first.error and first.error.retryable:
            await ep.call(tool, args, f"c{i}")
    return ep


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


@SETTINGS
@given(seq=calls, seed=st.integers(0, 3), faulty=st.booleans())
def test_replay_and_rebuild_match_for_any_call_sequence(seq: list[tuple[str, Any]], seed: int, faulty: bool) -> None:
    async def go() -> None:
        async with notes_env() as env:
            ep = await _play(env, seed, seq, FAULTS if faulty else None)
            report, _ = await replay(env, ep.trajectory)
            assert report.identical, report.describe()
            assert await ep.rebuild_hash() == ep.state.content_hash()

    _run(go())


@SETTINGS
@given(seq=calls, seed=st.integers(0, 3), cut=st.integers(0, 30))
def test_fork_at_any_step_then_same_calls_reproduce_the_hashes(seq: list[tuple[str, Any]], seed: int,
                                                               cut: int) -> None:
    async def go() -> None:
        async with notes_env() as env:
            ep = await _play(env, seed, seq, FAULTS)
            k = min(cut, ep.steps)
            child = await ep.fork(k)
            for step in ep.trajectory.steps[k:]:
                await child.call(step.tool, step.args, reissued_call_id(step.call_id))
            assert compare_steps(ep.trajectory.steps, child.trajectory.steps).identical
            assert child.state_hash == ep.state_hash

    _run(go())


@SETTINGS
@given(seqs=st.lists(calls, min_size=2, max_size=4))
def test_interleaved_episodes_match_their_sequential_runs(seqs: list[list[tuple[str, Any]]]) -> None:
    async def go() -> None:
        async with notes_env() as env:
            alone = [await _play(env, 1, seq, FAULTS) for seq in seqs]
            together = await asyncio.gather(*(_play(env, 1, seq, FAULTS) for seq in seqs))
            for a, b in zip(alone, together, strict=True):
                assert a.state_hash == b.state_hash
                assert a.state.content_hash() == b.state.content_hash()

    _run(go())
