"""Scenario files: numbers that would poison grades or crash every episode."""

from __future__ import annotations

from pathlib import Path

import pytest

from saas_sim.errors import ScenarioFileError
from tests.runtime.conftest import GOOD_SCENARIO, env_with_scenario


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        # Bug: `weight: .inf` passed `gt=0`; the weighted mean was then inf/inf or inf*0 = NaN, a
        # *valid* grade whose reward was NaN.
        ("weight: 2", "weight: .inf", "checks.0.weight"),
        # Bug: `sim_time_s: .inf` (or a huge number) passed `gt=0`, then every `env.start` of the
        # scenario crashed with OverflowError computing the deadline.
        ("limits: {max_steps: 20, sim_time_s: 3600}", "limits: {max_steps: 20, sim_time_s: .inf}", "limits.sim_time_s"),
        ("limits: {max_steps: 20, sim_time_s: 3600}", "limits: {max_steps: 20, sim_time_s: 1.0e+30}",
         "limits.sim_time_s"),
        # Bug: an infinite retry-after turned every injected 429 into an OverflowError (a harness error).
        ("noop_score: 0.25", "noop_score: 0.25\nfaults: {retry_after_s: .inf}", "faults.retry_after_s"),
    ],
)
def test_non_finite_or_overflowing_numbers_are_refused_on_load(tmp_path: Path, old: str, new: str,
                                                                field: str) -> None:
    assert old in GOOD_SCENARIO
    with pytest.raises(ScenarioFileError) as info:
        env_with_scenario(tmp_path, GOOD_SCENARIO.replace(old, new, 1))
    assert "x.yaml" in str(info.value) and repr(field) in str(info.value)


async def test_a_long_but_finite_time_budget_still_starts(tmp_path: Path) -> None:
    text = GOOD_SCENARIO.replace("sim_time_s: 3600", "sim_time_s: 315360000")  # ten years
    async with env_with_scenario(tmp_path, text) as env:
        ep = await env.start("notes/archive-and-follow-up", 0)
        assert (await ep.call("notes.list_notes", {})).ok
