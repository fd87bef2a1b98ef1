"""Helpers every support tool shares: lookups that raise `not_found`, opaque cursors, limits.

Pagination is keyset-based: results are sorted by a documented key ending in
the id, and a cursor is the opaque, base64-encoded last key plus a fingerprint
of the query. A cursor used with different filters is `invalid_argument`.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any, TypeVar

from pydantic import BaseModel

from saas_sim.core.money import to_cents
from saas_sim.core.paging import keyset_page
from saas_sim.core.state import TableKey
from saas_sim.core.tools import ToolContext
from saas_sim.domains.support.catalog import ACTING_AGENT_ID
from saas_sim.domains.support.models import Agent, Ticket
from saas_sim.domains.support.state import AGENTS, TICKETS
from saas_sim.errors import ToolError

__all__ = [
    "APPROVAL_MAX",
    "CREDIT_LIMIT",
    "REFUND_LIMIT",
    "acting_agent",
    "bad_arg",
    "check_cents",
    "need",
    "open_ticket",
    "page",
]

REFUND_LIMIT = Decimal("200.00")
"""An agent may refund up to this much per call without an approval (policy rule 4)."""
CREDIT_LIMIT = Decimal("50.00")
"""An agent may issue up to this much store credit without an approval (policy rule 7)."""
APPROVAL_MAX = Decimal("1000.00")
"""Team leads approve amounts up to this much (policy rule 5)."""

E = TypeVar("E", bound=BaseModel)
T = TypeVar("T")


def bad_arg(field: str, message: str, **details: Any) -> ToolError:
    """Returns an `invalid_argument` error naming `field`."""
    return ToolError("invalid_argument", message, details={"fields": [field], **details})


def need(ctx: ToolContext, key: TableKey[Any], entity_id: str, what: str, field: str) -> Any:
    """Returns an entity of a public table, or raises `not_found` naming the argument."""
    entity = ctx.table(key).get(entity_id)
    if entity is None:
        raise ToolError("not_found", f"{what} {entity_id} does not exist", details={"fields": [field]})
    return entity


def open_ticket(ctx: ToolContext, ticket_id: str, field: str = "ticket_id") -> Ticket:
    """Returns a ticket that can still be changed: `not_found`, or `conflict` if closed or merged."""
    ticket: Ticket = need(ctx, TICKETS, ticket_id, "ticket", field)
    if ticket.merged_into is not None:
        raise ToolError("conflict", f"ticket {ticket_id} was merged into {ticket.merged_into}; work on that one",
                        details={"merged_into": ticket.merged_into})
    if ticket.status == "closed":
        raise ToolError("conflict", f"ticket {ticket_id} is closed and cannot be changed")
    return ticket


def acting_agent(ctx: ToolContext) -> Agent:
    """Returns the agent the tools act as."""
    agent: Agent | None = ctx.table(AGENTS).get(ACTING_AGENT_ID)
    if agent is None:
        return Agent(id=ACTING_AGENT_ID, name="Support", email="help@shop.example", groups=(), role="agent")
    return agent


def check_cents(amount: Decimal, field: str = "amount") -> Decimal:
    """Returns `amount` if it has at most two decimal places, else raises `invalid_argument`."""
    cents = to_cents(amount)
    if cents is None:
        raise bad_arg(field, f"{field} must have at most two decimal places, got {amount}")
    return cents


def _fingerprint(query: dict[str, Any]) -> str:
    raw = json.dumps(query, sort_keys=True, default=str)
    return hashlib.sha256(raw.encode()).hexdigest()[:12]


def page(
    items: Sequence[T],
    key: Callable[[T], tuple[Any, ...]],
    *,
    query: dict[str, Any],
    cursor: str | None,
    limit: int,
) -> tuple[list[T], str | None]:
    """Returns one page of `items` sorted by `key` and the next cursor.

    `key` must return only strings and integers (datetimes as ISO text) and end
    in a unique id, so the order is total and survives a JSON round trip.
    """
    fp = _fingerprint(query)
    last: tuple[Any, ...] | None = None
    if cursor:
        try:
            decoded = json.loads(base64.urlsafe_b64decode(cursor.encode()).decode())
            if decoded["f"] != fp:
                raise ValueError("cursor belongs to another query")
            last = tuple(decoded["k"])
        except (ValueError, KeyError, TypeError) as exc:
            raise bad_arg("cursor", "cursor is invalid or belongs to a different query; start without it") from exc
    try:
        chunk, next_key, _ = keyset_page(items, key, last, limit)
    except TypeError as exc:  # a forged cursor whose key parts have other types than the sort key's
        raise bad_arg("cursor", "cursor is invalid or belongs to a different query; start without it") from exc
    if next_key is None:
        return chunk, None
    payload = json.dumps({"f": fp, "k": list(next_key)})
    return chunk, base64.urlsafe_b64encode(payload.encode()).decode()
