"""The support desk's domain kit: every tool, check and setup registers here.

Names derive from the function (`support.<function name>`), so adding a tool,
check or setup is one decorated function in its module, and that module is
listed once in `__init__.py`.
"""

from __future__ import annotations

from saas_sim.core.kit import DomainKit

__all__ = ["kit"]

kit = DomainKit("support")
"""Registers the support desk's tools (`@kit.tool`), checks (`@kit.check`) and setups (`@kit.setup`)."""
