"""The blocked-deal setup stalls one of two open deals of an account, beside a same-named company's deal."""

from __future__ import annotations

import pytest

from saas_sim.domains.crm.setups_suite_blocker import BLOCKED_STEP, blocked_deal
from saas_sim.domains.crm.state import ACCOUNTS, CONTACTS, DEALS, PROJECTION
from tests.domains.suite_world import run_setup, suite_state


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_blocked_deal_waits_on_the_fix_and_the_traps_are_other_deals(seed: int) -> None:
    state = suite_state()
    out = run_setup(blocked_deal, state, seed, {})
    b = out.bindings
    after = PROJECTION.fold(state, out.events)
    deal = after.get(DEALS, b["deal"]["id"])
    other = after.get(DEALS, b["other_deal"]["id"])
    twin = after.get(DEALS, b["namesake"]["deal_id"])
    assert deal is not None and other is not None and twin is not None
    assert deal.next_step == BLOCKED_STEP and deal.primary_contact_id == b["contact"]["id"]
    assert deal.account_id == other.account_id == b["account"]["id"] and deal.id != other.id
    assert twin.account_id != deal.account_id
    twin_account, account = after.get(ACCOUNTS, twin.account_id), after.get(ACCOUNTS, deal.account_id)
    assert twin_account is not None and account is not None and twin_account.name.casefold() == account.name.casefold()
    contact = after.get(CONTACTS, b["contact"]["id"])
    assert contact is not None and contact.account_id == deal.account_id and contact.email
    assert b["deal"]["moved_stage"] != deal.stage


def test_seeds_pick_different_deals() -> None:
    assert len({run_setup(blocked_deal, suite_state(), s, {}).bindings["deal"]["id"] for s in range(5)}) > 1
