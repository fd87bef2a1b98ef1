"""The support desk's cross-app billing setup: a late fee charged by hand, disputed by a CRM-linked customer."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.ids import IdFactory
from saas_sim.core.state import State
from saas_sim.domains.support.setups_suite_billing import FEE_SKU, PLAN_SKU, late_fee_ticket
from saas_sim.domains.support.state import CUSTOMER_LINKS, CUSTOMERS, ORDERS, PROJECTION, TICKETS
from saas_sim.errors import ScenarioError
from saas_sim.runtime.world import build_world, load_profiles
from tests.domains.helpers import ROOT

FEE = {"balance": "1234.50", "days_late": 47, "fee": "61.72", "charged": "92.58"}
EPOCH = datetime(2026, 3, 2, 9, tzinfo=UTC)


@pytest.fixture(scope="module")
def suite() -> State:
    from saas_sim.domains import builtin_domains

    return build_world(load_profiles([ROOT / "seeds"])["suite-small"], 0, dict(builtin_domains())).state


def _run(state: State, seed: int, **params: Any) -> tuple[State, Setup]:
    out = late_fee_ticket(SetupContext(state=state, params=params, rng=random.Random(seed), now=EPOCH,
                                       ids=IdFactory(state.counters())))
    return PROJECTION.fold(state, out.events), out


@pytest.mark.parametrize("invoices", [0, 1, 3])
def test_the_fee_charge_records_the_facts_the_code_needs(suite: State, invoices: int) -> None:
    state, out = _run(suite, 5, **FEE, invoices=invoices)
    b = out.bindings
    order = state.get(ORDERS, b["order"]["id"])
    assert order is not None and order.total == Decimal("92.58") and order.customer_id == b["customer"]["id"]
    (line,) = order.lines
    assert line.sku == FEE_SKU and line.id == b["line"]["id"]
    assert "1234.50 USD" in line.name and "47 days" in line.name
    assert b["excess"] == "30.86"
    earlier = [o for o in state.table(ORDERS) if suite.get(ORDERS, o.id) is None and o.id != order.id]
    assert len(earlier) == invoices and all(o.lines[0].sku == PLAN_SKU for o in earlier)


def test_the_customer_is_a_crm_contact_and_guesses_wrong(suite: State) -> None:
    for seed in range(4):
        state, out = _run(suite, seed, **FEE)
        b = out.bindings
        customer = state.get(CUSTOMERS, b["customer"]["id"])
        link = state.get(CUSTOMER_LINKS, b["customer"]["id"])
        assert customer is not None and link is not None and link.crm_account_id
        assert b["customer"]["crm_contact_id"] == customer.crm_contact_id
        assert b["guess"] not in (b["fee"], b["charged"])
        ticket = state.get(TICKETS, b["ticket"]["id"])
        assert ticket is not None and suite.get(TICKETS, ticket.id) is None


def test_a_charge_not_above_the_fee_is_refused(suite: State) -> None:
    with pytest.raises(ScenarioError):
        _run(suite, 0, **{**FEE, "charged": "61.72"})


def test_the_plan_charge_is_the_buggy_price_and_the_guess_is_not_the_right_one(suite: State) -> None:
    from saas_sim.domains.support.setups_suite_billing import plan_overcharge_ticket

    for seed in range(4):
        out = plan_overcharge_ticket(SetupContext(
            state=suite, params={"seats": 40, "months": 12, "charged": "2116.80", "correct": "1999.20"},
            rng=random.Random(seed), now=EPOCH, ids=IdFactory(suite.counters())))
        state = PROJECTION.fold(suite, out.events)
        b = out.bindings
        order = state.get(ORDERS, b["order"]["id"])
        assert order is not None and order.total == Decimal("2116.80")
        assert "40 seats for 12 months" in order.lines[0].name
        assert b["excess"] == "117.60" and b["guess"] not in ("1999.20", "2116.80")
    with pytest.raises(ScenarioError):
        plan_overcharge_ticket(SetupContext(
            state=suite, params={"seats": 40, "months": 12, "charged": "1.00", "correct": "1999.20"},
            rng=random.Random(0), now=EPOCH, ids=IdFactory(suite.counters())))


def test_every_staged_charge_gets_its_own_number(suite: State) -> None:
    for seed in range(6):
        state, _ = _run(suite, seed, **FEE, invoices=3)
        staged = [o.number for o in state.table(ORDERS) if suite.get(ORDERS, o.id) is None]
        assert len(staged) == 4 and len(set(staged)) == 4
        assert min(int(n) for n in staged) > max(int(o.number) for o in suite.table(ORDERS))
