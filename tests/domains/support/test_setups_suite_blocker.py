"""The bug-report setup stages the prospect's ticket quoting their amount, and other customers' how-to tickets."""

from __future__ import annotations

import pytest

from saas_sim.domains.support.setups_suite_blocker import bug_report_tickets
from saas_sim.domains.support.state import CUSTOMERS, MESSAGES, PROJECTION, TICKETS
from saas_sim.errors import ScenarioError
from tests.domains.suite_world import run_setup, suite_state


def _params(others: int = 1) -> dict[str, object]:
    state = suite_state()
    linked = sorted((c for c in state.table(CUSTOMERS) if c.crm_contact_id), key=lambda c: c.id)[0]
    return {"contact_id": linked.crm_contact_id, "name": linked.name, "first_name": linked.first_name,
            "email": linked.email, "dollars": "12345.05", "shown": "$12,345.5", "others": others}


@pytest.mark.parametrize("others", [1, 3])
def test_the_report_quotes_the_amount_and_the_other_tickets_are_other_customers(others: int) -> None:
    state = suite_state()
    params = _params(others)
    out = run_setup(bug_report_tickets, state, 0, params)
    after = PROJECTION.fold(state, out.events)
    b = out.bindings
    ticket = after.get(TICKETS, b["ticket"]["id"])
    assert ticket is not None
    body = " ".join(m.body for m in after.table(MESSAGES) if m.ticket_id == ticket.id)
    assert "12345.05" in body and "$12,345.5" in body
    customer = after.get(CUSTOMERS, b["customer"]["id"])
    assert customer is not None and customer.crm_contact_id == params["contact_id"]
    assert len(b["other_ticket_ids"]) == others and b["other_ticket"]["id"] == b["other_ticket_ids"][0]
    for tid in b["other_ticket_ids"]:
        other = after.get(TICKETS, tid)
        assert other is not None and other.status == "open" and other.requester_id != customer.id


def test_more_other_tickets_than_staged_kinds_is_a_scenario_error() -> None:
    with pytest.raises(ScenarioError, match="others"):
        run_setup(bug_report_tickets, suite_state(), 0, _params(4))
