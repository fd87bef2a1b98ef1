"""Grading in a worker process: the same grades as in-process, and in-process whenever the worker cannot."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest

from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import Episode
from saas_sim.runtime.grade_worker import GradeJob, GradeWorker, task_key
from saas_sim.runtime.grading import Grade
from tests.runtime.conftest import notes_env

SCENARIO = "notes/archive-and-follow-up"

PLAYS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "nothing": [],
    "a note": [("notes.create_note", {"title": "Follow up"})],
    "a bad call, then notes": [
        ("notes.get_note", {"note_id": 12}),
        ("notes.create_note", {"title": "One"}),
        ("notes.list_notes", {}),
        ("notes.create_note", {"title": "Two"}),
    ],
}


@pytest.fixture
async def env() -> AsyncIterator[Environment]:
    async with notes_env(grade_worker=True) as e:
        yield e


def _grader(env: Environment) -> GradeWorker:
    assert env.grader is not None
    return env.grader


async def _wait_ready(env: Environment, seed: int) -> None:
    """Waits until the worker says it has set the task up (a world build in another process)."""
    task = await env.task(SCENARIO, seed)
    await asyncio.wait_for(_grader(env).until_ready(task), timeout=120)


async def _played(env: Environment, seed: int, calls: list[tuple[str, dict[str, Any]]]) -> Episode:
    episode = await env.start(SCENARIO, seed)
    for tool, args in calls:
        await episode.call(tool, args)
    return episode


def _job(episode: Episode) -> GradeJob:
    """The job the episode's grade would send the worker now."""
    events = tuple(e for evs in episode._step_events for e in evs)
    return GradeJob(task_key(episode.task), episode.task.start_head, events, tuple(episode._write_steps()),
                    episode.now, {})


async def _in_process(episode: Episode) -> Grade:
    grader, episode.grader = episode.grader, None
    try:
        return await episode.grade(footer=False)
    finally:
        episode.grader = grader


@pytest.mark.parametrize("play", sorted(PLAYS))
@pytest.mark.parametrize("seed", [0, 3])
async def test_the_worker_grades_exactly_as_the_episodes_own_process(env: Environment, play: str,
                                                                       seed: int) -> None:
    await env.start(SCENARIO, seed)  # announces the task to the worker
    await _wait_ready(env, seed)
    episode = await _played(env, seed, PLAYS[play])
    before = _grader(env).answers["ok"]

    remote = await episode.grade()

    assert _grader(env).answers["ok"] == before + 1
    assert remote == await _in_process(episode)


async def test_a_task_the_worker_has_not_set_up_is_graded_in_process(env: Environment) -> None:
    episode = await _played(env, 1, PLAYS["a note"])
    job = dataclasses.replace(_job(episode), key="notes/never@1|1|none")

    assert await _grader(env).grade(episode.task, job) is None
    assert _grader(env).answers["not_ready"] == 1
    assert await episode.grade() == await _in_process(episode)


async def test_a_worker_task_that_starts_elsewhere_is_graded_in_process(env: Environment) -> None:
    await env.start(SCENARIO, 0)
    await _wait_ready(env, 0)
    episode = await _played(env, 0, PLAYS["a note"])
    job = dataclasses.replace(_job(episode), start_head="0" * 64)

    assert await _grader(env).grade(episode.task, job) is None


async def test_grades_beyond_the_in_flight_limit_run_in_process(env: Environment) -> None:
    await env.start(SCENARIO, 0)
    await _wait_ready(env, 0)
    episode = await _played(env, 0, PLAYS["a note"])
    _grader(env).max_in_flight = 0
    before = _grader(env).answers["ok"]

    grade = await episode.grade()

    assert _grader(env).answers["ok"] == before
    assert grade == await _in_process(episode)


async def test_a_killed_worker_leaves_every_grade_to_the_episodes_process(env: Environment) -> None:
    await env.start(SCENARIO, 0)
    await _wait_ready(env, 0)
    episodes = [await _played(env, 0, PLAYS["a bad call, then notes"]) for _ in range(4)]
    process = _grader(env)._process
    assert process is not None
    process.kill()

    grades = await asyncio.gather(*(e.grade() for e in episodes))  # some may be waiting as it dies

    assert grades == [await _in_process(e) for e in episodes]
    assert all(g.valid and g.score is not None for g in grades)
    await asyncio.wait_for(_grader(env).stopped.wait(), timeout=60)  # the closed pipe reaches the loop
    assert not _grader(env).alive
    assert await episodes[0].grade() == await _in_process(episodes[0])


async def test_closing_the_environment_stops_the_worker() -> None:
    env = notes_env(grade_worker=True)
    await env.open()
    grader = _grader(env)
    process = grader._process
    assert process is not None and process.poll() is None

    await env.close()

    assert process.poll() is not None
    assert env.grader is None and not grader.alive


async def test_forks_and_resumed_episodes_grade_in_the_worker_too(tmp_path: Any) -> None:
    async with notes_env(f"sqlite+aiosqlite:///{tmp_path}/e.db", grade_worker=True) as env:
        await env.start(SCENARIO, 0)
        await _wait_ready(env, 0)
        episode = await _played(env, 0, PLAYS["a bad call, then notes"])
        child = await episode.fork(2)
        await episode.close()
        resumed = await env.resume(episode.stream_id)
        before = _grader(env).answers["ok"]

        graded = [await child.grade(), await resumed.grade()]

        assert _grader(env).answers["ok"] == before + 2
        assert graded == [await _in_process(child), await _in_process(resumed)]


async def test_an_environment_without_the_option_has_no_worker() -> None:
    async with notes_env() as env:
        episode = await env.start(SCENARIO, 0)
        assert env.grader is None and episode.grader is None


async def test_the_job_sent_to_the_worker_carries_the_refused_calls(env: Environment,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[GradeJob] = []

    async def capture(task: Any, job: GradeJob) -> None:
        sent.append(job)  # None: the episode grades in-process, from the same inputs

    monkeypatch.setattr(_grader(env), "grade", capture)
    episode = await _played(env, 0, PLAYS["a bad call, then notes"])
    await episode.grade(footer=False)
    (job,) = sent
    assert [(c.step, c.tool) for c in job.refused] == [(0, "notes.get_note")]
