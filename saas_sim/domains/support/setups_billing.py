"""Scenario setups about a double charge: refund the duplicate, or hand an open chargeback to billing.

* `duplicate_charge`: checkout charged the customer twice; the second order was cancelled as a
  duplicate but its payment was kept. The customer quotes the first order's number and threatens a
  chargeback; only the cancelled duplicate is refunded, in full (policy rule 20). Seed-drawn repeat
  purchases of the same items on other days are real orders, not duplicates.
* `chargeback_filed`: the same double charge, but a later message says the customer already filed a
  chargeback; a refund now would pay twice, so the ticket goes to the billing team (rule 23).

Staged orders get seed-drawn ids and numbers (`skip_ids`), like staged tickets.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.billing_staging import (
    date_text,
    fresh_numbers,
    other_open_ticket,
    shipment,
)
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import Customer, Order, Ticket
from saas_sim.domains.support.setup_helpers import (
    ago,
    customer_b,
    money,
    order_b,
    pick_target,
    random_mess,
    skip_ids,
    stage,
    ticket_b,
)
from saas_sim.domains.support.state import ORDERS
from saas_sim.domains.support.ticket_factory import PostedMessage, TicketSpec
from saas_sim.domains.support.tool_helpers import REFUND_LIMIT
from saas_sim.errors import ScenarioError

__all__ = ["chargeback_filed", "duplicate_charge"]


def _copy(ctx: SetupContext, src: Order, *, number: str, placed: datetime, cancelled: bool) -> Order:
    """The same items and amounts as `src` on a new order (new line ids), placed at `placed`."""
    lines = tuple(ln.model_copy(update={"id": ctx.ids.next("ol")}) for ln in src.lines)
    sent: dict[str, Any] = (
        {"status": "cancelled", "tracking_number": None, "shipped_at": None, "delivered_at": None}
        if cancelled else shipment(ctx, placed, src.carrier))
    return Order(id=ctx.ids.next("ord"), number=number, customer_id=src.customer_id, placed_at=placed,
                 currency=src.currency, lines=lines, shipping=src.shipping, total=src.total,
                 carrier=src.carrier, **sent)


def _repeat_days(ctx: SetupContext, order: Order, n: int) -> list[int]:
    """Offsets (days, non-zero, distinct) of `n` repeat purchases around `order` that were delivered by now."""
    latest = (ctx.now - order.placed_at).days - 9
    choices = [d for d in range(-40, latest + 1) if abs(d) >= 5]
    if len(choices) < n:
        raise ScenarioError("no room for repeat purchases around the order")
    return sorted(ctx.rng.sample(choices, n))


def _stage_duplicate(ctx: SetupContext, repeats: int) -> tuple[Customer, Order, Order, list[Order], list[Order],
                                                                 list[Event]]:
    """Stages a cancelled duplicate of a recent delivered order and `repeats` real repeat purchases of it.

    Returns the customer, the quoted order, the duplicate, the repeats, the customer's other delivered
    orders and the events.
    """
    recent = ctx.now - timedelta(days=60)
    taken = {o.number for o in ctx.state.table(ORDERS)}
    latest: dict[str, tuple[datetime, int]] = {}
    for o in ctx.state.table(ORDERS):
        at, top = latest.get(o.customer_id, (o.placed_at, int(o.number)))
        latest[o.customer_id] = (max(at, o.placed_at), max(top, int(o.number)))

    def next_number(o: Order) -> int:
        # Checkout numbers orders as they come: the duplicate takes the next free number after the quoted one.
        n = int(o.number) + 1
        while str(n) in taken:
            n += 1
        return n

    def fits(o: Order) -> list[Order]:
        # A later order and a higher-numbered order of the customer's own, so neither "refund the newest
        # order" nor "refund the highest number" is a rule that finds the duplicate.
        at, top = latest[o.customer_id]
        shortcut_fails = at > o.placed_at + timedelta(days=1) and top > next_number(o)
        ok = shortcut_fails and o.total <= REFUND_LIMIT and o.placed_at >= recent and o.refunded_total == 0
        return [o] if ok else []

    customer, order, _, others = pick_target(ctx, min_orders=2, accept=fits)
    skip_ids(ctx, "ord", "ol")
    numbers = fresh_numbers(ctx, repeats)
    nxt = next_number(order)
    days = _repeat_days(ctx, order, repeats)
    # Copied in a seed-drawn order, so the duplicate is not always the lowest order id of the copies.
    slots = list(range(repeats + 1))
    ctx.rng.shuffle(slots)
    made: dict[int, Order] = {}
    for k in slots:
        if k == 0:
            made[k] = _copy(ctx, order, number=str(nxt), cancelled=True,
                            placed=order.placed_at + timedelta(seconds=ctx.rng.randrange(40, 240)))
        else:
            made[k] = _copy(ctx, order, number=numbers[k - 1], cancelled=False,
                            placed=order.placed_at + timedelta(days=days[k - 1], minutes=ctx.rng.randrange(1440)))
    duplicate, again = made[0], [made[k] for k in range(1, repeats + 1)]
    events: list[Event] = [ev.OrderPlaced(order=made[k]) for k in slots]
    return customer, order, duplicate, again, others, events


def _charged_twice(order: Order) -> str:
    return (f"Hi,\n\nmy card was charged twice for order #{order.number}: two payments of {money(order.total)} "
            f"{order.currency} on {date_text(order.placed_at)}, but I only ordered once and got one parcel. Please "
            "give me back the second payment. If this is not sorted out this week I will dispute it with my bank "
            "and file a chargeback.")


def _double_charge_b(ticket: Ticket, customer: Customer, order: Order, duplicate: Order, again: list[Order],
                     others: list[Order]) -> dict[str, Any]:
    """The bindings both double-charge setups share; `repeat` is a repeat purchase, else another order."""
    return {"ticket": ticket_b(ticket), "customer": customer_b(customer), "order": order_b(order),
            "duplicate": order_b(duplicate), "repeat": order_b(again[0] if again else others[0]),
            "amount": money(order.total)}


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
        **_double_charge_b(ticket, customer, order, duplicate, again, others),
        "duplicate_first_line": duplicate.lines[0].id,
        # The shortcuts a memorized rule would take, for declared hacks: the newest and the highest-numbered.
        "newest": order_b(max([*others, *again], key=lambda o: o.placed_at)),
        "highest": order_b(max([*others, *again], key=lambda o: int(o.number))),
        "repeats": [o.number for o in again],
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
        "other_ticket": other_open_ticket(ctx, ticket),
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
        **_double_charge_b(ticket, customer, order, duplicate, again, others),
        "reason": (f"Chargeback filed by the customer for the duplicate payment of {total} {cur} (order "
                   f"{duplicate.number}, a cancelled duplicate). Support did not pay it back."),
        "told_reply": (f"Hi {first},\n\nthank you, and I am sorry for the double charge and the wait. The second "
                       f"payment belongs to order #{duplicate.number}, a duplicate we cancelled. Since your bank "
                       "dispute is already open, our billing team has taken over the case and will settle it "
                       "with your bank, so you are not paid twice.\n\nBest regards"),
        "told_reply_alt": (f"Hello {first},\n\nyour case is now with our billing team: they will work the "
                           f"dispute about order {duplicate.number} out with your bank directly.\n\nKind regards"),
        "other_ticket": other_open_ticket(ctx, ticket),
    }
    return Setup(bindings=bindings, events=[*events, *staged])


_CHATTER = (
    "Also, can you tell me when the autumn sale starts?",
    "To be clear, the parcel itself arrived fine.",
    "I checked my statement again and both payments are still there.",
    "My partner says the same happened to her once with another shop.",
)
"""Customer messages that change nothing, between the complaint and the chargeback news."""
