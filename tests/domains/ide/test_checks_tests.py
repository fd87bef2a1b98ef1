"""Fail-to-pass and pass-to-pass checks over the grading run's outcome."""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.core.effects import EffectOutcome
from saas_sim.domains.ide.checks_tests import HIDDEN_RUN, fail_to_pass, pass_to_pass
from saas_sim.domains.ide.setups_bugfix import inject_bugs
from saas_sim.errors import HarnessError
from tests.domains.ide.tasks import check_ctx, staged

STATE, SETUP, TASK = staged(inject_bugs, 3, {})


def _run(tests: dict[str, str], **extra: Any) -> dict[str, EffectOutcome]:
    value: dict[str, Any] = {"status": "failed", "tests": tests, "tamper": [], "sandbox": "bwrap", "profile": "p"}
    value.update(extra)
    return {HIDDEN_RUN: EffectOutcome(status="ok", value=value)}


def _all(outcome: str, ids: list[str]) -> dict[str, str]:
    return dict.fromkeys(ids, outcome)


def test_fail_to_pass_is_the_fraction_passing() -> None:
    half = TASK.fail_to_pass[: len(TASK.fail_to_pass) // 2]
    tests = {**_all("failed", TASK.fail_to_pass), **_all("passed", half)}
    out = fail_to_pass(check_ctx(STATE, STATE, _run(tests)))
    assert out.score == pytest.approx(len(half) / len(TASK.fail_to_pass))
    assert "still failing" in out.detail


def test_missing_and_skipped_fail_to_pass_tests_count_as_failed() -> None:
    tests = {**_all("skipped", TASK.fail_to_pass[1:])}
    assert fail_to_pass(check_ctx(STATE, STATE, _run(tests))).score == 0.0


def test_a_tampered_timed_out_or_limited_run_passes_nothing() -> None:
    green = _all("passed", [*TASK.fail_to_pass, *TASK.pass_to_pass])
    for effects in (_run(green, tamper=["patched: TestReport"]), _run(green, status="timeout"),
                    _run(green, status="resource_limit", limit="memory"),
                    {HIDDEN_RUN: EffectOutcome.timeout(30.0)}):
        ctx = check_ctx(STATE, STATE, effects)
        assert fail_to_pass(ctx).score == 0.0
        assert pass_to_pass(ctx).score == 0.0


def test_full_credit_when_everything_passes() -> None:
    ctx = check_ctx(STATE, STATE, _run(_all("passed", [*TASK.fail_to_pass, *TASK.pass_to_pass]), status="ok"))
    assert fail_to_pass(ctx).score == 1.0
    assert pass_to_pass(ctx).score == 1.0


def test_pass_to_pass_is_gated_by_progress_so_an_untouched_tree_earns_nothing() -> None:
    untouched = {**_all("failed", TASK.fail_to_pass), **_all("passed", TASK.pass_to_pass)}
    ctx = check_ctx(STATE, STATE, _run(untouched))
    assert pass_to_pass(ctx).score == 0.0
    assert pass_to_pass(ctx, gated=False).score == 1.0


def test_each_regression_costs_beyond_its_share() -> None:
    broken = TASK.pass_to_pass[:2]
    tests = {**_all("passed", [*TASK.fail_to_pass, *TASK.pass_to_pass]), **_all("failed", broken)}
    out = pass_to_pass(check_ctx(STATE, STATE, _run(tests)), regression_cost=0.25)
    n = len(TASK.pass_to_pass)
    assert out.score == pytest.approx(max(0.0, (n - 2) / n - 0.5))
    assert "broken" in out.detail


def test_no_grading_run_is_a_loud_harness_error() -> None:
    with pytest.raises(HarnessError, match=r"no ide\.hidden_tests"):
        fail_to_pass(check_ctx(STATE, STATE, {}))


def test_a_grade_under_a_weaker_sandbox_says_so_and_bubblewrap_says_nothing() -> None:
    from saas_sim.domains.ide.checks_tests import HiddenRun

    assert HiddenRun({}, "", [], "bwrap").weaker == ""
    assert HiddenRun({}, "", [], "unshare").weaker == " (graded in the weaker unshare sandbox)"
    assert "rlimits" in HiddenRun({}, "", [], "rlimits").weaker
