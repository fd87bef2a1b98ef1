"""World generation, part 2: catalogue, deals with line items, activities, tasks and sequences.

Deals always satisfy their stage's required fields (see `pipeline`), so the
starting world is consistent; the mess is in amounts that drifted from their
line items and in deals that went quiet (stalled).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal

from saas_sim.core.ids import IdFactory
from saas_sim.core.money import CENT
from saas_sim.domains.crm.gen_people import CrmParams, People
from saas_sim.domains.crm.models import (
    Activity,
    ActivityKind,
    Contact,
    Currency,
    Deal,
    Enrollment,
    LineItem,
    PriceBookEntry,
    Product,
    Sequence,
    SequenceStep,
    Stage,
    Task,
)
from saas_sim.domains.crm.pipeline import STAGES
from saas_sim.domains.crm.reference_data import FX, PRODUCTS, SEQUENCES

__all__ = ["Sales", "generate_sales", "line_total", "round_to_hundreds"]

_STAGE_WEIGHTS = (0.15, 0.2, 0.15, 0.15, 0.1, 0.15, 0.1)
_DEAL_LABELS = ("New business", "Expansion", "Renewal 2026", "Platform rollout", "Pilot", "Add-on upsell")
_NEXT_STEPS = ("Send proposal", "Security review call", "Pricing sign-off with CFO", "Schedule demo",
               "Legal redlines", "Confirm budget owner")
_LOST_REASONS = ("Price", "Chose competitor", "No budget", "Timing", "No decision")
_TASK_SUBJECTS = ("Follow up on proposal", "Send pricing", "Confirm decision makers", "Book next meeting")


def round_to_hundreds(amount: Decimal) -> Decimal:
    """Returns `amount` rounded half-up to a whole hundred, written with cents (`12345.6` -> `12300.00`)."""
    return ((amount / 100).quantize(Decimal(1), rounding=ROUND_HALF_UP) * 100).quantize(CENT)


def line_total(quantity: int, unit_price: Decimal, discount_pct: Decimal) -> Decimal:
    """Returns a line's total: quantity * unit_price * (1 - discount_pct/100), rounded half-up to cents."""
    gross = Decimal(quantity) * unit_price * (Decimal(100) - discount_pct) / Decimal(100)
    return gross.quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass
class Sales:
    """The sales half of a world."""

    products: list[Product] = field(default_factory=list)
    price_book: list[PriceBookEntry] = field(default_factory=list)
    sequences: list[Sequence] = field(default_factory=list)
    deals: list[Deal] = field(default_factory=list)
    line_items: list[LineItem] = field(default_factory=list)
    activities: list[Activity] = field(default_factory=list)
    tasks: list[Task] = field(default_factory=list)
    enrollments: list[Enrollment] = field(default_factory=list)
    contacts: list[Contact] = field(default_factory=list)


