"""WRITE tools for engagement: activities, emails, tasks, sequences, and submitting a report answer."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from saas_sim.core.tool_errors import bad_args, conflict, denied, not_found, require
from saas_sim.core.tools import WRITE, ToolArgs, ToolContext
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.models import Activity, Contact, Enrollment, Report, Task
from saas_sim.domains.crm.state import CONTACTS, DEALS, ENROLLMENTS, SEQUENCES, TASKS
from saas_sim.domains.crm.tool_helpers import clean, live_contact, require_user, table
from saas_sim.domains.crm.views_engage import ActivityResult, EnrollResult, RemoveResult, ReportResult, TaskResult

__all__ = [
    "complete_task",
    "create_task",
    "enroll_in_sequence",
    "log_activity",
    "remove_from_sequence",
    "reschedule_task",
    "send_email",
    "submit_report",
]


def _aware(value: datetime, field: str) -> datetime:
    if value.tzinfo is None:
        raise bad_args(f"{field} needs a timezone, e.g. 2026-03-04T15:00:00Z", [field])
    return value


# --- activities and email -------------------------------------------------------------


class LogActivityArgs(ToolArgs):
    kind: Literal["call", "meeting", "note", "email"] = Field(
        description="call, meeting, note, or email (an email sent outside the CRM; use crm.send_email to send one)."
    )
    subject: str = Field(min_length=1, max_length=200, description="Short summary.")
    body: str | None = Field(default=None, max_length=5000, description="Details or notes.")
    contact_id: str | None = Field(default=None, description="The contact it involved.")
    deal_id: str | None = Field(default=None, description="The deal it concerns.")
    outcome: Literal["connected", "left_voicemail", "no_answer", "wrong_number"] | None = Field(
        default=None, description="For calls: how it went."
    )
    direction: Literal["inbound", "outbound"] | None = Field(
        default=None, description="For calls and emails: who initiated (default outbound)."
    )
    occurred_at: datetime | None = Field(default=None, description="When it happened (UTC); default: now.")


@kit.tool(WRITE)
def log_activity(ctx: ToolContext, args: LogActivityArgs) -> ActivityResult:
    """Logs a call, meeting, note or externally sent email on a contact and/or deal."""
    if args.contact_id is None and args.deal_id is None:
        raise bad_args("link the activity to a contact or a deal", ["contact_id", "deal_id"])
    if args.outcome is not None and args.kind != "call":
        raise bad_args("outcome applies to calls only", ["outcome"])
    if args.direction is not None and args.kind not in ("call", "email"):
        raise bad_args("direction applies to calls and emails only", ["direction"])
    at = ctx.now if args.occurred_at is None else _aware(args.occurred_at, "occurred_at")
    if at > ctx.now:
        raise bad_args("occurred_at is in the future; schedule a task instead", ["occurred_at"])
    contact = live_contact(ctx, args.contact_id, "contact_id") if args.contact_id else None
    deal = require(ctx, DEALS, args.deal_id, "deal", "deal_id") if args.deal_id else None
    direction = args.direction or ("outbound" if args.kind in ("call", "email") else None)
    activity = Activity(
        id=ctx.ids.next("act"), kind=args.kind, subject=clean(args.subject) or args.subject, body=args.body,
        direction=direction, outcome=args.outcome, contact_id=contact.id if contact else None,
        deal_id=deal.id if deal else None,
        account_id=deal.account_id if deal else (contact.account_id if contact else None),
        owner_id=deal.owner_id if deal else (contact.owner_id if contact else None), occurred_at=at,
    )
    ctx.emit(ev.ActivityLogged(activity=activity))
    return ActivityResult(activity=activity)


def _check_reachable(contact: Contact, field: str) -> None:
    if contact.consent != "subscribed":
        raise denied(f"policy: contact {contact.id} is {contact.consent}; they must not be emailed", [field],
                     contact_id=contact.id, consent=contact.consent)
    if contact.email is None:
        raise bad_args(f"contact {contact.id} has no email address", [field])


class SendEmailArgs(ToolArgs):
    contact_id: str = Field(description="The recipient contact.")
    subject: str = Field(min_length=1, max_length=200, description="Subject line.")
    body: str = Field(min_length=1, max_length=10_000, description="Plain-text body.")
    deal_id: str | None = Field(default=None, description="The deal this email concerns, to log it there too.")


@kit.tool(WRITE)
def send_email(ctx: ToolContext, args: SendEmailArgs) -> ActivityResult:
    """Sends a one-off email to a contact and logs it. Emailing an unsubscribed or bounced contact is
    refused with `permission_denied` (policy).
    """
    contact = live_contact(ctx, args.contact_id, "contact_id")
    deal = require(ctx, DEALS, args.deal_id, "deal", "deal_id") if args.deal_id else None
    _check_reachable(contact, "contact_id")
    activity = Activity(
        id=ctx.ids.next("act"), kind="email", subject=args.subject, body=args.body, direction="outbound",
        outcome=None, contact_id=contact.id, deal_id=deal.id if deal else None,
        account_id=contact.account_id, owner_id=deal.owner_id if deal else contact.owner_id, occurred_at=ctx.now,
    )
    ctx.emit(ev.EmailSent(activity=activity))
    return ActivityResult(activity=activity)


# --- tasks ----------------------------------------------------------------------------


class CreateTaskArgs(ToolArgs):
    subject: str = Field(min_length=1, max_length=200, description="What to do.")
    due_at: datetime = Field(description="When it is due, as a UTC instant like 2026-03-04T15:00:00Z.")
    contact_id: str | None = Field(default=None, description="The contact it concerns.")
    deal_id: str | None = Field(default=None, description="The deal it concerns.")
    owner_id: str | None = Field(default=None, description="Who does it; default: the deal's or contact's owner.")
    notes: str | None = Field(default=None, max_length=5000, description="Details.")


@kit.tool(WRITE)
def create_task(ctx: ToolContext, args: CreateTaskArgs) -> TaskResult:
    """Creates a to-do due at a given instant on the sim clock (it must not be in the past)."""
    due = _aware(args.due_at, "due_at")
    if due < ctx.now:
        raise bad_args(f"due_at is in the past (now is {ctx.now.isoformat()})", ["due_at"])
    contact = live_contact(ctx, args.contact_id, "contact_id") if args.contact_id else None
    deal = require(ctx, DEALS, args.deal_id, "deal", "deal_id") if args.deal_id else None
    owner = args.owner_id or (deal.owner_id if deal else (contact.owner_id if contact else None))
    if owner is None:
        raise bad_args("owner_id is required for a task without a contact or deal", ["owner_id"])
    require_user(ctx, owner)
    task = Task(
        id=ctx.ids.next("tsk"), subject=clean(args.subject) or args.subject, due_at=due, status="open",
        owner_id=owner, contact_id=contact.id if contact else None, deal_id=deal.id if deal else None,
        notes=args.notes, created_at=ctx.now,
    )
    ctx.emit(ev.TaskCreated(task=task))
    return TaskResult(task=task)


class CompleteTaskArgs(ToolArgs):
    task_id: str = Field(description="The task that is done.")


@kit.tool(WRITE)
def complete_task(ctx: ToolContext, args: CompleteTaskArgs) -> TaskResult:
    """Marks an open task as completed."""
    task = require(ctx, TASKS, args.task_id, "task", "task_id")
    if task.status == "completed":
        raise conflict(f"task {task.id} is already completed", ["task_id"], status=task.status)
    ctx.emit(ev.TaskCompleted(task_id=task.id, completed_at=ctx.now))
    return TaskResult(task=require(ctx, TASKS, task.id, "task"))


class RescheduleTaskArgs(ToolArgs):
    task_id: str = Field(description="The task to move.")
    due_at: datetime = Field(description="The new due instant (UTC), not in the past.")


@kit.tool(WRITE)
def reschedule_task(ctx: ToolContext, args: RescheduleTaskArgs) -> TaskResult:
    """Moves an open task's due instant."""
    task = require(ctx, TASKS, args.task_id, "task", "task_id")
    due = _aware(args.due_at, "due_at")
    if due < ctx.now:
        raise bad_args(f"due_at is in the past (now is {ctx.now.isoformat()})", ["due_at"])
    if task.status == "completed":
        raise conflict(f"task {task.id} is already completed", ["task_id"], status=task.status)
    if due != task.due_at:
        ctx.emit(ev.TaskRescheduled(task_id=task.id, due_at=due, previous_due_at=task.due_at, rescheduled_at=ctx.now))
    return TaskResult(task=require(ctx, TASKS, task.id, "task"))


