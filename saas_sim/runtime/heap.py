"""Keeping long-lived worlds out of the garbage collector's view.

A world is hundreds of thousands of immutable objects that live as long as the
process. CPython's cyclic collector does not know that: every full (gen-2)
collection walks all of them, and on a big world each walk is a pause of tens
of milliseconds in the middle of some agent's call. `gc.freeze()` moves every
object alive now into a permanent generation the collector never scans; the
objects are still freed by reference counting when they are dropped.

The cost: an object frozen while it is in a reference cycle is never reclaimed
by the cyclic collector if it becomes garbage later. So the heap is frozen
right after a collection, at moments when what is alive is mostly worlds
(after a world is built or loaded), and `Environment(freeze_worlds=False)`
turns it off for processes that would rather keep every cycle collectable.
"""

from __future__ import annotations

import gc

__all__ = ["SERVER_GC_THRESHOLDS", "retire_long_lived", "set_gc_thresholds"]


def retire_long_lived() -> int:
    """Collects garbage, then moves every live object out of the collector's view; returns how many."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


SERVER_GC_THRESHOLDS = (50_000, 20, 100)
"""The collector's thresholds a long-running server sets (`saas-sim serve --gc-thresholds`).

Python's default, (700, 10, 10), collects the young generation every 700 allocations. A server
with many requests in flight keeps each request's objects alive across several such collections,
so they are promoted to the old generation, and full collections follow: each walks every live
episode. Measured with `saas-sim bench http` at 2,048 sessions: about 25 % of the server's CPU
went to the collector (full collections of about 260 ms each, one a second), against about 5 %
with these thresholds. Reference counting still frees nearly everything at once; the collector
only finds cycles, a little later.
"""


def set_gc_thresholds(thresholds: tuple[int, int, int]) -> None:
    """Sets the cyclic collector's three generation thresholds (`gc.set_threshold`).

    Raises:
        ValueError: A threshold is below 1 (0 would turn collection off).
    """
    if len(thresholds) != 3 or any(t < 1 for t in thresholds):
        raise ValueError(f"three thresholds of at least 1 are needed, got {thresholds}")
    gc.set_threshold(*thresholds)
