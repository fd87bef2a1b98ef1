"""Keyset pagination: stable pages that never skip or repeat an item."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from saas_sim.core.paging import SortKey, json_key, keyset_page

ROWS = [("b", 2), ("a", 3), ("c", 1), ("a", 1), ("b", 1)]


def _by_name(row: tuple[str, int]) -> SortKey:
    return (row[0], row[1])


def _all_pages(rows: list[tuple[str, int]], limit: int) -> list[list[tuple[str, int]]]:
    pages = []
    after: SortKey | None = None
    while True:
        page, after, _ = keyset_page(rows, _by_name, after, limit)
        pages.append(page)
        if after is None:
            return pages


def test_the_first_page_is_the_start_of_the_sorted_list() -> None:
    page, next_key, total = keyset_page(ROWS, _by_name, None, 2)
    assert page == [("a", 1), ("a", 3)]
    assert next_key == ("a", 3)
    assert total == 5


def test_the_next_page_starts_after_the_given_key() -> None:
    page, next_key, total = keyset_page(ROWS, _by_name, ("a", 3), 2)
    assert page == [("b", 1), ("b", 2)]
    assert next_key == ("b", 2)
    assert total == 5


def test_the_last_page_has_no_next_key() -> None:
    assert keyset_page(ROWS, _by_name, ("b", 2), 2) == ([("c", 1)], None, 5)
    assert keyset_page(ROWS, _by_name, None, 5) == (sorted(ROWS), None, 5)


def test_a_key_past_the_end_gives_an_empty_last_page() -> None:
    assert keyset_page(ROWS, _by_name, ("z", 0), 2) == ([], None, 5)
    assert keyset_page([], _by_name, None, 3) == ([], None, 0)


def test_a_record_created_between_pages_never_shifts_later_pages() -> None:
    first, after, _ = keyset_page(ROWS, _by_name, None, 2)
    assert first == [("a", 1), ("a", 3)]
    grown = [*ROWS, ("a", 0)]  # sorts before the cursor: already "seen" territory
    second, _, total = keyset_page(grown, _by_name, after, 2)
    assert second == [("b", 1), ("b", 2)]
    assert total == 6


def test_datetimes_in_keys_come_back_as_iso_text() -> None:
    t0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    stamps = [t0 + timedelta(minutes=m) for m in (5, 1, 3)]
    page, next_key, _ = keyset_page(stamps, lambda t: (t, "id"), None, 2)
    assert page == [stamps[1], stamps[2]]
    assert next_key == (stamps[2].isoformat(), "id")
    assert json_key((t0, 1, "x")) == ("2026-03-02T09:00:00+00:00", 1, "x")


def test_a_key_of_another_shape_raises_type_error() -> None:
    with pytest.raises(TypeError):
        keyset_page(ROWS, _by_name, (1, 2), 2)


@given(st.lists(st.tuples(st.sampled_from("abcd"), st.integers(0, 50)), unique=True, max_size=40),
       st.integers(min_value=1, max_value=7))
def test_walking_every_page_yields_each_item_once_in_order(rows: list[tuple[str, int]], limit: int) -> None:
    pages = _all_pages(rows, limit)
    assert [row for page in pages for row in page] == sorted(rows)
    assert all(len(page) == limit for page in pages[:-1])
