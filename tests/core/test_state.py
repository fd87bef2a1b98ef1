"""Copy-on-write state, tables, projections; property tests for folds and content hashes."""

from __future__ import annotations

import itertools
from decimal import Decimal

import immutables
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, ValidationError

from saas_sim.core.events import Event, EventRegistry, event
from saas_sim.core.snapshots import StateSchema, decode_state, encode_state
from saas_sim.core.state import Entity, Projection, State, Table, TableKey, ValueKey
from saas_sim.errors import StateError, UsageError

REG = EventRegistry()


class Contact(Entity):
    name: str
    balance: Decimal = Decimal(0)


class Ticket(Entity):
    subject: str


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True)
    mode: str


CONTACTS = TableKey("contacts", Contact)
TICKETS = TableKey("tickets", Ticket)
SETTINGS = ValueKey("settings", Settings)


@event("state.Upserted", registry=REG)
class Upserted(Event):
    contact_id: str
    name: str


@event("state.Credited", registry=REG)
class Credited(Event):
    contact_id: str
    amount: Decimal


@event("state.Removed", registry=REG)
class Removed(Event):
    contact_id: str


@event("state.Unhandled", registry=REG)
class Unhandled(Event):
    pass


PROJ = Projection("state-test")


@PROJ.on(Upserted)
def _upserted(s: State, e: Upserted) -> State:
    old = s.get(CONTACTS, e.contact_id)
    balance = old.balance if old else Decimal(0)
    return s.put(CONTACTS, Contact(id=e.contact_id, name=e.name, balance=balance))


@PROJ.on(Credited)
def _credited(s: State, e: Credited) -> State:
    old = s.get(CONTACTS, e.contact_id)
    if old is None:
        return s
    return s.put(CONTACTS, old.model_copy(update={"balance": old.balance + e.amount}))


@PROJ.on(Removed)
def _removed(s: State, e: Removed) -> State:
    return s.delete(CONTACTS, e.contact_id)


# --- copy on write --------------------------------------------------------------------------------


def test_put_returns_a_new_state_and_leaves_the_old_one_untouched() -> None:
    s0 = State()
    s1 = s0.put(CONTACTS, Contact(id="ct_000001", name="Ada"))
    s2 = s1.put(CONTACTS, Contact(id="ct_000001", name="Ada L."))
    assert s0.get(CONTACTS, "ct_000001") is None
    assert s1.get(CONTACTS, "ct_000001") == Contact(id="ct_000001", name="Ada")
    assert s2.get(CONTACTS, "ct_000001") == Contact(id="ct_000001", name="Ada L.")
    assert len(s0.table(CONTACTS)) == 0 and len(s1.table(CONTACTS)) == 1


def test_a_fork_shares_every_table_it_did_not_change() -> None:
    world = State().put_many(CONTACTS, [Contact(id=f"ct_{i:06d}", name=f"c{i}") for i in range(1, 1001)])
    world = world.put(TICKETS, Ticket(id="tkt_000001", subject="hi"))
    fork = world  # a fork is the same immutable value: nothing is copied
    changed = fork.put(TICKETS, Ticket(id="tkt_000002", subject="new"))
    assert changed.table(CONTACTS).same_as(world.table(CONTACTS))
    assert changed.raw_table("contacts") is world.raw_table("contacts")
    assert not changed.table(TICKETS).same_as(world.table(TICKETS))
    assert world.table(TICKETS).ids() == ("tkt_000001",)
    for cid in world.table(CONTACTS).ids()[:50]:
        assert changed.get(CONTACTS, cid) is world.get(CONTACTS, cid)


def test_entities_and_values_are_frozen() -> None:
    c = Contact(id="ct_000001", name="Ada")
    with pytest.raises(ValidationError):
        c.name = "Eve"
    with pytest.raises(ValidationError):
        Contact(id="ct_000001", name="Ada", unknown=1)  # type: ignore[call-arg]


def test_put_rejects_an_entity_of_the_wrong_model() -> None:
    with pytest.raises(UsageError):
        State().put(CONTACTS, Ticket(id="tkt_000001", subject="x"))  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        State().put_many(CONTACTS, [Ticket(id="tkt_000001", subject="x")])  # type: ignore[list-item]
    with pytest.raises(UsageError):
        State().set_value(SETTINGS, Contact(id="ct_000001", name="x"))  # type: ignore[arg-type]


