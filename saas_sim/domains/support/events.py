"""The support desk's events: immutable facts in the past tense, named `support.<Name>`.

World generation, scenario setups, tools and the customer simulator all change
state only through these. Events that carry a whole record (`TicketCreated`,
`RefundIssued`, ...) hold the frozen model itself, so the reducer just stores it.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from saas_sim.core.events import Event, event
from saas_sim.domains.support.models import (
    Agent,
    Approval,
    Customer,
    CustomerLink,
    Escalation,
    Group,
    KbArticle,
    KbFacts,
    Macro,
    Message,
    Order,
    Persona,
    Priority,
    Product,
    Refund,
    Replacement,
    Satisfaction,
    StoreCredit,
    Ticket,
    TicketStatus,
    TicketTruth,
)

__all__ = [
    "AgentCreated",
    "ApprovalRequested",
    "ApprovalUsed",
    "CustomerCreated",
    "CustomerLinksRecorded",
    "KbArticlePublished",
    "KbFactsRecorded",
    "MacroApplied",
    "MacroCreated",
    "MessagePosted",
    "OrderPlaced",
    "PersonaCreated",
    "PersonaUpdated",
    "ProductCreated",
    "RefundIssued",
    "ReplacementCreated",
    "SatisfactionRated",
    "StoreCreditIssued",
    "TicketAssigned",
    "TicketCreated",
    "TicketEscalated",
    "TicketPriorityChanged",
    "TicketStatusChanged",
    "TicketTagsChanged",
    "TicketTruthRecorded",
    "TicketsMerged",
]


@event("support.CustomerCreated")
class CustomerCreated(Event):
    """A customer record was created."""

    customer: Customer


@event("support.ProductCreated")
class ProductCreated(Event):
    """A product was added to the catalogue."""

    product: Product


@event("support.OrderPlaced")
class OrderPlaced(Event):
    """An order was placed (and paid)."""

    order: Order


@event("support.AgentCreated")
class AgentCreated(Event):
    """A support agent joined the desk."""

    agent: Agent


@event("support.MacroCreated")
class MacroCreated(Event):
    """A macro was created."""

    macro: Macro


@event("support.KbArticlePublished")
class KbArticlePublished(Event):
    """A help-centre article was published."""

    article: KbArticle


@event("support.CustomerLinksRecorded")
class CustomerLinksRecorded(Event):
    """How customers link to the CRM's contacts was recorded for verifiers (hidden from tools)."""

    links: list[CustomerLink]


@event("support.KbFactsRecorded")
class KbFactsRecorded(Event):
    """The facts of an article were recorded for verifiers (hidden from tools)."""

    facts: KbFacts


@event("support.TicketCreated")
class TicketCreated(Event):
    """A ticket was opened (its first message follows as `MessagePosted`)."""

    ticket: Ticket


@event("support.MessagePosted")
class MessagePosted(Event):
    """A message (public reply or internal note) was added to a ticket's thread."""

    # The scope guard's subjects (runtime/scope.py): the records this event changes.
    subject_fields: ClassVar[tuple[str, ...]] = ("ticket_id",)

    message: Message

    @property
    def ticket_id(self) -> str | None:
        """The ticket the message was posted on."""
        return self.message.ticket_id


@event("support.TicketStatusChanged")
class TicketStatusChanged(Event):
    """A ticket moved from one status to another."""

    ticket_id: str
    from_status: TicketStatus
    to_status: TicketStatus
    at: datetime


@event("support.TicketPriorityChanged")
class TicketPriorityChanged(Event):
    """A ticket's priority was changed."""

    ticket_id: str
    priority: Priority
    at: datetime


@event("support.TicketTagsChanged")
class TicketTagsChanged(Event):
    """A ticket's tags were replaced by `tags`."""

    ticket_id: str
    tags: tuple[str, ...]
    at: datetime


@event("support.TicketAssigned")
class TicketAssigned(Event):
    """A ticket's group and assignee were set."""

    # The scope guard's subjects (runtime/scope.py): the records this event changes.
    subject_fields: ClassVar[tuple[str, ...]] = ("ticket_id",)

    ticket_id: str
    group: Group
    assignee_id: str | None
    at: datetime


