"""Derived: per-state views computed once on the world, reused when untouched, patched from the changed keys."""

from __future__ import annotations

import immutables
from hypothesis import given, settings
from hypothesis import strategies as st

from saas_sim.core.derived import Derived
from saas_sim.core.state import Entity, State, Table, TableKey
from saas_sim.core.state_digest import ItemKey


class Row(Entity):
    group: str
    amount: int = 0


ROWS = TableKey("rows", Row)
OTHER = TableKey("other", Row)


def _world(n: int = 6) -> State:
    world = State().put_many(ROWS, [Row(id=f"r_{i:06d}", group=f"g{i % 3}", amount=i) for i in range(n)])
    world = world.put(OTHER, Row(id="o_000001", group="x"))
    world.content_hash()  # a hashed anchor, as a built world is
    return world


def _totals(state: State) -> dict[str, int]:
    """The sum of amounts per group (groups summing to zero left out, so a patch need not track them)."""
    out: dict[str, int] = {}
    for r in state.table(ROWS):
        out[r.group] = out.get(r.group, 0) + r.amount
    return {g: v for g, v in out.items() if v}


class _Recorder:
    """A `full` and an `update` that count their calls and note the keys `update` got."""

    def __init__(self) -> None:
        self.fulls: list[State] = []
        self.updates: list[frozenset[ItemKey]] = []

    def full(self, state: State) -> dict[str, int]:
        self.fulls.append(state)
        return _totals(state)

    def update(self, base: dict[str, int], base_state: State, state: State,
               changed: frozenset[ItemKey]) -> dict[str, int]:
        self.updates.append(changed)
        out = dict(base)
        for _, _, row_id in changed:
            old, new = base_state.get(ROWS, row_id), state.get(ROWS, row_id)
            if old is not None:
                out[old.group] = out.get(old.group, 0) - old.amount
            if new is not None:
                out[new.group] = out.get(new.group, 0) + new.amount
        return {g: v for g, v in out.items() if v}


def test_value_is_computed_once_on_the_world_and_reused_by_an_untouched_episode() -> None:
    rec = _Recorder()
    view = Derived("totals", (ROWS.name,), rec.full, rec.update)
    world = _world()
    episode = world.put(OTHER, Row(id="o_000002", group="y"))  # another table only
    assert view.of(episode) == _totals(world)
    assert rec.fulls == [world]
    assert rec.updates == []
    assert view.of(episode) is view.of(episode)  # cached per state
    assert view.of(world) is view.of(episode)  # the world's value, as is


def test_update_gets_exactly_the_changed_keys_of_the_named_tables() -> None:
    rec = _Recorder()
    view = Derived("totals", (ROWS.name,), rec.full, rec.update)
    world = _world()
    state = world.put(ROWS, Row(id="r_000001", group="g1", amount=100))
    state = state.put(OTHER, Row(id="o_000009", group="z"))
    state = state.delete(ROWS, "r_000002")
    state = state.put(ROWS, Row(id="r_000050", group="g9", amount=7))
    assert view.of(state) == _totals(state)
    assert rec.fulls == [world]
    assert rec.updates == [frozenset({("t", ROWS.name, "r_000001"), ("t", ROWS.name, "r_000002"),
                                      ("t", ROWS.name, "r_000050")})]


def test_without_update_a_changed_table_is_recomputed_in_full() -> None:
    rec = _Recorder()
    view = Derived("totals", (ROWS.name,), rec.full)
    world = _world()
    state = world.put(ROWS, Row(id="r_000003", group="g0", amount=1))
    assert view.of(state) == _totals(state)
    assert rec.fulls == [world, state]


def test_a_state_with_no_lineage_is_computed_in_full() -> None:
    rec = _Recorder()
    view = Derived("totals", (ROWS.name,), rec.full, rec.update)
    world = _world()
    view.of(world)
    raw = State(immutables.Map({ROWS.name: Table(immutables.Map({r.id: r for r in world.table(ROWS)}))}))
    assert view.of(raw) == _totals(world)
    assert rec.fulls == [world, raw]
    assert rec.updates == []


def test_an_episode_carries_from_its_nearest_known_ancestor() -> None:
    rec = _Recorder()
    view = Derived("totals", (ROWS.name,), rec.full, rec.update)
    world = _world()
    mid = world.put(ROWS, Row(id="r_000001", group="g1", amount=10))
    mid.content_hash()  # mid-episode anchor (a step's hash)
    assert view.of(mid) == _totals(mid)
    late = mid.put(ROWS, Row(id="r_000004", group="g2", amount=20))
    assert view.of(late) == _totals(late)
    assert rec.updates[-1] == frozenset({("t", ROWS.name, "r_000004")})
    assert rec.fulls == [world]


_IDS = st.sampled_from([f"r_{i:06d}" for i in range(10)])
_EDIT = st.one_of(
    st.tuples(st.just("put"), _IDS, st.sampled_from(["g0", "g1", "g2", "g3"]), st.integers(0, 50)),
    st.tuples(st.just("del"), _IDS, st.just(""), st.just(0)),
    st.tuples(st.just("other"), _IDS, st.just(""), st.just(0)),
    st.tuples(st.just("hash"), _IDS, st.just(""), st.just(0)),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_EDIT, max_size=25))
def test_values_equal_a_full_recomputation_on_any_change_sequence(edits: list[tuple[str, str, str, int]]) -> None:
    rec = _Recorder()
    view = Derived("totals", (ROWS.name,), rec.full, rec.update)
    state = _world()
    assert view.of(state) == _totals(state)
    for op, row_id, group, amount in edits:
        if op == "put":
            state = state.put(ROWS, Row(id=row_id, group=group, amount=amount))
        elif op == "del":
            state = state.delete(ROWS, row_id)
        elif op == "other":
            state = state.put(OTHER, Row(id=row_id, group="x"))
        else:
            state.content_hash()  # a new anchor mid-way
        assert view.of(state) == _totals(state)