def test_tables_iterate_in_id_order_whatever_the_insertion_order() -> None:
    ids = ["ct_000010", "ct_000002", "ct_000001", "ct_000100"]
    s = State()
    for cid in ids:
        s = s.put(CONTACTS, Contact(id=cid, name=cid))
    assert [c.id for c in s.table(CONTACTS)] == sorted(ids)
    assert s.table(CONTACTS).ids() == tuple(sorted(ids))
    assert [c.id for c in s.table(CONTACTS).values()] == sorted(ids)
    assert "ct_000002" in s.table(CONTACTS) and "ct_000003" not in s.table(CONTACTS)


def test_delete_removes_one_entity_but_ids_are_never_reused() -> None:
    s = State().put(CONTACTS, Contact(id="ct_000007", name="x"))
    gone = s.delete(CONTACTS, "ct_000007")
    assert gone.get(CONTACTS, "ct_000007") is None
    assert gone.counters() == {"ct": 7}
    assert s.get(CONTACTS, "ct_000007") is not None
    assert gone.delete(CONTACTS, "ct_000007").table(CONTACTS).same_as(gone.table(CONTACTS))


def test_counters_track_the_highest_id_per_prefix() -> None:
    s = State().put_many(CONTACTS, [Contact(id="ct_000003", name="a"), Contact(id="ct_000001", name="b")])
    s = s.put(TICKETS, Ticket(id="tkt_000009", subject="t")).put(TICKETS, Ticket(id="manual-id", subject="m"))
    assert s.counters() == {"ct": 3, "tkt": 9}
    raised = s.with_counters({"ct": 2, "dl": 4})
    assert raised.counters() == {"ct": 3, "tkt": 9, "dl": 4}
    assert s.counters() == {"ct": 3, "tkt": 9}


def test_values_are_singletons_replaced_as_a_whole() -> None:
    s = State().set_value(SETTINGS, Settings(mode="a"))
    t = s.set_value(SETTINGS, Settings(mode="b"))
    assert s.value(SETTINGS) == Settings(mode="a") and t.value(SETTINGS) == Settings(mode="b")
    assert State().value(SETTINGS) is None
    assert t.value_names() == ["settings"]


def test_content_lists_only_non_empty_tables_in_canonical_order() -> None:
    s = State().put(TICKETS, Ticket(id="tkt_000001", subject="s")).put(CONTACTS, Contact(id="ct_000001", name="n"))
    s = s.delete(TICKETS, "tkt_000001")
    assert s.table_names() == ["contacts"]
    assert s.content() == {
        "tables": {"contacts": {"ct_000001": {"id": "ct_000001", "name": "n", "balance": Decimal(0)}}},
        "values": {},
        "counters": {"ct": 1, "tkt": 1},
    }


def test_table_set_and_remove_return_new_tables() -> None:
    t0: Table[Contact] = Table()
    t1 = t0.set(Contact(id="ct_000001", name="a"))
    assert len(t0) == 0 and len(t1) == 1
    assert t1.remove("nope") is t1
    assert len(t1.remove("ct_000001")) == 0 and len(t1) == 1


# --- projections ----------------------------------------------------------------------------------


def test_applying_an_event_without_a_reducer_raises_state_error() -> None:
    with pytest.raises(StateError, match="Unhandled"):
        PROJ.apply(State(), Unhandled())
    with pytest.raises(StateError, match="Unhandled"):
        PROJ.fold(State(), [Upserted(contact_id="ct_000001", name="a"), Unhandled()])


def test_a_second_reducer_for_one_event_is_rejected() -> None:
    p = Projection("p")
    p.on(Removed)(_removed)
    with pytest.raises(StateError):
        p.on(Removed)(_removed)


def test_including_a_projection_merges_reducers_and_rejects_conflicts() -> None:
    a, b = Projection("a"), Projection("b")
    a.on(Upserted)(_upserted)
    b.on(Removed)(_removed)
    assert a.include(b) is a
    assert a.handles(Removed) and a.handles(Upserted) and not a.handles(Credited)
    a.include(b)  # the very same reducer again is fine
    c = Projection("c")
    c.on(Removed)(lambda s, e: s)
    with pytest.raises(StateError):
        a.include(c)


