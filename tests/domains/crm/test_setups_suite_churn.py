"""The CRM's cross-app churn setup: the plan of escalations per contact, account by account."""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.core.domain import Setup
from saas_sim.core.state import State
from saas_sim.domains.crm import setups_suite_churn as sc
from saas_sim.domains.crm.state import CONTACTS, DEALS
from saas_sim.errors import ScenarioError
from tests.domains.suite_world import run_setup, suite_state


@pytest.fixture(scope="module")
def suite() -> State:
    return suite_state()


def _run(state: State, seed: int, **params: Any) -> Setup:
    return run_setup(sc.churn_review, state, seed, params)


def _account(state: State, contact_id: str) -> str | None:
    contact = state.get(CONTACTS, contact_id)
    return contact.account_id if contact else None


@pytest.mark.parametrize("threshold", [2, 3])
def test_risk_accounts_reach_the_threshold_only_together_or_through_one_person(suite: State, threshold: int) -> None:
    b = _run(suite, 1, threshold=threshold, distractors=4).bindings
    plan = b["plan"]
    one = plan[:threshold]
    assert {_account(suite, e["contact_id"]) for e in one} == {b["risk_one"]["id"]}
    assert len({e["contact_id"] for e in one}) == threshold and all(e["open"] == 1 for e in one)
    assert _account(suite, plan[threshold]["contact_id"]) == b["risk_two"]["id"]
    assert plan[threshold]["open"] == threshold
    assert len(b["risk_deal_ids"]) == 3 and len(b["risk_two"]["deals"]) == 2


def test_distractor_accounts_stay_under_the_threshold_or_have_only_closed_deals(suite: State) -> None:
    b = _run(suite, 2, threshold=2, distractors=4).bindings
    rest = b["plan"][3:]
    assert [e["open"] for e in rest] == [1, 2, 1, 0]
    closed_only = _account(suite, rest[1]["contact_id"])
    deals = [d for d in suite.table(DEALS) if d.account_id == closed_only]
    assert deals and all(d.stage in sc.CLOSED_STAGES for d in deals)
    accounts = [_account(suite, e["contact_id"]) for e in rest]
    assert len(set(accounts)) == 4 and not set(accounts) & {b["risk_one"]["id"], b["risk_two"]["id"]}


def test_the_seed_moves_the_risk_accounts(suite: State) -> None:
    assert len({tuple(_run(suite, s).bindings["risk_deal_ids"]) for s in range(5)}) > 2


def test_a_threshold_out_of_range_is_a_scenario_error(suite: State) -> None:
    with pytest.raises(ScenarioError):
        _run(suite, 0, threshold=1)
