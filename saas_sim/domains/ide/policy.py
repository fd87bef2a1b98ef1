"""The rules IDE agents are shown, kept as Markdown in `policy.md` next to this module.

The protected paths it names are `task_model.PROTECTED_GLOBS` (a task may add more);
tests/domains/ide/test_policy.py holds the two in step.
"""

from __future__ import annotations

from importlib import resources

__all__ = ["POLICY"]

POLICY: str = resources.files(__package__).joinpath("policy.md").read_text(encoding="utf-8")
"""The numbered IDE policy, verbatim from `policy.md`."""