def test_fold_applies_events_in_order() -> None:
    events = [Upserted(contact_id="ct_000001", name="a"), Credited(contact_id="ct_000001", amount=Decimal("2.50")),
              Upserted(contact_id="ct_000001", name="b"), Credited(contact_id="ct_000001", amount=Decimal("0.50"))]
    s = PROJ.fold(State(), events)
    assert s.get(CONTACTS, "ct_000001") == Contact(id="ct_000001", name="b", balance=Decimal("3.00"))


# --- properties -----------------------------------------------------------------------------------

contact_ids = st.integers(min_value=1, max_value=12).map(lambda n: f"ct_{n:06d}")
amounts = st.decimals(min_value=-1000, max_value=1000, places=2, allow_nan=False, allow_infinity=False)
events_strategy = st.lists(
    st.one_of(
        st.builds(Upserted, contact_id=contact_ids, name=st.text(max_size=8)),
        st.builds(Credited, contact_id=contact_ids, amount=amounts),
        st.builds(Removed, contact_id=contact_ids),
    ),
    max_size=40,
)
SCHEMA = StateSchema(tables=[CONTACTS, TICKETS], values=[SETTINGS])


@settings(max_examples=150, deadline=None)
@given(events_strategy, events_strategy)
def test_folding_a_concatenation_equals_folding_one_then_the_other(a: list[Event], b: list[Event]) -> None:
    whole = PROJ.fold(State(), a + b)
    stepwise = PROJ.fold(PROJ.fold(State(), a), b)
    assert whole.content_hash() == stepwise.content_hash()
    assert whole.content() == stepwise.content()


@settings(max_examples=100, deadline=None)
@given(events_strategy)
def test_folding_never_changes_the_state_it_started_from(events: list[Event]) -> None:
    start = PROJ.fold(State(), [Upserted(contact_id="ct_000001", name="base")])
    before = start.content_hash()
    PROJ.fold(start, events)
    assert start.content_hash() == before


@settings(max_examples=150, deadline=None)
@given(st.permutations([Contact(id=f"ct_{i:06d}", name=f"n{i}", balance=Decimal(i)) for i in range(1, 9)]),
       st.booleans())
def test_equal_content_built_in_different_orders_hashes_equal(order: list[Contact], batched: bool) -> None:
    reference = State().put_many(CONTACTS, sorted(order, key=lambda c: c.id))
    s = State().set_value(SETTINGS, Settings(mode="x"))
    if batched:
        s = s.put_many(CONTACTS, order)
    else:
        for c in order:
            s = s.put(CONTACTS, c)
    reference = reference.set_value(SETTINGS, Settings(mode="x"))
    assert s.content_hash() == reference.content_hash()
    assert encode_state(s) == encode_state(reference)


@settings(max_examples=100, deadline=None)
@given(events_strategy)
def test_a_state_survives_a_snapshot_round_trip(events: list[Event]) -> None:
    s = PROJ.fold(State(), events)
    back = decode_state(encode_state(s), SCHEMA)
    assert back.content_hash() == s.content_hash()
    assert back.counters() == s.counters()


@settings(max_examples=100, deadline=None)
@given(events_strategy)
def test_different_content_hashes_differently(events: list[Event]) -> None:
    s = PROJ.fold(State(), events)
    t = s.put(TICKETS, Ticket(id="tkt_000001", subject="extra"))
    assert s.content_hash() != t.content_hash()


def test_content_hash_treats_equal_decimals_alike() -> None:
    a = State().put(CONTACTS, Contact(id="ct_000001", name="x", balance=Decimal("25.00")))
    b = State().put(CONTACTS, Contact(id="ct_000001", name="x", balance=Decimal("25")))
    assert a.content_hash() == b.content_hash()


def test_put_many_equals_a_sequence_of_puts() -> None:
    contacts = [Contact(id=f"ct_{i:06d}", name=str(i)) for i in (5, 3, 9)]
    seq = State()
    for c in contacts:
        seq = seq.put(CONTACTS, c)
    many = State().put_many(CONTACTS, contacts)
    assert seq.content() == many.content()
    assert list(itertools.chain(many.table(CONTACTS))) == sorted(contacts, key=lambda c: c.id)


# --- the content hash in O(changes) ------------------------------------------------

