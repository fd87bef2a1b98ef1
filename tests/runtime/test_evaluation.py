"""Evaluation runs: known scores for the oracle and the no-op, per-trial agents, the run folder, resuming."""

from __future__ import annotations

import fcntl
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from saas_sim.errors import UsageError
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.episode import Episode
from saas_sim.runtime.eval_stats import EpisodeResult
from saas_sim.runtime.evaluation import (
    EvalConfig,
    RunFolder,
    build_report,
    default_out_dir,
    plan_evaluation,
    run_evaluation,
    trial_agent,
)
from saas_sim.runtime.trajectory import read_trajectory

# One scenario of each domain (the IDE one runs its hidden tests at grade time).
CRM = "crm/advance-qualified-deal"
FEW = "crm/advance-qualified-deal, support/refund-damaged-item,ide/fix-off-by-one,crm/advance-qualified-d*"


@pytest.fixture
async def builtin_env() -> AsyncIterator[Environment]:
    async with Environment("sqlite+aiosqlite:///:memory:") as env:
        yield env


def lines(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "results.jsonl").read_text(encoding="utf-8").splitlines()]


async def test_comma_separated_globs_are_matched_once_each(builtin_env: Environment) -> None:
    plan = plan_evaluation(builtin_env, EvalConfig(agent="oracle", pattern=FEW, seeds=[0], trials=1))
    refs = plan.identity["scenarios"]
    assert [r.split("@")[0] for r in refs] == ["crm/advance-qualified-deal", "ide/fix-off-by-one",
                                               "support/refund-damaged-item"]


async def test_oracle_scores_one_on_every_episode(builtin_env: Environment, tmp_path: Path) -> None:
    plan = plan_evaluation(builtin_env, EvalConfig(agent="oracle", pattern=FEW, seeds=[0, 1], trials=2,
                                                   concurrency=3))
    results = await run_evaluation(builtin_env, plan, tmp_path)
    assert len(results) == 12 == len(lines(tmp_path))
    assert {r.score for r in results} == {1.0} and {r.attribution for r in results} == {"success"}
    report = build_report(plan, results)
    assert report["complete"] and report["overall"]["mean_score"] == 1.0
    assert report["overall"]["ci"] == [1.0, 1.0]
    assert report["overall"]["pass_hat_k"] == {"1": 1.0, "2": 1.0}
    assert report["check_failures"] == {ref: {} for ref in plan.identity["scenarios"]}
    assert report["environment"]["failure_rate"] == 0.0
    first = results[0]
    trajectory = read_trajectory(tmp_path / (first.trajectory or ""))
    assert trajectory.header["scenario"] == first.scenario and trajectory.header["seed"] == first.seed
    assert trajectory.footer is not None and trajectory.footer["grade"]["score"] == 1.0
    assert len(trajectory.steps) == first.steps > 0


async def test_noop_scores_each_scenarios_declared_baseline(builtin_env: Environment, tmp_path: Path) -> None:
    plan = plan_evaluation(builtin_env, EvalConfig(agent="noop", pattern=FEW, seeds=[0, 1], trials=1))
    results = await run_evaluation(builtin_env, plan, tmp_path)
    declared = {s.ref: s.spec.noop_score for s in plan.scenarios}
    assert len(results) == 6
    for r in results:
        assert r.score == declared[r.scenario] and r.steps == 0
        assert r.checks and r.attribution == "agent_failure"
    report = build_report(plan, results)
    assert report["overall"]["pass_hat_k"]["1"] == 0.0
    assert all(report["check_failures"][ref] for ref in declared)  # the no-op fails some check everywhere


def test_a_random_agent_gets_a_derived_seed_per_trial_and_scripted_agents_repeat() -> None:
    seeds = [trial_agent("random:5", t) for t in range(4)]
    assert len(set(seeds)) == 4 and all(s.startswith("random:") for s in seeds)
    assert seeds == [trial_agent("random:5", t) for t in range(4)]
    assert trial_agent("random", 0) == trial_agent("random:0", 0) != trial_agent("random:1", 0)
    assert [trial_agent("oracle", t) for t in range(3)] == ["oracle"] * 3
    assert trial_agent("hack:skip", 2) == "hack:skip"


