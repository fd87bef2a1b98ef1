"""The CRM's cross-app name-drift setup: a renamed account with one open deal, beside look-alikes of its old name."""

from __future__ import annotations

import pytest

from saas_sim.core.state import State
from saas_sim.domains.crm import setups_suite_drift as sd
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.state import ACCOUNTS, ACTIVITIES, CONTACTS, DEALS, PROJECTION
from saas_sim.errors import ScenarioError
from tests.domains.suite_world import run_setup, suite_state


@pytest.fixture(scope="module")
def suite() -> State:
    return suite_state()


@pytest.mark.parametrize("similar", [1, 3])
def test_the_account_is_renamed_and_the_look_alikes_spell_the_old_name(suite: State, similar: int) -> None:
    out = run_setup(sd.renamed_account, suite, 5, {"similar": similar})
    state, b = PROJECTION.fold(suite, out.events), out.bindings
    account = state.get(ACCOUNTS, b["account"]["id"])
    assert account is not None and account.name == b["account"]["name"] != b["account"]["old_name"]
    notes = [a for a in state.table(ACTIVITIES) if a.account_id == account.id and "is now" in a.subject]
    assert any(b["account"]["old_name"] in a.subject and account.name in a.subject for a in notes)
    deal = state.get(DEALS, b["deal"]["id"])
    assert deal is not None and deal.account_id == account.id and deal.stage not in ("closed_won", "closed_lost")
    assert len(b["look_alike_ids"]) == similar
    for aid, name, did in zip(b["look_alike_ids"], b["look_alike_names"], b["look_alike_deal_ids"], strict=True):
        twin, twin_deal = state.get(ACCOUNTS, aid), state.get(DEALS, did)
        assert twin is not None and twin.name == name and fold(name) != fold(b["account"]["old_name"])
        assert twin_deal is not None and twin_deal.account_id == aid
    namesake = state.get(CONTACTS, b["look_alike"]["contact_id"])
    assert namesake is not None and namesake.account_id == b["look_alike"]["id"]
    assert f"{namesake.first_name} {namesake.last_name}" == b["contact"]["name"]


def test_the_seed_moves_the_account(suite: State) -> None:
    ids = {run_setup(sd.renamed_account, suite, s, {}).bindings["account"]["id"] for s in range(5)}
    assert len(ids) > 1


def test_a_bad_count_is_a_scenario_error(suite: State) -> None:
    with pytest.raises(ScenarioError, match="look-alikes"):
        run_setup(sd.renamed_account, suite, 0, {"similar": 4})