@event("support.TicketsMerged")
class TicketsMerged(Event):
    """Source tickets were merged into a target ticket and closed."""

    target_id: str
    source_ids: tuple[str, ...]
    at: datetime


@event("support.MacroApplied")
class MacroApplied(Event):
    """A macro was applied to a ticket (its reply and actions follow as their own events)."""

    # The scope guard's subjects (runtime/scope.py): the records this event changes.
    subject_fields: ClassVar[tuple[str, ...]] = ("ticket_id",)

    ticket_id: str
    macro_id: str
    at: datetime


@event("support.RefundIssued")
class RefundIssued(Event):
    """Money was refunded on an order."""

    # The scope guard's subjects (runtime/scope.py): the records this event changes.
    subject_fields: ClassVar[tuple[str, ...]] = ("order_id",)

    refund: Refund

    @property
    def order_id(self) -> str | None:
        """The order refunded."""
        return self.refund.order_id


@event("support.ReplacementCreated")
class ReplacementCreated(Event):
    """A replacement shipment was created for an order line."""

    # The scope guard's subjects (runtime/scope.py): the records this event changes.
    subject_fields: ClassVar[tuple[str, ...]] = ("order_id",)

    replacement: Replacement

    @property
    def order_id(self) -> str | None:
        """The order replaced on."""
        return self.replacement.order_id


@event("support.StoreCreditIssued")
class StoreCreditIssued(Event):
    """Store credit was added to a customer's balance."""

    # The scope guard's subjects (runtime/scope.py): the records this event changes.
    subject_fields: ClassVar[tuple[str, ...]] = ("customer_id",)

    credit: StoreCredit

    @property
    def customer_id(self) -> str | None:
        """The customer credited."""
        return self.credit.customer_id


@event("support.ApprovalRequested")
class ApprovalRequested(Event):
    """A team lead was asked to approve an amount above the agent limit (decided at once)."""

    # The scope guard's subjects (runtime/scope.py): the records this event changes.
    subject_fields: ClassVar[tuple[str, ...]] = ("order_id", "customer_id")

    approval: Approval

    @property
    def order_id(self) -> str | None:
        """The order the approval is for."""
        return self.approval.order_id

    @property
    def customer_id(self) -> str | None:
        """The customer the approval is for."""
        return self.approval.customer_id


@event("support.ApprovalUsed")
class ApprovalUsed(Event):
    """An approval was consumed by the refund or credit it allowed."""

    approval_id: str
    used_by: str


@event("support.TicketEscalated")
class TicketEscalated(Event):
    """A ticket was handed to a specialist team."""

    # The scope guard's subjects (runtime/scope.py): the records this event changes.
    subject_fields: ClassVar[tuple[str, ...]] = ("ticket_id",)

    escalation: Escalation

    @property
    def ticket_id(self) -> str | None:
        """The ticket escalated."""
        return self.escalation.ticket_id


@event("support.SatisfactionRated")
class SatisfactionRated(Event):
    """The customer rated the support they got."""

    ticket_id: str
    rating: Satisfaction
    comment: str
    at: datetime


@event("support.TicketTruthRecorded")
class TicketTruthRecorded(Event):
    """Ground truth about a ticket was recorded (hidden from tools)."""

    truth: TicketTruth


@event("support.PersonaCreated")
class PersonaCreated(Event):
    """The simulated customer behind a ticket was created (hidden from tools)."""

    persona: Persona


@event("support.PersonaUpdated")
class PersonaUpdated(Event):
    """The simulated customer's state changed (hidden from tools)."""

    # The scope guard's subjects (runtime/scope.py): the records this event changes.
    subject_fields: ClassVar[tuple[str, ...]] = ("ticket_id",)

    persona: Persona

    @property
    def ticket_id(self) -> str | None:
        """The ticket whose simulated customer changed."""
        return self.persona.id
