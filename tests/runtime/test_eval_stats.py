"""Evaluation statistics: pass^k, the bootstrap interval and the run summary, against hand-computed values."""

from __future__ import annotations

from itertools import pairwise
from math import isclose

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from saas_sim.runtime.eval_stats import EpisodeResult, bootstrap_ci, env_failure_level, pass_hat_k, summarize


def result(scenario: str, seed: int, trial: int, score: float | None, *, attribution: str | None = None,
           checks: dict[str, float] | None = None) -> EpisodeResult:
    if attribution is None:
        attribution = "success" if score is not None and score >= 1.0 else "agent_failure"
    return EpisodeResult(scenario=scenario, seed=seed, trial=trial, agent="oracle", score=score,
                         goal_score=score, checks=checks or {}, violations=[], attribution=attribution, steps=3)


class TestPassHatK:
    def test_one_task_matches_the_binomial_ratio(self) -> None:
        assert pass_hat_k([(4, 2)], 1) == 0.5
        assert isclose(pass_hat_k([(4, 2)], 2) or 0.0, 1 / 6)
        assert pass_hat_k([(4, 2)], 3) == 0.0

    def test_tasks_are_averaged(self) -> None:
        tasks = [(4, 4), (4, 2), (4, 0)]
        assert pass_hat_k(tasks, 1) == 0.5
        assert isclose(pass_hat_k(tasks, 2) or 0.0, 7 / 18)
        assert isclose(pass_hat_k(tasks, 3) or 0.0, 1 / 3)
        assert isclose(pass_hat_k(tasks, 4) or 0.0, 1 / 3)

    def test_tasks_with_fewer_than_k_trials_are_left_out(self) -> None:
        assert pass_hat_k([(2, 2), (4, 2)], 3) == 0.0
        assert pass_hat_k([(2, 2), (4, 2)], 5) is None

    def test_refuses_k_below_one_and_impossible_counts(self) -> None:
        with pytest.raises(ValueError, match="k must be"):
            pass_hat_k([(1, 1)], 0)
        with pytest.raises(ValueError, match="successes"):
            pass_hat_k([(2, 3)], 1)


tasks_strategy = st.lists(st.integers(1, 8).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
                          min_size=1, max_size=12)


@given(tasks_strategy)
def test_pass_hat_one_is_the_mean_success_rate_per_task(tasks: list[tuple[int, int]]) -> None:
    assert isclose(pass_hat_k(tasks, 1) or 0.0, sum(c / n for n, c in tasks) / len(tasks))


@given(st.integers(1, 6).flatmap(lambda n: st.lists(st.integers(0, n).map(lambda c: (n, c)), min_size=1,
                                                    max_size=10)))
def test_pass_hat_k_never_increases_with_k(tasks: list[tuple[int, int]]) -> None:
    n = tasks[0][0]
    values = [pass_hat_k(tasks, k) or 0.0 for k in range(1, n + 1)]
    assert all(b <= a + 1e-12 for a, b in pairwise(values))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30))
def test_bootstrap_interval_contains_the_mean(values: list[float]) -> None:
    ci = bootstrap_ci(values, resamples=200)
    assert ci is not None
    mean = sum(values) / len(values)
    assert ci[0] <= mean <= ci[1]
    assert 0.0 <= ci[0] <= ci[1] <= 1.0


class TestBootstrap:
    def test_constant_scores_give_a_point_interval(self) -> None:
        assert bootstrap_ci([0.5] * 7) == (0.5, 0.5)

    def test_no_scores_give_no_interval(self) -> None:
        assert bootstrap_ci([]) is None

    def test_is_seeded(self) -> None:
        values = [(i * 7 % 19) / 19 for i in range(19)]
        assert bootstrap_ci(values, resamples=200) == bootstrap_ci(values, resamples=200)
        assert bootstrap_ci(values, resamples=200, seed="other") != bootstrap_ci(values, resamples=200)

    def test_width_matches_the_normal_approximation(self) -> None:
        # 100 scores, half 0 and half 1: standard error 0.05, so about [0.40, 0.60] at 95%.
        low, high = bootstrap_ci([0.0, 1.0] * 50) or (0.0, 0.0)
        assert abs(low - 0.402) < 0.03 and abs(high - 0.598) < 0.03


@pytest.mark.parametrize(("rate", "level"), [(0.0, "ok"), (0.01, "ok"), (0.0101, "warning"), (0.05, "warning"),
                                             (0.0501, "harness"), (1.0, "harness")])
