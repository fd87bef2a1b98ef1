"""The state-diff helper: field diffs of nested JSON data, entity diffs of states, with and without a shared anchor."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from saas_sim.core.state import Entity, State, TableKey
from saas_sim.runtime.step_diff import FieldChange, diff_fields, diff_states

KEYS = st.sampled_from(["a", "b", "c", "d"])
LEAVES = st.none() | st.booleans() | st.integers(-3, 3) | st.text("xy", max_size=2) | st.lists(st.integers(0, 2),
                                                                                                 max_size=2)
DOCS = st.recursive(st.dictionaries(KEYS, LEAVES, max_size=4),
                    lambda inner: st.dictionaries(KEYS, LEAVES | inner, max_size=4), max_leaves=12)


class Thing(Entity):
    name: str
    size: int = 0
    tags: dict[str, Any] = {}


THINGS = TableKey("things", Thing)


def leaves(doc: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in doc.items():
        if isinstance(value, dict):
            out.update(leaves(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


@settings(max_examples=300, deadline=None)
@given(DOCS, DOCS)
def test_field_diff_lists_exactly_the_leaves_that_differ(before: dict[str, Any], after: dict[str, Any]) -> None:
    changes = diff_fields(before, after)
    old, new = leaves(before), leaves(after)
    expected = sorted(p for p in old.keys() | new.keys() if p not in old or p not in new or old[p] != new[p])
    assert [c.path for c in changes] == expected
    for c in changes:
        assert (c.before, c.after) == (old.get(c.path), new.get(c.path))
    assert diff_fields(after, before) == tuple(FieldChange(c.path, c.after, c.before) for c in changes)


@given(DOCS)
def test_field_diff_of_equal_data_is_empty(doc: dict[str, Any]) -> None:
    assert diff_fields(doc, doc) == ()
    assert diff_fields(doc, None) == tuple(FieldChange(p, v, None) for p, v in sorted(leaves(doc).items()))


def test_field_diff_ignores_number_forms_that_hash_alike() -> None:
    assert diff_fields({"amount": 25}, {"amount": 25.0}) == ()


def test_state_diff_names_created_updated_and_deleted_entities_in_id_order() -> None:
    base = State().put_many(THINGS, [Thing(id="th_000001", name="a"), Thing(id="th_000002", name="b")])
    base.content_hash()  # an anchor: later states diff against it in O(changes)
    after = (base.put(THINGS, Thing(id="th_000002", name="b", size=3, tags={"k": "v"}))
             .put(THINGS, Thing(id="th_000003", name="c"))
             .delete(THINGS, "th_000001"))
    assert after.changed_since(base) is not None
    changes = diff_states(base, after)
    assert [(c.entity_id, c.change) for c in changes] == [
        ("th_000001", "deleted"), ("th_000002", "updated"), ("th_000003", "created")]
    assert changes[1].fields == (FieldChange("size", 0, 3), FieldChange("tags.k", None, "v"))
    assert changes[2].fields[0] == FieldChange("id", None, "th_000003")


def test_state_diff_without_a_shared_anchor_compares_in_full() -> None:
    one = State().put(THINGS, Thing(id="th_000001", name="a"))
    other = State().put_many(THINGS, [Thing(id="th_000001", name="z"), Thing(id="th_000002", name="b")])
    assert other.changed_since(one) is None
    changes = diff_states(one, other)
    assert [(c.entity_id, c.change, [f.path for f in c.fields]) for c in changes] == [
        ("th_000001", "updated", ["name"]), ("th_000002", "created", ["id", "name", "size"])]


def test_an_entity_changed_and_changed_back_is_no_change() -> None:
    base = State().put(THINGS, Thing(id="th_000001", name="a"))
    base.content_hash()
    after = base.put(THINGS, Thing(id="th_000001", name="b")).put(THINGS, Thing(id="th_000001", name="a"))
    assert after.changed_since(base) and diff_states(base, after) == []
