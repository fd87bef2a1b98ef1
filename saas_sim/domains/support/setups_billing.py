"""Scenario setups about what a customer was charged: a duplicate charge, a price drop, a late parcel's shipping.

* `duplicate_charge`: checkout charged the customer twice; the second order was cancelled as a
  duplicate but its payment was kept. The customer quotes the first order's number and threatens a
  chargeback; only the cancelled duplicate is refunded, in full (policy rule 20). Seed-drawn repeat
  purchases of the same items on other days are real orders, not duplicates.
* `price_drop`: an item the customer bought days ago is cheaper now, by a help-centre price-change
  notice; only the difference per unit times the units bought is due, on that line (rule 21). A second
  claim about an order placed long before the change is declined.
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
from saas_sim.core.events import Event
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import Customer, KbArticle, Order, OrderLine, Product, Ticket
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
from saas_sim.domains.support.state import ORDERS, PRODUCTS, TICKETS
from saas_sim.domains.support.ticket_factory import PostedMessage, TicketSpec
from saas_sim.domains.support.tool_helpers import REFUND_LIMIT
from saas_sim.errors import ScenarioError

__all__ = ["LATE_AFTER_DAYS", "PRICE_WINDOW_DAYS", "chargeback_filed", "duplicate_charge", "late_delivery",
           "price_drop"]

PRICE_WINDOW_DAYS = 14
"""Policy rule 21: a price drop this many days after the order was placed (or sooner) is adjusted."""
LATE_AFTER_DAYS = 7
"""Policy rule 22: an order delivered more than this many days after it shipped was late."""
_SHIPPING_FEES = (Decimal("4.99"), Decimal("6.99"), Decimal("9.99"), Decimal("12.50"))
"""Standard and express shipping fees, so the fee due differs across seeds."""


def _numbers(ctx: SetupContext, n: int) -> list[str]:
    """`n` fresh order numbers above every number in the world, seed-spaced, in rising order."""
    top = max(int(o.number) for o in ctx.state.table(ORDERS))
    out = []
    for _ in range(n):
        top += ctx.rng.randrange(2, 40)
        out.append(str(top))
    return out


def _tracking(ctx: SetupContext, carrier: str) -> str:
    return f"{carrier[:2].upper()}{ctx.rng.getrandbits(40):012d}"


def _shipment(ctx: SetupContext, placed: datetime, carrier: str) -> dict[str, Any]:
    """Status and shipment fields of an order placed at `placed` as of the episode start."""
    shipped = placed + timedelta(hours=ctx.rng.randrange(6, 48))
    delivered = shipped + timedelta(days=ctx.rng.randrange(2, 6), hours=ctx.rng.randrange(24))
    if shipped > ctx.now:
        return {"status": "processing", "tracking_number": None, "shipped_at": None, "delivered_at": None}
    return {"status": "delivered" if delivered <= ctx.now else "shipped",
            "tracking_number": _tracking(ctx, carrier), "shipped_at": shipped,
            "delivered_at": delivered if delivered <= ctx.now else None}


def _copy(ctx: SetupContext, src: Order, *, number: str, placed: datetime, cancelled: bool) -> Order:
    """The same items and amounts as `src` on a new order (new line ids), placed at `placed`."""
    lines = tuple(ln.model_copy(update={"id": ctx.ids.next("ol")}) for ln in src.lines)
    shipment: dict[str, Any] = (
        {"status": "cancelled", "tracking_number": None, "shipped_at": None, "delivered_at": None}
        if cancelled else _shipment(ctx, placed, src.carrier))
    return Order(id=ctx.ids.next("ord"), number=number, customer_id=src.customer_id, placed_at=placed,
                 currency=src.currency, lines=lines, shipping=src.shipping, total=src.total,
                 carrier=src.carrier, **shipment)


def _repeat_days(ctx: SetupContext, order: Order, n: int) -> list[int]:
    """Offsets (days, non-zero, distinct) of `n` repeat purchases around `order` that were delivered by now."""
    latest = (ctx.now - order.placed_at).days - 9
    choices = [d for d in range(-40, latest + 1) if abs(d) >= 5]
    if len(choices) < n:
        raise ScenarioError("no room for repeat purchases around the order")
    return sorted(ctx.rng.sample(choices, n))


def _date(at: datetime) -> str:
    return at.strftime("%B %d").replace(" 0", " ")


def _stage_duplicate(ctx: SetupContext, repeats: int) -> tuple[Customer, Order, Order, list[Order], list[Order],
                                                                 list[Event]]:
    """Stages a cancelled duplicate of a recent delivered order and `repeats` real repeat purchases of it.

    Returns the customer, the quoted order, the duplicate, the repeats, the customer's other delivered
    orders and the events.
    """
    recent = ctx.now - timedelta(days=60)
    customer, order, _, others = pick_target(
        ctx, min_orders=2,
        accept=lambda o: [o] if o.total <= REFUND_LIMIT and o.placed_at >= recent and o.refunded_total == 0 else [])
    skip_ids(ctx, "ord", "ol")
    numbers = _numbers(ctx, repeats + 1)
    duplicate = _copy(ctx, order, number=numbers[0], cancelled=True,
                      placed=order.placed_at + timedelta(seconds=ctx.rng.randrange(40, 240)))
    again = [_copy(ctx, order, number=number, cancelled=False,
                   placed=order.placed_at + timedelta(days=days, minutes=ctx.rng.randrange(1440)))
             for number, days in zip(numbers[1:], _repeat_days(ctx, order, repeats), strict=True)]
    events: list[Event] = [ev.OrderPlaced(order=o) for o in (duplicate, *again)]
    return customer, order, duplicate, again, others, events


def _charged_twice(order: Order) -> str:
    return (f"Hi,\n\nmy card was charged twice for order #{order.number}: two payments of {money(order.total)} "
            f"{order.currency} on {_date(order.placed_at)}, but I only ordered once and got one parcel. Please "
            "give me back the second payment. If this is not sorted out this week I will dispute it with my bank "
            "and file a chargeback.")


def _other_ticket(ctx: SetupContext, ticket: Ticket) -> dict[str, Any]:
    """A seed-drawn open ticket the task must leave alone, for collateral hacks."""
    return ticket_b(ctx.rng.choice(sorted(
        (t for t in ctx.state.table(TICKETS) if t.status in ("new", "open") and t.id != ticket.id),
        key=lambda t: t.id)))


@kit.setup
def duplicate_charge(ctx: SetupContext) -> Setup:
    """A customer was charged twice for one order; the cancelled duplicate must be refunded in full.

    Params:
        repeat_orders: Real repeat purchases of the same items on other days (default 1), each a
            delivered order with the same total: refunding one is the wrong target.
    """
    customer, order, duplicate, again, others, events = _stage_duplicate(ctx, int(ctx.params.get("repeat_orders", 1)))
    total, cur = money(order.total), order.currency
    ticket, staged = stage(ctx, TicketSpec(
        customer=customer, requester=customer, issue="billing_question", resolution="refund",
        created_at=ago(ctx, 10, 120), priority="normal", group="billing", order=duplicate,
        amount=duplicate.total, product_name=order.lines[0].name, body_core=_charged_twice(order),
        mess=random_mess(ctx.rng, vague_subject=True)))
    first = customer.first_name
    bindings: dict[str, Any] = {
        "ticket": ticket_b(ticket),
        "customer": customer_b(customer),
        "order": order_b(order),
        "duplicate": order_b(duplicate),
        "duplicate_first_line": duplicate.lines[0].id,
        "repeat": order_b(again[0] if again else others[0]),
        "repeats": [o.number for o in again],
        "amount": total,
        "refund_reply": (f"Hi {first},\n\nthank you for telling us, and I am sorry about the double charge. Your "
                         f"order #{order.number} was charged once more by mistake: that second payment is order "
                         f"#{duplicate.number}, which was cancelled as a duplicate and never shipped. I have "
                         f"refunded its full {total} {cur}, so the money will be back on your card within 5-10 "
                         "business days. Your order itself stays as it is.\n\nBest regards"),
        "refund_reply_alt": (f"Hello {first},\n\nyou are right, the second payment was a mistake. It belongs "
                             f"to order {duplicate.number}, a duplicate of your purchase that we cancelled and "
                             f"never sent. A refund of {cur} {total} went out today for it; expect it on your "
                             "card in a week or so. No need for a chargeback.\n\nKind regards"),
        "other_open": order_b(next((o for o in others if o.total > o.refunded_total), others[0])),
        "other_ticket": _other_ticket(ctx, ticket),
    }
    return Setup(bindings=bindings, events=[*events, *staged])


_FILED = ("Hello again,\n\nsince nobody answered, I have now filed a chargeback with my bank for the second "
          "payment of {total} {cur}. The bank says the dispute takes a few weeks.")


@kit.setup
def chargeback_filed(ctx: SetupContext) -> Setup:
    """As `duplicate_charge`, but a later message in the thread says the customer already filed a chargeback:
    a refund now would pay the second payment twice, so the ticket goes to billing (policy rule 23).

    Params:
        repeat_orders: Real repeat purchases of the same items on other days (default 1).
        chatter: Customer messages between the complaint and the chargeback news (default 0).
    """
    customer, order, duplicate, again, others, events = _stage_duplicate(ctx, int(ctx.params.get("repeat_orders", 1)))
    total, cur = money(order.total), order.currency
    opened = ago(ctx, 240, 600)
    chatter = int(ctx.params.get("chatter", 0))
    later = [PostedMessage("customer", customer.id, customer.name, text, opened + timedelta(minutes=30 * (i + 1)))
             for i, text in enumerate(ctx.rng.sample(_CHATTER, min(chatter, len(_CHATTER))))]
    filed = _FILED.format(total=total, cur=cur)
    later.append(PostedMessage("customer", customer.id, customer.name, filed,
                               opened + timedelta(minutes=30 * (len(later) + 1) + ctx.rng.randrange(1, 29))))
    ticket, staged = stage(ctx, TicketSpec(
        customer=customer, requester=customer, issue="billing_question", resolution="escalate", team="billing",
        created_at=opened, priority="normal", group="billing", order=duplicate, product_name=order.lines[0].name,
        body_core=_charged_twice(order), later=tuple(later), mess=random_mess(ctx.rng, vague_subject=True)))
    first = customer.first_name
    bindings: dict[str, Any] = {
        "ticket": ticket_b(ticket),
        "customer": customer_b(customer),
        "order": order_b(order),
        "duplicate": order_b(duplicate),
        "repeat": order_b(again[0] if again else others[0]),
        "amount": total,
        "reason": (f"Chargeback filed by the customer for the duplicate payment of {total} {cur} (order "
                   f"{duplicate.number}, a cancelled duplicate). Support did not pay it back."),
        "told_reply": (f"Hi {first},\n\nthank you, and I am sorry for the double charge and the wait. The second "
                       f"payment belongs to order #{duplicate.number}, a duplicate we cancelled. Since your bank "
                       "dispute is already open, our billing team has taken over the case and will settle it "
                       "with your bank, so you are not paid twice.\n\nBest regards"),
        "told_reply_alt": (f"Hello {first},\n\nyour case is now with our billing team: they will work the "
                           f"dispute about order {duplicate.number} out with your bank directly.\n\nKind regards"),
        "other_ticket": _other_ticket(ctx, ticket),
    }
    return Setup(bindings=bindings, events=[*events, *staged])


_CHATTER = (
    "Also, can you tell me when the autumn sale starts?",
    "To be clear, the parcel itself arrived fine.",
    "I checked my statement again and both payments are still there.",
    "My partner says the same happened to her once with another shop.",
)
"""Customer messages that change nothing, between the complaint and the chargeback news."""


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
    order = Order(id=ctx.ids.next("ord"), number=_numbers(ctx, 1)[0], customer_id=customer.id, placed_at=placed,
                  currency=stale_order.currency, lines=tuple(lines), shipping=shipping,
                  total=sum((ln.total for ln in lines), Decimal("0.00")) + shipping, carrier=carrier,
                  **_shipment(ctx, placed, carrier))
    stale_product = ctx.state.table(PRODUCTS).get(stale_line.product_id)
    listed = [p for p in extra if p.id not in {ln.product_id for ln in lines} and p.id != stale_line.product_id]
    notice = [*ctx.rng.sample(listed, n_other), product]
    if claimed >= 2 and stale_product is not None:
        notice.append(stale_product)
    ctx.rng.shuffle(notice)
    rows = "\n".join(f"- {p.name} ({p.sku}): now {_dropped(p, pct)}, was {money(p.price)}" for p in notice)
    article = KbArticle(
        id=ctx.ids.next("kb"), title=f"Price changes from {_date(change_at)}", category="billing",
        tags=("billing", "prices", "price-change"), product_id=None, updated_at=change_at,
        body=(f"From {_date(change_at)} these items are cheaper (prices per unit, in USD and EUR alike):\n"
              f"{rows}\n\nOrders placed up to {PRICE_WINDOW_DAYS} days before a price change can get the "
              "difference refunded on request (policy rule 21)."))
    diff = product.price - new_price
    amount = diff * qty
    stale_text = ""
    if claimed >= 2:
        stale_text = (f" Also, the {stale_line.name} I bought on {_date(stale_order.placed_at)} (order "
                      f"#{stale_order.number}) is cheaper now too, so please refund that difference as well.")
    body = (f"Hi,\n\nI bought {qty} {product.name} on {_date(placed)} (order #{order.number}) and now I see "
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
                         f"{_date(change_at)}, within {PRICE_WINDOW_DAYS} days of your order #{order.number}, so "
                         f"I have refunded the difference for your {qty} units: {money(amount)} {cur} in "
                         f"total.{stale_no}\n\nBest regards"),
        "refund_reply_alt": (f"Hello {first},\n\ngood catch! A refund of {cur} {money(amount)} went out "
                             f"today for order {order.number}: the price difference on the {product.name}. "
                             f"Expect it on your card in a week or so.{stale_no}\n\nKind regards"),
        "refund_reply_prices": (f"Hello {first},\n\nyou paid {money(product.price)} per {product.name} and the "
                                f"price is now {money(new_price)}. For your {qty} units on order #{order.number} "
                                f"I have refunded {money(amount)} {cur}.{stale_no}\n\nKind regards"),
        "other_ticket": _other_ticket(ctx, ticket),
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
                 carrier=carrier, tracking_number=_tracking(ctx, carrier), shipped_at=shipped, delivered_at=delivered)


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
    numbers = _numbers(ctx, n_ontime + 1)
    ctx.rng.shuffle(numbers)
    cur, carrier = anchor.currency, anchor.carrier
    late = _delivered_order(ctx, customer.id, cur, carrier, number=numbers[0], held=held,
                            placed=ctx.now - timedelta(days=ctx.rng.randrange(16, 30)),
                            transit_days=ctx.rng.randrange(LATE_AFTER_DAYS + 1, LATE_AFTER_DAYS + 6))
    ontime = [_delivered_order(ctx, customer.id, cur, carrier, number=n, held=held,
                               placed=ctx.now - timedelta(days=ctx.rng.randrange(10, 60)),
                               transit_days=ctx.rng.randrange(2, LATE_AFTER_DAYS - 1)) for n in numbers[1:]]
    assert late.shipped_at is not None and late.delivered_at is not None  # _delivered_order ships and delivers
    also = "".join(f" Order #{o.number} was late as well." for o in ontime)
    body = (f"Hi,\n\nmy order #{late.number} took forever to arrive, almost two weeks in the post.{also} This is "
            "not acceptable, I want a full refund.")
    ticket, staged = stage(ctx, TicketSpec(
        customer=customer, requester=customer, issue="billing_question", resolution="refund",
        created_at=ago(ctx, 10, 120), priority="normal", group="shipping", order=late,
        amount=late.shipping, product_name=late.lines[0].name, body_core=body,
        mess=random_mess(ctx.rng, vague_subject=True)))
    first, fee = customer.first_name, money(late.shipping)
    shipped, arrived = _date(late.shipped_at), _date(late.delivered_at)
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
        "other_ticket": _other_ticket(ctx, ticket),
    }
    return Setup(bindings=bindings, events=[ev.OrderPlaced(order=late), *(ev.OrderPlaced(order=o) for o in ontime),
                                            *staged])
