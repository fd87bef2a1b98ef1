"""Seed trees: sha256-derived, identical in every process (never Python's salted `hash()`)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import sys

from saas_sim.core.rng import SeedTree, derive_seed

PINNED_CHILD = "41e39e5763fc9a81fbf8687eefde3fabd6fe6855872db545deff5bceee288dd2"


def test_derive_seed_is_sha256_of_parent_and_name() -> None:
    assert derive_seed("42", "world") == hashlib.sha256(b"42:world").hexdigest() == PINNED_CHILD


def test_the_seed_tree_is_pinned() -> None:
    tree = SeedTree(42)
    assert tree.child("world").seed == PINNED_CHILD
    assert tree.child("world").child("crm").seed == "86eba4d1d53080bf816ebe6ee63e32fa991d59bf2497bbe09b32414ecddc9f46"
    assert tree.child("world").int_seed() == 4266897717170457511
    deals = tree.random("deals")
    assert [deals.randint(0, 10**6) for _ in range(3)] == [778834, 894640, 511044]


def test_seeded_faker_is_pinned() -> None:
    fake = SeedTree(42).faker("people")
    assert (fake.name(), fake.email()) == ("Jennifer Hayes", "tyler65@example.com")


def test_int_and_str_roots_are_the_same_seed() -> None:
    assert SeedTree(42).child("x").seed == SeedTree("42").child("x").seed


def test_children_with_different_names_or_parents_differ() -> None:
    tree = SeedTree("root")
    assert tree.child("a").seed != tree.child("b").seed
    assert tree.child("a").child("b").seed != tree.child("b").child("a").seed
    assert tree.child("a:b").seed != tree.child("a").child("b").seed


def test_int_seed_respects_its_bit_width() -> None:
    tree = SeedTree("w")
    for bits in (1, 8, 32, 64, 128, 256):
        assert 0 <= tree.int_seed(bits) < 2**bits
    assert tree.int_seed(64) >> 32 == tree.int_seed(32)


def test_random_streams_are_independent_generators() -> None:
    tree = SeedTree(1)
    a = tree.random("a")
    first = a.random()
    b = tree.random("a")
    assert b.random() == first
    a.random()
    assert tree.random("a").random() == first


async def test_the_seed_tree_is_identical_in_processes_with_different_hash_seeds() -> None:
    code = (
        "from saas_sim.core.rng import SeedTree;"
        "t = SeedTree(42);"
        "r = t.random('deals');"
        "print(t.child('world').seed, [r.randint(0, 10**6) for _ in range(3)], t.faker('people').name())"
    )
    outputs = []
    for hash_seed in ("0", "1"):
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", code, env={**os.environ, "PYTHONHASHSEED": hash_seed},
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await proc.communicate()
        assert proc.returncode == 0
        outputs.append(out.decode().strip())
    assert outputs == [f"{PINNED_CHILD} [778834, 894640, 511044] Jennifer Hayes"] * 2
