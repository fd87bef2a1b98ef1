"""The CRM's events: immutable facts in the past tense, registered as `crm.<Name>` (schema v1).

Two families:

* imports (`...Imported`, `...TruthsRecorded`): how a seed generator loads a
  world in bulk, one event per table, like a CSV import;
* facts decided by tools or scenario setups, one per change
  (`ContactCreated`, `DealStageChanged`, `EmailSent`, ...).

Events carry everything their reducer needs, so reducers never look anything up
beyond the records they change.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import ClassVar, Literal

from saas_sim.core.events import Event, event
from saas_sim.domains.crm.models import (
    Account,
    AccountTruth,
    Activity,
    CompanyTruth,
    Consent,
    Contact,
    Deal,
    Enrollment,
    Lead,
    LeadStatus,
    LeadTruth,
    LineItem,
    PersonTruth,
    PriceBookEntry,
    Product,
    Report,
    Sequence,
    Stage,
    Task,
    User,
)

__all__ = [
    "AccountCreated",
    "AccountTruthsRecorded",
    "AccountUpdated",
    "AccountsImported",
    "ActivitiesImported",
    "ActivityLogged",
    "CompanyTruthsRecorded",
    "ContactConsentChanged",
    "ContactCreated",
    "ContactEnrolled",
    "ContactUpdated",
    "ContactsImported",
    "ContactsMerged",
    "DealCreated",
    "DealStageChanged",
    "DealUpdated",
    "DealsImported",
    "EmailSent",
    "EnrollmentRemoved",
    "EnrollmentsImported",
    "InboundEmailReceived",
    "LeadConverted",
    "LeadCreated",
    "LeadStatusChanged",
    "LeadTruthsRecorded",
    "LeadsImported",
    "LineItemsImported",
    "LineItemsReplaced",
    "OwnerAssigned",
    "PersonTruthsRecorded",
    "PriceBookImported",
    "ProductsImported",
    "RecordType",
    "ReportSubmitted",
    "SequencesImported",
    "TaskCompleted",
    "TaskCreated",
    "TaskRescheduled",
    "TasksImported",
    "UsersImported",
]

RecordType = Literal["account", "contact", "deal", "lead"]


# --- bulk imports (world generation) ------------------------------------------------


@event("crm.UsersImported")
class UsersImported(Event):
    """Users were loaded into the CRM."""

    users: list[User]


@event("crm.AccountsImported")
class AccountsImported(Event):
    """Accounts were loaded into the CRM."""

    accounts: list[Account]


@event("crm.ContactsImported")
class ContactsImported(Event):
    """Contacts were loaded into the CRM."""

    contacts: list[Contact]


@event("crm.LeadsImported")
class LeadsImported(Event):
    """Leads were loaded into the CRM."""

    leads: list[Lead]


@event("crm.DealsImported")
class DealsImported(Event):
    """Deals were loaded into the CRM."""

    deals: list[Deal]


@event("crm.LineItemsImported")
class LineItemsImported(Event):
    """Deal line items were loaded into the CRM (their deals already list them)."""

    line_items: list[LineItem]


@event("crm.ProductsImported")
class ProductsImported(Event):
    """Products were loaded into the catalogue."""

    products: list[Product]


@event("crm.PriceBookImported")
class PriceBookImported(Event):
    """Price book entries were loaded."""

    entries: list[PriceBookEntry]


@event("crm.ActivitiesImported")
class ActivitiesImported(Event):
    """Historic activities were loaded."""

    activities: list[Activity]


@event("crm.TasksImported")
class TasksImported(Event):
    """Tasks were loaded."""

    tasks: list[Task]


@event("crm.SequencesImported")
class SequencesImported(Event):
    """Sequences were loaded."""

    sequences: list[Sequence]


@event("crm.EnrollmentsImported")
class EnrollmentsImported(Event):
    """Sequence enrolments were loaded."""

    enrollments: list[Enrollment]


@event("crm.PersonTruthsRecorded")
class PersonTruthsRecorded(Event):
    """Ground truth about contact records was recorded (hidden from tools)."""

    truths: list[PersonTruth]


@event("crm.LeadTruthsRecorded")
class LeadTruthsRecorded(Event):
    """Ground truth about leads was recorded (hidden from tools)."""

    truths: list[LeadTruth]


@event("crm.AccountTruthsRecorded")
class AccountTruthsRecorded(Event):
    """Ground truth about accounts was recorded (hidden from tools)."""

    truths: list[AccountTruth]


@event("crm.CompanyTruthsRecorded")
class CompanyTruthsRecorded(Event):
    """Ground truth about renamed and duplicated companies was recorded (hidden from tools)."""

    truths: list[CompanyTruth]


# --- contacts and accounts ----------------------------------------------------------


@event("crm.ContactCreated")
class ContactCreated(Event):
    """A contact was created."""

    contact: Contact


@event("crm.ContactUpdated")
class ContactUpdated(Event):
    """Some fields of a contact were changed (`changes` maps field to new value)."""

    contact_id: str
    changes: dict[str, str | None]
    updated_at: datetime


@event("crm.ContactConsentChanged")
class ContactConsentChanged(Event):
    """A contact's email consent changed."""

    contact_id: str
    consent: Consent
    previous: Consent
    reason: str
    changed_at: datetime


