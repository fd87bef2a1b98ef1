"""A bounded memo of pure functions of text: the same texts in, the stored answer out.

Checks and tools re-read the same texts again and again: every episode of a task starts from the
same files, and the episodes of a training group often end on the same edits. Parsing such a
text costs milliseconds; looking it up costs one sha256. `TextMemo` keys answers by the sha256
of their text arguments, so it holds digests and answers only (never the texts, which an agent
can make as large as a file may be), and keeps the most recently used `size` of them.

Only pure functions belong here: an answer must depend on nothing but the texts, or a memo would
make two worlds observe different things.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["LruCache", "TextMemo", "text_key"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def text_key(*parts: str) -> bytes:
    """The sha256 of the texts, each length-prefixed (so ("ab", "c") and ("a", "bc") differ).

    Lone surrogates (which agent JSON can carry) are kept as they are, not refused.
    """
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.digest()


class LruCache(Generic[K, V]):
    """A thread-safe map that keeps its `size` most recently used entries.

    Args:
        size: How many entries it keeps (the least recently used go first).

    Raises:
        ValueError: `size` is below 1.
    """

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"size must be at least 1, got {size}")
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: K) -> V | None:
        """The entry, now the most recently used, or None."""
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        """Stores an entry, dropping the least recently used past the size."""
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        """Forgets every entry."""
        with self._lock:
            self._items.clear()


class TextMemo(Generic[V]):
    """A thread-safe LRU of a pure function's answers, keyed by `text_key` of its text arguments.

    Args:
        size: How many answers it keeps (the least recently used go first).

    Raises:
        ValueError: `size` is below 1.
    """

    def __init__(self, size: int) -> None:
        self._cache: LruCache[bytes, tuple[V]] = LruCache(size)

    @property
    def size(self) -> int:
        """How many answers it keeps."""
        return self._cache.size

    def __len__(self) -> int:
        return len(self._cache)

    def get(self, parts: tuple[str, ...], compute: Callable[[], V]) -> V:
        """The stored answer for these texts, or `compute()`'s, stored.

        `compute` runs outside the lock: two threads may both compute a missing answer, and
        since it is pure, either may be kept. An exception from `compute` is not stored.
        """
        key = text_key(*parts)
        held = self._cache.get(key)  # boxed, so that None is an answer like any other
        if held is not None:
            return held[0]
        value = compute()
        self._cache.put(key, (value,))
        return value

    def clear(self) -> None:
        """Forgets every answer."""
        self._cache.clear()
