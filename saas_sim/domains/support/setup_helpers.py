"""Shared pieces of scenario setups: picking entities with the episode rng and staging tickets.

Setups stage a fresh inbound ticket through `compose_ticket`, so the ticket,
its thread, its ground truth and its persona are all events in the episode.
Bindings are JSON-friendly: money is a string with two decimals.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from saas_sim.core.domain import SetupContext
from saas_sim.core.events import Event
from saas_sim.core.ids import IdFactory
from saas_sim.core.rng import peek_coin
from saas_sim.core.state import State
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.customer_text import ascii_slug
from saas_sim.domains.support.models import Customer, Order, OrderLine, Ticket
from saas_sim.domains.support.state import CUSTOMERS, ORDERS, REPLACEMENTS, TRUTHS
from saas_sim.domains.support.ticket_factory import Mess, TicketSpec, compose_ticket
from saas_sim.domains.support.tool_helpers import APPROVAL_MAX, REFUND_LIMIT
from saas_sim.errors import ScenarioError

__all__ = [
    "customer_b",
    "damaged_units",
    "distractor_count",
    "line_b",
    "money",
    "namesakes",
    "order_b",
    "pick_target",
    "random_mess",
    "skip_ids",
    "stage",
    "ticket_b",
    "untouched_orders",
]


def money(value: Decimal) -> str:
    """Returns money as a binding: a string with two decimals."""
    return f"{value:.2f}"


def order_b(o: Order) -> dict[str, Any]:
    """Returns an order's bindings."""
    cap = min(o.total - o.refunded_total, REFUND_LIMIT)
    return {"id": o.id, "number": o.number, "currency": o.currency, "total": money(o.total), "cap": money(cap)}


def line_b(ln: OrderLine) -> dict[str, Any]:
    """Returns an order line's bindings."""
    return {"id": ln.id, "name": ln.name, "quantity": ln.quantity, "unit_price": money(ln.unit_price),
            "total": money(ln.total)}


def customer_b(c: Customer) -> dict[str, Any]:
    """Returns a customer's bindings."""
    return {"id": c.id, "name": c.name, "first_name": c.first_name, "email": c.email, "language": c.language}


def ticket_b(t: Ticket) -> dict[str, Any]:
    """Returns a ticket's bindings."""
    return {"id": t.id, "subject": t.subject}


def untouched_orders(state: State) -> list[Order]:
    """Returns delivered orders with no refund, replacement or ticket about them yet, by id."""
    touched = {t.order_id for t in state.table(TRUTHS) if t.order_id}
    touched |= {r.order_id for r in state.table(REPLACEMENTS)}
    return [o for o in state.table(ORDERS)
            if o.status == "delivered" and o.refunded_total == 0 and o.id not in touched]


def pick_target(
    ctx: SetupContext,
    *,
    language: str = "en",
    tier: str = "standard",
    min_orders: int = 3,
    accept: Callable[[Order], Iterable[Any]] = lambda o: o.lines,
) -> tuple[Customer, Order, Any, list[Order]]:
    """Picks a customer, one of its untouched orders and a candidate from `accept(order)`.

    Returns the customer, the order, the candidate (a line by default) and the
    customer's other delivered orders, in id order.
    """
    state = ctx.state
    delivered: dict[str, list[Order]] = {}
    for o in state.table(ORDERS):
        if o.status == "delivered":
            delivered.setdefault(o.customer_id, []).append(o)
    candidates = untouched_orders(state)
    ctx.rng.shuffle(candidates)
    customers = state.table(CUSTOMERS)
    for order in candidates:
        customer = customers.get(order.customer_id)
        if customer is None or customer.tier != tier:
            continue
        if language == "en" and customer.language != "en":
            continue
        if language == "non_en" and customer.language == "en":
            continue
        if len(delivered.get(customer.id, [])) < min_orders:
            continue
        options = list(accept(order))
        if not options:
            continue
        others = [o for o in delivered[customer.id] if o.id != order.id]
        return customer, order, ctx.rng.choice(options), others
    raise ScenarioError(f"no order fits this setup (language={language}, tier={tier}, min_orders={min_orders})")


def random_mess(rng: random.Random, *, missing_order: bool = False, alt_email: bool = False,
                vague_subject: bool | None = None) -> Mess:
    """Returns typical inbox mess for a staged ticket; the flags given are forced."""
    return Mess(
        html=rng.random() < 0.3,
        signature=rng.random() < 0.7,
        quoted=rng.random() < 0.2,
        typos=rng.random() < 0.3,
        vague_subject=rng.random() < 0.2 if vague_subject is None else vague_subject,
        missing_order=missing_order,
        alt_email=alt_email,
    )


def alias_of(customer: Customer, ids: IdFactory, rng: random.Random, at: datetime) -> Customer:
    """Returns a second-address, order-less customer record for the same person."""
    email = f"{ascii_slug(customer.first_name)}.{rng.randrange(100, 999)}@mailbox.example"
    for _ in range(rng.randrange(0, 30)):  # a seed-drawn id, not always the next after the world's
        ids.next("cus")
    return customer.alias(ids.next("cus"), email, at)


