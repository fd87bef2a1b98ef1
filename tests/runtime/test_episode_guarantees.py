"""Promises of the episode runtime that would silently corrupt RL data if broken."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from saas_sim.core.events import PendingEvent
from saas_sim.errors import HarnessError, InvalidCallIdError, UsageError
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import reissued_call_id
from saas_sim.runtime.replay import compare_steps, replay
from saas_sim.runtime.trajectory import read_trajectory
from saas_sim.runtime.world import WorldProfile
from saas_sim.scenarios.model import FaultProfile, FaultRates
from tests.runtime.conftest import FIXTURES
from tests.runtime.notes_domain import DOMAIN, NOTES

SCENARIO = "notes/archive-and-follow-up"
LOST = FaultProfile(write=FaultRates(lost_response=1.0))


def _titles(ep: Any) -> list[str]:
    return [n.title for n in ep.state.table(NOTES)]


# --- aliasing: what the agent holds must not be what the runtime recorded --------------------------


async def test_mutating_a_result_cannot_rewrite_the_trajectory_or_a_retry(env: Environment) -> None:
    # Bug: the dict handed to the agent was the very dict stored in the trajectory step and in the
    # idempotency memo, so an agent that trimmed or annotated its observation rewrote the recorded
    # result and changed what a retry with the same call_id returned.
    ep = await env.start(SCENARIO, 0)
    listed = await ep.call("notes.list_notes", {}, call_id="r1")
    listed.value["items"].clear()
    assert len(ep.trajectory.steps[0].result["items"]) == 12
    again = await ep.call("notes.list_notes", {}, call_id="r1")
    assert ep.trajectory.steps[1].replayed
    assert len(again.value["items"]) == 12

    made = await ep.call("notes.create_note", {"title": "Kept"}, call_id="w1")
    made.value["title"] = "tampered"
    retry = await ep.call("notes.create_note", {"title": "Kept"}, call_id="w1")
    assert retry.value["title"] == "Kept"
    assert ep.trajectory.steps[2].result["title"] == "Kept"
    report, _ = await replay(env, ep.trajectory)
    assert report.identical, report.describe()


async def test_mutating_args_after_a_call_cannot_rewrite_the_trajectory(env: Environment) -> None:
    # Bug: the args object was stored by reference, so an agent loop that reused its args dict
    # rewrote the recorded action of an earlier step (and replay then re-executed the wrong call).
    ep = await env.start(SCENARIO, 0)
    args: dict[str, Any] = {"title": "First"}
    await ep.call("notes.create_note", args)
    args["title"] = "Second"
    await ep.call("notes.create_note", args)
    assert [s.args for s in ep.trajectory.steps] == [{"title": "First"}, {"title": "Second"}]
    report, _ = await replay(env, ep.trajectory)
    assert report.identical, report.describe()


async def test_fork_steps_are_independent_of_the_parents(env: Environment) -> None:
    ep = await env.start(SCENARIO, 0)
    await ep.call("notes.create_note", {"title": "A"})
    child = await ep.fork()
    ep.trajectory.steps[0].result["title"] = "rewritten in the parent"
    assert child.trajectory.steps[0].result["title"] == "A"


# --- idempotency keys ---------------------------------------------------------------------------


async def test_a_non_string_call_id_is_refused_not_silently_replaced(env: Environment) -> None:
    # Bug: a call_id that was not a str (an int, say) was silently replaced by `step-<n>`, a new key
    # per call, so a client retrying a lost write with "the same" id applied the write twice.
    ep = await env.start(SCENARIO, 0, faults=LOST)
    with pytest.raises(UsageError):
        await ep.call("notes.create_note", {"title": "Once"}, call_id=7)  # type: ignore[arg-type]
    assert ep.steps == 0 and ep.invalid is None
    lost = await ep.call("notes.create_note", {"title": "Once"}, call_id="7")
    assert lost.fault == "lost_response"
    retry = await ep.call("notes.create_note", {"title": "Once"}, call_id="7")
    assert retry.ok and _titles(ep).count("Once") == 1


async def test_gathered_mixed_calls_and_same_id_retries_apply_once_in_a_recorded_order(env: Environment) -> None:
    ep = await env.start(SCENARIO, 0, faults=LOST)
    note_id = ep.task.bindings["note"]["id"]
    calls: list[tuple[str, dict[str, Any], str | None]] = []
    for i in range(6):
        calls.append(("notes.create_note", {"title": f"t{i}"}, f"w{i}"))
        calls.append(("notes.create_note", {"title": f"t{i}"}, f"w{i}"))  # a concurrent retry
        calls.append(("notes.list_notes", {"limit": 100}, None))
    calls.append(("notes.archive_note", {"note_id": note_id}, "a"))
    calls.append(("notes.get_note", {"note_id": note_id}, None))
    results = await asyncio.gather(*(ep.call(t, a, c) for t, a, c in calls))
    assert [r.step for r in results] == list(range(len(calls)))  # submission order is the step order
    for i in range(6):
        first, retry, listed = results[3 * i: 3 * i + 3]
        assert first.fault == "lost_response" and retry.ok and not retry.fault
        assert sum(n["title"] == f"t{i}" for n in listed.value["items"]) == 1  # read-your-writes, once
    assert results[-1].value["archived"] is True
    assert sorted(_titles(ep)).count("t0") == 1 and len(_titles(ep)) == 12 + 6
    assert [s.index for s in ep.trajectory.steps] == list(range(len(calls)))
    assert await ep.rebuild_hash() == ep.state.content_hash()


async def test_a_write_cancelled_mid_append_is_still_recorded_consistently(env: Environment) -> None:
    # Bug: cancelling a call (an adapter's timeout, a client that went away) while its append was in
    # flight left the step half done: the store committed the events, but the live state, version,
    # head and trajectory never saw them. The episode kept being graded on a state that disagreed
    # with its own log, and the next write hit a ConcurrencyError.
    ep = await env.start(SCENARIO, 0)
    entered = asyncio.Event()
    original = env.store.enqueue_pending

    appended: list[asyncio.Future[Any]] = []

    def queued_append(stream_id: str, pending: Sequence[PendingEvent], expected_version: int | None,
                      command_id: str | None = None) -> Any:
        entered.set()
        appended.append(original(stream_id, pending, expected_version, command_id))
        return appended[-1]

    env.store.enqueue_pending = queued_append  # type: ignore[method-assign]
    task = asyncio.create_task(ep.call("notes.create_note", {"title": "Cancelled"}, call_id="w"))
    await asyncio.wait_for(entered.wait(), timeout=10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    env.store.enqueue_pending = original  # type: ignore[method-assign]
    # No waiting needed: the cancellation reaches the caller only once the append has its outcome.
    assert len(appended) == 1 and appended[0].done()
    assert len(ep.trajectory.steps) == ep.steps
    assert await ep.rebuild_hash() == ep.state.content_hash()
    retry = await ep.call("notes.create_note", {"title": "Cancelled"}, call_id="w")
    assert retry.ok and _titles(ep).count("Cancelled") == 1
    assert (await ep.call("notes.create_note", {"title": "After"})).ok
    assert await ep.rebuild_hash() == ep.state.content_hash()


async def test_a_write_under_an_expired_timeout_raises_timeout_and_a_retry_replays_it(env: Environment) -> None:
    ep = await env.start(SCENARIO, 0)
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0):
            await ep.call("notes.create_note", {"title": "Timed out"}, call_id="w")
    assert [s.call_id for s in ep.trajectory.steps] == ["w"]
    retry = await ep.call("notes.create_note", {"title": "Timed out"}, call_id="w")
    assert retry.ok and ep.trajectory.steps[-1].replayed and _titles(ep).count("Timed out") == 1
    assert await ep.rebuild_hash() == ep.state.content_hash()


# --- forks of broken episodes -------------------------------------------------------------------


async def test_fork_of_an_invalid_episode_is_refused_cleanly() -> None:
    # Bug: after a harness error the step counter had moved past the recorded steps, and fork()
    # crashed with an IndexError (or, at k < steps, forked a log that no longer matched).
    async with Environment("sqlite+aiosqlite:///:memory:", scenario_dirs=[FIXTURES / "broken"],
                           seeds_dirs=[FIXTURES / "seeds"], domains=[DOMAIN], builtin=False) as env:
        ep = await env.start("notes/buggy", 0)
        await ep.call("notes.list_notes", {})
        with pytest.raises(HarnessError):
            await ep.call("notes.explode", {})
        with pytest.raises(HarnessError):
            await ep.fork()


# --- trajectories: JSONL round trip -------------------------------------------------------------


class _Junk:
    def __repr__(self) -> str:
        return "<junk>"


JUNK_ARGS: list[Any] = [
    '{"query": "a", "limit": 2}',
    "{not json",
    "",
    b'{"limit": 3}',
    42,
    True,
    1.5,
    (1, 2),
    MappingProxyType({"limit": 4}),
    [1, {"x": None}],
    None,
    {"limit": Decimal("5")},
    {"limit": float("nan")},
    '{"limit": NaN}',
]


async def test_junk_args_round_trip_through_jsonl_and_replay_identically(env: Environment, tmp_path: Path) -> None:
    # Bugs: non-JSON args were recorded as their repr, so bytes that had been a valid call replayed
    # as "not valid JSON", a tuple or a set replayed with another error message, a Mapping that was
    # not a dict replayed as an error; and a NaN inside the args made the trajectory unwritable.
    ep = await env.start(SCENARIO, 0)
    for args in JUNK_ARGS:
        await ep.call("notes.list_notes", args)
    await ep.grade()
    assert [s.ok for s in ep.trajectory.steps][:4] == [True, False, True, True]
    path = tmp_path / "junk.jsonl"
    ep.trajectory.write(path)
    loaded = read_trajectory(path)
    assert len(loaded.steps) == len(JUNK_ARGS)
    report, replayed = await replay(env, loaded)
    assert report.identical, report.describe()
    replayed.write(tmp_path / "again.jsonl")


@pytest.mark.parametrize("args", [
    '{"limit": 3}'.encode("utf-16"), '{"limit": 3}'.encode("utf-32-be"), b'\xef\xbb\xbf{"limit": 3}',
    b'\xff\xfe\x00', b'{"query": "\xff"}', b'{"limit": 3}\x80',
], ids=["utf-16", "utf-32", "utf-8-bom", "bad-utf-16", "bad-utf-8-inside", "bad-utf-8-after"])
async def test_bytes_args_in_any_encoding_replay_identically(env: Environment, args: bytes) -> None:
    # Bug: json.loads read UTF-16, UTF-32 and BOM-led bytes, but the step recorded them as a repr or with the BOM,
    # so the replay saw other text (invalid JSON where the call had worked, or another error message).
    ep = await env.start(SCENARIO, 0)
    result = await ep.call("notes.list_notes", args)
    assert result.ok == args.startswith((b"\xff\xfe{", b"\x00\x00\x00{", b"\xef\xbb\xbf"))
    report, _ = await replay(env, ep.trajectory)
    assert report.identical, report.describe()


def _cyclic() -> dict[str, Any]:
    args: dict[str, Any] = {"query": "a"}
    args["self"] = args
    return args


@pytest.mark.parametrize("args", [
    {"limit": _Junk()}, {"query": {1, 2}}, {1, 2}, _Junk(), {"query": b"a"}, {"query": "a", 3: 4},
    {"limit": Decimal("NaN")}, _cyclic(),
], ids=["object", "set-inside", "set", "junk", "bytes-inside", "int-key", "decimal-nan", "cycle"])
async def test_args_that_are_not_json_are_refused_before_a_step(env: Environment, args: Any) -> None:
    # Bug: such args were recorded as their repr, so a replay called the tool with other arguments
    # than the original (a refused call could replay as an applied write).
    ep = await env.start(SCENARIO, 0)
    with pytest.raises(UsageError, match="must be JSON data"):
        await ep.call("notes.list_notes", args)
    assert ep.steps == 0
    assert ep.trajectory.steps == []
    assert ep.invalid is None
    assert (await ep.call("notes.list_notes", {"limit": 1})).ok


async def test_a_trajectory_holding_lone_surrogates_is_writable_and_round_trips(
    env: Environment, tmp_path: Path
) -> None:
    # Bug: a lone surrogate (a half emoji escape in the agent's JSON) reached the recorded error
    # details, and writing the trajectory raised UnicodeEncodeError.
    ep = await env.start(SCENARIO, 0)
    await ep.call("notes.get_note", '{"note_id": "nt_000001", "\\ud83d": 1}')
    await ep.call("notes.get_note", {"note_id": "nt_000001", "\ud83d": 1})
    await ep.grade()
    path = tmp_path / "s.jsonl"
    ep.trajectory.write(path)
    loaded = read_trajectory(path)
    assert loaded.steps[0].error == ep.trajectory.steps[0].error
    report, _ = await replay(env, loaded)
    assert report.identical, report.describe()


async def test_a_tool_name_holding_a_lone_surrogate_is_an_unknown_tool_that_replays(
    env: Environment, tmp_path: Path
) -> None:
    # Bug: the name went into the step's record as given, the log refused it (no UTF-8 text), and the
    # harness error voided the episode: any agent could void its own grade with one call.
    ep = await env.start(SCENARIO, 0)
    bad = await ep.call("notes.\ud800")
    assert not bad.ok and bad.error is not None and bad.error.code == "unknown_tool"
    assert ep.invalid is None and (await ep.call("notes.list_notes", {"limit": 1})).ok
    assert (await ep.grade()).valid
    path = tmp_path / "s.jsonl"
    ep.trajectory.write(path)
    report, _ = await replay(env, read_trajectory(path))
    assert report.identical, report.describe()


async def test_a_call_id_holding_a_lone_surrogate_is_refused_before_a_step(env: Environment) -> None:
    ep = await env.start(SCENARIO, 0)
    with pytest.raises(InvalidCallIdError):
        await ep.call("notes.list_notes", {"limit": 1}, call_id="c\ud800")
    assert ep.steps == 0 and ep.invalid is None
    assert (await ep.call("notes.list_notes", {"limit": 1}, call_id="c1")).ok


@pytest.mark.parametrize("line", ["[1, 2]", '"text"', '{"kind": "step", "index": 0}', '{"kind": "step", "bogus": 1}'])
def test_read_trajectory_reports_a_malformed_line_as_a_usage_error(tmp_path: Path, line: str) -> None:
    # Bug: a line that was JSON but not a step object raised AttributeError/TypeError, which the CLI
    # shows as a traceback instead of a one-line error.
    header = json.dumps({"kind": "header", "format": "saas_sim.trajectory/1", "scenario": "x@1", "seed": 0})
    path = tmp_path / "bad.jsonl"
    path.write_text(header + "\n" + line + "\n")
    with pytest.raises(UsageError):
        read_trajectory(path)


def test_read_trajectory_reports_a_non_object_header_as_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("[1]\n")
    with pytest.raises(UsageError):
        read_trajectory(path)


# --- worlds -------------------------------------------------------------------------------------


async def test_an_edited_world_profile_is_not_served_a_stale_snapshot(tmp_path: Path) -> None:
    # Bug: world snapshots were keyed by profile *name*, seed and code version only. After editing
    # seeds/<name>.yaml (12 notes -> 5), a persistent store kept serving the old world, silently.
    url = f"sqlite+aiosqlite:///{tmp_path}/events.db"
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    shutil.copy(FIXTURES / "seeds" / "notes-small.yaml", seeds / "notes-small.yaml")

    def make(store: str) -> Environment:
        return Environment(store, scenario_dirs=[FIXTURES / "scenarios"], seeds_dirs=[seeds], domains=[DOMAIN],
                           builtin=False)

    async with make(url) as env:
        before = await env.start(SCENARIO, 1)
        assert len(before.task.world.state.table(NOTES)) == 12
    text = (seeds / "notes-small.yaml").read_text().replace("notes: 12", "notes: 5")
    (seeds / "notes-small.yaml").write_text(text)
    async with make(url) as env:
        after = await env.start(SCENARIO, 1)
    async with make("sqlite+aiosqlite:///:memory:") as env:
        fresh = await env.start(SCENARIO, 1)
    assert len(fresh.task.world.state.table(NOTES)) == 5
    assert after.task.world.world_hash == fresh.task.world.world_hash != before.task.world.world_hash


async def test_the_world_cache_is_not_fooled_by_a_reused_object_id(env: Environment) -> None:
    # Bug: the fast world-key cache was keyed by id(profile). Once a profile object was freed, a
    # different profile allocated at the same address was served the first profile's world.
    # (On CPython, `c` lands at `b`'s freed address at once, as long as nothing keeps `b` alive.)
    a = WorldProfile(name="notes-x", domains={"notes": {"notes": 2}})
    await env.world(a, 0)
    b = WorldProfile(name="notes-x", domains={"notes": {"notes": 2}})
    await env.world(b, 0)
    del b
    c = WorldProfile(name="notes-y", domains={"notes": {"notes": 3}})
    world = await env.world(c, 0)
    assert world.profile.name == "notes-y" and len(world.state.table(NOTES)) == 3


# --- limits ---------------------------------------------------------------------------------------


async def test_the_sim_time_budget_truncates_and_attributes_step_limit(env: Environment) -> None:
    slow = FaultProfile(read=FaultRates(rate_limited=1.0), retry_after_s=4000)
    ep = await env.start(SCENARIO, 0, faults=slow)
    first = await ep.call("notes.list_notes", {})
    assert first.error is not None and first.error.code == "rate_limited"
    late = await ep.call("notes.list_notes", {})
    assert late.error is not None and late.error.code == "episode_closed"
    assert ep.truncated and ep.done and ep.steps == 1
    grade = await ep.grade()
    assert grade.attribution == "step_limit" and grade.valid and grade.truncated


async def test_replay_reports_the_first_divergent_step_and_field(env: Environment) -> None:
    ep = await env.start(SCENARIO, 0)
    note_id = ep.task.bindings["note"]["id"]
    await ep.call("notes.get_note", {"note_id": note_id})
    await ep.call("notes.archive_note", {"note_id": note_id})
    await ep.call("notes.create_note", {"title": "x"})
    recorded = ep.trajectory
    recorded.steps[1].state_hash = "0" * 64
    recorded.steps[2].sim_time = "2000-01-01T00:00:00Z"
    report = compare_steps(recorded.steps, (await replay(env, recorded))[1].steps)
    assert (report.step, report.field, report.expected) == (1, "state_hash", "0" * 64)


async def test_a_fork_of_a_fork_at_any_steps_replays_to_the_original_hashes(env: Environment) -> None:
    faults = FaultProfile(read=FaultRates(rate_limited=0.3, unavailable=0.1),
                          write=FaultRates(timeout=0.2, lost_response=0.3))
    ep = await env.start(SCENARIO, 2, faults=faults)
    note_id = ep.task.bindings["note"]["id"]
    plan = [("notes.create_note", {"title": "a"}), ("notes.list_notes", {"limit": 3}),
            ("notes.archive_note", {"note_id": note_id}), ("notes.create_note", {"title": "b"}),
            ("notes.get_note", {"note_id": note_id})]
    for i, (tool, args) in enumerate(plan):
        for _ in range(4):  # retry retryable errors with the same id
            result = await ep.call(tool, args, f"c{i}")
            if result.ok or not (result.error and result.error.retryable):
                break
    assert any(s.fault for s in ep.trajectory.steps)
    n = ep.steps
    for k in range(n + 1):
        child = await ep.fork(k)
        for k2 in range(k + 1):
            grandchild = await child.fork(k2)
            for step in ep.trajectory.steps[k2:]:
                await grandchild.call(step.tool, step.args, reissued_call_id(step.call_id))
            report = compare_steps(ep.trajectory.steps, grandchild.trajectory.steps)
            assert report.identical, (k, k2, report.describe())
            assert grandchild.state.content_hash() == ep.state.content_hash()
            assert await grandchild.rebuild_hash() == ep.state.content_hash()