# --- sequences ------------------------------------------------------------------------


class EnrollArgs(ToolArgs):
    sequence_id: str = Field(description="The sequence, such as seq_000001.")
    contact_ids: list[str] = Field(min_length=1, max_length=200, description="Contacts to enrol (1-200).")


@kit.tool(WRITE)
def enroll_in_sequence(ctx: ToolContext, args: EnrollArgs) -> EnrollResult:
    """Enrols contacts in an email sequence; each gets the first step's email at once. All or nothing:
    if any contact is unsubscribed or bounced the whole call is refused with `permission_denied`
    (`details.contact_ids` lists them).
    """
    seq = require(ctx, SEQUENCES, args.sequence_id, "sequence", "sequence_id")
    if not seq.active:
        raise bad_args(f"sequence {seq.id} is inactive", ["sequence_id"])
    if len(set(args.contact_ids)) != len(args.contact_ids):
        raise bad_args("contact_ids has repeated ids", ["contact_ids"])
    contacts = [live_contact(ctx, cid, f"contact_ids.{i}") for i, cid in enumerate(args.contact_ids)]
    blocked = [c.id for c in contacts if c.consent != "subscribed"]
    if blocked:
        raise denied(f"policy: {len(blocked)} contact(s) are unsubscribed or bounced",
                     [f"contact_ids.{i}" for i, c in enumerate(contacts) if c.consent != "subscribed"],
                     contact_ids=blocked)
    no_email = [f"contact_ids.{i}" for i, c in enumerate(contacts) if c.email is None]
    if no_email:
        raise bad_args("some contacts have no email address", no_email)
    active = {e.contact_id for e in table(ctx, ENROLLMENTS) if e.sequence_id == seq.id and e.status == "active"}
    new: list[Enrollment] = []
    skipped: list[str] = []
    for c in contacts:
        if c.id in active:
            skipped.append(c.id)
            continue
        enrollment = Enrollment(id=ctx.ids.next("enr"), sequence_id=seq.id, contact_id=c.id, status="active",
                                enrolled_at=ctx.now, enrolled_by=c.owner_id)
        ctx.emit(ev.ContactEnrolled(enrollment=enrollment))
        first = seq.steps[0]
        ctx.emit(ev.EmailSent(activity=Activity(
            id=ctx.ids.next("act"), kind="email", subject=first.subject, body=None, direction="outbound",
            outcome=None, contact_id=c.id, deal_id=None, account_id=c.account_id, owner_id=c.owner_id,
            occurred_at=ctx.now, sequence_id=seq.id,
        )))
        new.append(enrollment)
    return EnrollResult(enrollments=new, already_enrolled=skipped)


