"""The CRM's domain kit: every tool, check and setup of the domain is declared on `kit`."""

from __future__ import annotations

from saas_sim.core.kit import DomainKit

__all__ = ["kit"]

kit = DomainKit("crm")
"""Declares `crm.<function name>` tools (`@kit.tool`), checks (`@kit.check`) and setups (`@kit.setup`)."""
