"""Relabelling ids: a permutation moves records and every reference to them, and nothing else."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from saas_sim.core.relabel import IdsRelabeled, Relabeller, check_permutation, relabel_state
from saas_sim.core.state import Entity, State, TableKey, ValueKey
from saas_sim.errors import UsageError


class Person(Entity):
    name: str
    friend_id: str | None = None
    note: str = ""
    tags: tuple[str, ...] = ()


class Truth(Entity):
    key: str


class Roster(BaseModel):
    by_id: dict[str, int]
    first: str


PEOPLE = TableKey("people", Person)
TRUTHS = TableKey("truths", Truth)
ROSTER = ValueKey("roster", Roster)


def _world() -> State:
    state = State().put_many(PEOPLE, [
        Person(id="ct_000001", name="Ann", friend_id="ct_000003", note="see ct_000001 and ct_0000012"),
        Person(id="ct_000002", name="Bob", tags=("ct_000001", "vip")),
        Person(id="ct_000003", name="Ann", note="copy of xct_000001"),
    ])
    state = state.put_many(TRUTHS, [Truth(id="ct_000001", key="p1"), Truth(id="ct_000003", key="p9")])
    state = state.set_value(ROSTER, Roster(by_id={"ct_000001": 1, "ct_000002": 2}, first="ct_000003"))
    state.content_hash()
    return state


def test_a_swap_moves_each_record_and_every_reference_to_it() -> None:
    after = relabel_state(_world(), {"ct_000001": "ct_000003", "ct_000003": "ct_000001"})
    ann, copy = after.get(PEOPLE, "ct_000003"), after.get(PEOPLE, "ct_000001")
    assert ann is not None and copy is not None
    assert (ann.name, ann.friend_id, ann.note) == ("Ann", "ct_000001", "see ct_000003 and ct_0000012")
    assert copy.note == "copy of xct_000001"  # not a whole token: left alone
    assert after.get(PEOPLE, "ct_000002") == Person(id="ct_000002", name="Bob", tags=("ct_000003", "vip"))
    assert after.get(TRUTHS, "ct_000003") == Truth(id="ct_000003", key="p1")
    assert after.value(ROSTER) == Roster(by_id={"ct_000003": 1, "ct_000002": 2}, first="ct_000001")
    assert after.counters() == _world().counters()


def test_a_record_moving_to_an_empty_slot_leaves_its_old_one_empty() -> None:
    state = State().put_many(TRUTHS, [Truth(id="ct_000001", key="p1")])
    after = relabel_state(state, {"ct_000001": "ct_000002", "ct_000002": "ct_000001"})
    assert [t.id for t in after.table(TRUTHS)] == ["ct_000002"]


def test_the_hash_kept_in_o_changes_equals_the_hash_summed_in_full() -> None:
    after = relabel_state(_world(), {"ct_000001": "ct_000003", "ct_000003": "ct_000001"})
    assert after.content_hash() == after.full_content_hash()


@pytest.mark.parametrize("mapping", [
    {"ct_000001": "ct_000002"},                      # not a permutation: merges two records
    {"ct_000001": "ac_000001", "ac_000001": "ct_000001"},  # moves a record to another prefix
    {"ct_000001": "Ann", "Ann": "ct_000001"},        # not ids
])
def test_a_mapping_that_is_not_a_permutation_of_ids_is_refused(mapping: dict[str, str]) -> None:
    with pytest.raises(UsageError):
        check_permutation(mapping)


def test_unchanged_values_are_the_very_same_objects() -> None:
    relabel = Relabeller({"ct_000001": "ct_000002", "ct_000002": "ct_000001"})
    data: dict[str, Any] = {"a": ["x", ("y",)], "b": {"ct_000009"}}
    assert relabel.value(data) is data
    assert relabel.value({"a": ["ct_000001"]}) == {"a": ["ct_000002"]}


_ids = st.integers(1, 6).map(lambda n: f"ct_{n:06d}")


@settings(max_examples=60, deadline=None)
@given(st.permutations([f"ct_{n:06d}" for n in range(1, 7)]), st.lists(st.tuples(_ids, _ids), max_size=6))
def test_relabelling_by_a_permutation_then_its_inverse_gives_the_state_back(
    order: list[str], links: list[tuple[str, str]],
) -> None:
    state = State().put_many(PEOPLE, [Person(id=a, name=f"n{i}", friend_id=b, note=f"{a} knows {b}")
                                      for i, (a, b) in enumerate(links)]).with_counters({"ct": 6})
    state.content_hash()
    mapping = dict(zip(sorted(order), order, strict=True))
    inverse = {new: old for old, new in mapping.items()}
    there = relabel_state(state, mapping)
    assert len(there.table(PEOPLE)) == len(state.table(PEOPLE))
    back = relabel_state(there, inverse)
    assert back.content() == state.content()
    assert back.content_hash() == state.content_hash()


def test_the_event_folds_through_its_projection() -> None:
    from saas_sim.core.relabel import RELABEL_PROJECTION

    ev = IdsRelabeled(pairs=(("ct_000001", "ct_000003"), ("ct_000003", "ct_000001")))
    after = RELABEL_PROJECTION.fold(_world(), [ev])
    assert after.get(PEOPLE, "ct_000003") is not None and after.get(PEOPLE, "ct_000003").name == "Ann"  # type: ignore[union-attr]


class Blob(Entity):
    text: str
    owner_id: str | None = None


BLOBS = TableKey("blobs", Blob)


def test_texts_of_a_record_keyed_by_something_else_than_an_id_keep_their_bytes() -> None:
    # A blob is keyed by the sha256 of its text: rewriting the text would break the key.
    state = _world().put(BLOBS, Blob(id="9f86d081", text="owner is ct_000001", owner_id="ct_000001"))
    after = relabel_state(state, {"ct_000001": "ct_000003", "ct_000003": "ct_000001"})
    assert after.get(BLOBS, "9f86d081") == Blob(id="9f86d081", text="owner is ct_000001", owner_id="ct_000003")
