"""What the money tools return: refunds, replacements, store credit and approvals."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from saas_sim.domains.support.tool_helpers import RecordView

__all__ = ["ApprovalView", "RefundView", "ReplacementView", "StoreCreditView"]


class RefundView(RecordView):
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


class ReplacementView(RecordView):
    """A created replacement shipment."""

    id: str
    order_id: str
    line_id: str
    product_id: str
    quantity: int
    reason: str
    ticket_id: str | None
    created_at: datetime


class StoreCreditView(RecordView):
    """Issued store credit."""

    id: str
    customer_id: str
    amount: Decimal
    currency: str
    reason: str
    ticket_id: str | None
    approval_id: str | None
    created_at: datetime


class ApprovalView(RecordView):
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
