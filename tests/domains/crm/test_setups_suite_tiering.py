"""The CRM's cross-app tiering setup: an enterprise contact, same-named smaller accounts, a small account's contact."""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.core.domain import Setup
from saas_sim.core.state import State
from saas_sim.domains.crm import setups_suite_tiering as st
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.ports import account_tier
from saas_sim.domains.crm.state import ACCOUNTS, CONTACTS, PROJECTION
from saas_sim.errors import ScenarioError
from tests.domains.suite_world import run_setup, suite_state


@pytest.fixture(scope="module")
def suite() -> State:
    return suite_state()


def _run(state: State, seed: int, **params: Any) -> tuple[State, Setup]:
    out = run_setup(st.tiering_accounts, state, seed, params)
    return PROJECTION.fold(state, out.events), out


@pytest.mark.parametrize("namesakes", [1, 4])
def test_the_contacts_account_is_enterprise_and_each_namesake_is_small(suite: State, namesakes: int) -> None:
    state, out = _run(suite, 3, namesakes=namesakes)
    b = out.bindings
    contact = state.get(CONTACTS, b["contact"]["id"])
    account = state.get(ACCOUNTS, b["account"]["id"])
    assert contact is not None and account is not None and contact.account_id == account.id
    assert account_tier(account.employees) in st.VIP_TIERS and b["account"]["tier"] == account_tier(account.employees)
    assert len(b["namesake_ids"]) == len(b["namesake_contact_ids"]) == namesakes
    for acc_id, ct_id in zip(b["namesake_ids"], b["namesake_contact_ids"], strict=True):
        twin, person = state.get(ACCOUNTS, acc_id), state.get(CONTACTS, ct_id)
        assert twin is not None and person is not None and person.account_id == twin.id
        assert twin.name == account.name and account_tier(twin.employees) not in st.VIP_TIERS
        assert (person.first_name, person.last_name) == (contact.first_name, contact.last_name)
        assert person.email != contact.email


def test_the_small_contact_is_at_a_small_account_of_another_name(suite: State) -> None:
    state, out = _run(suite, 5)
    b = out.bindings
    small = state.get(CONTACTS, b["small_contact"]["id"])
    small_account = state.get(ACCOUNTS, b["small_account"]["id"])
    assert small is not None and small_account is not None and small.account_id == small_account.id
    assert account_tier(small_account.employees) in {"smb", "mid_market"}
    assert fold(small_account.name) != fold(b["account"]["name"]) and small.email == b["small_contact"]["email"]


def test_the_seed_moves_the_account_and_the_namesake_ids(suite: State) -> None:
    outs = [_run(suite, s)[1].bindings for s in range(6)]
    assert len({o["account"]["id"] for o in outs}) > 1
    assert len({o["namesake"]["id"] for o in outs}) > 2


@pytest.mark.parametrize("namesakes", [0, 5])
def test_a_namesake_count_out_of_range_is_a_scenario_error(suite: State, namesakes: int) -> None:
    with pytest.raises(ScenarioError):
        _run(suite, 1, namesakes=namesakes)