_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("put"), st.sampled_from(["ct_000001", "ct_000002", "ct_000003", "zz"]),
                  st.sampled_from(["Ann", "Bob", "Cy"])),
        st.tuples(st.just("put_many"), st.lists(st.sampled_from(["ct_000004", "ct_000009", "x"]), max_size=3),
                  st.sampled_from(["Di", "Ed"])),
        st.tuples(st.just("delete"), st.sampled_from(["ct_000001", "ct_000004", "nope"]), st.just("")),
        st.tuples(st.just("ticket"), st.sampled_from(["tk_000001", "tk_000002"]), st.sampled_from(["a", "b"])),
        st.tuples(st.just("value"), st.just(""), st.sampled_from(["on", "off"])),
        st.tuples(st.just("counters"), st.sampled_from(["ct", "tk", "dl"]), st.integers(0, 12)),
        st.tuples(st.just("hash"), st.just(""), st.just("")),
    ),
    max_size=30,
)


def _step(state: State, op: tuple[str, object, object]) -> State:
    kind, a, b = op
    if kind == "put":
        return state.put(CONTACTS, Contact(id=str(a), name=str(b)))
    if kind == "put_many":
        return state.put_many(CONTACTS, [Contact(id=str(i), name=str(b)) for i in a])
    if kind == "delete":
        return state.delete(CONTACTS, str(a))
    if kind == "ticket":
        return state.put(TICKETS, Ticket(id=str(a), subject=str(b)))
    if kind == "value":
        return state.set_value(SETTINGS, Settings(mode=str(b)))
    if kind == "counters":
        return state.with_counters({str(a): int(b)})
    state.content_hash()  # hashing mid-way re-anchors what follows
    return state


@settings(max_examples=300, deadline=None)
@given(base_ops=_OPS, ops=_OPS)
def test_incremental_content_hash_equals_a_full_recomputation(base_ops, ops) -> None:
    base = State()
    for op in base_ops:
        base = _step(base, op)
    base.content_hash()
    state = base
    for op in ops:
        state = _step(state, op)
        assert state.content_hash() == state.full_content_hash()
    rebuilt = State(
        immutables.Map({n: state.raw_table(n) for n in state.table_names()}),
        immutables.Map({n: state.raw_value(n) for n in state.value_names()}),
        immutables.Map(state.counters()),
    )
    assert rebuilt.content_hash() == state.content_hash()


@settings(max_examples=100, deadline=None)
@given(ops=_OPS)
def test_content_hash_does_not_depend_on_the_order_of_independent_changes(ops) -> None:
    forward = State()
    for op in ops:
        forward = _step(forward, op)
    puts = [op for op in ops if op[0] == "put"]
    # Put in another order the last value of each id: the same content, another history.
    last = {op[1]: op for op in puts}
    a = State().content_hash()
    one = State()
    for op in last.values():
        one = _step(one, op)
    other = State()
    for op in reversed(list(last.values())):
        other = _step(other, op)
    assert one.content_hash() == other.content_hash()
    assert a == State().full_content_hash()


def test_content_hash_sees_a_change_back_and_forth_as_no_change() -> None:
    base = State().put(CONTACTS, Contact(id="ct_000001", name="Ann"))
    base.content_hash()
    changed = base.put(CONTACTS, Contact(id="ct_000001", name="Bob"))
    assert changed.content_hash() != base.content_hash()
    back = changed.put(CONTACTS, Contact(id="ct_000001", name="Ann"))
    assert back.content_hash() == base.content_hash()
    gone = base.delete(CONTACTS, "ct_000001")
    # The counter stays: ids are never reused, so a deleted record still shows in the hash.
    assert gone.content_hash() != State().content_hash()
    assert gone.content_hash() == gone.full_content_hash()


def test_content_hash_after_a_change_hashes_only_the_changed_items(monkeypatch: pytest.MonkeyPatch) -> None:
    import saas_sim.core.state as state_module

    base = State().put_many(CONTACTS, [Contact(id=f"ct_{i:06d}", name="N") for i in range(1, 201)])
    base.content_hash()
    hashed: list[str] = []
    real = state_module.entity_digest

    def counting(table: str, entity: BaseModel) -> int:
        hashed.append(table)
        return real(table, entity)

    monkeypatch.setattr(state_module, "entity_digest", counting)
    changed = base.put(CONTACTS, Contact(id="ct_000007", name="M")).put(CONTACTS, Contact(id="ct_000007", name="O"))
    changed.content_hash()
    assert len(hashed) == 2  # the new version and the anchor's version of the one changed record
    monkeypatch.undo()
    assert changed.content_hash() == changed.full_content_hash()
