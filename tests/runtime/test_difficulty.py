"""A task carries its difficulty: the own level logs what it always did; another one is rebuilt from the log."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from saas_sim.errors import UsageError
from saas_sim.runtime.agents import make_agent
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.replay import replay
from saas_sim.runtime.trajectory import read_trajectory
from tests.runtime.conftest import FIXTURES, GOOD_SCENARIO
from tests.runtime.notes_domain import DOMAIN

# The start head and first payload of notes/archive-and-follow-up seed 0 before difficulty existed.
PINNED_HEAD = "aeeda3f18c63e4dbaa9de0be6c6c23a77d1590c3df9da41de4054d8f2bcb8f98"

LADDER = GOOD_SCENARIO.replace(
    "setup: {fn: notes.pick_note}",
    'setup: [{fn: notes.stage_note, params: {title: "Medium note"}},'
    ' {fn: notes.pick_titled, params: {title: "{staged.title}"}}]\n'
    "difficulty:\n"
    "  level: medium\n"
    "  knobs:\n"
    '    entities: {param: notes.stage_note.title, easy: "Easy note", medium: "Medium note", hard: "Hard note"}\n'
    "hints:\n"
    '  - "The note is {note.id}."\n'
    '  - "Archive before you create."\n',
)

MESSY_NOTES = dataclasses.replace(DOMAIN, mess_params=("typo_rate",), module=__name__)
"""The notes domain with one declared mess rate (which its generator ignores): what `mess` scales."""


def ladder_env(tmp_path: Path, store: str = "sqlite+aiosqlite:///:memory:") -> Environment:
    folder = tmp_path / "scen" / "notes"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "x.yaml").write_text(LADDER)
    seeds = tmp_path / "seeds"
    seeds.mkdir(exist_ok=True)
    (seeds / "notes-small.yaml").write_text(
        'name: notes-small\nepoch: "2026-03-02T09:00:00Z"\ndomains:\n  notes: {notes: 12, typo_rate: 0.2}\n')
    return Environment(store, scenario_dirs=[tmp_path / "scen"], seeds_dirs=[seeds], domains=[MESSY_NOTES],
                       builtin=False)


async def test_the_files_own_level_starts_byte_identical_to_before(env: Environment) -> None:
    plain = await env.task("notes/archive-and-follow-up", 0)
    assert plain.start_head == PINNED_HEAD
    assert b"difficulty" not in plain.start_events[0].payload
    own = await env.task("notes/archive-and-follow-up", 0, difficulty="medium")
    assert own is plain
    episode = await env.start("notes/archive-and-follow-up", 0)
    assert "difficulty" not in episode.trajectory.header


async def test_another_level_records_its_changed_knobs_and_sets_up_their_task(tmp_path: Path) -> None:
    async with ladder_env(tmp_path) as env:
        medium = await env.task("notes/archive-and-follow-up", 1)
        hard = await env.task("notes/archive-and-follow-up", 1, difficulty="hard")
        easy = await env.task("notes/archive-and-follow-up", 1, difficulty=["easy", "specificity=1"])
    assert medium.bindings["note"]["title"] == "Medium note" and "Hints" not in medium.instructions
    assert hard.bindings["note"]["title"] == "Hard note"
    started = json.loads(hard.start_events[0].payload)
    assert started["difficulty"] == {"entities": "Hard note", "mess": 1.5, "faults": "mild"}
    assert started["faults_enabled"] is True and hard.difficulty.faults is not None
    assert hard.world.profile.name == "notes-small~mess1.5"
    assert hard.world.profile.domains["notes"]["typo_rate"] == 0.3
    assert hard.start_head != medium.start_head
    # One hint, rendered over the bindings, after the task.
    assert easy.task_text.endswith(f"Hints:\n- The note is {easy.bindings['note']['id']}.")
    assert easy.world.profile.name == "notes-small~mess0.75"


async def test_a_non_default_level_round_trips_through_resume_fork_and_replay(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'ev.db'}"
    async with ladder_env(tmp_path, url) as env:
        sc = env.scenario("notes/archive-and-follow-up")
        live = await env.start(sc, 2, difficulty={"level": "hard", "faults": "none"})
        await make_agent("oracle", sc).run(live)
        grade = await live.grade()
        assert grade.score == 1.0
        assert live.trajectory.header["difficulty"] == {"entities": "Hard note", "mess": 1.5}
        out = tmp_path / "t.jsonl"
        live.trajectory.write(out)
        stream, steps = live.stream_id, [s.to_json() for s in live.trajectory.steps]
        child = await live.fork(1)
        assert child.task is live.task and child.trajectory.header["difficulty"] == live.trajectory.header["difficulty"]
        await child.close()
        await live.close()
    async with ladder_env(tmp_path, url) as env:
        resumed = await env.resume(stream)
        assert resumed.task.bindings["note"]["title"] == "Hard note"
        assert [s.to_json() for s in resumed.trajectory.steps] == steps
        assert (await resumed.grade()).score == 1.0
        await resumed.close()
        report, _ = await replay(env, read_trajectory(out))
        assert report.ok, report.describe()


async def test_a_bad_difficulty_is_a_usage_error(env: Environment) -> None:
    with pytest.raises(UsageError, match="unknown difficulty knob"):
        await env.task("notes/archive-and-follow-up", 0, difficulty={"crowds": 1})
    with pytest.raises(UsageError, match="no 'distractors' knob"):
        await env.start("notes/archive-and-follow-up", 0, difficulty="distractors=2")


def test_the_fixture_world_declares_no_mess_rates() -> None:
    # The ladder's mess comes from the wrapped domain above; the shared fixture stays as it is.
    assert DOMAIN.mess_params == () and (FIXTURES / "seeds" / "notes-small.yaml").is_file()