def test_an_llm_agent_with_a_seed_gets_one_per_trial() -> None:
    specs = [trial_agent("openai:m?temperature=0.7&seed=3", t) for t in range(3)]
    assert len(set(specs)) == 3
    assert all(s.startswith("openai:m?temperature=0.7&seed=") for s in specs)
    assert trial_agent("openai:m?temperature=0", 1) == "openai:m?temperature=0"
    assert trial_agent("openai:m", 1) == "openai:m"


async def test_random_trials_play_differently(builtin_env: Environment, tmp_path: Path) -> None:
    plan = plan_evaluation(builtin_env, EvalConfig(agent="random:2", pattern=CRM, seeds=[0], trials=2))
    results = await run_evaluation(builtin_env, plan, tmp_path)
    assert [r.agent for r in results] == [trial_agent("random:2", 0), trial_agent("random:2", 1)]
    calls = [[(s.tool, s.args) for s in read_trajectory(tmp_path / (r.trajectory or "")).steps] for r in results]
    assert calls[0] != calls[1]


async def test_oracle_trials_repeat_exactly(builtin_env: Environment, tmp_path: Path) -> None:
    plan = plan_evaluation(builtin_env, EvalConfig(agent="oracle", pattern=CRM, seeds=[3], trials=2))
    results = await run_evaluation(builtin_env, plan, tmp_path)
    steps = [[(s.tool, s.args, s.result) for s in read_trajectory(tmp_path / (r.trajectory or "")).steps]
             for r in results]
    assert steps[0] == steps[1]


async def test_a_finished_run_redoes_nothing(builtin_env: Environment, tmp_path: Path) -> None:
    plan = plan_evaluation(builtin_env, EvalConfig(agent="noop", pattern=CRM, seeds=[0, 1], trials=2))
    first = await run_evaluation(builtin_env, plan, tmp_path)
    before = (tmp_path / "results.jsonl").read_bytes()
    seen: list[tuple[EpisodeResult | None, int, int]] = []
    again = await run_evaluation(builtin_env, plan, tmp_path, lambda r, done, total: seen.append((r, done, total)))
    assert again == first
    assert seen == [(None, 4, 4)]
    assert (tmp_path / "results.jsonl").read_bytes() == before


async def test_a_folder_with_another_runs_arguments_is_refused(builtin_env: Environment, tmp_path: Path) -> None:
    config = EvalConfig(agent="noop", pattern=CRM, seeds=[0], trials=1)
    await run_evaluation(builtin_env, plan_evaluation(builtin_env, config), tmp_path)
    other = plan_evaluation(builtin_env, EvalConfig(agent="noop", pattern=CRM, seeds=[0], trials=2))
    with pytest.raises(UsageError, match=r"other arguments \(trials: 1 there, 2 here\)"):
        await run_evaluation(builtin_env, other, tmp_path)


def test_a_refusal_names_the_scenarios_one_run_has_and_the_other_lacks(tmp_path: Path) -> None:
    held = {"format": "x", "scenarios": [f"crm/s{i}@1" for i in range(9)]}
    RunFolder(tmp_path, held)
    here = {"format": "x", "scenarios": [*held["scenarios"][1:], "crm/new@1"]}
    with pytest.raises(UsageError, match=r"scenarios: 1 there only \['crm/s0@1'\], 1 here only \['crm/new@1'\]"):
        RunFolder(tmp_path, here)


async def test_a_folder_another_run_is_using_is_refused(builtin_env: Environment, tmp_path: Path) -> None:
    plan = plan_evaluation(builtin_env, EvalConfig(agent="noop", pattern=CRM, seeds=[0], trials=1))
    with (tmp_path / ".lock").open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(UsageError, match="another saas-sim eval is running"):
            await run_evaluation(builtin_env, plan, tmp_path)
    assert not (tmp_path / "results.jsonl").exists()
    assert len(await run_evaluation(builtin_env, plan, tmp_path)) == 1  # free again once released


