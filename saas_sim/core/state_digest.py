"""The state's content hash: a multiset hash over its items, kept up to date per change.

A state is a set of items: every entity of every table, every singleton value
and every id counter. Each item hashes on its own (sha256 of a tag, its name
and its canonical JSON); the state's digest is the sum of its items' hashes
modulo 2**256 (an additive multiset hash, as in Clarke et al., "Incremental
multiset hash functions"). Addition commutes, so the digest does not depend on
the order in which the state was built, and a change updates it in O(what
changed): subtract the old item's hash, add the new one's. `content_hash`
finally hashes the digest once more with a version tag, so the published form
is an ordinary sha256 hex string.

The digest of a state is the same whether it was summed item by item from
scratch or carried along change by change; a property test keeps it so.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from saas_sim.core.canonical import canonical_bytes

if TYPE_CHECKING:
    from saas_sim.core.table import Table

__all__ = [
    "DIGEST_MODULUS",
    "ItemKey",
    "counter_digest",
    "entity_digest",
    "publish",
    "table_digest",
    "value_digest",
]

DIGEST_MODULUS = 1 << 256
_SCHEME = b"saas_sim.state/2\x1f"

ItemKey = tuple[str, str, str]
"""Names one item of a state: ("t", table, id), ("v", value name, "") or ("c", id prefix, "")."""


def _digest(tag: bytes, name: str, body: bytes) -> int:
    return int.from_bytes(hashlib.sha256(tag + name.encode() + b"\x1f" + body).digest(), "big")


def entity_digest(table: str, entity: BaseModel) -> int:
    """Returns the hash of one entity of `table` (its id is part of its canonical JSON)."""
    return _digest(b"t\x1f", table, canonical_bytes(entity.model_dump(mode="python")))


def value_digest(name: str, value: BaseModel) -> int:
    """Returns the hash of the singleton value `name`."""
    return _digest(b"v\x1f", name, canonical_bytes(value.model_dump(mode="python")))


def counter_digest(prefix: str, number: int) -> int:
    """Returns the hash of the id counter of `prefix`."""
    return _digest(b"c\x1f", prefix, str(number).encode())


def table_digest(name: str, table: Table[Any]) -> int:
    """Returns the sum of the hashes of every entity of a table. O(size)."""
    total = 0
    for entity in table:
        total += entity_digest(name, entity)
    return total % DIGEST_MODULUS


def publish(digest: int) -> str:
    """Returns the content hash that a digest publishes: sha256 hex of the scheme tag and the digest."""
    return hashlib.sha256(_SCHEME + digest.to_bytes(32, "big")).hexdigest()
