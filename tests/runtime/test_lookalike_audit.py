"""Look-alike groups: their ids are dealt at random, and the self-audit's lowest-id attack holds that down."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from saas_sim.core.domain import SetupContext
from saas_sim.core.ids import IdFactory
from saas_sim.core.relabel import IdsRelabeled
from saas_sim.core.state import State
from saas_sim.errors import ScenarioError
from saas_sim.runtime import attack_audits as attacks
from saas_sim.runtime import task as task_module
from saas_sim.runtime.agents import ScriptedAgent
from saas_sim.runtime.attack_audits import AuditOptions
from saas_sim.runtime.environment import Environment

REF = "suite/route-by-crm-tier"  # a same-named account and contact staged beside the real ones
OPTS = AuditOptions(hack_seeds=10)


@pytest.fixture
async def env() -> AsyncIterator[Environment]:
    async with Environment("sqlite+aiosqlite:///:memory:") as e:
        yield e


async def test_the_lowest_id_policy_scores_about_chance_once_groups_are_dealt(env: Environment) -> None:
    failures: list[str] = []
    report = await attacks.lookalike_audit(env, env.scenario(REF), OPTS, failures.append)
    assert failures == []
    assert len(report["scores"]) >= attacks.LOOKALIKE_MIN_SEEDS
    assert report["mean_score"] <= attacks.LOOKALIKE_MAX_MEAN
    assert min(report["scores"].values()) < 0.5  # acting on a look-alike is not paid


async def test_the_attack_fails_a_task_whose_real_record_keeps_the_lowest_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def undealt(groups: list[tuple[str, ...]], rng: random.Random) -> IdsRelabeled | None:
        return IdsRelabeled(pairs=tuple(sorted((i, i) for g in groups for i in g))) if groups else None

    monkeypatch.setattr(task_module, "_label_lookalikes", undealt)
    failures: list[str] = []
    async with Environment("sqlite+aiosqlite:///:memory:") as env:
        report = await attacks.lookalike_audit(env, env.scenario(REF), OPTS, failures.append)
    assert set(report["scores"].values()) == {1.0}
    assert len(failures) == 1 and "taking the lowest id" in failures[0]


async def test_the_unlabelled_bindings_name_the_real_record_by_its_group_s_lowest_id(env: Environment) -> None:
    moved = 0
    for seed in range(8):
        task = await env.task(REF, seed)
        groups = {old for old, _ in task.labels}
        assert task.bindings["account"]["id"] in groups and task.bindings["contact"]["id"] in groups
        before = task.unlabelled_bindings()
        assert before["account"]["id"] == min(i for i in groups if i.startswith("acc_"))
        assert before["contact"]["id"] == min(i for i in groups if i.startswith("ct_"))
        moved += before["account"]["id"] != task.bindings["account"]["id"]
    assert 0 < moved < 8  # the real account holds the other id on some seeds, not all


async def test_a_relabelled_episode_resumes_in_another_process_s_environment_to_the_same_state(
    tmp_path: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'events.db'}"
    async with Environment(url) as first:
        seed = 0
        while all(a == b for a, b in (await first.task(REF, seed)).labels):
            seed += 1
        episode = await first.start(REF, seed, faults=None)
        await ScriptedAgent("oracle", episode.task.scenario.spec.oracle).run(episode)
        grade = await episode.grade(footer=False)
        stream, head, content = episode.stream_id, episode.state_hash, episode.state.content_hash()
    async with Environment(url) as second:  # nothing cached: the task is set up and the log folded anew
        resumed = await second.resume(stream)
        assert (resumed.state_hash, resumed.state.content_hash()) == (head, content)
        assert (await resumed.grade(footer=False)).score == grade.score == 1.0


def test_a_record_declared_twice_joins_one_group() -> None:
    ctx = SetupContext(state=State(), params={}, rng=random.Random(0), now=datetime(2026, 1, 1, tzinfo=UTC),
                       ids=IdFactory())
    ctx.declare_lookalikes("ct_000001", "ct_000005")
    ctx.declare_lookalikes("ct_000001", "ct_000007", "ct_000005")
    ctx.declare_lookalikes("ct_000002")  # no copies: nothing to deal
    assert ctx.lookalikes == [("ct_000001", "ct_000005", "ct_000007")]
    assert replace(ctx, params={"x": 1}).lookalikes is ctx.lookalikes  # a sub-step's context shares the list


def test_a_group_that_repeats_an_id_or_shares_one_with_another_is_a_scenario_error() -> None:
    with pytest.raises(ScenarioError):
        task_module._label_lookalikes([("ct_000001", "ct_000002"), ("ct_000002", "ct_000003")], random.Random(0))
    with pytest.raises(ScenarioError):
        task_module._label_lookalikes([("ct_000001", "ct_000001")], random.Random(0))
    assert task_module._label_lookalikes([], random.Random(0)) is None
