"""What the workflow tools return: ticket updates, merges, escalations, macros and agents."""

from __future__ import annotations

from datetime import datetime

from saas_sim.core.paging import Page
from saas_sim.core.tools import ToolResult
from saas_sim.domains.support.tool_helpers import RecordView
from saas_sim.domains.support.views_tickets import MessageView, TicketSummary

__all__ = [
    "AgentPage",
    "AgentView",
    "EscalationView",
    "MacroPage",
    "MacroView",
    "MergeResult",
    "TicketUpdate",
]


class TicketUpdate(ToolResult):
    """The customer's immediate answer (if any) and the ticket after a change."""

    customer_response: MessageView | None = None
    ticket: TicketSummary


class MergeResult(ToolResult):
    """The surviving ticket and the tickets merged (and closed) into it."""

    target: TicketSummary
    merged: list[str]


class MacroView(RecordView):
    """A macro: its reply text and the actions it applies."""

    id: str
    title: str
    body: str
    set_status: str | None
    set_priority: str | None
    add_tags: list[str]


class MacroPage(Page[MacroView]):
    """One page of macros, by id."""


class AgentView(RecordView):
    """A support agent with its current load."""

    id: str
    name: str
    email: str
    groups: list[str]
    role: str
    active_tickets: int


class AgentPage(Page[AgentView]):
    """One page of agents, by id."""


class EscalationView(RecordView):
    """An escalation, and the ticket afterwards."""

    id: str
    ticket_id: str
    team: str
    reason: str
    created_at: datetime
    ticket: TicketSummary
