"""The support desk's per-state views (people, orders by number), patched from changes, equal a full build.

Edits move e-mails and phones between customers (in local and international form, other
spellings too), add alias records, delete records and renumber orders; after each,
`person_records` must give what the identity index over every customer gives.
"""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from saas_sim.core.state import State
from saas_sim.domains.support.check_helpers import order_by_number
from saas_sim.domains.support.people import identity, person_records
from saas_sim.domains.support.state import CUSTOMERS, ORDERS
from tests.domains.support.conftest import support_world


def _world() -> State:
    """The support-default world's state (built once; hashed by the build, as the runtime's worlds are)."""
    return support_world(0).state


def _pool() -> tuple[list[str], list[str], list[str], list[str]]:
    customers = list(_world().table(CUSTOMERS))[:25]
    orders = [o.id for o in list(_world().table(ORDERS))[:10]]
    return [c.id for c in customers], sorted({c.email for c in customers})[:8], \
        sorted({c.phone for c in customers})[:8], orders


_IDS, _EMAILS, _PHONES, _ORDERS = _pool()
_EMAIL = st.one_of(st.sampled_from(_EMAILS), st.sampled_from(_EMAILS).map(str.upper), st.just("nobody"))
_PHONE = st.one_of(st.sampled_from(_PHONES), st.sampled_from(_PHONES).map(lambda p: p.replace(" ", "")),
                   st.just(""), st.just("12"))
_EDIT = st.one_of(
    st.tuples(st.just("email"), st.sampled_from(_IDS), _EMAIL),
    st.tuples(st.just("phone"), st.sampled_from(_IDS), _PHONE),
    st.tuples(st.just("country"), st.sampled_from(_IDS), st.sampled_from(["US", "DE", "GB", "FR"])),
    st.tuples(st.just("alias"), st.sampled_from(_IDS), _EMAIL),
    st.tuples(st.just("delete"), st.sampled_from(_IDS), st.just("")),
    st.tuples(st.just("renumber"), st.sampled_from(_ORDERS), st.sampled_from(_ORDERS)),
    st.tuples(st.just("hash"), st.sampled_from(_IDS), st.just("")),
)


def _apply(state: State, edit: tuple[str, str, str], n: int) -> State:
    op, rid, value = edit
    c = state.get(CUSTOMERS, rid)
    if op in ("email", "phone", "country") and c is not None:
        return state.put(CUSTOMERS, c.model_copy(update={op: value}))
    if op == "alias" and c is not None:
        return state.put(CUSTOMERS, c.alias(f"cus_9{n:05d}", value, datetime(2026, 3, 2, tzinfo=UTC)))
    if op == "delete":
        return state.delete(CUSTOMERS, rid)
    if op == "renumber" and (o := state.get(ORDERS, rid)) is not None and (other := state.get(ORDERS, value)):
        return state.put(ORDERS, o.model_copy(update={"number": other.number}))
    if op == "hash":
        state.content_hash()
    return state


@settings(max_examples=80, deadline=None)
@given(st.lists(_EDIT, max_size=12))
def test_person_records_and_orders_by_number_equal_a_full_recomputation(edits: list[tuple[str, str, str]]) -> None:
    state = _world()
    for n, edit in enumerate(edits):
        state = _apply(state, edit, n)
    index = identity(state)
    for c in state.table(CUSTOMERS):
        assert person_records(state, c.id) == frozenset(index.records(index.entity(c.id)))
    assert person_records(state, "cus_999999") == frozenset({"cus_999999"})
    for o in state.table(ORDERS):
        first = next(x for x in state.table(ORDERS) if x.number == o.number)
        assert order_by_number(state, o.number) == first
    assert order_by_number(state, "no-such-order") is None
