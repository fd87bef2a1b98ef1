"""Episodes live in the log: resume after a SIGKILL, and two writers on one episode."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from saas_sim.core.clock import perf_ns
from saas_sim.errors import ConcurrencyError, UsageError
from saas_sim.runtime.episode import Episode
from tests.runtime.conftest import GOOD_SCENARIO, env_with_scenario, notes_env

SCENARIO = "notes/archive-and-follow-up"
ROOT = Path(__file__).resolve().parents[2]

CALLS: list[tuple[str, dict[str, Any], str | None]] = [
    ("notes.create_note", {"title": "One"}, "c-1"),
    ("notes.list_notes", {"query": "One"}, None),
    ("notes.create_note", {"title": "One"}, "c-1"),  # a retry: the original result
    ("notes.get_note", {"note_id": 12}, None),  # an invalid argument: a failed call
    ("notes.create_note", {"title": "Two"}, None),
    ("notes.list_notes", {}, "r-1"),
    ("notes.create_note", {"title": "Three"}, "c-3"),
    ("notes.list_notes", {"query": "T"}, None),
]

CHILD = """
import asyncio, json, sys
from tests.runtime.conftest import notes_env

async def main(url, calls, durable_reads):
    async with notes_env(url, durable_reads=durable_reads) as env:
        ep = await env.start("notes/archive-and-follow-up", 0)
        print("STREAM", ep.stream_id, flush=True)
        for tool, args, cid in calls:
            r = await ep.call(tool, args, cid)
            print("STEP", r.step, flush=True)
        sys.stdin.read()  # stay alive until killed

asyncio.run(main(sys.argv[1], json.loads(sys.argv[2]), sys.argv[3] == "1"))
"""


def _view(ep: Episode) -> list[dict[str, Any]]:
    return [{k: v for k, v in s.to_json().items() if k != "events"} for s in ep.trajectory.steps]


async def _run(ep: Episode, calls: list[tuple[str, dict[str, Any], str | None]]) -> None:
    for tool, args, cid in calls:
        await ep.call(tool, args, cid)


async def _killed_after(url: str, k: int, *, durable_reads: bool = True) -> str:
    """Runs the calls in a child process, SIGKILLs it once `k` steps were acknowledged; returns the stream."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(ROOT)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", CHILD, url, json.dumps(CALLS), "1" if durable_reads else "0", cwd=ROOT, env=env,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None
    try:
        stream = (await proc.stdout.readline()).decode().split()[1]
        acked = 0
        while acked < k:
            line = (await proc.stdout.readline()).decode()
            assert line.startswith("STEP"), line
            acked += 1
    finally:
        proc.send_signal(signal.SIGKILL)
        await proc.wait()
    return stream


# The index of the last WRITE among the first k calls (the steps every mode must keep).
_LAST_WRITE_BEFORE = {3: 2, 4: 2, 5: 4, 6: 4}


@pytest.mark.parametrize("durable_reads", [True, False], ids=["durable-reads", "queued-reads"])
@pytest.mark.parametrize("k", [3, 4, 5, 6])
async def test_an_episode_killed_mid_run_resumes_and_ends_like_an_uninterrupted_one(
    durable_store_url: str, k: int, durable_reads: bool
) -> None:
    stream = await _killed_after(durable_store_url, k, durable_reads=durable_reads)
    async with notes_env(durable_store_url) as env:
        resumed = await env.resume(stream)
        if durable_reads:
            assert resumed.steps >= k  # every acknowledged step is in the log
        else:
            # Every acknowledged write is, and every read before it; a read after it may be lost.
            assert resumed.steps >= _LAST_WRITE_BEFORE[k] + 1
        done = resumed.steps
        await _run(resumed, CALLS[done:])
        straight = await env.start(SCENARIO, 0)
        await _run(straight, CALLS)
        assert resumed.state_hash == straight.state_hash
        assert _view(resumed) == _view(straight)
        assert (await resumed.grade()).model_dump() == (await straight.grade()).model_dump()
        assert await resumed.rebuild_hash() == await straight.rebuild_hash()


async def test_a_resumed_episode_continues_with_the_same_hashes_and_memo(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/ev.db"
    async with notes_env(url) as env:
        live = await env.start(SCENARIO, 0)
        await _run(live, CALLS[:4])
        resumed = await env.resume(live.stream_id)
        assert (resumed.state_hash, resumed.steps, resumed.now) == (live.state_hash, live.steps, live.now)
        assert _view(resumed) == _view(live)
        again = await resumed.call("notes.create_note", {"title": "One"}, "c-1")
        assert again.ok and again.value == live.trajectory.steps[0].result and again.step == 4


async def test_the_loser_of_two_writers_gets_a_concurrency_error_and_a_retry_after_resume_returns_the_original(
    durable_store_url: str,
) -> None:
    async with notes_env(durable_store_url) as env:
        a = await env.start(SCENARIO, 0)
        await _run(a, CALLS[:2])
        b = await env.resume(a.stream_id)
        won = await a.call("notes.create_note", {"title": "Winner"}, "w-1")
        with pytest.raises(ConcurrencyError):
            await b.call("notes.create_note", {"title": "Loser"}, "l-1")
        with pytest.raises(UsageError, match="stale"):
            await b.call("notes.list_notes", {})
        reloaded = await env.resume(a.stream_id)
        retry = await reloaded.call("notes.create_note", {"title": "Winner"}, "w-1")
        assert retry.ok and retry.value == won.value and reloaded.trajectory.steps[-1].replayed
        titles = [n["title"] for n in (await reloaded.call("notes.list_notes", {})).value["items"]]
        assert "Loser" not in titles and titles.count("Winner") == 1


async def test_resuming_an_unknown_stream_is_a_usage_error(env: Any) -> None:
    with pytest.raises(UsageError, match="no episode stream"):
        await env.resume("ep:nope")


async def test_resume_time_of_a_30_step_episode_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = GOOD_SCENARIO.replace("max_steps: 20", "max_steps: 40")
    assert text != GOOD_SCENARIO
    async with env_with_scenario(tmp_path, text) as env:
        live = await env.start(env.scenarios()[0], 0)
        for i in range(30):
            await live.call("notes.create_note" if i % 2 else "notes.list_notes",
                            {"title": f"n{i}"} if i % 2 else {}, None)
        start = perf_ns()
        resumed = await env.resume(live.stream_id)
        took = perf_ns() - start
        assert resumed.state_hash == live.state_hash and resumed.steps == 30
        with capsys.disabled():
            print(f"\nresume of a 30-step episode: {took / 1e6:.2f} ms")
