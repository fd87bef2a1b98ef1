"""The CRM's cross-app identity setup: a genuine requester, the person an impostor names, and namesakes."""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.core.domain import Setup
from saas_sim.core.state import State
from saas_sim.domains.crm import setups_suite_identity as si
from saas_sim.domains.crm.state import CONTACTS, PROJECTION
from saas_sim.errors import ScenarioError
from tests.domains.suite_world import run_setup, suite_state


@pytest.fixture(scope="module")
def suite() -> State:
    return suite_state()


def _candidates(state: State) -> list[str]:
    return sorted(c.id for c in state.table(CONTACTS) if c.account_id and c.email and c.merged_into is None)


def _run(state: State, seed: int, **params: Any) -> tuple[State, Setup]:
    params.setdefault("candidates", _candidates(state)[seed * 7:])
    out = run_setup(si.email_change_contacts, state, seed, params)
    return PROJECTION.fold(state, out.events), out


@pytest.mark.parametrize("namesakes", [1, 3])
def test_namesakes_share_the_name_at_other_accounts_with_other_phones(suite: State, namesakes: int) -> None:
    state, out = _run(suite, 2, namesakes=namesakes)
    b = out.bindings
    contact = state.get(CONTACTS, b["contact"]["id"])
    assert contact is not None and contact.phone == b["contact"]["phone"]
    assert len(b["namesake_ids"]) == namesakes
    for cid in b["namesake_ids"]:
        twin = state.get(CONTACTS, cid)
        assert twin is not None and (twin.first_name, twin.last_name) == (contact.first_name, contact.last_name)
        assert twin.account_id != contact.account_id and twin.phone != contact.phone and twin.email != contact.email


def test_the_impostor_gives_a_phone_and_address_no_record_holds(suite: State) -> None:
    state, out = _run(suite, 4)
    b = out.bindings
    victim = state.get(CONTACTS, b["victim"]["id"])
    assert victim is not None and victim.phone == b["victim"]["phone"] and victim.phone != b["impostor_phone"]
    assert b["victim"]["name"] != b["contact"]["name"]
    held = {e.casefold() for c in state.table(CONTACTS) for e in (c.email, c.secondary_email) if e}
    assert b["new_email"].casefold() not in held and b["impostor_email"].casefold() not in held
    assert all(c.phone != b["impostor_phone"] for c in state.table(CONTACTS))


def test_the_seed_moves_the_addresses(suite: State) -> None:
    emails = {_run(suite, s, candidates=_candidates(suite))[1].bindings["new_email"] for s in range(4)}
    assert len(emails) == 4


@pytest.mark.parametrize(("params", "match"), [
    ({"namesakes": 0}, "namesakes"),
    ({"candidates": []}, "two candidate"),
])
def test_bad_params_are_scenario_errors(suite: State, params: dict[str, Any], match: str) -> None:
    with pytest.raises(ScenarioError, match=match):
        _run(suite, 0, **params)
