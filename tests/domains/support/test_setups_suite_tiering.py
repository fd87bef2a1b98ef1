"""The support desk's cross-app tiering setup: two new general-queue tickets from standard-tier CRM contacts."""

from __future__ import annotations

import re
from typing import Any

import pytest

from saas_sim.core.domain import Setup
from saas_sim.core.state import State
from saas_sim.domains.support import setups_suite_tiering as st
from saas_sim.domains.support.models import ACTIVE_STATUSES
from saas_sim.domains.support.state import AGENTS, CUSTOMERS, PROJECTION, TICKETS
from saas_sim.errors import ScenarioError
from tests.domains.suite_world import run_setup, suite_state


@pytest.fixture(scope="module")
def suite() -> State:
    return suite_state()


def _params(vip: str, small: str) -> dict[str, Any]:
    return {"vip_contact_id": vip, "vip_name": "Dana Whitfield", "vip_first_name": "Dana",
            "vip_email": "dana.whitfield@example.com", "small_contact_id": small, "small_name": "Sam Ortiz",
            "small_first_name": "Sam", "small_email": "sam.ortiz@example.com"}


def _run(state: State, seed: int, vip: str, small: str) -> tuple[State, Setup]:
    out = run_setup(st.tiering_tickets, state, seed, _params(vip, small))
    return PROJECTION.fold(state, out.events), out


def _linked(state: State, tier: str) -> str:
    return next(c.crm_contact_id or "" for c in state.table(CUSTOMERS) if c.crm_contact_id and c.tier == tier)


def test_both_tickets_are_new_unrouted_and_from_the_linked_standard_customers(suite: State) -> None:
    vip, small = _linked(suite, "vip"), "ct_999999"
    state, out = _run(suite, 1, vip, small)
    b = out.bindings
    for tkey, ckey, contact in (("ticket", "customer", vip), ("small_ticket", "small_customer", small)):
        ticket = state.get(TICKETS, b[tkey]["id"])
        customer = state.get(CUSTOMERS, b[ckey]["id"])
        assert ticket is not None and customer is not None and ticket.requester_id == customer.id
        assert (ticket.status, ticket.group, ticket.assignee_id, ticket.priority) == ("new", "general", None, "normal")
        assert customer.crm_contact_id == contact and customer.tier == "standard"
    assert b["ticket"]["id"] != b["small_ticket"]["id"]


def test_the_bound_agent_is_the_least_loaded_vip_agent(suite: State) -> None:
    for seed in range(4):
        state, out = _run(suite, seed, "ct_999998", "ct_999999")
        load = {a.id: 0 for a in state.table(AGENTS) if "vip" in a.groups}
        for t in state.table(TICKETS):
            if t.assignee_id in load and t.status in ACTIVE_STATUSES:
                load[t.assignee_id] += 1
        assert out.bindings["agent"]["id"] == min(load, key=lambda a: (load[a], a))


def test_the_seed_moves_the_tickets_and_the_agent(suite: State) -> None:
    outs = [_run(suite, s, "ct_999998", "ct_999999")[1].bindings for s in range(8)]
    assert len({o["ticket"]["id"] for o in outs}) > 2
    assert len({o["agent"]["id"] for o in outs}) > 1


def test_one_support_customer_for_both_contacts_is_a_scenario_error(suite: State) -> None:
    vip = _linked(suite, "vip")
    with pytest.raises(ScenarioError):
        _run(suite, 1, vip, vip)


def test_neither_the_listing_the_id_order_nor_the_subject_says_which_ticket_is_the_vips(suite: State) -> None:
    vip, small = _linked(suite, "vip"), "ct_999999"
    first_listed = first_by_id = export_subject = 0
    for seed in range(40):
        b = run_setup(st.tiering_tickets, suite, seed, _params(vip, small)).bindings
        ids = [b["ticket"]["id"], b["small_ticket"]["id"]]
        listed = re.findall(r"tkt_\d+", b["tickets_listed"])
        assert listed == sorted(ids)
        assert f'{b["ticket"]["id"]} ("{b["ticket"]["subject"]}")' in b["tickets_listed"]
        first_listed += listed[0] == b["ticket"]["id"]
        first_by_id += min(ids) == b["ticket"]["id"]
        export_subject += b["ticket"]["subject"] == st._SUBJECTS[b["customer"]["language"]][0]
    assert 10 <= first_listed <= 30 and 10 <= first_by_id <= 30
    assert 10 <= export_subject <= 30
