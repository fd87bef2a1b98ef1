"""The effect seam: work runs off the loop once, its outcome is recorded, and every replay folds the record."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from saas_sim.bench.effect_lag import measure_effect_lag
from saas_sim.cli import app
from saas_sim.core.effects import EffectOutcome
from saas_sim.errors import EpisodeInvalidError, HarnessError
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import Episode
from saas_sim.runtime.records import EffectCompleted
from saas_sim.runtime.replay import replay
from saas_sim.runtime.trajectory import read_trajectory
from tests.runtime import notes_domain
from tests.runtime.conftest import FIXTURES
from tests.runtime.notes_domain import DOMAIN, NOTES, WORD_COUNTS

SCENARIO = "notes/count-words"

COUNTER_SCRIPT = """
import pathlib, sys
sys.stdin.read()
path = pathlib.Path({path!r})
n = int(path.read_text()) + 1 if path.exists() else 1
path.write_text(str(n))
print(n)
"""
"""A nondeterministic child: it prints how often it ran (a counter in a file under tmp_path)."""


def effects_env(url: str = "sqlite+aiosqlite:///:memory:") -> Environment:
    return Environment(url, scenario_dirs=[FIXTURES / "effects"], seeds_dirs=[FIXTURES / "seeds"],
                       domains=[DOMAIN], builtin=False)


@pytest.fixture
async def env() -> AsyncIterator[Environment]:
    async with effects_env() as e:
        yield e


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[Mapping[str, Any]]:
    """Counts every real run of the word counter (it still runs the real subprocess)."""
    seen: list[Mapping[str, Any]] = []
    real = notes_domain.run_word_count

    def counting(inputs: Mapping[str, Any], timeout_s: float) -> EffectOutcome:
        seen.append(inputs)
        return real(inputs, timeout_s)

    monkeypatch.setattr(notes_domain, "run_word_count", counting)
    return seen


async def _counted(env: Environment, seed: int = 0) -> tuple[Episode, str]:
    episode = await env.start(SCENARIO, seed)
    note_id = episode.task.bindings["note"]["id"]
    out = await episode.call("notes.count_words", {"note_id": note_id}, "c1")
    assert out.ok, out.error
    return episode, note_id


class TestLiveCall:
    async def test_the_outcome_of_a_real_subprocess_is_recorded_and_folded(
        self, env: Environment, runs: list[Mapping[str, Any]]
    ) -> None:
        episode, note_id = await _counted(env)
        note = episode.state.get(NOTES, note_id)
        assert note is not None
        truth = len(note.body.split())
        assert truth > 0
        count = episode.state.get(WORD_COUNTS, note_id)
        assert count is not None and count.words == truth
        step = episode.trajectory.steps[0]
        assert step.result == {"note_id": note_id, "words": truth}
        assert step.effect is not None and step.effect["outcome"] == {"status": "ok", "value": {"words": truth}}
        rows = await env.store.read(episode.stream_id)
        records = [env.store.registry.decode(r) for r in rows if r.event_type == "runtime.EffectCompleted"]
        assert len(records) == 1 and isinstance(records[0], EffectCompleted) and records[0].status == "ok"
        assert len(runs) == 1
        assert (await episode.grade()).score == 1.0

    async def test_sim_time_advances_by_the_tool_and_effect_costs(self, env: Environment) -> None:
        episode = await env.start(SCENARIO, 0)
        before = episode.now
        await episode.call("notes.count_words", {"note_id": episode.task.bindings["note"]["id"]})
        assert episode.now - before == timedelta(seconds=5 + notes_domain.WORD_COUNT_COST_S)

    async def test_a_retry_by_call_id_returns_the_result_without_running_again(
        self, env: Environment, runs: list[Mapping[str, Any]]
    ) -> None:
        episode, note_id = await _counted(env)
        again = await episode.call("notes.count_words", {"note_id": note_id}, "c1")
        assert again.ok and again.value == episode.trajectory.steps[0].result
        assert len(runs) == 1

    async def test_a_failing_command_is_a_tool_error_with_its_outcome_recorded(
        self, env: Environment, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(notes_domain, "WORD_COUNT_SCRIPT", "import sys; sys.exit(3)")
        episode = await env.start(SCENARIO, 0)
        note_id = episode.task.bindings["note"]["id"]
        out = await episode.call("notes.count_words", {"note_id": note_id})
        assert not out.ok and out.error is not None and out.error.code == "unavailable"
        assert episode.trajectory.steps[0].effect["outcome"]["value"]["exit_code"] == 3  # type: ignore[index]
        assert episode.state.get(WORD_COUNTS, note_id) is None
        assert episode.invalid is None

    async def test_an_unknown_note_is_refused_before_any_work_runs(
        self, env: Environment, runs: list[Mapping[str, Any]]
    ) -> None:
        episode = await env.start(SCENARIO, 0)
        out = await episode.call("notes.count_words", {"note_id": "nt_999999"})
        assert out.error is not None and out.error.code == "not_found"
        assert runs == []

    async def test_a_runner_that_raises_is_a_harness_error_never_a_reward(
        self, env: Environment, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def broken(inputs: Mapping[str, Any], timeout_s: float) -> EffectOutcome:
            raise RuntimeError("the runner has a bug")

        monkeypatch.setattr(notes_domain, "run_word_count", broken)
        episode = await env.start(SCENARIO, 0)
        with pytest.raises(HarnessError, match="runner has a bug"):
            await episode.call("notes.count_words", {"note_id": episode.task.bindings["note"]["id"]})
        assert episode.invalid is not None
        grade = await episode.grade()
        assert grade.score is None and not grade.valid and grade.attribution == "harness_error"
        with pytest.raises(EpisodeInvalidError):
            await episode.call("notes.get_note", {"note_id": "nt_000001"})


class TestTimeout:
    async def test_a_wall_timeout_is_a_recorded_outcome_that_replays_exactly(
        self, env: Environment, monkeypatch: pytest.MonkeyPatch, runs: list[Mapping[str, Any]]
    ) -> None:
        monkeypatch.setattr(notes_domain, "WORD_COUNT_SCRIPT", "import time; time.sleep(60)")
        monkeypatch.setattr(notes_domain, "WORD_COUNT_TIMEOUT_S", 0.5)
        episode = await env.start(SCENARIO, 0)
        before = episode.now
        out = await episode.call("notes.count_words", {"note_id": episode.task.bindings["note"]["id"]})
        assert out.error is not None and out.error.code == "timeout"
        assert episode.trajectory.steps[0].effect["outcome"] == {  # type: ignore[index]
            "status": "timeout", "value": {"timeout_s": 0.5},
        }
        assert episode.now - before == timedelta(seconds=5 + notes_domain.WORD_COUNT_COST_S)
        report, _ = await replay(env, episode.trajectory)
        assert report.identical, report.describe()
        assert len(runs) == 1  # the replay folded the recorded timeout


    async def test_a_runner_that_keeps_its_own_clock_is_waited_for_up_to_its_wait_budget(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # The IDE sandbox stretches a starved run's wall time; the runtime must not abandon it first.
        from saas_sim.core.effects import Effect
        from saas_sim.runtime import effects as runtime_effects

        monkeypatch.setattr(runtime_effects, "GRACE_S", 0.0)

        def done(inputs: Mapping[str, Any], timeout_s: float) -> EffectOutcome:
            return EffectOutcome(status="ok", value={"done": True})

        def effect(wait_s: float | None) -> Effect[None]:
            # A zero timeout has passed before any thread can answer: only a wait budget lets the answer in.
            return Effect("test.done", {}, run=done, complete=lambda ctx, outcome: None, timeout_s=0.0, wait_s=wait_s)

        assert (await runtime_effects.run_effect(effect(30.0))).status == "ok"
        assert (await runtime_effects.run_effect(effect(None))).status == "timeout"
        assert effect(30.0).key() == effect(None).key()  # the budget is not part of the request


class TestNeverReRun:
    async def test_replay_resume_fork_and_rebuild_fold_the_recorded_outcome(
        self, env: Environment, runs: list[Mapping[str, Any]]
    ) -> None:
        episode, note_id = await _counted(env)
        await episode.call("notes.get_note", {"note_id": note_id})
        report, again = await replay(env, episode.trajectory)
        assert report.identical, report.describe()
        assert again.steps[0].effect == episode.trajectory.steps[0].effect
        resumed = await env.resume(episode.stream_id)
        assert resumed.trajectory.steps[0].effect == episode.trajectory.steps[0].effect
        assert resumed.state.get(WORD_COUNTS, note_id) == episode.state.get(WORD_COUNTS, note_id)
        fork = await episode.fork(1)
        assert fork.state.get(WORD_COUNTS, note_id) is not None
        assert await episode.rebuild_hash() == episode.state.content_hash()
        assert len(runs) == 1

    async def test_a_trajectory_file_replays_from_its_recorded_outcome(
        self, env: Environment, runs: list[Mapping[str, Any]], tmp_path: Path
    ) -> None:
        episode, _ = await _counted(env)
        path = tmp_path / "t.jsonl"
        episode.trajectory.write(path)
        report, _ = await replay(env, read_trajectory(path))
        assert report.ok, report.describe()
        assert len(runs) == 1


class TestRerunEffects:
    async def test_a_nondeterministic_effect_is_reported_by_step(
        self, env: Environment, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        monkeypatch.setattr(notes_domain, "WORD_COUNT_SCRIPT", COUNTER_SCRIPT.format(path=str(tmp_path / "n")))
        episode = await env.start(SCENARIO, 0)
        note_id = episode.task.bindings["note"]["id"]
        await episode.call("notes.get_note", {"note_id": note_id})
        await episode.call("notes.count_words", {"note_id": note_id})
        plain, _ = await replay(env, episode.trajectory)
        assert plain.ok, plain.describe()
        audited, _ = await replay(env, episode.trajectory, rerun_effects=True)
        assert audited.identical and not audited.ok
        assert [m.step for m in audited.nondeterministic] == [1]
        assert "step 1: nondeterministic effect notes.word_count" in audited.describe()

    async def test_a_deterministic_effect_passes_the_audit(self, env: Environment) -> None:
        episode, _ = await _counted(env)
        report, _ = await replay(env, episode.trajectory, rerun_effects=True)
        assert report.ok, report.describe()

    def test_the_cli_flag_reports_the_nondeterministic_step(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        monkeypatch.setattr(notes_domain, "WORD_COUNT_SCRIPT", COUNTER_SCRIPT.format(path=str(tmp_path / "n")))

        async def record() -> Path:
            async with effects_env() as env:
                episode, _ = await _counted(env)
                path = tmp_path / "t.jsonl"
                episode.trajectory.write(path)
                return path

        path = asyncio.run(record())
        monkeypatch.setattr("saas_sim.cli._env", lambda store: effects_env(store))
        plain = CliRunner().invoke(app, ["replay", str(path)])
        assert plain.exit_code == 0, plain.output
        audited = CliRunner().invoke(app, ["replay", str(path), "--rerun-effects"])
        assert audited.exit_code == 1
        assert "step 0: nondeterministic effect notes.word_count" in audited.output


class TestLoop:
    async def test_the_loop_keeps_ticking_while_effects_run(
        self, env: Environment, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        # Each child marks that it started, then waits for the gate (at most ~120 s, then prints 0). The
        # ticker opens the gate only once every child has started: if the effects blocked the loop, it
        # could not tick meanwhile, and the children would time out and count 0.
        gate = tmp_path / "gate"
        monkeypatch.setattr(notes_domain, "WORD_COUNT_SCRIPT", (
            f"import os, pathlib, sys, time\nsys.stdin.read()\nroot = pathlib.Path({str(tmp_path)!r})\n"
            "(root / f'started-{os.getpid()}').write_text('')\n"
            "for _ in range(12000):\n    if (root / 'gate').exists(): break\n    time.sleep(0.01)\n"
            "print(1 if (root / 'gate').exists() else 0)\n"
        ))
        episodes = [await env.start(SCENARIO, seed) for seed in range(4)]
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while len(list(tmp_path.glob("started-*"))) < len(episodes):  # noqa: ASYNC240 - a tiny listing
                await asyncio.sleep(0.001)
                ticks += 1
            gate.write_text("open")

        calls = [e.call("notes.count_words", {"note_id": e.task.bindings["note"]["id"]}) for e in episodes]
        *outs, _ = await asyncio.gather(*calls, ticker())
        assert ticks > 0
        assert all(o.ok and o.value["words"] == 1 for o in outs)

    async def test_the_lag_bench_runs_real_effects_while_the_ticker_ticks(self) -> None:
        figures = await measure_effect_lag(6)
        assert figures["effects_failed"] == 0 and figures["effects_loop_ticks"] > 0



GRADED = "notes/archive-and-count"


async def _archived(env: Environment, seed: int = 0) -> Episode:
    episode = await env.start(GRADED, seed)
    out = await episode.call("notes.archive_note", {"note_id": episode.task.bindings["note"]["id"]})
    assert out.ok, out.error
    return episode


class TestGradeEffects:
    async def test_a_grade_runs_its_effect_once_and_hands_the_outcome_to_the_checks(
        self, env: Environment, runs: list[Mapping[str, Any]]
    ) -> None:
        episode = await _archived(env)
        grade = await episode.grade()
        assert grade.valid and grade.score == 1.0, grade
        again = await episode.grade()
        assert again == grade
        assert len(runs) == 1
        assert set(episode.trajectory.footer["grade_effects"]) == {"notes.archive_words"}

    async def test_a_task_without_grade_effects_runs_none(
        self, env: Environment, runs: list[Mapping[str, Any]]
    ) -> None:
        episode, _ = await _counted(env)
        await episode.grade()
        assert len(runs) == 1  # the tool's own effect only
        assert "grade_effects" not in episode.trajectory.footer

    async def test_a_changed_tree_runs_the_grade_effect_again(
        self, env: Environment, runs: list[Mapping[str, Any]]
    ) -> None:
        episode = await _archived(env)
        await episode.grade()
        other = next(n.id for n in episode.state.table(NOTES) if not n.archived)
        assert (await episode.call("notes.archive_note", {"note_id": other})).ok
        await episode.grade()
        assert len(runs) == 2

    async def test_a_resumed_episode_reads_the_grade_effect_back_from_the_log(
        self, env: Environment, runs: list[Mapping[str, Any]]
    ) -> None:
        episode = await _archived(env)
        grade = await episode.grade()
        resumed = await env.resume(episode.stream_id)
        assert await resumed.grade() == grade
        assert len(runs) == 1
        assert (await resumed.call("notes.get_note", {"note_id": episode.task.bindings["note"]["id"]})).ok

    async def test_a_trajectory_replays_its_grade_from_the_recorded_grade_effect(
        self, env: Environment, runs: list[Mapping[str, Any]], tmp_path: Path
    ) -> None:
        episode = await _archived(env)
        await episode.grade()
        path = tmp_path / "t.jsonl"
        episode.trajectory.write(path)
        report, _ = await replay(env, read_trajectory(path))
        assert report.ok, report.describe()
        assert len(runs) == 1

    async def test_a_nondeterministic_grade_effect_is_reported_by_the_audit(
        self, env: Environment, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        monkeypatch.setattr(notes_domain, "WORD_COUNT_SCRIPT", COUNTER_SCRIPT.format(path=str(tmp_path / "n")))
        episode = await _archived(env)
        await episode.grade()
        audited, _ = await replay(env, episode.trajectory, rerun_effects=True)
        assert not audited.ok
        assert "grade: nondeterministic effect notes.archive_word_count" in audited.describe()

    async def test_a_grade_effect_that_raises_is_a_verifier_error_never_a_reward(
        self, env: Environment, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def broken(inputs: Mapping[str, Any], timeout_s: float) -> EffectOutcome:
            raise RuntimeError("a bug in the grader's runner")

        monkeypatch.setattr(notes_domain, "run_word_count", broken)
        episode = await _archived(env)
        grade = await episode.grade()
        assert grade.attribution == "verifier_error" and not grade.valid and grade.score is None
        assert "a bug in the grader's runner" in (grade.error or "")

    async def test_grading_observes_the_episode_without_moving_its_chain(
        self, env: Environment, runs: list[Mapping[str, Any]]
    ) -> None:
        graded, plain = await _archived(env), await _archived(env)
        before = graded.state_hash
        await graded.grade()
        assert graded.state_hash == before == plain.state_hash
        fork = await graded.fork()
        assert fork.state_hash == graded.state_hash
        note_id = graded.task.bindings["note"]["id"]
        a = await graded.call("notes.get_note", {"note_id": note_id})
        b = await plain.call("notes.get_note", {"note_id": note_id})
        assert a.ok and b.ok and graded.state_hash == plain.state_hash
