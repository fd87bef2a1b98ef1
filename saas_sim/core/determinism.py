"""The seeded context that owns everything non-deterministic in a run."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import datetime

from faker import Faker

from saas_sim.core.clock import DEFAULT_EPOCH, SimClock
from saas_sim.core.ids import IdFactory
from saas_sim.core.rng import SeedTree

__all__ = ["SeedContext"]


class SeedContext:
    """Seed tree, virtual clock, id factory, random streams and Faker, from one seed.

    Args:
        seed: The root seed.
        start: The clock's first instant.
        counters: Id counters to continue from.
    """

    def __init__(
        self,
        seed: int | str,
        *,
        start: datetime = DEFAULT_EPOCH,
        counters: Mapping[str, int] | None = None,
    ) -> None:
        self.tree = SeedTree(seed)
        self.clock = SimClock(start)
        self.ids = IdFactory(counters)

    def random(self, name: str) -> random.Random:
        """Returns the named random stream (a fresh generator each call)."""
        return self.tree.random(name)

    def faker(self, name: str, locales: Sequence[str] = ("en_US",)) -> Faker:
        """Returns a Faker instance seeded by the named branch of the tree."""
        return self.tree.faker(name, locales)

    def child(self, name: str) -> SeedContext:
        """Returns a context on the named subtree, sharing nothing mutable with this one."""
        sub = SeedContext(0, start=self.clock.now(), counters=self.ids.counters())
        sub.tree = self.tree.child(name)
        return sub
