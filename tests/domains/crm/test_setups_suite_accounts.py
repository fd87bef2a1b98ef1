"""The CRM's cross-app account setup: an enterprise contact with a stale owner, beside typo'd duplicate accounts."""

from __future__ import annotations

import random
from typing import Any

import pytest

from saas_sim.core.domain import Setup
from saas_sim.core.state import State
from saas_sim.domains.crm import setups_suite_accounts as sa
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.state import ACCOUNTS, CONTACTS, PROJECTION
from saas_sim.errors import ScenarioError
from tests.domains.suite_world import run_setup, suite_state


@pytest.fixture(scope="module")
def suite() -> State:
    return suite_state()


def _run(state: State, seed: int, **params: Any) -> tuple[State, Setup]:
    out = run_setup(sa.retention_account, state, seed, params)
    return PROJECTION.fold(state, out.events), out


@pytest.mark.parametrize("duplicates", [1, 3])
def test_the_contact_names_a_stale_owner_and_each_duplicate_has_another_owner(suite: State, duplicates: int) -> None:
    state, out = _run(suite, 3, duplicates=duplicates)
    b = out.bindings
    account = state.get(ACCOUNTS, b["account"]["id"])
    contact = state.get(CONTACTS, b["contact"]["id"])
    assert account is not None and contact is not None and contact.account_id == account.id
    assert (account.employees or 0) >= sa.ENTERPRISE_EMPLOYEES
    assert contact.owner_id == b["stale_owner"]["id"] != account.owner_id
    assert len(b["duplicate_names"]) == len(b["duplicate_contact_ids"]) == duplicates
    owners = {account.owner_id, contact.owner_id}
    for cid in b["duplicate_contact_ids"]:
        namesake = state.get(CONTACTS, cid)
        twin = state.get(ACCOUNTS, namesake.account_id) if namesake and namesake.account_id else None
        assert namesake is not None and twin is not None and twin.id != account.id
        assert (namesake.first_name, namesake.last_name) == (contact.first_name, contact.last_name)
        assert namesake.email != contact.email and twin.owner_id not in owners
        owners.add(twin.owner_id)
    assert set(b["wrong_owner_ids"]) == owners - {account.owner_id}


def test_the_seed_moves_the_account_and_its_owner(suite: State) -> None:
    picked = {(_run(suite, s)[1].bindings["account"]["id"], _run(suite, s)[1].bindings["stale_owner"]["id"])
              for s in range(6)}
    assert len(picked) > 2


def test_a_typo_name_never_contains_the_real_name_nor_is_contained_in_it() -> None:
    rng = random.Random(0)
    for name in ("Acme Corp", "Initech", "Hnos Escolano S.A.", "Lévy"):
        typo = sa.typo_name(rng, name, set())
        assert fold(typo) != fold(name) and fold(typo) not in fold(name) and fold(name) not in fold(typo)


def test_a_name_without_a_word_to_misspell_is_a_scenario_error() -> None:
    with pytest.raises(ScenarioError):
        sa.typo_name(random.Random(0), "IBM", set())


def test_duplicates_out_of_range_are_a_scenario_error(suite: State) -> None:
    with pytest.raises(ScenarioError):
        _run(suite, 0, duplicates=0)