def skip_ids(ctx: SetupContext, *prefixes: str, most: int = 40) -> None:
    """Skips a seed-drawn number of ids of each prefix, so staged records get no constant ids.

    Without it the staged ticket would always be the next id after the world's,
    and a fixed call could score without reading anything.
    """
    for prefix in prefixes:
        for _ in range(ctx.rng.randrange(1, most + 1)):
            ctx.ids.next(prefix)


def stage(ctx: SetupContext, spec: TicketSpec, events: list[Event] | None = None) -> tuple[Ticket, list[Event]]:
    """Composes a staged ticket at a seed-drawn id; an alias requester record is created first when the spec
    has one (also at a seed-drawn id)."""
    out = list(events or [])
    skip_ids(ctx, "tkt", "msg")
    if spec.requester.id != spec.customer.id and ctx.state.get(CUSTOMERS, spec.requester.id) is None:
        out.append(ev.CustomerCreated(customer=spec.requester))
    ticket, evs = compose_ticket(ctx.rng, ctx.ids, spec)
    return ticket, out + evs


def ago(ctx: SetupContext, low_min: int, high_min: int) -> datetime:
    """Returns an instant between `low_min` and `high_min` minutes before the episode starts."""
    return ctx.now - timedelta(minutes=ctx.rng.randrange(low_min, high_min))


def damaged_units(order: Order, *, approval: bool, partial: bool = False) -> Iterable[tuple[OrderLine, int]]:
    """Yields (line, units) choices whose refund fits the agent limit (or, with `approval`, needs one).

    With `partial`, at most half the line's units, so a second identical refund would still fit.
    """
    for ln in order.lines:
        for k in range(1, (ln.quantity // 2 if partial else ln.quantity) + 1):
            amount = ln.unit_price * k
            if approval and REFUND_LIMIT < amount <= APPROVAL_MAX:
                yield ln, k
            if not approval and amount <= REFUND_LIMIT:
                yield ln, k


def namesakes(ctx: SetupContext, customer: Customer, order: Order, n: int) -> list[Event]:
    """Returns events staging `n` distractors: other people with `customer`'s name, each with a delivered
    order of the same items as `order` at a nearby, unused number.

    They are different people (own e-mail and phone), so acting on one is acting on the wrong customer;
    only the requester's address, or the quoted number, tells them apart. Call it after every other draw
    of a setup: at `n == 0` it draws nothing, so the default episode is unchanged.
    """
    out: list[Event] = []
    taken = {o.number for o in ctx.state.table(ORDERS)}
    first, _, last = customer.name.partition(" ")
    for i in range(n):
        # Older or newer than the customer, by a coin that draws nothing: "the older record" tells nothing.
        days = timedelta(days=ctx.rng.randrange(1, 400))
        at = min(customer.created_at + (-days if peek_coin(ctx.rng) else days), ctx.now - timedelta(days=1))
        person = Customer(
            id=ctx.ids.next("cus"), name=customer.name, first_name=customer.first_name,
            email=f"{ascii_slug(first)}.{ascii_slug(last) or 'x'}{ctx.rng.randrange(10, 99)}@inbox{i + 1}.example",
            phone=f"+1 555 {ctx.rng.randrange(100, 999)} {ctx.rng.randrange(1000, 9999)}",
            language=customer.language, country=customer.country, tier="standard", created_at=at)
        number = order.number
        while number in taken:
            number = str(int(order.number) + ctx.rng.choice((-1, 1)) * ctx.rng.randrange(3, 90))
        taken.add(number)
        shift = timedelta(days=ctx.rng.randrange(-6, 1), minutes=ctx.rng.randrange(1440))
        lines = tuple(ln.model_copy(update={"id": ctx.ids.next("ol")}) for ln in order.lines)
        copy = order.model_copy(update={
            "id": ctx.ids.next("ord"), "number": number, "customer_id": person.id, "lines": lines,
            "placed_at": order.placed_at + shift, "refunded_total": Decimal("0.00"),
            "tracking_number": f"{order.carrier[:2].upper()}{ctx.rng.getrandbits(40):012d}"})
        # Same status as the target's order; each instant stays before the episode starts.
        for key in ("placed_at", "shipped_at", "delivered_at"):
            when = getattr(order, key)
            if when is not None:
                when = min(when + shift, ctx.now - timedelta(hours=1))
            copy = copy.model_copy(update={key: when})
        out += [ev.CustomerCreated(customer=person), ev.OrderPlaced(order=copy)]
        ctx.declare_lookalikes(customer.id, person.id)
        ctx.declare_lookalikes(order.id, copy.id)
        for line, twin in zip(order.lines, lines, strict=True):
            ctx.declare_lookalikes(line.id, twin.id)
    return out


def distractor_count(ctx: SetupContext, key: str = "namesakes") -> int:
    """Returns the setup's distractor count param (0 when absent: today's episode)."""
    n = int(ctx.params.get(key, 0))
    if n < 0:
        raise ScenarioError(f"{key} must be 0 or more, got {n}")
    return n
