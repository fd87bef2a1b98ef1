"""The support desk's cross-app account setup: a CRM contact's company threatens to cancel."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from saas_sim.core.domain import Setup
from saas_sim.core.state import State
from saas_sim.domains.support import setups_suite_accounts as sa
from saas_sim.domains.support.state import CUSTOMERS, MESSAGES, PROJECTION, TICKETS, TRUTHS
from tests.domains.suite_world import EPOCH, run_setup, suite_state


@pytest.fixture(scope="module")
def suite() -> State:
    return suite_state()


def _run(state: State, seed: int, contact_id: str) -> tuple[State, Setup]:
    params: dict[str, Any] = {"contact_id": contact_id, "name": "Dana Whitfield", "first_name": "Dana",
                              "email": "dana.whitfield@example.com", "company": "Umbrella Works",
                              "owner_name": "Olivia Myers"}
    out = run_setup(sa.cancel_threat_ticket, state, seed, params)
    return PROJECTION.fold(state, out.events), out


def test_the_linked_customer_writes_that_their_company_will_cancel(suite: State) -> None:
    linked = next(c for c in suite.table(CUSTOMERS) if c.crm_contact_id)
    state, out = _run(suite, 1, linked.crm_contact_id or "")
    b = out.bindings
    ticket = state.get(TICKETS, b["ticket"]["id"])
    assert ticket is not None and ticket.requester_id == linked.id == b["customer"]["id"]
    body = next(m.body for m in state.table(MESSAGES) if m.ticket_id == ticket.id)
    assert "Umbrella Works" in body
    truth = state.get(TRUTHS, ticket.id)
    assert truth is not None and truth.team == "management" and truth.resolution == "escalate"
    assert "Olivia Myers" in b["reply"] and "Olivia Myers" in b["reply_short"]
    due, due_by = (datetime.fromisoformat(b[k].replace("Z", "+00:00")) for k in ("task_due", "task_due_by"))
    assert EPOCH < due <= due_by == ticket.created_at + timedelta(hours=sa.TASK_DUE_HOURS)


def test_a_contact_the_desk_does_not_know_is_filed_as_a_linked_customer(suite: State) -> None:
    state, out = _run(suite, 2, "ct_999999")
    customer = state.get(CUSTOMERS, out.bindings["customer"]["id"])
    assert suite.get(CUSTOMERS, out.bindings["customer"]["id"]) is None
    assert customer is not None and customer.crm_contact_id == "ct_999999"
    assert customer.email == "dana.whitfield@example.com"


def test_the_seed_moves_the_ticket_id(suite: State) -> None:
    linked = next(c for c in suite.table(CUSTOMERS) if c.crm_contact_id)
    assert len({_run(suite, s, linked.crm_contact_id or "")[1].bindings["ticket"]["id"] for s in range(5)}) > 2