class _SalesGen:
    def __init__(self, p: CrmParams, people: People, rng: random.Random, ids: IdFactory, now: datetime) -> None:
        self.p, self.people, self.rng, self.ids, self.now = p, people, rng, ids, now
        self.out = Sales()
        self.prices: dict[tuple[str, Currency], Decimal] = {}
        self.last_contacted: dict[str, datetime] = {}
        self.first_names = {c.id: c.first_name for c in people.contacts}

    def ago(self, lo_days: float, hi_days: float) -> datetime:
        return self.now - timedelta(minutes=self.rng.randint(int(lo_days * 1440), int(hi_days * 1440)))

    def catalog(self) -> None:
        for spec in PRODUCTS:
            pid = self.ids.next("prd")
            self.out.products.append(Product(id=pid, sku=spec.sku, name=spec.name, family=spec.family))
            for cur in ("USD", "EUR", "GBP"):
                price = (spec.usd * FX[cur]).quantize(Decimal(1), rounding=ROUND_HALF_UP)
                self.prices[(pid, cur)] = price
                self.out.price_book.append(
                    PriceBookEntry(id=self.ids.next("pbe"), product_id=pid, currency=cur, unit_price=price)
                )
        for name, purpose, steps in SEQUENCES:
            self.out.sequences.append(
                Sequence(
                    id=self.ids.next("seq"),
                    name=name,
                    purpose=purpose,
                    steps=tuple(SequenceStep(day_offset=d, subject=s) for d, s in steps),
                )
            )

    def deals(self) -> None:
        truth = self.people.person_truth
        by_account: dict[str, list[Contact]] = {}
        for c in self.people.contacts:
            t = truth[c.id]
            if c.account_id and t.variant_of is None and not t.departed:
                by_account.setdefault(c.account_id, []).append(c)
        users = {u.id: u for u in self.people.users}
        aes = [u.id for u in self.people.users if u.role == "ae"]
        for acc in self.people.accounts:
            k = self.rng.randint(0, max(0, round(2 * self.p.deals_per_account)))
            contacts = by_account.get(acc.id, [])
            labels = list(_DEAL_LABELS)
            self.rng.shuffle(labels)
            for i in range(k):
                stage: Stage = self.rng.choices(STAGES, _STAGE_WEIGHTS)[0]
                if not contacts:
                    stage = "prospecting"
                owner = acc.owner_id
                if self.rng.random() < 0.15:
                    peers = [a for a in aes if users[a].territory == acc.territory] or aes
                    owner = peers[self.rng.randrange(len(peers))]
                label = labels[i % len(labels)] + ("" if i < len(labels) else f" {i + 1}")
                self.deal(acc.id, f"{self.people.canonical_name[acc.id]} - {label}", stage, owner, contacts)

    def deal(self, acc_id: str, name: str, stage: Stage, owner: str, contacts: list[Contact]) -> None:
        rng = self.rng
        index = STAGES.index(stage)
        currency = self.people.territory_of[acc_id].currency
        deal_id = self.ids.next("dl")
        closed = stage in ("closed_won", "closed_lost")
        items: list[LineItem] = []
        if index >= 2 or rng.random() < 0.5:
            for _ in range(rng.randint(1, 3)):
                product = self.out.products[rng.randrange(len(self.out.products))]
                qty = rng.randint(5, 200) if product.sku == "PLT-SEAT" else rng.randint(1, 3)
                items.append(
                    LineItem(
                        id=self.ids.next("li"),
                        deal_id=deal_id,
                        product_id=product.id,
                        product_name=product.name,
                        quantity=qty,
                        unit_price=self.prices[(product.id, currency)],
                        discount_pct=Decimal(rng.choice((0, 0, 0, 5, 10, 15, 20))),
                    )
                )
        amount: Decimal | None = None
        if items:
            amount = sum((line_total(i.quantity, i.unit_price, i.discount_pct) for i in items), Decimal(0))
            if not closed and rng.random() < self.p.stale_amount_rate:
                drift = Decimal(rng.choice(("0.8", "0.9", "1.1", "1.25")))
                amount = round_to_hundreds(amount * drift)
        elif index >= 1 and rng.random() < 0.5:
            amount = Decimal(rng.randint(5, 80) * 1000)
        created = self.ago(20, 400)
        if closed:
            close: date | None = (self.now - timedelta(days=rng.randint(3, 300))).date()
        elif index >= 2 or rng.random() < 0.5:
            close = (self.now + timedelta(days=rng.randint(7, 150))).date()
        else:
            close = None
        primary = contacts[rng.randrange(len(contacts))].id if contacts and (index >= 1 or rng.random() < 0.5) else None
        next_step = rng.choice(_NEXT_STEPS) if stage == "negotiation" or (not closed and rng.random() < 0.4) else None
        changed = created + (self.now - created) * rng.uniform(0.2, 0.9)
        changed = changed.replace(second=0, microsecond=0)
        self.out.line_items.extend(items)
        deal = Deal(
            id=deal_id,
            name=name,
            account_id=acc_id,
            owner_id=owner,
            stage=stage,
            amount=amount,
            currency=currency,
            close_date=close,
            primary_contact_id=primary,
            next_step=next_step,
            lost_reason=rng.choice(_LOST_REASONS) if stage == "closed_lost" else None,
            line_item_ids=tuple(i.id for i in items),
            created_at=created,
            updated_at=changed,
            stage_changed_at=changed,
        )
        deal = deal.model_copy(update={"last_activity_at": self.deal_activities(deal)})
        self.out.deals.append(deal)
        if not closed and rng.random() < 0.35:
            self.task(deal)

    def activity(self, kind: ActivityKind, at: datetime, contact: str | None, deal: Deal | None,
                 account: str | None, owner: str | None) -> Activity:
        who = self.first_names.get(contact or "", "the customer")
        direction = None
        outcome = None
        if kind == "call":
            subject = f"Call with {who}"
            outcome = self.rng.choice(("connected", "left_voicemail", "no_answer"))
            direction = "outbound"
        elif kind == "email":
            direction = "outbound" if self.rng.random() < 0.7 else "inbound"
            subject = "Re: next steps" if direction == "inbound" else "Following up on our conversation"
        elif kind == "meeting":
            subject = f"Product demo with {who}" if deal else f"Intro meeting with {who}"
        else:
            subject = "Internal note"
        if direction == "outbound" and contact is not None:
            prev = self.last_contacted.get(contact)
            if prev is None or prev < at:
                self.last_contacted[contact] = at
        return Activity(
            id=self.ids.next("act"),
            kind=kind,
            subject=subject,
            body=None,
            direction=direction,
            outcome=outcome,
            contact_id=contact,
            deal_id=deal.id if deal else None,
            account_id=account,
            owner_id=owner,
            occurred_at=at,
        )

    def deal_activities(self, deal: Deal) -> datetime | None:
        rng = self.rng
        n = rng.randint(1, max(1, round(2 * self.p.activities_per_deal) - 1))
        span_days = max(1, (self.now - deal.created_at).days)
        stalled = deal.stage not in ("closed_won", "closed_lost") and rng.random() < self.p.stalled_deal_rate
        lo = 30 if stalled else 0.1
        last: datetime | None = None
        kinds: tuple[ActivityKind, ...] = ("call", "email", "meeting", "note")
        for _ in range(n):
            at = self.ago(lo, max(lo + 1, span_days))
            kind = rng.choices(kinds, (0.3, 0.4, 0.2, 0.1))[0]
            self.out.activities.append(
                self.activity(kind, at, deal.primary_contact_id, deal, deal.account_id, deal.owner_id)
            )
            last = at if last is None or at > last else last
        return last

    def contact_activities(self) -> None:
        kinds: tuple[ActivityKind, ...] = ("call", "email", "meeting", "note")
        for c in self.people.contacts:
            if self.rng.random() < self.p.activities_per_contact:
                kind = self.rng.choices(kinds, (0.3, 0.5, 0.1, 0.1))[0]
                at = self.ago(1, 300)
                self.out.activities.append(self.activity(kind, at, c.id, None, c.account_id, c.owner_id))

    def task(self, deal: Deal) -> None:
        due = (self.now + timedelta(hours=self.rng.randint(-240, 336))).replace(minute=0, second=0)
        done = self.rng.random() < 0.2 and due < self.now
        self.out.tasks.append(
            Task(
                id=self.ids.next("tsk"),
                subject=self.rng.choice(_TASK_SUBJECTS),
                due_at=due,
                status="completed" if done else "open",
                owner_id=deal.owner_id,
                contact_id=deal.primary_contact_id,
                deal_id=deal.id,
                notes=None,
                created_at=min(due, self.now) - timedelta(days=self.rng.randint(1, 10)),
                completed_at=due if done else None,
            )
        )

    def enrollments(self) -> None:
        nurture = [s for s in self.out.sequences if s.purpose == "nurture"]
        truth = self.people.person_truth
        for c in self.people.contacts:
            if c.consent != "subscribed" or truth[c.id].departed or self.rng.random() >= 0.04:
                continue
            seq = nurture[self.rng.randrange(len(nurture))]
            self.out.enrollments.append(
                Enrollment(
                    id=self.ids.next("enr"),
                    sequence_id=seq.id,
                    contact_id=c.id,
                    status="active",
                    enrolled_at=self.ago(1, 40),
                    enrolled_by=c.owner_id,
                )
            )

    def finish_contacts(self) -> None:
        self.out.contacts = [
            c.model_copy(update={"last_contacted_at": self.last_contacted[c.id]}) if c.id in self.last_contacted else c
            for c in self.people.contacts
        ]


def generate_sales(p: CrmParams, people: People, rng: random.Random, ids: IdFactory, now: datetime) -> Sales:
    """Generates the catalogue, deals (with line items, activities and tasks), contact activities and enrolments.

    Order: products and price book, sequences, deals in account-id order (each
    with its line items, activities and maybe a task), contact activities in
    contact-id order, enrolments in contact-id order. `Sales.contacts` are the
    people's contacts with `last_contacted_at` filled in from the activities.
    """
    gen = _SalesGen(p, people, rng, ids, now)
    gen.catalog()
    gen.deals()
    gen.contact_activities()
    gen.enrollments()
    gen.finish_contacts()
    return gen.out
