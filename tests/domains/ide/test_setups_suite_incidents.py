"""The IDE's cross-app incident setup: the SLA code's VIP target for a priority, and a stale figure beside it."""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.core.domain import Setup
from saas_sim.core.state import State
from saas_sim.domains.ide import setups_suite_incidents as si
from saas_sim.domains.ide.gen_reference import load_namespace
from saas_sim.domains.ide.workspace import file_text
from saas_sim.errors import ScenarioError
from tests.domains.suite_world import run_setup, suite_state


@pytest.fixture(scope="module")
def suite() -> State:
    return suite_state()


def _run(state: State, seed: int, **params: Any) -> Setup:
    return run_setup(si.code_sla_target, state, seed, params)


@pytest.mark.parametrize("priority", ["urgent", "high", "normal", "low"])
def test_the_vip_target_is_what_the_code_returns_and_the_stale_figure_differs(suite: State, priority: str) -> None:
    sla = _run(suite, 1, priority=priority).bindings["sla"]
    ns = load_namespace(file_text(suite, si.SLA_PATH) or "")
    assert sla["vip_minutes"] == ns["target_minutes"](priority, True)
    assert sla["standard_minutes"] == ns["target_minutes"](priority, False)
    assert sla["stale_minutes"] != sla["vip_minutes"] and sla["stale_pct"] != sla["vip_pct"]


def test_the_seed_draws_the_priority(suite: State) -> None:
    assert len({_run(suite, s).bindings["sla"]["priority"] for s in range(8)}) > 1


def test_an_unknown_priority_is_a_scenario_error(suite: State) -> None:
    with pytest.raises(ScenarioError):
        _run(suite, 0, priority="critical")


def test_hours_are_given_only_when_they_are_a_short_decimal() -> None:
    assert si._hours(90) == "1.5" and si._hours(864) == "14.4" and si._hours(100) is None


def test_decoys_stage_attic_copies_with_the_stale_factor_and_zero_stages_nothing(suite: State) -> None:
    from saas_sim.domains.ide.events import BaseMarked, BlobStored, FileWritten

    plain, decoyed = _run(suite, 2), _run(suite, 2, decoys=2)
    assert plain.events == [] and plain.bindings == decoyed.bindings
    written = sorted(e.path for e in decoyed.events if isinstance(e, FileWritten))
    assert written == [f"attic/v1/{si.SLA_PATH}", f"attic/v2/{si.SLA_PATH}"]
    assert isinstance(decoyed.events[-1], BaseMarked)
    stale_pct = decoyed.bindings["sla"]["stale_pct"]
    blobs = [e.text for e in decoyed.events if isinstance(e, BlobStored)]
    assert len(blobs) == 1 and f"VIP_FACTOR_PCT = {stale_pct}\n" in blobs[0].replace("  #", "\n#")
    assert blobs[0] != file_text(suite, si.SLA_PATH)
