"""The renewal setup: a subscription contract with a one-off line, a term note, and an agreed uplift under the cap."""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

from saas_sim.core.domain import SetupContext
from saas_sim.core.ids import IdFactory
from saas_sim.core.state import State
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm import setups_renewals
from saas_sim.domains.crm.gen_sales import line_total
from saas_sim.domains.crm.setups_renewals import ONE_OFF_SKUS
from saas_sim.domains.crm.state import DEALS, LINE_ITEMS, PRODUCTS, PROJECTION
from tests.domains.crm.conftest import EPOCH


def _staged(world: State, seed: int, **params: Any) -> tuple[State, dict[str, Any], list[ev.Event]]:
    ctx = SetupContext(state=world, params=params, rng=random.Random(seed), now=EPOCH,
                       ids=IdFactory({"act": 100000, "li": 100000, "dl": 100000}))
    setup = setups_renewals.renewal_due(ctx)
    return PROJECTION.fold(world, setup.events), dict(setup.bindings), list(setup.events)


def test_the_amount_is_the_subscription_lines_at_the_uplift_to_the_cent(world: State) -> None:
    for seed in range(8):
        state, b, _ = _staged(world, seed)
        contract = state.get(DEALS, b["contract"]["id"])
        assert contract is not None and contract.stage == "closed_won"
        lines = [state.table(LINE_ITEMS).get(i) for i in contract.line_item_ids]
        products = state.table(PRODUCTS)
        subs = [i for i in lines if i and (p := products.get(i.product_id)) and p.sku not in ONE_OFF_SKUS]
        assert len(subs) == 3 and len(lines) == 4
        total = sum((line_total(i.quantity, i.unit_price, i.discount_pct) for i in subs), Decimal(0))
        assert Decimal(b["amount"]) == total * (100 + b["uplift"]) / 100
        by_line = sum((line_total(r["quantity"], Decimal(r["unit_price"]), Decimal(r["discount_pct"]))
                       for r in b["renewal_items"]), Decimal(0))
        assert by_line == Decimal(b["amount"])
        assert b["cap"] > b["uplift"]
        assert len({b["amount"], b["cap_amount"], b["flat_amount"], b["with_one_off_amount"]}) == 4


def test_the_term_note_and_the_email_state_the_end_the_cap_and_the_uplift(world: State) -> None:
    _, b, events = _staged(world, 2)
    notes = [a for e in events if isinstance(e, ev.ActivitiesImported) for a in e.activities]
    emails = [e.activity for e in events if isinstance(e, ev.InboundEmailReceived)]
    term = next(a.body or "" for a in notes if a.deal_id == b["contract"]["id"])
    assert f"capped at {b['cap']}%" in term
    assert f"{b['uplift']}% increase" in (emails[0].body or "") and emails[0].contact_id == b["contact"]["id"]


def test_distractor_deals_sit_on_the_same_account(world: State) -> None:
    state, b, _ = _staged(world, 4, distractors=3)
    new = [d for d in state.table(DEALS) if world.get(DEALS, d.id) is None]
    assert sorted(d.stage for d in new) == ["closed_won", "closed_won", "proposal"]
    assert {d.account_id for d in new} == {b["account"]["id"]}
    assert b["expansion"]["id"] in {d.id for d in new}
