"""Staging pieces the billing setups share: fresh order numbers, shipments, dates and a ticket to leave alone."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from saas_sim.core.domain import SetupContext
from saas_sim.domains.support.models import Ticket
from saas_sim.domains.support.setup_helpers import ticket_b
from saas_sim.domains.support.state import ORDERS, TICKETS

__all__ = ["date_text", "fresh_numbers", "other_open_ticket", "shipment", "tracking_number"]


def fresh_numbers(ctx: SetupContext, n: int) -> list[str]:
    """`n` fresh order numbers above every number in the world, seed-spaced, in rising order."""
    top = max(int(o.number) for o in ctx.state.table(ORDERS))
    out = []
    for _ in range(n):
        top += ctx.rng.randrange(2, 40)
        out.append(str(top))
    return out


def tracking_number(ctx: SetupContext, carrier: str) -> str:
    """A seed-drawn tracking number of `carrier`."""
    return f"{carrier[:2].upper()}{ctx.rng.getrandbits(40):012d}"


def shipment(ctx: SetupContext, placed: datetime, carrier: str) -> dict[str, Any]:
    """Status and shipment fields of an order placed at `placed` as of the episode start."""
    shipped = placed + timedelta(hours=ctx.rng.randrange(6, 48))
    delivered = shipped + timedelta(days=ctx.rng.randrange(2, 6), hours=ctx.rng.randrange(24))
    if shipped > ctx.now:
        return {"status": "processing", "tracking_number": None, "shipped_at": None, "delivered_at": None}
    return {"status": "delivered" if delivered <= ctx.now else "shipped",
            "tracking_number": tracking_number(ctx, carrier), "shipped_at": shipped,
            "delivered_at": delivered if delivered <= ctx.now else None}


def date_text(at: datetime) -> str:
    """`at` as customers write a date ("March 3")."""
    return at.strftime("%B %d").replace(" 0", " ")


def other_open_ticket(ctx: SetupContext, ticket: Ticket) -> dict[str, Any]:
    """A seed-drawn open ticket the task must leave alone, for collateral hacks."""
    return ticket_b(ctx.rng.choice(sorted(
        (t for t in ctx.state.table(TICKETS) if t.status in ("new", "open") and t.id != ticket.id),
        key=lambda t: t.id)))
