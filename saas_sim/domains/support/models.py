"""The support desk's records: frozen entity models and their vocabularies.

Public records (what tools may read) and ground truth (what only checks and the
customer simulator may read) are both plain frozen `Entity` models; which is
which is decided by the table they live in (see `state.py`).

Money is always `Decimal` with two places, never a float. Every instant is a
timezone-aware UTC `datetime` on the simulated clock.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import SerializerFunctionWrapHandler, model_serializer

from saas_sim.core.state import Entity

__all__ = [
    "ACTIVE_STATUSES",
    "PRIORITY_RANK",
    "STATUS_TRANSITIONS",
    "Agent",
    "Approval",
    "Channel",
    "Customer",
    "Escalation",
    "Group",
    "IssueKind",
    "KbArticle",
    "KbFacts",
    "Language",
    "Macro",
    "Message",
    "Order",
    "OrderLine",
    "Persona",
    "Priority",
    "Product",
    "Refund",
    "Replacement",
    "ResolutionKind",
    "Satisfaction",
    "StoreCredit",
    "Team",
    "Ticket",
    "TicketStatus",
    "TicketTruth",
]

Language = Literal["en", "de", "es", "fr"]
TicketStatus = Literal["new", "open", "pending", "on-hold", "solved", "closed"]
Priority = Literal["low", "normal", "high", "urgent"]
Channel = Literal["email", "web", "chat"]
Group = Literal["general", "billing", "shipping", "returns", "technical", "vip"]
Team = Literal["legal", "security", "engineering", "billing", "management"]
Satisfaction = Literal["unoffered", "good", "bad"]
IssueKind = Literal[
    "damaged_item",
    "wrong_item",
    "missing_item",
    "not_delivered",
    "change_of_mind",
    "howto",
    "legal_threat",
    "security_report",
    "billing_question",
]
ResolutionKind = Literal[
    "refund",
    "replacement",
    "refund_and_replacement",
    "deny",
    "kb_answer",
    "escalate",
    "reply",
    "tracking",
]

PRIORITY_RANK: dict[str, int] = {"urgent": 0, "high": 1, "normal": 2, "low": 3}
"""Sort rank of each priority: lower is more urgent."""

ACTIVE_STATUSES: frozenset[str] = frozenset({"new", "open", "pending", "on-hold"})
"""Statuses of a ticket that still needs work."""

STATUS_TRANSITIONS: dict[str, frozenset[str]] = {
    "new": frozenset({"open", "pending", "on-hold", "solved"}),
    "open": frozenset({"pending", "on-hold", "solved"}),
    "pending": frozenset({"open", "on-hold", "solved"}),
    "on-hold": frozenset({"open", "pending", "solved"}),
    "solved": frozenset({"open", "closed"}),
    "closed": frozenset(),
}
"""The allowed status changes. `new` is never re-entered and `closed` is final."""


class Customer(Entity):
    """A shopper who can open tickets. A second-address alias is a separate, order-less record."""

    name: str
    first_name: str
    email: str
    phone: str
    language: Language
    country: str
    tier: Literal["standard", "vip"]
    created_at: datetime
    crm_contact_id: str | None = None
    store_credit: Decimal = Decimal("0.00")
    company: str | None = None
    """The company the customer gave when signing up (in a world with a CRM: their account's name then)."""

    @model_serializer(mode="wrap")
    def _omit_unknown_company(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A record without a company dumps as before the field existed, so worlds without a CRM keep
        # their bytes and golden hashes; a snapshot reads the missing key back as None.
        data: dict[str, Any] = handler(self)
        if "company" in data and data["company"] is None:
            del data["company"]
        return data

    def alias(self, alias_id: str, email: str, at: datetime) -> Customer:
        """Returns a second-address record of the same person: standard tier, no orders, no CRM link."""
        return Customer(id=alias_id, name=self.name, first_name=self.first_name, email=email, phone=self.phone,
                        language=self.language, country=self.country, tier="standard", created_at=at)


class Product(Entity):
    """A catalogue item."""

    sku: str
    name: str
    category: str
    price: Decimal
    returnable: bool
    """False for final-sale items, which policy never refunds for a change of mind."""


class OrderLine(Entity):
    """One line of an order (embedded in its `Order`)."""

    product_id: str
    sku: str
    name: str
    quantity: int
    unit_price: Decimal
    total: Decimal


class Order(Entity):
    """A paid order with its lines, shipment and refunds so far."""

    number: str
    customer_id: str
    placed_at: datetime
    currency: Literal["USD", "EUR"]
    lines: tuple[OrderLine, ...]
    shipping: Decimal
    total: Decimal
    """What the customer paid: the lines plus shipping."""
    status: Literal["processing", "shipped", "delivered", "cancelled"]
    carrier: str
    tracking_number: str | None = None
    shipped_at: datetime | None = None
    delivered_at: datetime | None = None
    refunded_total: Decimal = Decimal("0.00")

    def line(self, line_id: str) -> OrderLine | None:
        """Returns the line with `line_id`, or None."""
        for ln in self.lines:
            if ln.id == line_id:
                return ln
        return None


class Agent(Entity):
    """A support agent or team lead."""

    name: str
    email: str
    groups: tuple[str, ...]
    role: Literal["agent", "lead"]


class Ticket(Entity):
    """A support ticket. Its thread is `message_ids`, in posting order."""

    subject: str
    requester_id: str
    requester_email: str
    channel: Channel
    language: Language
    status: TicketStatus
    priority: Priority
    group: Group
    tags: tuple[str, ...] = ()
    assignee_id: str | None = None
    created_at: datetime
    updated_at: datetime
    first_response_due: datetime
    resolution_due: datetime
    first_responded_at: datetime | None = None
    solved_at: datetime | None = None
    satisfaction: Satisfaction = "unoffered"
    satisfaction_comment: str = ""
    merged_into: str | None = None
    merged_from: tuple[str, ...] = ()
    message_ids: tuple[str, ...] = ()


class Message(Entity):
    """One entry of a ticket thread: a public reply or an internal note."""

    ticket_id: str
    author_kind: Literal["customer", "agent", "system"]
    author_id: str | None
    author_name: str
    public: bool
    body: str
    created_at: datetime
    macro_id: str | None = None


class Macro(Entity):
    """A canned reply with optional ticket actions."""

    title: str
    body: str
    set_status: TicketStatus | None = None
    set_priority: Priority | None = None
    add_tags: tuple[str, ...] = ()


class KbArticle(Entity):
    """A help-centre article."""

    title: str
    body: str
    category: str
    tags: tuple[str, ...]
    product_id: str | None
    updated_at: datetime


class Refund(Entity):
    """Money returned to the customer's payment method."""

    order_id: str
    line_id: str | None
    amount: Decimal
    currency: str
    reason: str
    ticket_id: str | None
    approval_id: str | None
    created_at: datetime


class Replacement(Entity):
    """A free re-shipment of some units of an order line."""

    order_id: str
    line_id: str
    product_id: str
    quantity: int
    reason: str
    ticket_id: str | None
    created_at: datetime


class StoreCredit(Entity):
    """Credit added to a customer's balance."""

    customer_id: str
    amount: Decimal
    currency: str
    reason: str
    ticket_id: str | None
    approval_id: str | None
    created_at: datetime


class Approval(Entity):
    """A team lead's decision on a refund or store credit above the agent limit."""

    kind: Literal["refund", "store_credit"]
    order_id: str | None
    customer_id: str
    amount: Decimal
    currency: str
    reason: str
    ticket_id: str | None
    status: Literal["approved", "denied"]
    decided_by: str
    decision_note: str
    requested_at: datetime
    used_by: str | None = None


class Escalation(Entity):
    """A ticket handed to a specialist team."""

    ticket_id: str
    team: Team
    reason: str
    created_at: datetime


class TicketTruth(Entity):
    """Ground truth about a ticket (id = the ticket's id). Hidden from tools.

    Attributes:
        customer_id: The real customer (differs from the requester for a second address).
        issue: What actually happened.
        resolution: What would really fix it.
        order_id: The order the ticket is really about, if any.
        line_id: The affected line, if any.
        quantity: How many units are affected.
        amount: The refund that fixes it, if a refund does.
        replacement_line_id: The line to replace, if a replacement is part of the fix.
        replacement_qty: How many units to replace.
        kb_article_id: The article that answers a how-to question.
        kb_facts: Facts from that article a correct answer contains.
        team: The team a threat must be escalated to.
        deny_reason: Why policy forbids a refund (`final_sale` or `window`).
        duplicate_of: The earliest ticket about the same issue, for duplicates.
        mess: The kinds of mess generated into this ticket.
    """

    customer_id: str
    issue: IssueKind
    resolution: ResolutionKind
    order_id: str | None = None
    line_id: str | None = None
    quantity: int = 0
    amount: Decimal | None = None
    replacement_line_id: str | None = None
    replacement_qty: int = 0
    kb_article_id: str | None = None
    kb_facts: tuple[str, ...] = ()
    team: Team | None = None
    deny_reason: Literal["final_sale", "window"] | None = None
    duplicate_of: str | None = None
    mess: tuple[str, ...] = ()


class KbFacts(Entity):
    """The facts a correct answer from an article contains (id = the article's id). Hidden from tools."""

    topic: str
    facts: tuple[str, ...]


class Persona(Entity):
    """The simulated customer behind a ticket (id = the ticket's id). Hidden from tools.

    Attributes:
        seed: Chooses phrasing; replies are a pure function of it, the state and the message.
        language: The language the customer writes in.
        style: How the customer writes.
        patience: Drops as SLAs breach and fixes fail; at 0 the customer asks for a manager.
        order_revealed: The customer has given its order number in the thread.
        resolved: The customer has seen the state that really fixes the problem.
        confirmed: The customer has said so in the thread.
        reopen_count: How often the customer reopened a ticket solved without a fix.
        replies: How many replies the simulator has written.
    """

    seed: str
    name: str
    language: Language
    style: Literal["polite", "terse", "frustrated"]
    patience: int = 3
    order_revealed: bool = False
    resolved: bool = False
    confirmed: bool = False
    reopen_count: int = 0
    replies: int = 0


class CustomerLink(Entity):
    """Ground truth of a customer who is a contact of the world's CRM (id = the customer's id; hidden).

    Attributes:
        crm_contact_id: The contact's id in the CRM.
        crm_account_id: The contact's account, if any.
        crm_tier: That account's tier (`enterprise` and `strategic` make the customer VIP).
        email_differs: The customer writes from another address than the CRM contact's.
        former_company_name: The customer's `company` is a name the account had before a rename.
    """

    crm_contact_id: str
    crm_account_id: str | None = None
    crm_tier: str = "unknown"
    email_differs: bool = False
    former_company_name: bool = False