class RemoveArgs(ToolArgs):
    sequence_id: str = Field(description="The sequence.")
    contact_id: str = Field(description="The contact to take out of it.")
    reason: str = Field(default="removed by rep", min_length=3, max_length=300, description="Why.")


@kit.tool(WRITE)
def remove_from_sequence(ctx: ToolContext, args: RemoveArgs) -> RemoveResult:
    """Takes a contact out of a sequence they are actively enrolled in; no further steps are sent."""
    require(ctx, SEQUENCES, args.sequence_id, "sequence", "sequence_id")
    require(ctx, CONTACTS, args.contact_id, "contact", "contact_id")
    found = [e for e in table(ctx, ENROLLMENTS)
             if e.sequence_id == args.sequence_id and e.contact_id == args.contact_id and e.status == "active"]
    if not found:
        # The missing record is the enrolment, which has no id the agent knows: name the contact.
        raise not_found(f"active enrollment in {args.sequence_id} of contact", args.contact_id, "contact_id")
    ctx.emit(ev.EnrollmentRemoved(enrollment_id=found[0].id, removed_at=ctx.now, reason=args.reason))
    return RemoveResult(enrollment=require(ctx, ENROLLMENTS, found[0].id, "enrollment"))


# --- reports --------------------------------------------------------------------------


class SubmitReportArgs(ToolArgs):
    name: str = Field(min_length=1, max_length=100, description="The report's name, as given in the task.")
    record_ids: list[str] = Field(default_factory=list, max_length=500, description="The records the answer lists.")
    values: dict[str, str] = Field(
        default_factory=dict,
        description="Named values of the answer, e.g. {\"USD\": \"125000.00\"}. Amounts as decimal strings.",
    )
    notes: str | None = Field(default=None, max_length=5000, description="Anything worth adding.")


@kit.tool(WRITE)
def submit_report(ctx: ToolContext, args: SubmitReportArgs) -> ReportResult:
    """Submits the answer to a reporting task. A later submission with the same name replaces the answer."""
    if len(args.values) > 50:
        raise bad_args("at most 50 values", ["values"])
    if any(len(k) > 100 or len(v) > 200 for k, v in args.values.items()):
        raise bad_args("value keys must be at most 100 and values 200 characters", ["values"])
    report = Report(id=ctx.ids.next("rpt"), name=args.name.strip(), record_ids=tuple(args.record_ids),
                    values=dict(sorted(args.values.items())), notes=args.notes, submitted_at=ctx.now)
    ctx.emit(ev.ReportSubmitted(report=report))
    return ReportResult(report=report)
