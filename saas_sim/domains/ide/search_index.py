"""The IDE's text indexes: a prefilter over blob texts for literal searches.

Blobs are immutable and content-addressed, so a blob's text is a pure function
of the blob record: the index is over `ide.blobs`, and a search keeps the files
whose blob holds the literal. It is only a prefilter: every kept file is
searched by RE2 exactly as before, so results cannot change.

* A case-sensitive literal is in a file's UTF-8 bytes exactly when it is a
  substring of its text (`BLOB_TEXT`).
* A case-insensitive ASCII literal matches an ASCII text exactly when its lower
  case is a substring of the text's lower case (`BLOB_LOWER`). RE2 folds some
  non-ASCII letters onto ASCII ones (the long s U+017F matches `s`, the Kelvin sign `k`), so
  a text with any non-ASCII character is always kept (`BLOB_INDEX`), and a
  non-ASCII query is never prefiltered.
"""

from __future__ import annotations

from typing import Any

from saas_sim.core.indexes import Index, Order, TextIndex
from saas_sim.core.table import Table
from saas_sim.domains.ide.models import Blob
from saas_sim.domains.ide.state import BLOBS

__all__ = ["BLOB_INDEX", "BLOB_LOWER", "BLOB_TEXT", "INDEXES", "blobs_with_literal"]

BLOB_TEXT: TextIndex[Blob] = TextIndex(BLOBS.name, "text", lambda b: b.text)
BLOB_LOWER: TextIndex[Blob] = TextIndex(BLOBS.name, "lower-ascii", lambda b: b.text.lower() if b.text.isascii() else "")
BLOB_INDEX: Index[Blob] = Index(BLOBS.name, "ascii", lambda b: [("ascii", b.text.isascii())])

INDEXES: tuple[Index[Any] | TextIndex[Any] | Order[Any], ...] = (BLOB_TEXT, BLOB_LOWER, BLOB_INDEX)
"""Everything an IDE world prewarms (`saas_sim.core.indexes.prewarm`)."""


def blobs_with_literal(blobs: Table[Blob], literal: str, *, case_sensitive: bool) -> frozenset[str] | None:
    """Returns the ids of the blobs a literal search can match (a superset), or None to search them all."""
    if case_sensitive:
        return blobs.containing(BLOB_TEXT, [literal])
    if not literal.isascii():
        return None
    return blobs.containing(BLOB_LOWER, [literal.lower()]) | blobs.matching(BLOB_INDEX, [("ascii", False)])
