"""The support desk's money views (refunds and replacements by order, store credits by customer), patched
from changes, equal a scan of the whole table.

Edits add records, move them to another order or customer, delete them, and hash the state in between
(a hashed state is an anchor the views are carried forward from); after each sequence, every order's
and customer's records through the views must be what a full scan finds, in id order.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from saas_sim.core.state import State
from saas_sim.domains.support.check_helpers import credits_of, refunds_on, replacements_on
from saas_sim.domains.support.models import Refund, Replacement, StoreCredit
from saas_sim.domains.support.state import CUSTOMERS, ORDERS, REFUNDS, REPLACEMENTS, STORE_CREDITS
from tests.domains.support.conftest import support_world

_AT = datetime(2026, 3, 2, tzinfo=UTC)


def _world() -> State:
    """The support-default world's state (built once; hashed by the build, as the runtime's worlds are)."""
    return support_world(0).state


def _pool() -> tuple[list[str], list[str], list[str], list[str]]:
    w = _world()
    orders = sorted({r.order_id for r in w.table(REFUNDS)} | {r.order_id for r in w.table(REPLACEMENTS)})[:6]
    orders += [o.id for o in list(w.table(ORDERS))[:4]]
    customers = [c.id for c in list(w.table(CUSTOMERS))[:6]]
    refunds = [*[r.id for r in w.table(REFUNDS)][:6], "rf_900001", "rf_900002"]
    replacements = [*[r.id for r in w.table(REPLACEMENTS)][:4], "rp_900001", "rp_900002"]
    return orders, customers, refunds, replacements


_ORDERS, _CUSTOMERS, _REFUND_IDS, _REPLACEMENT_IDS = _pool()
_CREDIT_IDS = ["sc_900001", "sc_900002", "sc_900003"]
_EDIT = st.one_of(
    st.tuples(st.just("refund"), st.sampled_from(_REFUND_IDS), st.sampled_from(_ORDERS)),
    st.tuples(st.just("replacement"), st.sampled_from(_REPLACEMENT_IDS), st.sampled_from(_ORDERS)),
    st.tuples(st.just("credit"), st.sampled_from(_CREDIT_IDS), st.sampled_from(_CUSTOMERS)),
    st.tuples(st.just("delete_refund"), st.sampled_from(_REFUND_IDS), st.just("")),
    st.tuples(st.just("delete_replacement"), st.sampled_from(_REPLACEMENT_IDS), st.just("")),
    st.tuples(st.just("delete_credit"), st.sampled_from(_CREDIT_IDS), st.just("")),
    st.tuples(st.just("hash"), st.just(""), st.just("")),
)


def _apply(state: State, edit: tuple[str, str, str]) -> State:
    """Puts (or moves) a record under `target`, deletes one, or hashes the state."""
    op, rid, target = edit
    if op == "refund":
        old = state.get(REFUNDS, rid)
        record = old.model_copy(update={"order_id": target}) if old else Refund(
            id=rid, order_id=target, line_id=None, amount=Decimal("5.00"), currency="USD", reason="test",
            ticket_id=None, approval_id=None, created_at=_AT)
        return state.put(REFUNDS, record)
    if op == "replacement":
        old_r = state.get(REPLACEMENTS, rid)
        rep = old_r.model_copy(update={"order_id": target}) if old_r else Replacement(
            id=rid, order_id=target, line_id="ol_000001", product_id="prd_000001", quantity=1, reason="test",
            ticket_id=None, created_at=_AT)
        return state.put(REPLACEMENTS, rep)
    if op == "credit":
        return state.put(STORE_CREDITS, StoreCredit(
            id=rid, customer_id=target, amount=Decimal("3.00"), currency="USD", reason="test", ticket_id=None,
            approval_id=None, created_at=_AT))
    if op.startswith("delete_"):
        table = {"delete_refund": REFUNDS, "delete_replacement": REPLACEMENTS}.get(op)
        if table is not None:
            return state.delete(table, rid)
        return state.delete(STORE_CREDITS, rid)
    state.content_hash()
    return state


@settings(max_examples=80, deadline=None)
@given(st.lists(_EDIT, max_size=12))
def test_money_views_equal_a_full_scan_after_random_edits(edits: list[tuple[str, str, str]]) -> None:
    state = _world()
    for edit in edits:
        state = _apply(state, edit)
    orders = {r.order_id for r in state.table(REFUNDS)} | {r.order_id for r in state.table(REPLACEMENTS)}
    for order_id in sorted(orders | set(_ORDERS)):
        assert refunds_on(state, order_id) == sorted(
            (r for r in state.table(REFUNDS) if r.order_id == order_id), key=lambda r: r.id)
        assert replacements_on(state, order_id) == sorted(
            (r for r in state.table(REPLACEMENTS) if r.order_id == order_id), key=lambda r: r.id)
    for n in range(len(_CUSTOMERS)):
        people = _CUSTOMERS[n:n + 2]
        assert credits_of(state, people) == sorted(
            (c for c in state.table(STORE_CREDITS) if c.customer_id in people), key=lambda c: c.id)
    assert refunds_on(state, "ord_999999") == []
    assert credits_of(state, []) == []
