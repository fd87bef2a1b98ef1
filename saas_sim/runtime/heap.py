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

__all__ = ["retire_long_lived"]


def retire_long_lived() -> int:
    """Collects garbage, then moves every live object out of the collector's view; returns how many."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
