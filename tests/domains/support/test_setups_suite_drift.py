"""The support desk's name-drift setup: a CRM contact's ticket naming their company by its old name."""

from __future__ import annotations

import pytest

from saas_sim.core.state import State
from saas_sim.domains.support import setups_suite_drift as sd
from saas_sim.domains.support.state import CUSTOMERS, MESSAGES, PROJECTION, TICKETS
from tests.domains.suite_world import run_setup, suite_state


@pytest.fixture(scope="module")
def suite() -> State:
    return suite_state()


def _params(contact_id: str) -> dict[str, str]:
    return {"contact_id": contact_id, "name": "Ada Lovelace", "first_name": "Ada", "email": "ada@old.example",
            "old_name": "Analytical Engines Ltd", "account_name": "Northwind Labs"}


def test_the_known_customer_writes_the_old_name(suite: State) -> None:
    known = next(c for c in sorted(suite.table(CUSTOMERS), key=lambda c: c.id) if c.crm_contact_id)
    out = run_setup(sd.old_name_ticket, suite, 2, _params(str(known.crm_contact_id)))
    state = PROJECTION.fold(suite, out.events)
    ticket = state.get(TICKETS, out.bindings["ticket"]["id"])
    assert ticket is not None and ticket.requester_id == known.id
    body = next(m.body for m in state.table(MESSAGES) if m.ticket_id == ticket.id)
    assert "Analytical Engines Ltd" in body
    assert "Northwind Labs" in out.bindings["reply"]


def test_an_unknown_contact_gets_a_desk_record_carrying_the_old_name(suite: State) -> None:
    out = run_setup(sd.old_name_ticket, suite, 3, _params("ct_unknown"))
    state = PROJECTION.fold(suite, out.events)
    customer = state.get(CUSTOMERS, out.bindings["customer"]["id"])
    assert customer is not None and customer.crm_contact_id == "ct_unknown"
    assert customer.company == "Analytical Engines Ltd"
