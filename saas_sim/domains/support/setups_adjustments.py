"""Scenario setups about money owed after a purchase: a price drop, and a late parcel's shipping fee.

* `price_drop`: an item the customer bought days ago is cheaper now, by a help-centre price-change
  notice; only the difference per unit times the units bought is due, on that line (policy rule 21). A
  second claim about an order placed long before the change is declined.
* `late_delivery`: an order arrived more than a week after it shipped; only its shipping fee is due
  (rule 22), not the full refund the customer demands. Orders the customer also calls late but that
  arrived in time get nothing.

Staged orders and articles get seed-drawn ids and numbers (`skip_ids`), like staged tickets.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.billing_staging import (
    date_text,
    fresh_numbers,
    other_open_ticket,
    shipment,
    tracking_number,
)
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import KbArticle, Order, OrderLine, Product
from saas_sim.domains.support.setup_helpers import (
    ago,
    customer_b,
    line_b,
    money,
    order_b,
    pick_target,
    random_mess,
    skip_ids,
    stage,
    ticket_b,
)
from saas_sim.domains.support.state import ORDERS, PRODUCTS
from saas_sim.domains.support.ticket_factory import TicketSpec
from saas_sim.domains.support.tool_helpers import REFUND_LIMIT
from saas_sim.errors import ScenarioError

__all__ = ["LATE_AFTER_DAYS", "PRICE_WINDOW_DAYS", "late_delivery", "price_drop"]

PRICE_WINDOW_DAYS = 14
"""Policy rule 21: a price drop this many days after the order was placed (or sooner) is adjusted."""
LATE_AFTER_DAYS = 7
"""Policy rule 22: an order delivered more than this many days after it shipped was late."""
_SHIPPING_FEES = (Decimal("4.99"), Decimal("6.99"), Decimal("9.99"), Decimal("12.50"))
"""Standard and express shipping fees, so the fee due differs across seeds."""


def _cents(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def _dropped(product: Product, pct: int) -> Decimal:
    """The price after a drop of `pct` percent, ending in .99 like shop prices do (always below the old one)."""
    lowered = product.price * (100 - pct) / 100
    return _cents(max(Decimal(int(lowered)) - Decimal("0.01"), Decimal("0.99")))


def _stale_lines(ctx: SetupContext, o: Order, change_at: datetime) -> list[OrderLine]:
    """Lines of returnable items on an order placed well before the window of a change at `change_at`."""
    if o.placed_at > change_at - timedelta(days=PRICE_WINDOW_DAYS + 6):
        return []
    products = ctx.state.table(PRODUCTS)
    return [ln for ln in o.lines if (p := products.get(ln.product_id)) is not None and p.returnable]


@kit.setup
def price_drop(ctx: SetupContext) -> Setup:
    """A product the customer bought days ago dropped in price; only the difference per unit is due.

    Params:
        other_drops: Other products the price-change notice lists (default 3).
        claimed_items: 1, or 2 when the customer also claims an item of an order placed long before the
            change (no adjustment is due there; default 2).
    """
    n_other = int(ctx.params.get("other_drops", 3))
    claimed = int(ctx.params.get("claimed_items", 2))
    change_at = ctx.now - timedelta(days=ctx.rng.randrange(1, 3), hours=ctx.rng.randrange(1, 20))
    customer, stale_order, stale_line, _ = pick_target(
        ctx, min_orders=2, accept=lambda o: _stale_lines(ctx, o, change_at))
    products = sorted((p for p in ctx.state.table(PRODUCTS) if p.returnable), key=lambda p: p.id)
    held = {ln.product_id for o in ctx.state.table(ORDERS) if o.customer_id == customer.id for ln in o.lines}
    pct = ctx.rng.choice((10, 15, 20, 25, 30))
    # Two units or more, so the difference for one unit and for all units are different amounts.
    fits = [(p, q) for p in products if p.id not in held and p.price >= 10
            for q in (2, 3, 4) if (p.price - _dropped(p, pct)) * q <= REFUND_LIMIT]
    if not fits:
        raise ScenarioError("no product fits a price drop")
    product, qty = ctx.rng.choice(fits)
    new_price = _dropped(product, pct)
    skip_ids(ctx, "ord", "ol", "kb")
    placed = change_at - timedelta(days=ctx.rng.randrange(2, PRICE_WINDOW_DAYS - 3), hours=ctx.rng.randrange(24))
    line = OrderLine(id=ctx.ids.next("ol"), product_id=product.id, sku=product.sku, name=product.name,
                     quantity=qty, unit_price=product.price, total=product.price * qty)
    lines = [line]
    extra = [p for p in products if p.id not in held and p.id != product.id]
    if ctx.rng.random() < 0.5:
        other = ctx.rng.choice(extra)
        lines.append(OrderLine(id=ctx.ids.next("ol"), product_id=other.id, sku=other.sku, name=other.name,
                               quantity=1, unit_price=other.price, total=other.price))
    shipping = Decimal("0.00") if ctx.rng.random() < 0.5 else Decimal("4.99")
    carrier = stale_order.carrier
    order = Order(id=ctx.ids.next("ord"), number=fresh_numbers(ctx, 1)[0], customer_id=customer.id, placed_at=placed,
                  currency=stale_order.currency, lines=tuple(lines), shipping=shipping,
                  total=sum((ln.total for ln in lines), Decimal("0.00")) + shipping, carrier=carrier,
                  **shipment(ctx, placed, carrier))
    stale_product = ctx.state.table(PRODUCTS).get(stale_line.product_id)
    listed = [p for p in extra if p.id not in {ln.product_id for ln in lines} and p.id != stale_line.product_id]
    notice = [*ctx.rng.sample(listed, n_other), product]
    if claimed >= 2 and stale_product is not None:
        notice.append(stale_product)
    ctx.rng.shuffle(notice)
    rows = "\n".join(f"- {p.name} ({p.sku}): now {_dropped(p, pct)}, was {money(p.price)}" for p in notice)
    article = KbArticle(
        id=ctx.ids.next("kb"), title=f"Price changes from {date_text(change_at)}", category="billing",
        tags=("billing", "prices", "price-change"), product_id=None, updated_at=change_at,
        body=(f"From {date_text(change_at)} these items are cheaper (prices per unit, in USD and EUR alike):\n"
              f"{rows}\n\nOrders placed up to {PRICE_WINDOW_DAYS} days before a price change can get the "
              "difference refunded on request (policy rule 21)."))
    diff = product.price - new_price
    amount = diff * qty
    stale_text = ""
    if claimed >= 2:
        stale_text = (f" Also, the {stale_line.name} I bought on {date_text(stale_order.placed_at)} (order "
                      f"#{stale_order.number}) is cheaper now too, so please refund that difference as well.")
    body = (f"Hi,\n\nI bought {qty} {product.name} on {date_text(placed)} (order #{order.number}) and now I see "
            f"they are cheaper in your shop. Can I get the difference back?{stale_text}")
    ticket, staged = stage(ctx, TicketSpec(
        customer=customer, requester=customer, issue="billing_question", resolution="refund",
        created_at=ago(ctx, 10, 120), priority="normal", group="billing", order=order, line=line,
        quantity=qty, amount=amount, product_name=product.name, body_core=body,
        mess=random_mess(ctx.rng, vague_subject=True)))
    first, cur = customer.first_name, order.currency
    stale_no = (f" The {stale_line.name} from order #{stale_order.number} was bought more than "
                f"{PRICE_WINDOW_DAYS} days before the price change, so I am afraid no adjustment is possible "
                "there." if claimed >= 2 else "")
    bindings: dict[str, Any] = {
        "ticket": ticket_b(ticket),
        "customer": customer_b(customer),
        "order": order_b(order),
        "line": line_b(line),
        "qty": qty,
        "article": {"id": article.id, "title": article.title},
        "new_price": money(new_price),
        "diff": money(diff),
        "amount": money(amount),
        "one_unit_amount": money(diff),
        "rest_after_one": money(amount - diff),
        "stale_no": stale_no,
        "stale_claims": [stale_order.number] if claimed >= 2 else [],
        "stale_order": order_b(stale_order),
        "stale_line": line_b(stale_line),
        "stale_amount": money(stale_line.unit_price - _dropped(stale_product, pct)) if stale_product else "1.00",
        "refund_reply": (f"Hi {first},\n\nthank you for letting us know. The {product.name} is cheaper since "
                         f"{date_text(change_at)}, within {PRICE_WINDOW_DAYS} days of your order #{order.number}, so "
                         f"I have refunded the difference for your {qty} units: {money(amount)} {cur} in "
                         f"total.{stale_no}\n\nBest regards"),
        "refund_reply_alt": (f"Hello {first},\n\ngood catch! A refund of {cur} {money(amount)} went out "
                             f"today for order {order.number}: the price difference on the {product.name}. "
                             f"Expect it on your card in a week or so.{stale_no}\n\nKind regards"),
        "refund_reply_prices": (f"Hello {first},\n\nyou paid {money(product.price)} per {product.name} and the "
                                f"price is now {money(new_price)}. For your {qty} units on order #{order.number} "
                                f"I have refunded {money(amount)} {cur}.{stale_no}\n\nKind regards"),
        "other_ticket": other_open_ticket(ctx, ticket),
    }
    return Setup(bindings=bindings, events=[ev.OrderPlaced(order=order), ev.KbArticlePublished(article=article),
                                            *staged])


def _delivered_order(ctx: SetupContext, customer_id: str, currency: str, carrier: str, *, number: str,
                     placed: datetime, transit_days: int, held: set[str]) -> Order:
    """A delivered order of one or two catalogue items the customer never bought, with a paid shipping fee."""
    products = sorted((p for p in ctx.state.table(PRODUCTS) if p.id not in held and p.price <= 80),
                      key=lambda p: p.id)
    lines = []
    for p in ctx.rng.sample(products, ctx.rng.choice((1, 1, 2))):
        held.add(p.id)
        qty = ctx.rng.choice((1, 1, 2))
        lines.append(OrderLine(id=ctx.ids.next("ol"), product_id=p.id, sku=p.sku, name=p.name, quantity=qty,
                               unit_price=p.price, total=p.price * qty))
    shipped = placed + timedelta(hours=ctx.rng.randrange(6, 30))
    delivered = shipped + timedelta(days=transit_days, hours=ctx.rng.randrange(1, 20))
    shipping = ctx.rng.choice(_SHIPPING_FEES)
    return Order(id=ctx.ids.next("ord"), number=number, customer_id=customer_id, placed_at=placed,
                 currency=currency, lines=tuple(lines), shipping=shipping,
                 total=sum((ln.total for ln in lines), Decimal("0.00")) + shipping, status="delivered",
                 carrier=carrier, tracking_number=tracking_number(ctx, carrier), shipped_at=shipped,
                 delivered_at=delivered)


@kit.setup
def late_delivery(ctx: SetupContext) -> Setup:
    """An order arrived more than a week after it shipped; its shipping fee, and nothing more, is due.

    Params:
        ontime_claims: Other orders the customer also calls late, which arrived within the week (default 1).
    """
    n_ontime = int(ctx.params.get("ontime_claims", 1))
    customer, anchor, _, _ = pick_target(ctx, min_orders=2, accept=lambda o: [o])
    held = {ln.product_id for o in ctx.state.table(ORDERS) if o.customer_id == customer.id for ln in o.lines}
    skip_ids(ctx, "ord", "ol")
    numbers = fresh_numbers(ctx, n_ontime + 1)
    ctx.rng.shuffle(numbers)
    cur, carrier = anchor.currency, anchor.carrier
    # Placed (hence order ids) and named in the ticket in seed-drawn orders: neither the id order nor the
    # order the customer names them in says which one was really late.
    slots = list(range(n_ontime + 1))
    ctx.rng.shuffle(slots)
    made: dict[int, Order] = {}
    for k in slots:
        if k == 0:
            made[k] = _delivered_order(ctx, customer.id, cur, carrier, number=numbers[0], held=held,
                                       placed=ctx.now - timedelta(days=ctx.rng.randrange(16, 30)),
                                       transit_days=ctx.rng.randrange(LATE_AFTER_DAYS + 1, LATE_AFTER_DAYS + 6))
        else:
            made[k] = _delivered_order(ctx, customer.id, cur, carrier, number=numbers[k], held=held,
                                       placed=ctx.now - timedelta(days=ctx.rng.randrange(10, 60)),
                                       transit_days=ctx.rng.randrange(2, LATE_AFTER_DAYS - 1))
    late, ontime = made[0], [made[k] for k in range(1, n_ontime + 1)]
    assert late.shipped_at is not None and late.delivered_at is not None  # _delivered_order ships and delivers
    named = [late, *ontime]
    ctx.rng.shuffle(named)
    also = "".join(f" Order #{o.number} was late as well." for o in named[1:])
    body = (f"Hi,\n\nmy order #{named[0].number} took forever to arrive, almost two weeks in the post.{also} "
            "This is not acceptable, I want a full refund.")
    ticket, staged = stage(ctx, TicketSpec(
        customer=customer, requester=customer, issue="billing_question", resolution="refund",
        created_at=ago(ctx, 10, 120), priority="normal", group="shipping", order=late,
        amount=late.shipping, product_name=late.lines[0].name, body_core=body,
        mess=random_mess(ctx.rng, vague_subject=True)))
    first, fee = customer.first_name, money(late.shipping)
    shipped, arrived = date_text(late.shipped_at), date_text(late.delivered_at)
    in_time = "".join(f" Order #{o.number} arrived within {LATE_AFTER_DAYS} days of shipping, so it does not "
                      "qualify for compensation." for o in ontime)
    bindings: dict[str, Any] = {
        "ticket": ticket_b(ticket),
        "customer": customer_b(customer),
        "order": order_b(late),
        "ontime": order_b(ontime[0] if ontime else anchor),
        "ontime_numbers": [o.number for o in ontime],
        "amount": fee,
        "total_amount": money(late.total),
        "in_time": in_time,
        "refund_reply": (f"Hi {first},\n\nI am sorry that order #{late.number} took so long: it shipped on "
                         f"{shipped} and only arrived on {arrived}. Since that is more than {LATE_AFTER_DAYS} "
                         f"days, I have refunded its shipping fee of {fee} {cur}. The items themselves arrived "
                         f"in good order, so the rest of the order stays as it is.{in_time}\n\nBest regards"),
        "refund_reply_alt": (f"Hello {first},\n\nyou are right, {late.carrier} needed far too long for order "
                             f"{late.number}. A refund of {cur} {fee} for the shipping went out today; expect "
                             f"it on your card in a week or so.{in_time}\n\nKind regards"),
        "other_ticket": other_open_ticket(ctx, ticket),
    }
    return Setup(bindings=bindings, events=[*(ev.OrderPlaced(order=made[k]) for k in slots), *staged])
