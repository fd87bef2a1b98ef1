"""Message and subject text as the desk's searches and judges compare it: no markup, lowercase, single spaces."""

from __future__ import annotations

import html
import re

__all__ = ["plain"]

_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")


def plain(text: str) -> str:
    """Returns `text` without HTML tags or entities, lowercased, with single spaces."""
    return _SPACE.sub(" ", html.unescape(_TAG.sub(" ", text))).strip().lower()