def test_environment_failure_level_has_its_two_thresholds(rate: float, level: str) -> None:
    assert env_failure_level(rate) == level


class TestSummarize:
    def rows(self) -> list[EpisodeResult]:
        return [
            result("crm/a@1", 0, 0, 1.0, checks={"goal": 1.0, "scope": 1.0}),
            result("crm/a@1", 0, 1, 0.5, checks={"goal": 0.5, "scope": 1.0}),
            result("crm/a@1", 1, 0, 1.0, checks={"goal": 1.0, "scope": 1.0}),
            result("crm/a@1", 1, 1, 0.0, checks={"goal": 1.0, "scope": 0.0}),
            result("support/b@2", 0, 0, 0.0, checks={"reply": 0.0}),
            result("support/b@2", 0, 1, None, attribution="harness_error"),
            result("support/b@2", 1, 0, 1.0, checks={"reply": 1.0}),
            result("support/b@2", 1, 1, None, attribution="verifier_error"),
        ]

    def test_figures_match_hand_computed_values(self) -> None:
        report = summarize(list(reversed(self.rows())), trials=2, resamples=300)
        overall = report["overall"]
        assert (overall["episodes"], overall["valid"]) == (8, 6)
        assert isclose(overall["mean_score"], 3.5 / 6)
        assert isclose(overall["mean_goal_score"], 3.5 / 6)  # the rows' goal score equals their score
        assert overall["pass_rate"] == 0.5
        # tasks (n, c): crm seed 0 (2, 1), crm seed 1 (2, 1), support seed 0 (1, 0), support seed 1 (1, 1).
        assert isclose(overall["pass_hat_k"]["1"], (0.5 + 0.5 + 0 + 1) / 4)
        assert overall["pass_hat_k"]["2"] == 0.0  # only the crm tasks have two valid trials
        assert report["per_domain"]["crm"]["pass_hat_k"]["1"] == 0.5
        assert report["per_scenario"]["support/b@2"]["scores"] == [0.0, 1.0]
        assert report["per_scenario"]["crm/a@1"]["checks"] == ["goal", "scope"]

    def test_counts_check_failures_attribution_and_environment_failures(self) -> None:
        report = summarize(self.rows(), trials=2, resamples=300)
        assert report["check_failures"] == {"crm/a@1": {"goal": 1, "scope": 1}, "support/b@2": {"reply": 1}}
        assert report["attribution"] == {"agent_failure": 3, "harness_error": 1, "success": 3,
                                         "verifier_error": 1}
        env = report["environment"]
        assert (env["harness_errors"], env["verifier_errors"], env["episodes"]) == (1, 1, 8)
        assert env["failure_rate"] == 0.25 and env["level"] == "harness"

    def test_threshold_decides_success(self) -> None:
        report = summarize(self.rows(), threshold=0.5, trials=2, resamples=300)
        assert isclose(report["overall"]["pass_rate"], 4 / 6)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0.0, 0.3, 1.0]), min_size=3, max_size=3), min_size=1, max_size=6))
def test_summary_pass_hat_one_equals_the_pass_rate_with_equal_trials(tasks: list[list[float]]) -> None:
    rows = [result("crm/a@1", seed, t, s) for seed, scores in enumerate(tasks) for t, s in enumerate(scores)]
    overall = summarize(rows, trials=3, resamples=50)["overall"]
    assert isclose(overall["pass_hat_k"]["1"], overall["pass_rate"])
    ks = [overall["pass_hat_k"][str(k)] for k in (1, 2, 3)]
    assert ks[0] >= ks[1] >= ks[2]


def test_results_round_trip_through_their_json_line() -> None:
    row = result("crm/a@1", 2, 3, 0.25, checks={"goal": 0.25})
    assert EpisodeResult.from_json({**row.to_json(), "added_later": 1}) == row


def test_llm_token_usage_is_summed() -> None:
    rows = [EpisodeResult("crm/a@1", seed, 0, "openai:m", 1.0, 1.0, {}, [], "success", 2,
                          usage={"prompt_tokens": 10 * (seed + 1), "total_tokens": 12 * (seed + 1)})
            for seed in range(3)]
    rows.append(result("crm/a@1", 9, 0, 0.0))
    assert summarize(rows, resamples=10)["usage"] == {"prompt_tokens": 60, "total_tokens": 72}
