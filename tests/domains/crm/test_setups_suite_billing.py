"""The CRM's cross-app billing setups: a seat-plan deal at last year's price, and a same-named account."""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

import pytest

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.ids import IdFactory
from saas_sim.core.state import State
from saas_sim.domains.crm import setups_suite_billing as sb
from saas_sim.domains.crm.setup_helpers import account_name
from saas_sim.domains.crm.state import ACCOUNTS, ACTIVITIES, CONTACTS, DEALS, PROJECTION
from saas_sim.errors import ScenarioError
from saas_sim.runtime.world import build_world, load_profiles
from tests.domains.crm.conftest import EPOCH
from tests.domains.helpers import ROOT

PLAN = {"seats": 42, "months": 18, "amount": "31185.00", "stale_amount": "34650.00"}


@pytest.fixture(scope="module")
def suite() -> State:
    from saas_sim.domains import builtin_domains

    return build_world(load_profiles([ROOT / "seeds"])["suite-small"], 0, dict(builtin_domains())).state


def _run(fn: Any, state: State, seed: int, **params: Any) -> tuple[State, Setup]:
    ids = IdFactory(state.counters())
    out = fn(SetupContext(state=state, params=params, rng=random.Random(seed), now=EPOCH, ids=ids))
    return PROJECTION.fold(state, out.events), out


@pytest.mark.parametrize("others", [0, 1, 3])
def test_the_plan_deal_carries_last_years_price_and_other_plans_sit_beside_it(suite: State, others: int) -> None:
    state, out = _run(sb.code_priced_deal, suite, 2, **PLAN, other_deals=others)
    b = out.bindings
    deal = state.get(DEALS, b["deal"]["id"])
    assert deal is not None and deal.amount == Decimal("34650.00")
    assert deal.name == sb.plan_name(b["account"]["name"], 42, 18) == b["deal"]["name"]
    notes = [a for a in state.table(ACTIVITIES) if a.deal_id == deal.id and suite.get(ACTIVITIES, a.id) is None]
    assert any("$34,650.00" in (a.body or "") for a in notes)  # the note and the buyer's email repeat it
    assert any(a.direction == "inbound" and "42 seats" in (a.body or "") for a in notes)
    assert len(b["other_deal_ids"]) == others
    for other_id in b["other_deal_ids"]:
        other = state.get(DEALS, other_id)
        assert other is not None and other.account_id == deal.account_id and "42 seats" not in other.name
    if not others:
        assert state.get(DEALS, b["other_deal"]["id"]).account_id != deal.account_id  # type: ignore[union-attr]


def test_the_seed_moves_the_deal(suite: State) -> None:
    picked = {_run(sb.code_priced_deal, suite, s, **PLAN)[1].bindings["deal"]["id"] for s in range(6)}
    assert len(picked) > 2


def test_a_stale_price_equal_to_the_code_is_refused(suite: State) -> None:
    with pytest.raises(ScenarioError):
        _run(sb.code_priced_deal, suite, 0, **{**PLAN, "stale_amount": PLAN["amount"]})


def test_the_billing_account_gets_a_same_named_company_with_an_open_deal(suite: State) -> None:
    contact = next(c for c in suite.table(CONTACTS) if c.account_id)
    state, out = _run(sb.billing_account, suite, 4, contact_id=contact.id)
    b = out.bindings
    assert b["crm_account"]["id"] == contact.account_id
    twin = state.get(ACCOUNTS, b["namesake"]["id"])
    assert twin is not None and twin.id != contact.account_id
    assert account_name(state, twin.id) == b["crm_account"]["name"]
    assert twin.domain != state.get(ACCOUNTS, contact.account_id).domain  # type: ignore[union-attr]
    assert state.get(DEALS, b["namesake"]["deal_id"]).account_id == twin.id  # type: ignore[union-attr]


def test_a_contact_without_an_account_is_a_scenario_error(suite: State) -> None:
    with pytest.raises(ScenarioError):
        _run(sb.billing_account, suite, 0, contact_id="ct_999999")


def test_the_same_named_company_is_older_in_some_seeds_and_younger_in_others(suite: State) -> None:
    contact = next(c for c in suite.table(CONTACTS) if c.account_id)
    real = suite.get(ACCOUNTS, str(contact.account_id))
    assert real is not None
    older = 0
    for seed in range(40):
        state, out = _run(sb.billing_account, suite, seed, contact_id=contact.id)
        twin = state.get(ACCOUNTS, out.bindings["namesake"]["id"])
        assert twin is not None and twin.created_at <= EPOCH
        older += twin.created_at < real.created_at
    assert 8 <= older <= 32
