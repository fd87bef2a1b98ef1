"""support.downgrade_ticket: the up-front contract charge, the downgrade date, and the customer's estimate."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest

from saas_sim.core.state import State
from saas_sim.domains.support.setups_suite_proration import downgrade_ticket, months_before
from saas_sim.domains.support.state import MESSAGES, ORDERS, PROJECTION, TICKETS
from saas_sim.errors import ScenarioError
from tests.domains.suite_world import EPOCH, run_setup, suite_state

PLAN: dict[str, Any] = {"old_seats": 38, "new_seats": 35, "elapsed": 18, "paid": "73872.00", "refund": "534.00",
                        "guess": "1425.60"}


@pytest.fixture(scope="module")
def state() -> State:
    return suite_state()


def test_months_before_keeps_the_day_across_years() -> None:
    assert months_before(date(2026, 2, 27), 18) == date(2024, 8, 27)
    assert months_before(date(2026, 3, 1), 3) == date(2025, 12, 1)


@pytest.mark.parametrize("invoices", [0, 1, 3])
def test_the_contract_charge_is_the_price_paid_and_the_ticket_gives_the_date(state: State, invoices: int) -> None:
    out = run_setup(downgrade_ticket, state, 3, {**PLAN, "invoices": invoices})
    after = PROJECTION.fold(state, out.events)
    b = out.bindings
    order = after.get(ORDERS, b["order"]["id"])
    assert order is not None and order.total == Decimal("73872.00") and order.customer_id == b["customer"]["id"]
    assert "seats" not in order.lines[0].name  # the contract's terms are the CRM deal's
    start, effective = date.fromisoformat(b["start"]), date.fromisoformat(b["downgrade_date"])
    assert months_before(effective, 18) == start and order.placed_at.date() == start
    assert (EPOCH.date() - effective).days in range(1, 40)
    ticket = after.get(TICKETS, b["ticket"]["id"])
    assert ticket is not None and b["customer"]["crm_contact_id"]
    text = " ".join(m.body for m in after.table(MESSAGES) if m.ticket_id == ticket.id)
    assert b["downgrade_text"].split(",")[0] in text and "1425.60" in text
    assert b["refund"] == "534.00" and "534.00" in b["refund_reply"]
    earlier = [o for o in after.table(ORDERS) if o.customer_id == order.customer_id and state.get(ORDERS, o.id) is None]
    assert len(earlier) == invoices + 1


def test_the_seed_moves_the_customer(state: State) -> None:
    assert len({run_setup(downgrade_ticket, state, s, PLAN).bindings["customer"]["id"] for s in range(6)}) > 2


def test_an_upgrade_is_refused(state: State) -> None:
    with pytest.raises(ScenarioError):
        run_setup(downgrade_ticket, state, 0, {**PLAN, "new_seats": 40})
