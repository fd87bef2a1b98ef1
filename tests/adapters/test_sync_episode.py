"""`SyncRuntime` and `SyncSession`: the synchronous face the Gymnasium and TRL adapters share."""

from __future__ import annotations

import asyncio
import threading

import pytest

from saas_sim.adapters._sync_episode import SUBMIT_TOOL, SyncRuntime, SyncSession
from saas_sim.errors import UsageError
from tests.runtime.conftest import notes_env


def _loop_threads() -> set[int | None]:
    return {t.ident for t in threading.enumerate() if t.name == "saas-sim-sync-loop"}


def test_a_runtime_works_from_inside_a_running_event_loop_and_closes_its_thread() -> None:
    async def inside() -> str:
        # A notebook's situation: the caller's own loop is running; the runtime's loop is another thread's.
        runtime = SyncRuntime(notes_env())
        try:
            episode = SyncSession(runtime).start("notes/archive-and-follow-up", 1)
            return episode.instructions
        finally:
            runtime.close()

    before = _loop_threads()
    assert asyncio.run(inside())
    assert _loop_threads() <= before


def test_close_is_idempotent_and_a_closed_runtime_refuses_work() -> None:
    runtime = SyncRuntime(notes_env())
    runtime.close()
    runtime.close()
    with pytest.raises(UsageError, match="closed"):
        runtime.run(runtime.env.open())


def test_submit_ends_the_episode_once_and_later_calls_are_observations() -> None:
    runtime = SyncRuntime(notes_env())
    try:
        session = SyncSession(runtime)
        session.start("notes/archive-and-follow-up", 1)
        assert session.tool_names()[-1] == SUBMIT_TOOL
        turn = session.call(SUBMIT_TOOL)
        assert turn.submitted and turn.ended and turn.observation == {"ok": True, "value": {"submitted": True}}
        after = session.call("notes.list_notes", {})
        assert after.observation["error"]["code"] == "episode_closed" and after.result is None
        assert session.grade().score == session.grade().score == 0.25
    finally:
        runtime.close()


@pytest.mark.parametrize(("args", "call_id"), [({"x": {1}}, None), ({}, 7), ({}, "auto:1")],
                         ids=["set-in-args", "int-call-id", "reserved-call-id"])
def test_input_the_runtime_cannot_record_is_an_invalid_argument_observation(args: object, call_id: object) -> None:
    runtime = SyncRuntime(notes_env())
    try:
        session = SyncSession(runtime)
        episode = session.start("notes/archive-and-follow-up", 1)
        turn = session.call("notes.list_notes", args, call_id)
        assert turn.observation["error"]["code"] == "invalid_argument" and turn.result is None
        assert episode.steps == 0 and not turn.ended
    finally:
        runtime.close()
