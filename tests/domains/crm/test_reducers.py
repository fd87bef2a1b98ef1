"""Property tests of the CRM reducers: pure, deterministic, and keeping cross-record invariants."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from saas_sim.core.domain import GenerateContext
from saas_sim.core.events import Event
from saas_sim.core.ids import IdFactory
from saas_sim.core.rng import SeedTree
from saas_sim.core.snapshots import decode_state, encode_state
from saas_sim.core.state import State
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.generate import generate
from saas_sim.domains.crm.models import LineItem
from saas_sim.domains.crm.pipeline import STAGES
from saas_sim.domains.crm.state import (
    ACTIVITIES,
    CONTACTS,
    DEALS,
    ENROLLMENTS,
    LINE_ITEMS,
    PRODUCTS,
    PROJECTION,
    SCHEMA,
    TASKS,
    USERS,
)

NOW = datetime(2026, 3, 2, 9, tzinfo=UTC)
SMALL = PROJECTION.fold(State(), generate(GenerateContext(
    params={"accounts": 8, "contacts": 40, "leads": 5}, seed=SeedTree("reducers"), state=State(), now=NOW,
    ids=IdFactory(),
)))
CONTACT_IDS = [c.id for c in SMALL.table(CONTACTS)]
DEAL_IDS = [d.id for d in SMALL.table(DEALS)]
USER_IDS = [u.id for u in SMALL.table(USERS)]
PRODUCT_IDS = [p.id for p in SMALL.table(PRODUCTS)]
when = st.integers(0, 10_000).map(lambda m: NOW + timedelta(minutes=m))
text = st.text(alphabet="abcdeéü XYZ-", min_size=1, max_size=12)


contact_updated = st.builds(
    lambda cid, title, phone, at: ev.ContactUpdated(contact_id=cid, changes={"title": title, "phone": phone},
                                                    updated_at=at),
    st.sampled_from(CONTACT_IDS), text, st.one_of(st.none(), text), when,
)
owner_assigned = st.builds(
    lambda rid, uid, at: ev.OwnerAssigned(record_type="deal", record_id=rid, owner_id=uid,
                                          previous_owner_id=None, assigned_at=at),
    st.sampled_from(DEAL_IDS), st.sampled_from(USER_IDS), when,
)
stage_changed = st.builds(
    lambda did, stage, at: ev.DealStageChanged(deal_id=did, from_stage="prospecting", to_stage=stage,
                                               changed_at=at),
    st.sampled_from(DEAL_IDS), st.sampled_from(STAGES), when,
)
deal_updated = st.builds(
    lambda did, cents, step, at: ev.DealUpdated(deal_id=did, fields=["amount", "next_step"],
                                                amount=Decimal(cents) / 100, next_step=step, updated_at=at),
    st.sampled_from(DEAL_IDS), st.integers(1, 10**9), st.one_of(st.none(), text), when,
)


@st.composite
def items_replaced(draw: st.DrawFn) -> ev.LineItemsReplaced:
    deal_id = draw(st.sampled_from(DEAL_IDS))
    n = draw(st.integers(0, 3))
    base = draw(st.integers(1, 10**6))
    added = [
        LineItem(id=f"li_{base + i:06d}", deal_id=deal_id, product_id=draw(st.sampled_from(PRODUCT_IDS)),
                 product_name="p", quantity=draw(st.integers(1, 50)), unit_price=Decimal(draw(st.integers(1, 9999))),
                 discount_pct=Decimal(draw(st.integers(0, 100))))
        for i in range(n)
    ]
    return ev.LineItemsReplaced(deal_id=deal_id, removed_ids=[], added=added, updated_at=draw(when))


any_event = st.one_of(contact_updated, owner_assigned, stage_changed, deal_updated)


def _fold(events: list[Event]) -> State:
    return PROJECTION.fold(SMALL, events)


@settings(max_examples=60, deadline=None)
@given(st.lists(any_event, max_size=15))
def test_folding_is_pure_and_deterministic(events: list[Event]) -> None:
    before = SMALL.content_hash()
    a, b = _fold(events), _fold(events)
    assert a.content_hash() == b.content_hash()
    assert SMALL.content_hash() == before


@settings(max_examples=40, deadline=None)
@given(st.lists(any_event, max_size=15))
def test_snapshot_round_trip_keeps_the_hash(events: list[Event]) -> None:
    state = _fold(events)
    assert decode_state(encode_state(state), SCHEMA).content_hash() == state.content_hash()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(owner_assigned, stage_changed, deal_updated), min_size=1, max_size=20))
def test_the_last_write_to_a_deal_field_wins(events: list[Any]) -> None:
    state = _fold(events)
    owners: dict[str, str] = {}
    stages: dict[str, str] = {}
    amounts: dict[str, tuple[Decimal | None, str | None]] = {}
    for e in events:
        if isinstance(e, ev.OwnerAssigned):
            owners[e.record_id] = e.owner_id
        elif isinstance(e, ev.DealStageChanged):
            stages[e.deal_id] = e.to_stage
        else:
            amounts[e.deal_id] = (e.amount, e.next_step)
    for deal_id, owner in owners.items():
        assert state.get(DEALS, deal_id).owner_id == owner  # type: ignore[union-attr]
    for deal_id, stage in stages.items():
        assert state.get(DEALS, deal_id).stage == stage  # type: ignore[union-attr]
    for deal_id, (amount, step) in amounts.items():
        deal = state.get(DEALS, deal_id)
        assert deal is not None and (deal.amount, deal.next_step) == (amount, step)


@settings(max_examples=60, deadline=None)
@given(st.lists(items_replaced(), max_size=10))
def test_line_items_stay_consistent_with_their_deals(events: list[ev.LineItemsReplaced]) -> None:
    state = SMALL
    for e in events:
        deal = state.get(DEALS, e.deal_id)
        assert deal is not None
        fresh = [i for i in e.added if state.get(LINE_ITEMS, i.id) is None]
        state = PROJECTION.apply(state, e.model_copy(update={"removed_ids": list(deal.line_item_ids),
                                                             "added": fresh}))
    for d in state.table(DEALS):
        for item_id in d.line_item_ids:
            item = state.get(LINE_ITEMS, item_id)
            assert item is not None and item.deal_id == d.id


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_merge_moves_every_reference_to_the_winner(data: st.DataObject) -> None:
    winner, loser = data.draw(st.lists(st.sampled_from(CONTACT_IDS), min_size=2, max_size=2, unique=True))
    merged = ev.ContactsMerged(
        winner_id=winner, loser_id=loser, changes={},
        moved_activity_ids=[a.id for a in SMALL.table(ACTIVITIES) if a.contact_id == loser],
        moved_task_ids=[t.id for t in SMALL.table(TASKS) if t.contact_id == loser],
        moved_deal_ids=[d.id for d in SMALL.table(DEALS) if d.primary_contact_id == loser],
        moved_enrollment_ids=[e.id for e in SMALL.table(ENROLLMENTS) if e.contact_id == loser],
        merged_at=NOW,
    )
    state = PROJECTION.apply(SMALL, merged)
    assert state.get(CONTACTS, loser).merged_into == winner  # type: ignore[union-attr]
    assert not any(a.contact_id == loser for a in state.table(ACTIVITIES))
    assert not any(d.primary_contact_id == loser for d in state.table(DEALS))
    assert not any(t.contact_id == loser for t in state.table(TASKS))
