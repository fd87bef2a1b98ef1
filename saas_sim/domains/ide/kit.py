"""The IDE's domain kit: every tool, check and setup of the IDE registers here.

Names derive from the function (`ide.<function name>`), so adding a tool, check
or setup is one decorated function in its module, and that module is listed
once in `__init__.py`.
"""

from __future__ import annotations

from saas_sim.core.kit import DomainKit

__all__ = ["kit"]

kit = DomainKit("ide")
"""Registers the IDE's tools (`@kit.tool`), checks (`@kit.check`) and setups (`@kit.setup`)."""
