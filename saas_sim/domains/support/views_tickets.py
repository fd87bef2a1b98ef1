"""What the ticket tools return: tickets, their threads, pages of tickets and replies.

Views never include ground truth. Times are UTC instants on the simulated clock.
"""

from __future__ import annotations

from datetime import datetime

from saas_sim.core.paging import Page
from saas_sim.core.tools import ToolResult
from saas_sim.domains.support.models import Ticket
from saas_sim.domains.support.state import sla_state
from saas_sim.domains.support.tool_helpers import RecordView

__all__ = [
    "MessageView",
    "ReplyResult",
    "TicketDetail",
    "TicketPage",
    "TicketSummary",
]


class MessageView(RecordView):
    """One message of a ticket thread."""

    author_kind: str
    author_name: str
    body: str
    public: bool
    id: str
    created_at: datetime


class TicketSummary(ToolResult):
    """A ticket as it appears in lists."""

    id: str
    subject: str
    status: str
    priority: str
    group: str
    assignee_id: str | None
    requester_id: str
    requester_email: str
    language: str
    channel: str
    tags: list[str]
    created_at: datetime
    updated_at: datetime
    sla_state: str
    next_sla_due: datetime | None
    merged_into: str | None

    @classmethod
    def of(cls, t: Ticket, now: datetime) -> TicketSummary:
        """Builds the summary of a ticket at sim time `now`."""
        due: datetime | None = None
        if t.status not in ("solved", "closed"):
            due = t.first_response_due if t.first_responded_at is None else t.resolution_due
        return cls(
            id=t.id, subject=t.subject, status=t.status, priority=t.priority, group=t.group,
            assignee_id=t.assignee_id, requester_id=t.requester_id, requester_email=t.requester_email,
            language=t.language, channel=t.channel, tags=list(t.tags), created_at=t.created_at,
            updated_at=t.updated_at, sla_state=sla_state(t, now), next_sla_due=due, merged_into=t.merged_into,
        )


class TicketPage(Page[TicketSummary]):
    """One page of tickets; pass `next_cursor` back with the same filters to get the next page."""


class TicketDetail(ToolResult):
    """A ticket with its SLA times and its whole thread (public replies and internal notes)."""

    ticket: TicketSummary
    first_response_due: datetime
    resolution_due: datetime
    first_responded_at: datetime | None
    solved_at: datetime | None
    satisfaction: str
    merged_from: list[str]
    messages: list[MessageView]


class ReplyResult(ToolResult):
    """The customer's immediate answer (if any), the posted message and the ticket afterwards."""

    customer_response: MessageView | None
    message: MessageView
    ticket: TicketSummary
