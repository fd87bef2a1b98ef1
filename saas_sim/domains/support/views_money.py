"""What the money tools return: refunds, replacements, store credit and approvals."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from saas_sim.core.tools import ToolResult
from saas_sim.domains.support.models import Approval, Refund, Replacement, StoreCredit

__all__ = ["ApprovalView", "RefundView", "ReplacementView", "StoreCreditView"]


class RefundView(ToolResult):
    """An issued refund."""

    id: str
    order_id: str
    line_id: str | None
    amount: Decimal
    currency: str
    reason: str
    ticket_id: str | None
    approval_id: str | None
    created_at: datetime

    @classmethod
    def of(cls, r: Refund) -> RefundView:
        """Builds the view of a refund."""
        return cls(**r.model_dump())


class ReplacementView(ToolResult):
    """A created replacement shipment."""

    id: str
    order_id: str
    line_id: str
    product_id: str
    quantity: int
    reason: str
    ticket_id: str | None
    created_at: datetime

    @classmethod
    def of(cls, r: Replacement) -> ReplacementView:
        """Builds the view of a replacement."""
        return cls(**r.model_dump())


class StoreCreditView(ToolResult):
    """Issued store credit."""

    id: str
    customer_id: str
    amount: Decimal
    currency: str
    reason: str
    ticket_id: str | None
    approval_id: str | None
    created_at: datetime

    @classmethod
    def of(cls, c: StoreCredit) -> StoreCreditView:
        """Builds the view of a store credit."""
        return cls(**c.model_dump())


class ApprovalView(ToolResult):
    """A team lead's decision. Pass an approved `id` as `approval_id` to the refund or credit."""

    id: str
    kind: str
    order_id: str | None
    customer_id: str
    amount: Decimal
    currency: str
    reason: str
    ticket_id: str | None
    status: str
    decided_by: str
    decision_note: str
    requested_at: datetime
    used_by: str | None

    @classmethod
    def of(cls, a: Approval) -> ApprovalView:
        """Builds the view of an approval."""
        return cls(**a.model_dump())
