"""KeyIndex and KeyGroups: a patch from the changed records equals a build from scratch (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from saas_sim.core.identity import IdentityIndex
from saas_sim.core.key_groups import KeyGroups, KeyIndex

_RECORDS = [f"r{i}" for i in range(12)]
_KEYS = st.frozensets(st.sampled_from(["a", "b", "c", "d", "e", "f", "g"]), max_size=3)
_STATE = st.dictionaries(st.sampled_from(_RECORDS), _KEYS, max_size=12)
_CHANGES = st.lists(st.dictionaries(st.sampled_from(_RECORDS), st.none() | _KEYS, max_size=4), max_size=8)


def _apply(records: dict[str, frozenset[str]], change: dict[str, frozenset[str] | None]) -> dict[str, frozenset[str]]:
    out = dict(records)
    for record_id, keys in change.items():
        if keys is None:
            out.pop(record_id, None)
        else:
            out[record_id] = keys
    return out


def _holders(index: KeyIndex, records: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    return {k: index.holders(k) for ks in records.values() for k in ks}


def test_groups_are_connected_components_of_shared_keys() -> None:
    groups = KeyGroups.of([("r1", {"a"}), ("r2", {"a", "b"}), ("r3", {"b"}), ("r4", {"c"}), ("r5", set())])
    assert groups.group("r1") == groups.group("r3") == frozenset({"r1", "r2", "r3"})
    assert groups.group("r4") == frozenset({"r4"})
    assert groups.group("r5") == frozenset({"r5"})
    assert groups.group("r9") is None


def test_an_edit_that_drops_the_bridge_splits_a_group_and_one_that_adds_it_joins_two() -> None:
    groups = KeyGroups.of([("r1", {"a"}), ("r2", {"a", "b"}), ("r3", {"b"})])
    split = groups.updated({"r2": {"z"}})
    assert split.group("r1") == frozenset({"r1"})
    assert split.group("r3") == frozenset({"r3"})
    joined = split.updated({"r2": {"a", "b"}})
    assert joined.group("r1") == frozenset({"r1", "r2", "r3"})
    gone = joined.updated({"r2": None})
    assert gone.group("r2") is None
    assert gone.group("r1") == frozenset({"r1"})
    assert groups.group("r1") == frozenset({"r1", "r2", "r3"})  # the old value is untouched


@settings(max_examples=300, deadline=None)
@given(_STATE, _CHANGES)
def test_patched_index_equals_a_fresh_one(start: dict[str, frozenset[str]],
                                          changes: list[dict[str, frozenset[str] | None]]) -> None:
    index, records = KeyIndex.of(start.items()), dict(start)
    for change in changes:
        index, records = index.updated(change), _apply(records, change)
        fresh = KeyIndex.of(records.items())
        assert _holders(index, records) == _holders(fresh, records)
        assert all(index.keys(r) == records[r] for r in records)
        assert all((r in index) == (r in records) for r in _RECORDS)
        assert all(not index.holders(k) for k in "abcdefg" if not any(k in ks for ks in records.values()))


@settings(max_examples=300, deadline=None)
@given(_STATE, _CHANGES)
def test_patched_groups_equal_fresh_ones(start: dict[str, frozenset[str]],
                                         changes: list[dict[str, frozenset[str] | None]]) -> None:
    groups, records = KeyGroups.of(start.items()), dict(start)
    for change in changes:
        groups, records = groups.updated(change), _apply(records, change)
        assert dict(groups.groups) == dict(KeyGroups.of(records.items()).groups)


@settings(max_examples=200, deadline=None)
@given(_STATE)
def test_groups_are_the_entities_of_an_identity_index(start: dict[str, frozenset[str]]) -> None:
    # The same relation IdentityIndex computes: keys as emails ("a@x.io") give the same entities.
    groups = KeyGroups.of(start.items())
    index = IdentityIndex.of((r, [f"{k}@x.io" for k in sorted(ks)], ()) for r, ks in start.items())
    for r in start:
        assert sorted(groups.group(r) or ()) == list(index.records(index.entity(r)))
