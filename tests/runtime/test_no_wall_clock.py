"""A whole seeded episode runs with wall time, uuids and global randomness forbidden."""

from __future__ import annotations

import datetime as dt
import random
import time
import uuid

import pytest

from saas_sim.runtime.agents import make_agent
from tests.runtime.conftest import notes_env


def _forbidden(*args: object, **kwargs: object) -> None:
    raise AssertionError("nondeterministic source used")


class _FrozenDatetime(dt.datetime):
    @classmethod
    def now(cls, tz: dt.tzinfo | None = None) -> _FrozenDatetime:  # type: ignore[override]
        raise AssertionError("datetime.now used")

    @classmethod
    def utcnow(cls) -> _FrozenDatetime:  # type: ignore[override]
        raise AssertionError("datetime.utcnow used")


async def test_oracle_episode_uses_no_wall_clock_uuid_or_global_random(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(time, "time", _forbidden)
    monkeypatch.setattr(time, "time_ns", _forbidden)
    monkeypatch.setattr(random, "random", _forbidden)
    monkeypatch.setattr(random, "randint", _forbidden)
    monkeypatch.setattr(dt, "datetime", _FrozenDatetime)
    monkeypatch.setattr(uuid, "uuid4", _forbidden)
    async with notes_env("sqlite+aiosqlite:///:memory:") as env:
        # World generation, setup, faults, tools, store and grading all run under the ban.
        episode = await env.start("notes/flaky-archive", 3, stream_id="ep-fixed")
        await make_agent("oracle", episode.task.scenario).run(episode)
        grade = await episode.grade()
    assert grade.score == 1.0
