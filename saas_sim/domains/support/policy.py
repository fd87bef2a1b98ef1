"""The support desk's policy text (`policy.md`), which agents are shown.

The runtime appends every domain's policy to an episode's instructions.
"""

from __future__ import annotations

from importlib import resources

__all__ = ["POLICY"]

POLICY = resources.files("saas_sim.domains.support").joinpath("policy.md").read_text(encoding="utf-8")
"""The numbered rules of the support desk."""