@event("crm.ContactsMerged")
class ContactsMerged(Event):
    """A duplicate contact was merged into a surviving one, and its records moved over."""

    winner_id: str
    loser_id: str
    changes: dict[str, str | None]
    moved_activity_ids: list[str]
    moved_task_ids: list[str]
    moved_deal_ids: list[str]
    moved_enrollment_ids: list[str]
    merged_at: datetime

    # The two contacts are the subjects; the moved records follow them.
    subject_fields: ClassVar[tuple[str, ...]] = ("winner_id", "loser_id")


@event("crm.AccountCreated")
class AccountCreated(Event):
    """An account was created."""

    account: Account


@event("crm.AccountUpdated")
class AccountUpdated(Event):
    """Some fields of an account were changed."""

    account_id: str
    changes: dict[str, str | int | None]
    updated_at: datetime


@event("crm.OwnerAssigned")
class OwnerAssigned(Event):
    """A record got a new owner."""

    record_type: RecordType
    record_id: str
    owner_id: str
    previous_owner_id: str | None
    assigned_at: datetime

    # The record is the subject; the owners are users, named in the scope's `on` only when they change.
    subject_fields: ClassVar[tuple[str, ...]] = ("record_id",)


# --- leads --------------------------------------------------------------------------


@event("crm.LeadCreated")
class LeadCreated(Event):
    """A lead arrived (a web form, a webinar sign-up, ...)."""

    lead: Lead


@event("crm.LeadStatusChanged")
class LeadStatusChanged(Event):
    """A lead's status changed."""

    lead_id: str
    status: LeadStatus
    changed_at: datetime


@event("crm.LeadConverted")
class LeadConverted(Event):
    """A lead was converted; its contact, account and deal exist by now."""

    lead_id: str
    contact_id: str
    account_id: str
    deal_id: str | None
    converted_at: datetime


# --- deals --------------------------------------------------------------------------


@event("crm.DealCreated")
class DealCreated(Event):
    """A deal was created."""

    deal: Deal


@event("crm.DealStageChanged")
class DealStageChanged(Event):
    """A deal moved from one pipeline stage to another."""

    deal_id: str
    from_stage: Stage
    to_stage: Stage
    changed_at: datetime


@event("crm.DealUpdated")
class DealUpdated(Event):
    """Deal fields were set. Only the fields named in `fields` are applied (so None can clear)."""

    deal_id: str
    fields: list[str]
    name: str | None = None
    amount: Decimal | None = None
    close_date: date | None = None
    primary_contact_id: str | None = None
    next_step: str | None = None
    lost_reason: str | None = None
    updated_at: datetime

    # The deal is the subject; a new primary contact is a value, not a changed record.
    subject_fields: ClassVar[tuple[str, ...]] = ("deal_id",)


