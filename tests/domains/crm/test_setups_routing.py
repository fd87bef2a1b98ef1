"""The lead-routing setup: the rules' owners, the customer's large lead, the threshold edge, the look-alike."""

from __future__ import annotations

import random
from typing import Any

from saas_sim.core.domain import SetupContext
from saas_sim.core.ids import IdFactory
from saas_sim.core.state import State
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm import setups_routing
from saas_sim.domains.crm.matching import account_candidates
from saas_sim.domains.crm.state import ACCOUNTS
from tests.domains.crm.conftest import EPOCH


def _setup(world: State, seed: int, **params: Any) -> tuple[dict[str, Any], list[Any]]:
    ctx = SetupContext(state=world, params=params, rng=random.Random(seed), now=EPOCH,
                       ids=IdFactory({"ld": 100000, "usr": 100}))
    setup = setups_routing.leads_to_route(ctx)
    leads = [lead for e in setup.events if isinstance(e, ev.LeadsImported) for lead in e.leads]
    return dict(setup.bindings), leads


def test_round_robin_takes_turns_in_lead_id_order_over_its_own_leads(world: State) -> None:
    for seed in range(8):
        b, leads = _setup(world, seed)
        assert [r["id"] for r in b["routes"]] == sorted(lead.id for lead in leads)
        rr = [r["owner_id"] for r in b["routes"] if r["rule"] == "round_robin"]
        sdrs = [s["id"] for s in b["sdrs"]]
        assert rr == [sdrs[i % 3] for i in range(len(rr))]
        assert all(s["ids"] for s in b["sdrs"]) and b["ae_us"]["ids"] and b["ae_eu"]["ids"]


def test_the_customer_lead_is_large_and_matches_its_account_only(world: State) -> None:
    threshold_seen = False
    for seed in range(6):
        b, leads = _setup(world, seed, distractors=2)
        by_id = {lead.id: lead for lead in leads}
        accounts = world.table(ACCOUNTS)
        customer = by_id[b["customer"]["id"]]
        matches = account_candidates(accounts, name=customer.company, domain=customer.email.rpartition("@")[2])
        assert [m.account.id for m in matches][:1] == [b["customer"]["account_id"]]
        for r in b["routes"]:
            if r["rule"] != "account":
                lead = by_id[r["id"]]
                assert not account_candidates(accounts, name=lead.company, domain=lead.email.rpartition("@")[2])
        threshold_seen |= any(b["threshold"] in (by_id[r["id"]].message or "") for r in b["routes"]
                              if r["rule"] == "size")
        assert len(b["false_friends"]) == 2
    assert threshold_seen
