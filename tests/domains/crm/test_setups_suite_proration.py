"""crm.downgrade_contract_deal: the contract's open deal on the customer's own account, other plans beside it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from saas_sim.core.state import State
from saas_sim.domains.crm.setups_suite_billing import plan_name
from saas_sim.domains.crm.setups_suite_proration import downgrade_contract_deal
from saas_sim.domains.crm.state import ACTIVITIES, CONTACTS, DEALS, PROJECTION
from saas_sim.errors import ScenarioError
from tests.domains.suite_world import run_setup, suite_state


@pytest.fixture(scope="module")
def state() -> State:
    return suite_state()


def _params(state: State, **more: Any) -> dict[str, Any]:
    contact = next(c for c in sorted(state.table(CONTACTS), key=lambda c: c.id) if c.account_id)
    return {"contact_id": contact.id, "old_seats": 38, "term": 24, "start": "2024-09-27", "paid": "73872.00", **more}


@pytest.mark.parametrize("others", [0, 1, 3])
def test_the_contract_deal_holds_seats_term_start_and_price(state: State, others: int) -> None:
    params = _params(state, other_deals=others)
    out = run_setup(downgrade_contract_deal, state, 2, params)
    after = PROJECTION.fold(state, out.events)
    b = out.bindings
    contact = state.get(CONTACTS, params["contact_id"])
    deal = after.get(DEALS, b["deal"]["id"])
    assert contact is not None and deal is not None
    assert deal.account_id == contact.account_id == b["crm_account"]["id"]
    assert deal.amount == Decimal("73872.00") and deal.stage not in ("closed_won", "closed_lost")
    assert deal.name == plan_name(b["crm_account"]["name"], 38, 24)
    notes = [a for a in after.table(ACTIVITIES) if a.deal_id == deal.id]
    assert any("September 27, 2024" in (a.body or "") and "$73,872.00" in (a.body or "") for a in notes)
    assert len(b["other_deal_ids"]) == others
    for other_id in b["other_deal_ids"]:
        other = after.get(DEALS, other_id)
        assert other is not None and other.account_id == deal.account_id and other.name != deal.name
    if not others:
        assert after.get(DEALS, b["other_deal"]["id"]).account_id != deal.account_id  # type: ignore[union-attr]


def test_a_contact_without_an_account_is_refused(state: State) -> None:
    with pytest.raises(ScenarioError):
        run_setup(downgrade_contract_deal, state, 0, _params(state, contact_id="nobody"))
