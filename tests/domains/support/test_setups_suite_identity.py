"""The support desk's cross-app identity setups: candidates, and the genuine and impostor's change requests."""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.core.state import State
from saas_sim.domains.support import setups_suite_identity as si
from saas_sim.domains.support.state import CUSTOMERS, MESSAGES, ORDERS, PROJECTION, TICKETS
from saas_sim.errors import ScenarioError
from tests.domains.suite_world import run_setup, suite_state


@pytest.fixture(scope="module")
def suite() -> State:
    return suite_state()


def _params(state: State) -> dict[str, Any]:
    ids = run_setup(si.email_change_candidates, state, 1, {}).bindings["candidates"]
    return {"contact_id": ids[0], "name": "Ada Lovelace", "company": "Analytical Ltd", "phone": "+1 555 100 2000",
            "new_email": "ada.1@mailbox.example", "victim_id": ids[1], "victim_name": "Bob Byron",
            "victim_company": "Byron plc", "impostor_email": "bob.2@post.example", "impostor_phone": "+1 555 300 4000"}


def test_candidates_are_crm_contacts_the_desk_knows_with_orders(suite: State) -> None:
    ids = run_setup(si.email_change_candidates, suite, 0, {}).bindings["candidates"]
    with_orders = {o.customer_id for o in suite.table(ORDERS)}
    known = {c.crm_contact_id for c in suite.table(CUSTOMERS) if c.crm_contact_id and c.id in with_orders}
    assert set(ids) == known
    assert ids != run_setup(si.email_change_candidates, suite, 1, {}).bindings["candidates"]


def test_the_genuine_ticket_quotes_their_own_order_and_the_impostors_someone_elses(suite: State) -> None:
    params = _params(suite)
    out = run_setup(si.email_change_tickets, suite, 3, params)
    state = PROJECTION.fold(suite, out.events)
    b = out.bindings
    owner = {o.number: o.customer_id for o in state.table(ORDERS)}
    people = {c.crm_contact_id: c.id for c in suite.table(CUSTOMERS) if c.crm_contact_id}
    assert owner[b["order_number"]] == people[params["contact_id"]]
    assert owner[b["impostor_order_number"]] not in (people[params["contact_id"]], people[params["victim_id"]])
    assert b["impostor_order_number"] not in b["victim_orders"]
    for key, email, phone, number in (("ticket", "ada.1@mailbox.example", "+1 555 100 2000", b["order_number"]),
                                      ("impostor_ticket", "bob.2@post.example", "+1 555 300 4000",
                                       b["impostor_order_number"])):
        ticket = state.get(TICKETS, b[key]["id"])
        assert ticket is not None and ticket.requester_email == email
        requester = state.get(CUSTOMERS, ticket.requester_id)
        assert requester is not None and requester.crm_contact_id is None
        assert not [o for o in state.table(ORDERS) if o.customer_id == requester.id]
        body = next(m.body for m in state.table(MESSAGES) if m.ticket_id == ticket.id)
        assert email in body and phone in body and number in body


def test_an_unknown_contact_is_a_scenario_error(suite: State) -> None:
    with pytest.raises(ScenarioError, match="known to the desk"):
        run_setup(si.email_change_tickets, suite, 0, {**_params(suite), "victim_id": "ct_nobody"})


def test_neither_the_listing_nor_the_id_order_says_which_request_is_genuine(suite: State) -> None:
    params = _params(suite)
    first_listed = first_by_id = 0
    for seed in range(40):
        b = run_setup(si.email_change_tickets, suite, seed, params).bindings
        ids = [b["ticket"]["id"], b["impostor_ticket"]["id"]]
        listed = b["tickets_listed"].split(" and ")
        assert listed == sorted(ids)
        first_listed += listed[0] == b["ticket"]["id"]
        first_by_id += min(ids) == b["ticket"]["id"]
    # Two tickets: the genuine one comes first about half the time, in the listing and by id.
    assert 10 <= first_listed <= 30 and 10 <= first_by_id <= 30
