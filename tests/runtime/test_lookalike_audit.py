"""Look-alike groups: their ids are dealt at random, and the self-audit's lowest-id attack holds that down."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest

from saas_sim.core.relabel import IdsRelabeled
from saas_sim.runtime import attack_audits as attacks
from saas_sim.runtime import task as task_module
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
