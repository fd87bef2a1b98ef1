"""Helpers the support tools share: the desk's money limits, the acting agent, open tickets and cents.

Lookups, argument errors and pages are core's (`saas_sim.core.tool_errors`,
`saas_sim.core.paging`), so support errors and pages read like every domain's.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Self

from saas_sim.core.money import to_cents
from saas_sim.core.state import Entity
from saas_sim.core.tool_errors import bad_args, conflict, require
from saas_sim.core.tools import ToolContext, ToolResult
from saas_sim.domains.support.models import Agent, Ticket
from saas_sim.domains.support.reference_data import ACTING_AGENT_ID
from saas_sim.domains.support.state import AGENTS, TICKETS

__all__ = [
    "APPROVAL_MAX",
    "CREDIT_LIMIT",
    "REFUND_LIMIT",
    "RecordView",
    "acting_agent",
    "check_cents",
    "open_ticket",
]

REFUND_LIMIT = Decimal("200.00")
"""An agent may refund up to this much per call without an approval (policy rule 4)."""
CREDIT_LIMIT = Decimal("50.00")
"""An agent may issue up to this much store credit without an approval (policy rule 7)."""
APPROVAL_MAX = Decimal("1000.00")
"""Team leads approve amounts up to this much (policy rule 5)."""


class RecordView(ToolResult):
    """A view of one record: each of its fields is the record's field of the same name."""

    @classmethod
    def of(cls, record: Entity, **extra: Any) -> Self:
        """Builds the view of `record`; `extra` sets the fields the record does not have."""
        return cls.model_validate({**record.model_dump(include=set(cls.model_fields)), **extra})


def open_ticket(ctx: ToolContext, ticket_id: str, field: str = "ticket_id") -> Ticket:
    """Returns a ticket that can still be changed: `not_found`, or `conflict` if closed or merged."""
    ticket = require(ctx, TICKETS, ticket_id, "ticket", field)
    if ticket.merged_into is not None:
        raise conflict(f"ticket {ticket_id} was merged into {ticket.merged_into}; work on that one", [field],
                       merged_into=ticket.merged_into)
    if ticket.status == "closed":
        raise conflict(f"ticket {ticket_id} is closed and cannot be changed", [field])
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
        raise bad_args(f"{field} must have at most two decimal places, got {amount}", [field])
    return cents

