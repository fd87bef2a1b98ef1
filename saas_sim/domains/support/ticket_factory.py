"""Composing one ticket: its record, thread, ground truth and persona, as events.

World generation and scenario setups both open tickets through `compose_ticket`,
so a ticket staged by a setup carries the same kinds of mess, truth and persona
as one generated into the world.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from saas_sim.core.events import Event
from saas_sim.core.ids import IdFactory
from saas_sim.domains.support import customer_text
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.models import (
    Channel,
    Customer,
    Group,
    IssueKind,
    Message,
    Order,
    OrderLine,
    Persona,
    Priority,
    ResolutionKind,
    Satisfaction,
    Team,
    Ticket,
    TicketStatus,
    TicketTruth,
)

__all__ = [
    "FIRST_RESPONSE_HOURS",
    "RESOLUTION_HOURS",
    "Mess",
    "PostedMessage",
    "TicketSpec",
    "compose_ticket",
    "issue_tags",
]

FIRST_RESPONSE_HOURS: dict[str, int] = {"urgent": 1, "high": 4, "normal": 8, "low": 24}
"""First-response SLA per priority, in hours."""
RESOLUTION_HOURS: dict[str, int] = {"urgent": 8, "high": 24, "normal": 48, "low": 96}
"""Resolution SLA per priority, in hours."""

_ISSUE_TAGS: dict[str, tuple[str, ...]] = {
    "damaged_item": ("damaged",),
    "wrong_item": ("wrong_item",),
    "missing_item": ("missing_item",),
    "not_delivered": ("shipping", "not_delivered"),
    "change_of_mind": ("return_request",),
    "howto": ("how-to",),
    "legal_threat": (),
    "security_report": (),
    "billing_question": ("billing",),
}


def issue_tags(issue: IssueKind) -> tuple[str, ...]:
    """Returns the tags an inbound rule would put on a ticket about `issue`."""
    return _ISSUE_TAGS[issue]


@dataclass(frozen=True)
class Mess:
    """Which kinds of mess to write into a ticket."""

    html: bool = False
    signature: bool = False
    quoted: bool = False
    typos: bool = False
    vague_subject: bool = False
    missing_order: bool = False
    alt_email: bool = False
    duplicate: bool = False

    def flags(self) -> tuple[str, ...]:
        """Returns the names of the kinds present, sorted."""
        return tuple(sorted(k for k, v in self.__dict__.items() if v))


@dataclass(frozen=True)
class PostedMessage:
    """A later message of a composed thread."""

    author_kind: str
    author_id: str | None
    author_name: str
    body: str
    at: datetime
    public: bool = True


@dataclass(frozen=True)
class TicketSpec:
    """Everything that defines a composed ticket."""

    customer: Customer
    requester: Customer
    issue: IssueKind
    resolution: ResolutionKind
    created_at: datetime
    priority: Priority
    group: Group
    status: TicketStatus = "new"
    channel: Channel = "email"
    order: Order | None = None
    line: OrderLine | None = None
    quantity: int = 1
    amount: Decimal | None = None
    replacement_line_id: str | None = None
    replacement_qty: int = 0
    task: str = ""
    product_name: str = ""
    kb_article_id: str | None = None
    kb_facts: tuple[str, ...] = ()
    team: Team | None = None
    deny_reason: str | None = None
    duplicate_of: str | None = None
    mess: Mess = field(default_factory=Mess)
    typo_rate: float = 0.15
    assignee_id: str | None = None
    tags: tuple[str, ...] = ()
    first_response_due: datetime | None = None
    resolution_due: datetime | None = None
    later: tuple[PostedMessage, ...] = ()
    solved_at: datetime | None = None
    satisfaction: Satisfaction = "unoffered"
    persona_resolved: bool = False
    body_prefix: str = ""
    body_suffix: str = ""
    persona_reopens: int = 0
    quoted_number: str | None = None
    """An order number the customer quotes instead of the real one (a typo); the persona then still owes
    the real number."""
    body_core: str = ""
    """The customer's own words, instead of the stock complaint for `issue` (mess still applies)."""


