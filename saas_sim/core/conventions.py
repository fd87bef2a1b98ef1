"""The agent-facing convention of every domain, as text an agent harness can show the model.

The text lives in `conventions.md` beside this module (docs/conventions.md points to it); the
code it describes is `paging` and `tool_errors`, and tests/domains/test_conventions.py holds every
domain to it.
"""

from __future__ import annotations

from importlib import resources

__all__ = ["CONVENTIONS"]

CONVENTIONS: str = resources.files(__package__).joinpath("conventions.md").read_text(encoding="utf-8")
"""How every product's tools page, fail and retry (Markdown)."""
