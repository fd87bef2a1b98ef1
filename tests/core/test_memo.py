"""TextMemo: a bounded memo of pure functions of text, keyed by the texts' digest."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from saas_sim.core.memo import LruCache, TextMemo, text_key


def test_an_answer_is_computed_once_per_distinct_texts() -> None:
    memo: TextMemo[int] = TextMemo(8)
    calls: list[str] = []

    def length(text: str) -> int:
        calls.append(text)
        return len(text)

    assert memo.get(("abc",), lambda: length("abc")) == 3
    assert memo.get(("abc",), lambda: length("abc")) == 3
    assert memo.get(("abcd",), lambda: length("abcd")) == 4
    assert calls == ["abc", "abcd"]


def test_the_least_recently_used_answer_goes_first_past_the_size() -> None:
    memo: TextMemo[str] = TextMemo(2)
    memo.get(("a",), lambda: "A")
    memo.get(("b",), lambda: "B")
    memo.get(("a",), lambda: "never")  # used again: "b" is now the oldest
    memo.get(("c",), lambda: "C")
    assert len(memo) == 2
    assert memo.get(("a",), lambda: "recomputed") == "A"
    assert memo.get(("b",), lambda: "recomputed") == "recomputed"


def test_an_exception_is_raised_and_not_stored() -> None:
    memo: TextMemo[int] = TextMemo(2)

    def boom() -> int:
        raise ValueError("bad")

    with pytest.raises(ValueError, match="bad"):
        memo.get(("x",), boom)
    assert len(memo) == 0
    assert memo.get(("x",), lambda: 1) == 1


def test_a_size_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        TextMemo(0)


@given(st.lists(st.text(), max_size=4), st.lists(st.text(), max_size=4))
def test_different_text_tuples_have_different_keys(a: list[str], b: list[str]) -> None:
    assert (text_key(*a) == text_key(*b)) == (a == b)


def test_lone_surrogates_have_a_key() -> None:
    assert text_key("\ud800") != text_key("\udc00")


def test_a_none_answer_is_stored_like_any_other() -> None:
    memo: TextMemo[None] = TextMemo(2)
    calls: list[str] = []
    for _ in range(3):
        assert memo.get(("x",), lambda: calls.append("x")) is None
    assert calls == ["x"]


def test_an_lru_cache_read_keeps_an_entry_and_the_oldest_unread_goes_first() -> None:
    cache: LruCache[str, int] = LruCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now the most recently used
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (1, None, 3)
    assert len(cache) == 2
    cache.clear()
    assert len(cache) == 0 and cache.get("a") is None
