"""The CRM's cross-app tax setup: a verified certificate on the exempt account only."""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.core.state import State
from saas_sim.domains.crm.setups_suite_tax import tax_exempt_accounts
from saas_sim.domains.crm.state import ACCOUNTS, ACTIVITIES, CONTACTS, PROJECTION
from saas_sim.errors import ScenarioError
from tests.domains.suite_world import run_setup, suite_state


def _contacts_of_distinct_accounts(n: int) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for c in sorted(suite_state().table(CONTACTS), key=lambda c: c.id):
        if c.account_id and c.account_id not in seen and c.merged_into is None:
            seen.add(c.account_id)
            out.append(c.id)
        if len(out) == n:
            return out
    raise AssertionError("the suite world has too few accounts")


def _run(seed: int, contact: str, others: list[str]) -> tuple[State, dict[str, Any]]:
    out = run_setup(tax_exempt_accounts, suite_state(), seed, {"contact_id": contact, "other_contact_ids": others})
    return PROJECTION.fold(suite_state(), out.events), dict(out.bindings)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_only_the_exempt_account_holds_a_valid_certificate(seed: int) -> None:
    contact, *others = _contacts_of_distinct_accounts(4)
    state, b = _run(seed, contact, others)
    account = b["crm_account"]["id"]
    new = [a for a in state.table(ACTIVITIES) if suite_state().get(ACTIVITIES, a.id) is None]
    valid = [a for a in new if "verified" in (a.body or "")]
    assert [a.account_id for a in valid] == [account] and b["certificate"] in (valid[0].body or "")
    assert all(a.account_id in b["other_account_ids"] and "expired" in (a.body or "") for a in new if a not in valid)
    assert len(b["other_account_ids"]) == 3 and account not in b["other_account_ids"]


def test_a_same_named_account_of_another_company_stands_beside_the_exempt_one() -> None:
    contact, other = _contacts_of_distinct_accounts(2)
    state, b = _run(0, contact, [other])
    twin = state.get(ACCOUNTS, b["namesake"]["id"])
    mine = state.get(ACCOUNTS, b["crm_account"]["id"])
    assert twin is not None and mine is not None and twin.id != mine.id
    assert twin.owner_id != mine.owner_id
    assert not [a for a in state.table(ACTIVITIES) if a.account_id == twin.id and "verified" in (a.body or "")]


def test_a_claimant_on_the_exempt_account_is_refused() -> None:
    contact, _ = _contacts_of_distinct_accounts(2)
    with pytest.raises(ScenarioError):
        _run(0, contact, [contact])
