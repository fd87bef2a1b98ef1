"""The rules CRM agents are shown, kept as Markdown in `policy.md` next to this module."""

from __future__ import annotations

from importlib import resources

__all__ = ["POLICY"]

POLICY: str = resources.files(__package__).joinpath("policy.md").read_text(encoding="utf-8")
"""The numbered CRM policy, verbatim from `policy.md`."""
