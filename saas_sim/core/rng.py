"""Seed trees, named random streams and seeded Faker instances.

Every random choice in saas_sim descends from one root seed through a tree of
names: `child = sha256(f"{parent}:{name}")`. Python's `hash()` is salted per
process, so it is never used; sha256 gives the same tree everywhere.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence

from faker import Faker

__all__ = ["SeedTree", "derive_seed", "peek_coin", "tie_rank"]


def derive_seed(parent: str, name: str) -> str:
    """Returns the hex sha256 seed of child `name` under `parent`."""
    return hashlib.sha256(f"{parent}:{name}".encode()).hexdigest()


def tie_rank(salt: str, entity_id: str) -> str:
    """Returns where `entity_id` stands among records tied on a list's sort key, in the order `salt` draws.

    The rank is the first 16 hex digits of `sha256(f"{salt}:{entity_id}")`: a fixed, documented
    order for one salt (one episode's) that no id order predicts, so a same-named record staged
    after the real one (a higher id) is as likely to come first as last.
    """
    return hashlib.sha256(f"{salt}:{entity_id}".encode()).hexdigest()[:16]


def peek_coin(rng: random.Random) -> bool:
    """Returns a fair coin read from the sha256 of `rng`'s state, without drawing from it.

    A setup that adds this choice to an older one leaves every later draw as it was, so the tasks it made
    before change only where the coin is read.
    """
    return bool(hashlib.sha256(repr(rng.getstate()).encode()).digest()[0] & 1)


class SeedTree:
    """A node in the seed tree.

    Args:
        seed: The root seed (an int or a string) or a derived hex seed.
    """

    __slots__ = ("seed",)

    def __init__(self, seed: int | str) -> None:
        self.seed = str(seed)

    def child(self, name: str) -> SeedTree:
        """Returns the subtree for `name`."""
        return SeedTree(derive_seed(self.seed, name))

    def int_seed(self, bits: int = 64) -> int:
        """Returns this node's seed as a non-negative integer of at most `bits` bits."""
        digest = hashlib.sha256(self.seed.encode()).digest()
        return int.from_bytes(digest, "big") >> (256 - bits)

    def random(self, name: str) -> random.Random:
        """Returns a fresh `random.Random` stream seeded by child `name`."""
        return random.Random(self.child(name).int_seed())

    def faker(self, name: str, locales: Sequence[str] = ("en_US",)) -> Faker:
        """Returns a Faker instance seeded by child `name`.

        Faker's output depends on its release, which is why the project pins it.
        """
        fake = Faker(list(locales))
        fake.seed_instance(self.child(name).int_seed())
        return fake

    def __repr__(self) -> str:
        return f"SeedTree({self.seed[:12]}...)"
