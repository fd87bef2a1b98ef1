"""Generating the world's tickets: issues, ground truth, history and duplicates.

`resolution_for` decides what really fixes an order problem under the desk's
policy; scenario setups use it too, so their ground truth agrees with the
world's.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from faker import Faker

from saas_sim.core.events import Event
from saas_sim.core.ids import IdFactory
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.customer_text import ascii_slug
from saas_sim.domains.support.models import (
    Agent,
    Customer,
    Group,
    IssueKind,
    Order,
    OrderLine,
    Priority,
    Product,
    Refund,
    Replacement,
    ResolutionKind,
    TicketStatus,
)
from saas_sim.domains.support.reference_data import HOWTO_TASKS, ArticleFacts
from saas_sim.domains.support.ticket_factory import (
    FIRST_RESPONSE_HOURS,
    RESOLUTION_HOURS,
    Mess,
    PostedMessage,
    TicketSpec,
    compose_ticket,
)

__all__ = [
    "PRIORITY_ORDER",
    "REFUND_WINDOW",
    "Plan",
    "TicketGenerator",
    "resolution_for",
    "safe_due",
    "sla_times",
]

PRIORITY_ORDER: tuple[Priority, ...] = ("urgent", "high", "normal", "low")
"""Priorities from most to least urgent."""

REFUND_WINDOW = timedelta(days=30)
"""A change-of-mind return is refundable within this long after delivery (policy rule 3)."""

_ISSUES: tuple[tuple[IssueKind, int], ...] = (
    ("damaged_item", 22),
    ("wrong_item", 8),
    ("missing_item", 8),
    ("not_delivered", 8),
    ("change_of_mind", 14),
    ("howto", 16),
    ("legal_threat", 3),
    ("security_report", 3),
    ("billing_question", 8),
)
_ORDER_ISSUES = frozenset({"damaged_item", "wrong_item", "missing_item", "not_delivered", "change_of_mind"})
_GROUP_OF: dict[str, Group] = {
    "damaged_item": "returns",
    "wrong_item": "returns",
    "missing_item": "returns",
    "change_of_mind": "returns",
    "not_delivered": "shipping",
    "howto": "technical",
    "legal_threat": "general",
    "security_report": "general",
    "billing_question": "billing",
}
_STATUSES: tuple[tuple[TicketStatus, int], ...] = (
    ("new", 22), ("open", 22), ("pending", 10), ("on-hold", 4), ("solved", 26), ("closed", 16),
)
_PRIORITIES: tuple[tuple[Priority, int], ...] = (("low", 15), ("normal", 55), ("high", 20), ("urgent", 10))
_AGENT_FIRST_REPLY = (
    "Thanks for your message, we are checking this for you.",
    "Hi, thanks for reaching out. Could you give us a little more detail?",
    "Thank you for your patience, we are looking into it.",
)
_FOLLOW_UP = {
    "en": "Any update on this? I am still waiting.",
    "de": "Gibt es schon Neuigkeiten? Ich warte immer noch.",
    "es": "¿Alguna novedad? Sigo esperando.",
    "fr": "Des nouvelles ? J'attends toujours.",
}
_DUPLICATE_PREFIX = {
    "en": "I already wrote to you about this and nobody answered!",
    "de": "Ich habe Ihnen schon deswegen geschrieben und keine Antwort bekommen!",
    "es": "¡Ya les escribí sobre esto y nadie contestó!",
    "fr": "Je vous ai déjà écrit à ce sujet et personne n'a répondu !",
}


@dataclass(frozen=True)
class Plan:
    """What really fixes an order problem."""

    resolution: ResolutionKind
    quantity: int
    amount: Decimal | None = None
    replacement_line_id: str | None = None
    replacement_qty: int = 0
    deny_reason: str | None = None


def resolution_for(
    issue: IssueKind, order: Order, line: OrderLine, product: Product, now: datetime, qty: int,
    *, prefer_replacement: bool = False,
) -> Plan:
    """Returns the fix policy allows for `issue` on `qty` units of `line`."""
    if issue == "damaged_item":
        if prefer_replacement:
            return Plan("replacement", qty, replacement_line_id=line.id, replacement_qty=qty)
        return Plan("refund", qty, amount=line.unit_price * qty)
    if issue == "wrong_item":
        return Plan("replacement", line.quantity, replacement_line_id=line.id, replacement_qty=line.quantity)
    if issue == "missing_item":
        return Plan("refund", qty, amount=line.unit_price * qty)
    if issue == "not_delivered":
        return Plan("refund", 0, amount=order.total)
    if not product.returnable:
        return Plan("deny", line.quantity, deny_reason="final_sale")
    if order.delivered_at is None or now - order.delivered_at > REFUND_WINDOW:
        return Plan("deny", line.quantity, deny_reason="window")
    return Plan("refund", line.quantity, amount=line.total)


def safe_due(due: datetime, now: datetime) -> bool:
    """Returns whether a deadline sits clear of every SLA-state boundary.

    Safe deadlines are at least an hour past (`breached`), 45-90 minutes ahead
    (`at_risk`) or at least three hours ahead (`ok`), so an episode of a few
    dozen calls cannot move a ticket from one SLA state to another.
    """
    delta = due - now
    return (
        delta <= timedelta(hours=-1)
        or timedelta(minutes=45) <= delta <= timedelta(minutes=90)
        or delta >= timedelta(hours=3)
    )


def sla_times(
    rng: random.Random, priority: str, now: datetime, *, responded: bool
) -> tuple[datetime, datetime, datetime | None]:
    """Returns (created_at, first_response_due, first_responded_at) for an active ticket.

    The deadline that decides its SLA state is always `safe_due`.
    """
    frh = timedelta(hours=FIRST_RESPONSE_HOURS[priority])
    rsh = timedelta(hours=RESOLUTION_HOURS[priority])
    for _ in range(40):
        created = now - timedelta(minutes=rng.randrange(5, 72 * 60))
        frd = created + frh
        responded_at = None
        if responded:
            responded_at = created + timedelta(minutes=rng.randrange(5, int(frh.total_seconds() // 60) + 90))
            if responded_at >= now:
                continue
        if safe_due(created + rsh if responded else frd, now):
            return created, frd, responded_at
    created = now - rsh - timedelta(hours=2)
    return created, created + frh, (created + timedelta(minutes=30)) if responded else None


class TicketGenerator:
    """Writes the world's tickets (see `generate.py` for the knobs)."""

    def __init__(
        self,
        *,
        rng: random.Random,
        alias_faker: Faker,
        ids: IdFactory,
        now: datetime,
        params: Mapping[str, Any],
        customers: Sequence[Customer],
        orders: Sequence[Order],
        products: Sequence[Product],
        articles: Sequence[ArticleFacts],
        agents: Sequence[Agent],
    ) -> None:
        self.rng = rng
        self.alias_faker = alias_faker
        self.ids = ids
        self.now = now
        self.p = params
        self.customers = {c.id: c for c in customers}
        self.products = {p.id: p for p in products}
        self.howtos = [a for a in articles if a.topic != "policy"]
        self.invoice_article = next(a for a in articles if a.article.title == "Download an invoice")
        self.agents = list(agents)
        self.delivered = [o for o in orders if o.status == "delivered"]
        self.refunded: dict[tuple[str, str | None], Decimal] = {}
        self.orders_of: dict[str, list[Order]] = {}
        for o in orders:
            self.orders_of.setdefault(o.customer_id, []).append(o)

    def _mess(self, *, order_issue: bool) -> Mess:
        r, p = self.rng, self.p
        return Mess(
            html=r.random() < float(p["html_rate"]),
            signature=r.random() < float(p["signature_rate"]),
            quoted=r.random() < float(p["quoted_rate"]),
            typos=r.random() < float(p["typo_rate"]),
            vague_subject=r.random() < float(p["vague_subject_rate"]),
            missing_order=order_issue and r.random() < float(p["missing_order_rate"]),
            alt_email=r.random() < float(p["alt_email_rate"]),
        )

    def _alias(self, customer: Customer, at: datetime) -> Customer:
        alias_id = self.ids.next("cus")
        number, domain = self.rng.randrange(100, 999), self.alias_faker.free_email_domain()
        return customer.alias(alias_id, f"{ascii_slug(customer.first_name)}{number}@{domain}", at)

    def _agent_for(self, group: str) -> Agent:
        pool = [a for a in self.agents if group in a.groups] or self.agents
        return self.rng.choice(pool)

    def _timing(self, status: TicketStatus, priority: Priority) -> dict[str, Any]:
        if status in ("solved", "closed"):
            created = self.now - timedelta(days=self.rng.randrange(3, 60), minutes=self.rng.randrange(1440))
            responded = created + timedelta(minutes=self.rng.randrange(10, 360))
            solved = responded + timedelta(hours=self.rng.randrange(2, 96))
            return {"created": created, "frd": None, "responded": responded, "solved": solved}
        responded_flag = status != "new"
        created, frd, responded_at = sla_times(self.rng, priority, self.now, responded=responded_flag)
        return {"created": created, "frd": frd, "responded": responded_at, "solved": None}

    def run(self, n: int) -> list[Event]:
        """Returns the events of `n` tickets (duplicates included in the count)."""
        out: list[Event] = []
        made = 0
        while made < n:
            events, dups_left = self._one(allow_duplicates=n - made > 2)
            out += events
            made += 1 + dups_left
        return out

    def _one(self, *, allow_duplicates: bool) -> tuple[list[Event], int]:
        r = self.rng
        issue: IssueKind = r.choices([i for i, _ in _ISSUES], weights=[w for _, w in _ISSUES])[0]
        status: TicketStatus = r.choices([s for s, _ in _STATUSES], weights=[w for _, w in _STATUSES])[0]
        priority: Priority = r.choices([p for p, _ in _PRIORITIES], weights=[w for _, w in _PRIORITIES])[0]
        order = r.choice(self.delivered)
        customer = self.customers[order.customer_id]
        line = r.choice(order.lines)
        product = self.products[line.product_id]
        if customer.tier == "vip" and PRIORITY_ORDER.index(priority) > 1:
            priority = "high"
        mess = self._mess(order_issue=issue in _ORDER_ISSUES)
        timing = self._timing(status, priority)
        created: datetime = timing["created"]
        requester = self._alias(customer, created) if mess.alt_email else customer
        out: list[Event] = []
        if requester is not customer:
            out.append(ev.CustomerCreated(customer=requester))
        group: Group = "vip" if customer.tier == "vip" and r.random() < 0.7 else _GROUP_OF[issue]
        fields: dict[str, Any] = {}
        if issue in _ORDER_ISSUES:
            qty = r.randrange(1, line.quantity + 1)
            plan = resolution_for(issue, order, line, product, self.now, qty, prefer_replacement=r.random() < 0.3)
            fields = {
                "order": order, "line": line if issue != "not_delivered" else None, "quantity": plan.quantity,
                "amount": plan.amount, "replacement_line_id": plan.replacement_line_id,
                "replacement_qty": plan.replacement_qty, "deny_reason": plan.deny_reason,
                "product_name": line.name,
            }
            resolution: ResolutionKind = plan.resolution
        elif issue == "howto":
            art = r.choice(self.howtos)
            prod = self.products[art.article.product_id or ""]
            fields = {"kb_article_id": art.article.id, "kb_facts": art.facts, "product_name": prod.name,
                      "task": HOWTO_TASKS[art.topic][customer.language]}
            resolution = "kb_answer"
        elif issue in ("legal_threat", "security_report"):
            fields = {"order": order, "team": "legal" if issue == "legal_threat" else "security"}
            resolution = "escalate"
        else:
            fields = {"order": order, "kb_article_id": self.invoice_article.article.id,
                      "kb_facts": ("Download invoice",)}
            resolution = "reply"
        assignee = None if status == "new" else self._agent_for(group)
        later: list[PostedMessage] = []
        if timing["responded"] is not None and assignee is not None:
            later.append(PostedMessage("agent", assignee.id, assignee.name, r.choice(_AGENT_FIRST_REPLY),
                                       timing["responded"]))
            if status == "open" and timing["responded"] + timedelta(minutes=30) < self.now:
                later.append(PostedMessage("customer", requester.id, requester.name,
                                           _FOLLOW_UP[customer.language],
                                           timing["responded"] + timedelta(minutes=r.randrange(20, 30))))
        done = status in ("solved", "closed")
        spec = TicketSpec(
            customer=customer, requester=requester, issue=issue, resolution=resolution, created_at=created,
            priority=priority, group=group, status=status, channel=r.choice(("email", "email", "web", "chat")),
            mess=mess, typo_rate=float(self.p["typo_rate"]) / 2, assignee_id=assignee.id if assignee else None,
            first_response_due=timing["frd"], later=tuple(later), solved_at=timing["solved"],
            satisfaction=("good" if r.random() < 0.8 else "bad") if done and r.random() < 0.6 else "unoffered",
            persona_resolved=done, **fields,
        )
        ticket, events = compose_ticket(r, self.ids, spec)
        out += events
        if done and assignee is not None:
            out += self._past_fix(spec, ticket.id, assignee, timing["solved"])
        dups = 0
        if (allow_duplicates and status in ("new", "open") and issue in _ORDER_ISSUES
                and r.random() < float(self.p["duplicate_rate"])):
            dups = r.choice((1, 1, 2))
            for k in range(dups):
                at = min(created + timedelta(hours=r.randrange(2, 20) * (k + 1)), self.now - timedelta(minutes=5))
                dup_spec = TicketSpec(
                    customer=customer, requester=requester, issue=issue, resolution=resolution, created_at=at,
                    priority=priority, group=group, status="new", mess=Mess(
                        duplicate=True, missing_order=mess.missing_order, alt_email=mess.alt_email,
                        typos=r.random() < 0.5, vague_subject=r.random() < 0.3),
                    duplicate_of=ticket.id, body_prefix=_DUPLICATE_PREFIX[customer.language],
                    first_response_due=self._safe_frd(at, priority),
                    **fields,
                )
                out += compose_ticket(r, self.ids, dup_spec)[1]
        return out, dups

    def _safe_frd(self, created: datetime, priority: Priority) -> datetime:
        frd = created + timedelta(hours=FIRST_RESPONSE_HOURS[priority])
        if safe_due(frd, self.now):
            return frd
        if frd < self.now + timedelta(minutes=45):
            return self.now - timedelta(hours=2)
        return self.now + timedelta(hours=4)

    def _past_fix(self, spec: TicketSpec, ticket_id: str, agent: Agent, at: datetime) -> list[Event]:
        order = spec.order
        if order is None:
            return []
        out: list[Event] = []
        line_key = (order.id, spec.line.id if spec.line else None)
        line_cap = spec.line.total if spec.line else order.total
        fits = (
            spec.amount is not None
            and self.refunded.get(line_key, Decimal(0)) + spec.amount <= line_cap
            and self.refunded.get((order.id, "*"), Decimal(0)) + spec.amount <= order.total
        )
        if spec.resolution in ("refund", "refund_and_replacement") and spec.amount is not None and fits:
            self.refunded[line_key] = self.refunded.get(line_key, Decimal(0)) + spec.amount
            self.refunded[(order.id, "*")] = self.refunded.get((order.id, "*"), Decimal(0)) + spec.amount
            out.append(ev.RefundIssued(refund=Refund(
                id=self.ids.next("rf"), order_id=order.id, line_id=spec.line.id if spec.line else None,
                amount=spec.amount, currency=order.currency, reason=spec.issue, ticket_id=ticket_id,
                approval_id=None, created_at=at - timedelta(minutes=10))))
        if spec.replacement_line_id is not None and spec.line is not None:
            out.append(ev.ReplacementCreated(replacement=Replacement(
                id=self.ids.next("rpl"), order_id=order.id, line_id=spec.replacement_line_id,
                product_id=spec.line.product_id, quantity=spec.replacement_qty, reason=spec.issue,
                ticket_id=ticket_id, created_at=at - timedelta(minutes=10))))
        return out

