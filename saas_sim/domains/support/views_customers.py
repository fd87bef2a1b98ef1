"""What the customer, order and knowledge-base tools return.

Views never include ground truth. Money is a `Decimal` (a string in JSON) and
times are UTC instants on the simulated clock.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from saas_sim.core.paging import Page
from saas_sim.core.state import State
from saas_sim.core.tools import ToolResult
from saas_sim.domains.support.models import Order
from saas_sim.domains.support.state import PRODUCTS, line_refunded
from saas_sim.domains.support.tool_helpers import RecordView

__all__ = [
    "CustomerPage",
    "CustomerView",
    "KbArticleView",
    "KbHit",
    "KbPage",
    "OrderLineView",
    "OrderPage",
    "OrderView",
]


class CustomerView(RecordView):
    """A customer record with counts of its orders and open tickets."""

    id: str
    name: str
    email: str
    phone: str
    language: str
    country: str
    tier: str
    store_credit: Decimal
    crm_contact_id: str | None
    company: str | None = None
    """The company the customer gave when signing up (it may have been renamed since), if any."""
    created_at: datetime
    order_count: int
    open_ticket_count: int


class CustomerPage(Page[CustomerView]):
    """One page of matching customers, by id."""


class OrderLineView(ToolResult):
    """An order line with what was refunded on it so far."""

    id: str
    product_id: str
    sku: str
    name: str
    quantity: int
    unit_price: Decimal
    total: Decimal
    refunded: Decimal
    final_sale: bool


class OrderView(ToolResult):
    """An order with lines, shipment and refunds. `refundable` is what can still be refunded."""

    id: str
    number: str
    customer_id: str
    placed_at: datetime
    currency: str
    status: str
    carrier: str
    tracking_number: str | None
    shipped_at: datetime | None
    delivered_at: datetime | None
    lines: list[OrderLineView]
    shipping: Decimal
    total: Decimal
    refunded_total: Decimal
    refundable: Decimal

    @classmethod
    def of(cls, o: Order, state: State) -> OrderView:
        """Builds the view of an order."""
        products = state.table(PRODUCTS)
        lines = []
        for ln in o.lines:
            product = products.get(ln.product_id)
            lines.append(OrderLineView(
                id=ln.id, product_id=ln.product_id, sku=ln.sku, name=ln.name, quantity=ln.quantity,
                unit_price=ln.unit_price, total=ln.total, refunded=line_refunded(state, o.id, ln.id),
                final_sale=product is not None and not product.returnable,
            ))
        return cls(
            id=o.id, number=o.number, customer_id=o.customer_id, placed_at=o.placed_at, currency=o.currency,
            status=o.status, carrier=o.carrier, tracking_number=o.tracking_number, shipped_at=o.shipped_at,
            delivered_at=o.delivered_at, lines=lines, shipping=o.shipping, total=o.total,
            refunded_total=o.refunded_total, refundable=o.total - o.refunded_total,
        )


class OrderPage(Page[OrderView]):
    """One page of a customer's orders, newest first."""


class KbHit(ToolResult):
    """A search hit: an article's id, title and the start of its text."""

    id: str
    title: str
    category: str
    tags: list[str]
    snippet: str


class KbPage(Page[KbHit]):
    """One page of KB search hits, best match first."""


class KbArticleView(RecordView):
    """A whole help-centre article."""

    id: str
    title: str
    body: str
    category: str
    tags: list[str]
    product_id: str | None
    updated_at: datetime
