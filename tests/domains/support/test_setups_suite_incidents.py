"""The support desk's cross-app incident setup: a VIP asks for an SLA target; the help centre is stale."""

from __future__ import annotations

import pytest

from saas_sim.core.domain import Setup
from saas_sim.core.state import State
from saas_sim.domains.support import setups_suite_incidents as si
from saas_sim.domains.support.state import CUSTOMERS, KB_ARTICLES, MESSAGES, PROJECTION, TICKETS
from tests.domains.suite_world import run_setup, suite_state

PARAMS = {"priority": "low", "stale_pct": 50, "stale_minutes": 720, "vip_minutes": 1080}


@pytest.fixture(scope="module")
def suite() -> State:
    return suite_state()


def _run(state: State, seed: int) -> tuple[State, Setup]:
    out = run_setup(si.sla_question, state, seed, PARAMS)
    return PROJECTION.fold(state, out.events), out


def test_a_vip_asks_and_the_article_states_the_stale_figure(suite: State) -> None:
    state, out = _run(suite, 3)
    b = out.bindings
    ticket = state.get(TICKETS, b["ticket"]["id"])
    customer = state.get(CUSTOMERS, b["customer"]["id"])
    assert ticket is not None and customer is not None and customer.tier == "vip"
    body = next(m.body for m in state.table(MESSAGES) if m.ticket_id == ticket.id)
    assert "low-priority" in body and "720" in body
    article = state.get(KB_ARTICLES, b["article"]["id"])
    assert article is not None and "720 minutes" in article.body and "50%" in article.body
    assert "1080 minutes" in b["reply"] and "720" not in b["reply"]


def test_the_seed_moves_the_ticket_and_the_article(suite: State) -> None:
    assert len({(_run(suite, s)[1].bindings["ticket"]["id"], _run(suite, s)[1].bindings["article"]["id"])
                for s in range(4)}) > 2