@event("crm.LineItemsReplaced")
class LineItemsReplaced(Event):
    """A deal's line items were replaced by a new list."""

    deal_id: str
    removed_ids: list[str]
    added: list[LineItem]
    updated_at: datetime

    subject_fields: ClassVar[tuple[str, ...]] = ("deal_id",)


# --- engagement ---------------------------------------------------------------------


@event("crm.ActivityLogged")
class ActivityLogged(Event):
    """A call, meeting, note or email was logged by hand."""

    activity: Activity

    # The subjects are the records it is about, so the scope guard sees who was logged about.
    subject_fields: ClassVar[tuple[str, ...]] = ("contact_id", "deal_id")

    @property
    def contact_id(self) -> str | None:
        """The contact the activity concerns."""
        return self.activity.contact_id

    @property
    def deal_id(self) -> str | None:
        """The deal the activity concerns."""
        return self.activity.deal_id


@event("crm.EmailSent")
class EmailSent(Event):
    """An email was sent from the CRM (by a rep, or by a sequence step)."""

    activity: Activity

    # The subjects are the records it is about, so the scope guard sees who was emailed.
    subject_fields: ClassVar[tuple[str, ...]] = ("contact_id", "deal_id")

    @property
    def contact_id(self) -> str | None:
        """The contact the activity concerns."""
        return self.activity.contact_id

    @property
    def deal_id(self) -> str | None:
        """The deal the activity concerns."""
        return self.activity.deal_id


@event("crm.InboundEmailReceived")
class InboundEmailReceived(Event):
    """An email from a customer arrived and was attached to their records."""

    activity: Activity


@event("crm.TaskCreated")
class TaskCreated(Event):
    """A task was created."""

    task: Task

    # The subjects are the records the task is about and its owner: a task is work handed to a person,
    # so a follow-up on an in-scope deal handed to a colleague is a change to that colleague's work.
    # Without the owner, a task about no record would name no subject and pass every scope.
    subject_fields: ClassVar[tuple[str, ...]] = ("contact_id", "deal_id", "owner_id")

    @property
    def contact_id(self) -> str | None:
        """The contact the task concerns."""
        return self.task.contact_id

    @property
    def deal_id(self) -> str | None:
        """The deal the task concerns."""
        return self.task.deal_id

    @property
    def owner_id(self) -> str:
        """The user whose work the task is."""
        return self.task.owner_id


@event("crm.TaskCompleted")
class TaskCompleted(Event):
    """A task was marked done."""

    task_id: str
    completed_at: datetime


@event("crm.TaskRescheduled")
class TaskRescheduled(Event):
    """A task's due instant moved."""

    task_id: str
    due_at: datetime
    previous_due_at: datetime
    rescheduled_at: datetime


@event("crm.ContactEnrolled")
class ContactEnrolled(Event):
    """A contact was enrolled in a sequence."""

    enrollment: Enrollment

    # The enrolled contact and the sequence are the subjects: the sequence itself does not change, but
    # which cadence a person is put in is the decision, so a scope names the sequence it allows.
    subject_fields: ClassVar[tuple[str, ...]] = ("contact_id", "sequence_id")

    @property
    def contact_id(self) -> str:
        """The enrolled contact."""
        return self.enrollment.contact_id

    @property
    def sequence_id(self) -> str:
        """The sequence the contact was enrolled in."""
        return self.enrollment.sequence_id


@event("crm.EnrollmentRemoved")
class EnrollmentRemoved(Event):
    """A contact was taken out of a sequence."""

    enrollment_id: str
    removed_at: datetime
    reason: str


@event("crm.ReportSubmitted")
class ReportSubmitted(Event):
    """An answer to a reporting task was submitted."""

    report: Report