def test_results_without_a_run_file_are_refused(tmp_path: Path) -> None:
    (tmp_path / "results.jsonl").write_text("{}\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"no run\.json"):
        RunFolder(tmp_path, {"format": "x"})


def test_a_last_line_cut_short_is_dropped(tmp_path: Path) -> None:
    identity = {"format": "x"}
    RunFolder(tmp_path, identity)
    row = EpisodeResult("crm/a@1", 0, 0, "noop", 0.0, 0.0, {"goal": 0.0}, [], "agent_failure", 0)
    full = json.dumps(row.to_json()) + "\n"
    (tmp_path / "results.jsonl").write_text(full + full[:30], encoding="utf-8")
    folder = RunFolder(tmp_path, identity)
    assert folder.results == [row]
    assert (tmp_path / "results.jsonl").read_text(encoding="utf-8") == full


async def test_plans_refuse_what_cannot_run(builtin_env: Environment) -> None:
    with pytest.raises(UsageError, match="no scenario matches"):
        plan_evaluation(builtin_env, EvalConfig(agent="oracle", pattern="nothing/*", seeds=[0], trials=1))
    with pytest.raises(UsageError, match="has no hack 'nope'"):
        plan_evaluation(builtin_env, EvalConfig(agent="hack:nope", pattern="crm/*", seeds=[0], trials=1))
    with pytest.raises(UsageError, match="unknown agent"):
        plan_evaluation(builtin_env, EvalConfig(agent="wizard", pattern="crm/*", seeds=[0], trials=1))
    with pytest.raises(UsageError, match="at least one seed"):
        plan_evaluation(builtin_env, EvalConfig(agent="oracle", pattern="crm/*", seeds=[], trials=1))


async def test_the_default_folder_follows_the_arguments(builtin_env: Environment) -> None:
    def folder(trials: int) -> Path:
        config = EvalConfig(agent="random:1", pattern="crm/*", seeds=[0], trials=trials)
        return default_out_dir(plan_evaluation(builtin_env, config))

    assert folder(2) == folder(2) != folder(3)
    assert folder(2).name.startswith("random-1-")


async def test_a_harness_error_is_recorded_as_an_invalid_episode(
    builtin_env: Environment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(self: Episode, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the harness broke")

    monkeypatch.setattr(Episode, "_run", broken)
    plan = plan_evaluation(builtin_env, EvalConfig(agent="oracle", pattern=CRM, seeds=[0], trials=1))
    [r] = await run_evaluation(builtin_env, plan, tmp_path)
    assert r.attribution == "harness_error" and r.score is None and not r.valid
    assert r.error is not None and "the harness broke" in r.error
    report = build_report(plan, [r])
    assert report["environment"] == {"harness_errors": 1, "verifier_errors": 0, "episodes": 1,
                                     "failure_rate": 1.0, "level": "harness"}
    assert report["overall"]["mean_score"] is None and report["overall"]["valid"] == 0


async def test_an_llm_agent_is_evaluated_through_its_endpoint_with_a_seed_per_trial(
    builtin_env: Environment, tmp_path: Path
) -> None:
    pytest.importorskip("openai")
    from saas_sim.testing.openai_stub import Reply, StubServer

    async with StubServer(lambda body: Reply(content="Nothing to do here.")) as stub:
        config = EvalConfig(agent="openai:stub?seed=1&max_retries=0", pattern=CRM, seeds=[0],
                            trials=2, base_url=stub.base_url)
        plan = plan_evaluation(builtin_env, config)
        results = await run_evaluation(builtin_env, plan, tmp_path)
    assert plan.identity["base_url"] == stub.base_url
    assert [r.score for r in results] == [0.0, 0.0]
    assert len({body["seed"] for body in stub.requests}) == 2  # each trial asked for its own seed
    assert all(r.usage and r.usage["total_tokens"] > 0 for r in results)
    report = build_report(plan, results)
    assert report["usage"]["total_tokens"] == sum((r.usage or {})["total_tokens"] for r in results)