def _first_body(rng: random.Random, spec: TicketSpec) -> str:
    lang = spec.customer.language
    number = None if spec.order is None or spec.mess.missing_order else spec.order.number
    ref = customer_text.order_ref(rng, lang, spec.quoted_number or number)
    product = spec.product_name or (spec.line.name if spec.line else "")
    core = spec.body_core.format(ref=ref) if spec.body_core else customer_text.complaint(
        rng, lang, spec.issue, product=product, ref=ref, qty=spec.quantity, task=spec.task)
    if spec.body_prefix:
        core = f"{spec.body_prefix}\n\n{core}"
    if spec.body_suffix:
        core = f"{core}\n\n{spec.body_suffix}"
    if spec.mess.typos:
        core = customer_text.add_typos(rng, core, spec.typo_rate * 2)
    parts = [core]
    if spec.mess.signature:
        parts.append(customer_text.signature(rng, lang, spec.requester.name, spec.requester.phone))
    if spec.mess.quoted:
        parts.append(customer_text.quoted_chain(rng, lang, spec.created_at - timedelta(days=rng.randrange(2, 40))))
    body = "\n\n".join(parts)
    return customer_text.to_html(body) if spec.mess.html else body


def compose_ticket(rng: random.Random, ids: IdFactory, spec: TicketSpec) -> tuple[Ticket, list[Event]]:
    """Returns a new ticket and the events that create it, its thread, its truth and its persona."""
    lang = spec.customer.language
    product = spec.product_name or (spec.line.name if spec.line else "")
    ticket_id = ids.next("tkt")
    subject = customer_text.subject(rng, lang, spec.issue, product, vague=spec.mess.vague_subject)
    if spec.mess.duplicate and not spec.mess.vague_subject and rng.random() < 0.5:
        subject = f"Re: {subject}"
    frd = spec.first_response_due or spec.created_at + timedelta(hours=FIRST_RESPONSE_HOURS[spec.priority])
    rsd = spec.resolution_due or spec.created_at + timedelta(hours=RESOLUTION_HOURS[spec.priority])
    ticket = Ticket(
        id=ticket_id,
        subject=subject,
        requester_id=spec.requester.id,
        requester_email=spec.requester.email,
        channel=spec.channel,
        language=lang,
        status=spec.status,
        priority=spec.priority,
        group=spec.group,
        tags=tuple(sorted(set(spec.tags) | set(issue_tags(spec.issue)))),
        assignee_id=spec.assignee_id,
        created_at=spec.created_at,
        updated_at=spec.created_at,
        first_response_due=frd,
        resolution_due=rsd,
        solved_at=spec.solved_at,
        satisfaction=spec.satisfaction,
    )
    out: list[Event] = [ev.TicketCreated(ticket=ticket)]
    first = Message(
        id=ids.next("msg"),
        ticket_id=ticket_id,
        author_kind="customer",
        author_id=spec.requester.id,
        author_name=spec.requester.name,
        public=True,
        body=_first_body(rng, spec),
        created_at=spec.created_at,
    )
    out.append(ev.MessagePosted(message=first))
    for later in spec.later:
        msg = Message(
            id=ids.next("msg"),
            ticket_id=ticket_id,
            author_kind=later.author_kind,
            author_id=later.author_id,
            author_name=later.author_name,
            public=later.public,
            body=later.body,
            created_at=later.at,
        )
        out.append(ev.MessagePosted(message=msg))
    truth = TicketTruth(
        id=ticket_id,
        customer_id=spec.customer.id,
        issue=spec.issue,
        resolution=spec.resolution,
        order_id=spec.order.id if spec.order else None,
        line_id=spec.line.id if spec.line else None,
        quantity=spec.quantity if spec.line else 0,
        amount=spec.amount,
        replacement_line_id=spec.replacement_line_id,
        replacement_qty=spec.replacement_qty,
        kb_article_id=spec.kb_article_id,
        kb_facts=spec.kb_facts,
        team=spec.team,
        deny_reason=spec.deny_reason,
        duplicate_of=spec.duplicate_of,
        mess=spec.mess.flags(),
    )
    out.append(ev.TicketTruthRecorded(truth=truth))
    style = rng.choice(("polite", "polite", "terse", "frustrated"))
    persona = Persona(
        id=ticket_id,
        seed=f"{rng.getrandbits(64):016x}",
        name=spec.customer.name,
        language=lang,
        style=style,
        order_revealed=spec.order is not None and not spec.mess.missing_order and spec.quoted_number is None,
        resolved=spec.persona_resolved,
        confirmed=spec.persona_resolved,
        reopen_count=spec.persona_reopens,
        patience=max((2 if style == "frustrated" else 3) - spec.persona_reopens, 1),
    )
    out.append(ev.PersonaCreated(persona=persona))
    return ticket, out
