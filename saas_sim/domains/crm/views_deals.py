"""Result models of the deal and lead write tools (`tools_deals`)."""

from __future__ import annotations

from decimal import Decimal

from pydantic import Field

from saas_sim.core.tools import ToolResult
from saas_sim.domains.crm.models import Deal, Lead, LineItem

__all__ = [
    "ConvertResult",
    "DealResult",
    "LineItemsResult",
]


class DealResult(ToolResult):
    deal: Deal


class ConvertResult(ToolResult):
    lead: Lead
    account_id: str
    contact_id: str
    deal_id: str | None


class LineItemsResult(ToolResult):
    deal: Deal
    line_items: list[LineItem]
    line_total: Decimal = Field(description="The sum of the new line totals.")
