"""The CRM's frozen records: what the agent can see, and the ground truth it cannot.

Visible records live in tables named `crm.<table>`; ground truth (which
contacts are the same person, which data is current, which lead matches which
contact) lives in `hidden.crm.<table>` tables that only checks and reports read.

Money is `Decimal`, quantized to cents. Every instant is a UTC datetime on the
sim clock; close dates are plain dates.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict

from saas_sim.core.state import Entity

__all__ = [
    "Account",
    "AccountTruth",
    "Activity",
    "ActivityKind",
    "Consent",
    "Contact",
    "Currency",
    "Deal",
    "Direction",
    "Enrollment",
    "EnrollmentStatus",
    "Lead",
    "LeadSource",
    "LeadStatus",
    "LeadTruth",
    "LineItem",
    "PersonTruth",
    "PriceBookEntry",
    "Product",
    "Report",
    "Sequence",
    "SequencePurpose",
    "SequenceStep",
    "Stage",
    "Task",
    "TaskStatus",
    "User",
]

Consent = Literal["subscribed", "unsubscribed", "bounced"]
LeadStatus = Literal["new", "working", "qualified", "unqualified", "converted"]
LeadSource = Literal["web_form", "webinar", "trade_show", "referral", "outbound", "partner"]
Stage = Literal[
    "prospecting", "qualification", "discovery", "proposal", "negotiation", "closed_won", "closed_lost"
]
ActivityKind = Literal["call", "email", "meeting", "note"]
Direction = Literal["inbound", "outbound"]
TaskStatus = Literal["open", "completed"]
EnrollmentStatus = Literal["active", "removed", "completed"]
Currency = Literal["USD", "EUR", "GBP"]
SequencePurpose = Literal["nurture", "outbound", "re_engagement"]


class User(Entity):
    """A sales rep or manager who owns records."""

    name: str
    email: str
    team: str
    territory: str
    role: Literal["sdr", "ae", "manager"]
    active: bool = True


class Account(Entity):
    """A company. `name` is as typed by whoever created it, so it may be messy."""

    name: str
    domain: str | None
    industry: str | None
    employees: int | None
    territory: str
    country: str
    city: str | None
    phone: str | None
    owner_id: str
    created_at: datetime
    updated_at: datetime


class Contact(Entity):
    """A person at an account. A merged-away contact keeps its record with `merged_into` set."""

    account_id: str | None
    first_name: str
    last_name: str
    email: str | None
    secondary_email: str | None = None
    phone: str | None
    title: str | None
    consent: Consent
    owner_id: str
    created_at: datetime
    updated_at: datetime
    last_contacted_at: datetime | None = None
    merged_into: str | None = None


class Lead(Entity):
    """An unqualified prospect, before conversion to contact, account and deal."""

    first_name: str
    last_name: str
    email: str
    phone: str | None
    company: str
    title: str | None
    source: LeadSource
    status: LeadStatus
    owner_id: str | None
    message: str | None
    created_at: datetime
    converted_at: datetime | None = None
    converted_contact_id: str | None = None
    converted_account_id: str | None = None
    converted_deal_id: str | None = None


class Deal(Entity):
    """An opportunity moving through the pipeline. `line_item_ids` keeps line items in order."""

    name: str
    account_id: str
    owner_id: str
    stage: Stage
    amount: Decimal | None
    currency: Currency
    close_date: date | None
    primary_contact_id: str | None
    next_step: str | None
    lost_reason: str | None = None
    line_item_ids: tuple[str, ...] = ()
    created_at: datetime
    updated_at: datetime
    stage_changed_at: datetime
    last_activity_at: datetime | None = None


class LineItem(Entity):
    """A product line on a deal. Its total is quantity * unit_price * (1 - discount_pct / 100)."""

    deal_id: str
    product_id: str
    product_name: str
    quantity: int
    unit_price: Decimal
    discount_pct: Decimal


class Product(Entity):
    """A sellable product."""

    sku: str
    name: str
    family: str
    active: bool = True


class PriceBookEntry(Entity):
    """The list price of a product in one currency."""

    product_id: str
    currency: Currency
    unit_price: Decimal


class Activity(Entity):
    """A call, email, meeting or note. Sequence emails carry their `sequence_id`."""

    kind: ActivityKind
    subject: str
    body: str | None
    direction: Direction | None
    outcome: str | None
    contact_id: str | None
    deal_id: str | None
    account_id: str | None
    owner_id: str | None
    occurred_at: datetime
    sequence_id: str | None = None


class Task(Entity):
    """A to-do with a due instant on the sim clock."""

    subject: str
    due_at: datetime
    status: TaskStatus
    owner_id: str
    contact_id: str | None
    deal_id: str | None
    notes: str | None
    created_at: datetime
    completed_at: datetime | None = None


class SequenceStep(BaseModel):
    """One email of a sequence, sent `day_offset` days after enrolment."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    day_offset: int
    subject: str


class Sequence(Entity):
    """A cadence of automated emails (nurture, cold outbound or re-engagement)."""

    name: str
    purpose: SequencePurpose
    steps: tuple[SequenceStep, ...]
    active: bool = True


class Enrollment(Entity):
    """A contact's membership in a sequence."""

    sequence_id: str
    contact_id: str
    status: EnrollmentStatus
    enrolled_at: datetime
    enrolled_by: str | None
    removed_at: datetime | None = None
    reason: str | None = None


class Report(Entity):
    """An answer the agent submitted with `crm.submit_report`."""

    name: str
    record_ids: tuple[str, ...]
    values: dict[str, str]
    notes: str | None
    submitted_at: datetime


# --- ground truth (hidden tables) -------------------------------------------------


class PersonTruth(Entity):
    """Ground truth of one contact record (id = the contact's id).

    Attributes:
        person_key: Records with the same key are the same real person.
        variant_of: For a near-duplicate, the record it duplicates.
        variant_kind: How the duplicate differs (nickname, case, typo, second_email).
        false_friend_of: A different person whose record looks similar.
        departed: The person has left the account; the record is stale.
        current_title: The person's real title now, when the record's is stale.
    """

    person_key: str
    variant_of: str | None = None
    variant_kind: str | None = None
    false_friend_of: str | None = None
    departed: bool = False
    current_title: str | None = None


class LeadTruth(Entity):
    """Ground truth of one lead (id = the lead's id): the records it really matches."""

    contact_id: str | None
    account_id: str | None
    conflicts: tuple[str, ...] = ()


class AccountTruth(Entity):
    """Ground truth of one account (id = the account's id)."""

    canonical_name: str
    messy_name: str | None = None


class CompanyTruth(Entity):
    """Ground truth of an account whose company is not simply the record (id = the account's id).

    Only accounts of a renamed or duplicated company have one; every other account is its own company.

    Attributes:
        company_key: The real company: the accounts of one company share it (the original account's id).
        former_names: Names the company went by before a rename, oldest first.
        duplicate_of: For a second account of the same company (a typo'd name), the original account.
    """

    company_key: str
    former_names: tuple[str, ...] = ()
    duplicate_of: str | None = None
