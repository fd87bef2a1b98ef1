"""The support desk's cross-app churn setup: open and solved escalated tickets of the plan's CRM contacts."""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.core.domain import Setup
from saas_sim.core.state import State
from saas_sim.domains.support import setups_suite_churn as sc
from saas_sim.domains.support.state import CUSTOMERS, ESCALATIONS, PROJECTION, TICKETS
from saas_sim.errors import ScenarioError
from tests.domains.suite_world import run_setup, suite_state


@pytest.fixture(scope="module")
def suite() -> State:
    return suite_state()


def _run(state: State, plan: list[dict[str, Any]], seed: int = 0) -> tuple[State, Setup]:
    out = run_setup(sc.escalation_history, state, seed, {"plan": plan})
    return PROJECTION.fold(state, out.events), out


def _entry(contact_id: str, n_open: int, solved: int) -> dict[str, Any]:
    return {"contact_id": contact_id, "name": "Dana Whitfield", "first_name": "Dana",
            "email": "dana.whitfield@example.com", "open": n_open, "solved": solved}


def test_each_entry_gets_its_open_and_solved_escalated_tickets(suite: State) -> None:
    linked = next(c for c in suite.table(CUSTOMERS) if c.crm_contact_id)
    cid = linked.crm_contact_id or ""
    state, out = _run(suite, [_entry(cid, 2, 1), _entry("ct_999999", 1, 0)])
    b = out.bindings
    assert [len(x) for x in b["escalated"]] == [2, 1]
    assert b["open_escalations"][cid] == b["escalated"][0] and len(b["solved_escalations"][cid]) == 1
    for tid in b["escalated"][0]:
        ticket = state.get(TICKETS, tid)
        assert ticket is not None and ticket.status == "on-hold" and ticket.requester_id == linked.id
        assert "escalated_management" in ticket.tags
    solved = state.get(TICKETS, b["solved_escalations"][cid][0])
    assert solved is not None and solved.status == "solved"
    filed = state.get(TICKETS, b["escalated"][1][0])
    new = state.get(CUSTOMERS, filed.requester_id) if filed else None
    assert new is not None and new.crm_contact_id == "ct_999999"
    assert {e.ticket_id for e in state.table(ESCALATIONS)} >= set(b["escalated"][0])


def test_existing_escalations_to_the_team_are_a_scenario_error(suite: State) -> None:
    linked = next(c for c in suite.table(CUSTOMERS) if c.crm_contact_id)
    state, _ = _run(suite, [_entry(linked.crm_contact_id or "", 1, 0)])
    with pytest.raises(ScenarioError):
        _run(state, [_entry(linked.crm_contact_id or "", 1, 0)])


def test_the_first_plan_entrys_tickets_are_not_always_the_lowest_ids(suite: State) -> None:
    plan = [_entry("ct_999991", 2, 0), _entry("ct_999992", 1, 1), _entry("ct_999993", 1, 0)]
    lowest_is_first_entry = 0
    for seed in range(40):
        b = run_setup(sc.escalation_history, suite, seed, {"plan": plan}).bindings
        every = [t for ids in (*b["open_escalations"].values(), *b["solved_escalations"].values()) for t in ids]
        lowest_is_first_entry += min(every) in b["escalated"][0]
    # Two of five tickets belong to the first entry: the lowest id is theirs about 2 times in 5.
    assert 6 <= lowest_is_first_entry <= 28
