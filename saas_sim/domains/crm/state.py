"""The CRM's tables, its projection (pure reducers) and its state schema.

Every reducer is a pure function `(State, Event) -> State` that touches only the
records its event names, so applying a tool's events costs O(records changed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, TypeVar

from saas_sim.core.snapshots import StateSchema
from saas_sim.core.state import Entity, Projection, State, TableKey
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.models import (
    Account,
    AccountTruth,
    Activity,
    Contact,
    Deal,
    Enrollment,
    Lead,
    LeadTruth,
    LineItem,
    PersonTruth,
    PriceBookEntry,
    Product,
    Report,
    Sequence,
    Task,
    User,
)
from saas_sim.errors import StateError

__all__ = [
    "ACCOUNTS",
    "ACCOUNT_TRUTH",
    "ACTIVITIES",
    "CONTACTS",
    "DEALS",
    "ENROLLMENTS",
    "LEADS",
    "LEAD_TRUTH",
    "LINE_ITEMS",
    "PERSON_TRUTH",
    "PRICE_BOOK",
    "PRODUCTS",
    "PROJECTION",
    "REPORTS",
    "SCHEMA",
    "SEQUENCES",
    "TASKS",
    "USERS",
    "patched",
]

E = TypeVar("E", bound=Entity)

USERS = TableKey("crm.users", User)
ACCOUNTS = TableKey("crm.accounts", Account)
CONTACTS = TableKey("crm.contacts", Contact)
LEADS = TableKey("crm.leads", Lead)
DEALS = TableKey("crm.deals", Deal)
LINE_ITEMS = TableKey("crm.line_items", LineItem)
PRODUCTS = TableKey("crm.products", Product)
PRICE_BOOK = TableKey("crm.price_book", PriceBookEntry)
ACTIVITIES = TableKey("crm.activities", Activity)
TASKS = TableKey("crm.tasks", Task)
SEQUENCES = TableKey("crm.sequences", Sequence)
ENROLLMENTS = TableKey("crm.enrollments", Enrollment)
REPORTS = TableKey("crm.reports", Report)

PERSON_TRUTH = TableKey("hidden.crm.person_truth", PersonTruth)
LEAD_TRUTH = TableKey("hidden.crm.lead_truth", LeadTruth)
ACCOUNT_TRUTH = TableKey("hidden.crm.account_truth", AccountTruth)

SCHEMA = StateSchema(
    tables=[
        USERS, ACCOUNTS, CONTACTS, LEADS, DEALS, LINE_ITEMS, PRODUCTS, PRICE_BOOK,
        ACTIVITIES, TASKS, SEQUENCES, ENROLLMENTS, REPORTS,
        PERSON_TRUTH, LEAD_TRUTH, ACCOUNT_TRUTH,
    ],
    version=1,
)
"""The CRM's tables. Bump `version` when an entity model changes incompatibly."""

PROJECTION = Projection("crm")


def patched(entity: E, changes: Mapping[str, Any]) -> E:
    """Returns `entity` with `changes` applied, validated against its model."""
    if not changes:
        return entity
    data = entity.model_dump()
    data.update(changes)
    return type(entity).model_validate(data)


def _require(state: State, key: TableKey[E], entity_id: str) -> E:
    entity = state.get(key, entity_id)
    if entity is None:
        # A tool validated the id before emitting, so this is a bug, not an agent error.
        raise StateError(f"{key.name} has no record {entity_id!r}")
    return entity


def _update(state: State, key: TableKey[E], entity_id: str, changes: Mapping[str, Any]) -> State:
    return state.put(key, patched(_require(state, key, entity_id), changes))


def _import(state: State, key: TableKey[E], items: Iterable[E]) -> State:
    return state.put_many(key, items)


# --- imports --------------------------------------------------------------------------


@PROJECTION.on(ev.UsersImported)
def _users_imported(state: State, e: ev.UsersImported) -> State:
    return _import(state, USERS, e.users)


@PROJECTION.on(ev.AccountsImported)
def _accounts_imported(state: State, e: ev.AccountsImported) -> State:
    return _import(state, ACCOUNTS, e.accounts)


@PROJECTION.on(ev.ContactsImported)
def _contacts_imported(state: State, e: ev.ContactsImported) -> State:
    return _import(state, CONTACTS, e.contacts)


@PROJECTION.on(ev.LeadsImported)
def _leads_imported(state: State, e: ev.LeadsImported) -> State:
    return _import(state, LEADS, e.leads)


@PROJECTION.on(ev.DealsImported)
def _deals_imported(state: State, e: ev.DealsImported) -> State:
    return _import(state, DEALS, e.deals)


@PROJECTION.on(ev.LineItemsImported)
def _line_items_imported(state: State, e: ev.LineItemsImported) -> State:
    return _import(state, LINE_ITEMS, e.line_items)


@PROJECTION.on(ev.ProductsImported)
def _products_imported(state: State, e: ev.ProductsImported) -> State:
    return _import(state, PRODUCTS, e.products)


@PROJECTION.on(ev.PriceBookImported)
def _price_book_imported(state: State, e: ev.PriceBookImported) -> State:
    return _import(state, PRICE_BOOK, e.entries)


@PROJECTION.on(ev.ActivitiesImported)
def _activities_imported(state: State, e: ev.ActivitiesImported) -> State:
    return _import(state, ACTIVITIES, e.activities)


@PROJECTION.on(ev.TasksImported)
def _tasks_imported(state: State, e: ev.TasksImported) -> State:
    return _import(state, TASKS, e.tasks)


@PROJECTION.on(ev.SequencesImported)
def _sequences_imported(state: State, e: ev.SequencesImported) -> State:
    return _import(state, SEQUENCES, e.sequences)


@PROJECTION.on(ev.EnrollmentsImported)
def _enrollments_imported(state: State, e: ev.EnrollmentsImported) -> State:
    return _import(state, ENROLLMENTS, e.enrollments)


@PROJECTION.on(ev.PersonTruthsRecorded)
def _person_truths(state: State, e: ev.PersonTruthsRecorded) -> State:
    return _import(state, PERSON_TRUTH, e.truths)


@PROJECTION.on(ev.LeadTruthsRecorded)
def _lead_truths(state: State, e: ev.LeadTruthsRecorded) -> State:
    return _import(state, LEAD_TRUTH, e.truths)


@PROJECTION.on(ev.AccountTruthsRecorded)
def _account_truths(state: State, e: ev.AccountTruthsRecorded) -> State:
    return _import(state, ACCOUNT_TRUTH, e.truths)


# --- contacts and accounts ------------------------------------------------------------


@PROJECTION.on(ev.ContactCreated)
def _contact_created(state: State, e: ev.ContactCreated) -> State:
    return state.put(CONTACTS, e.contact)


@PROJECTION.on(ev.ContactUpdated)
def _contact_updated(state: State, e: ev.ContactUpdated) -> State:
    return _update(state, CONTACTS, e.contact_id, {**e.changes, "updated_at": e.updated_at})


@PROJECTION.on(ev.ContactConsentChanged)
def _consent_changed(state: State, e: ev.ContactConsentChanged) -> State:
    return _update(state, CONTACTS, e.contact_id, {"consent": e.consent, "updated_at": e.changed_at})


@PROJECTION.on(ev.ContactsMerged)
def _contacts_merged(state: State, e: ev.ContactsMerged) -> State:
    at = e.merged_at
    state = _update(state, CONTACTS, e.winner_id, {**e.changes, "updated_at": at})
    state = _update(state, CONTACTS, e.loser_id, {"merged_into": e.winner_id, "updated_at": at})
    for act_id in e.moved_activity_ids:
        state = _update(state, ACTIVITIES, act_id, {"contact_id": e.winner_id})
    for task_id in e.moved_task_ids:
        state = _update(state, TASKS, task_id, {"contact_id": e.winner_id})
    for deal_id in e.moved_deal_ids:
        state = _update(state, DEALS, deal_id, {"primary_contact_id": e.winner_id, "updated_at": at})
    for enr_id in e.moved_enrollment_ids:
        state = _update(state, ENROLLMENTS, enr_id, {"contact_id": e.winner_id})
    return state


@PROJECTION.on(ev.AccountCreated)
def _account_created(state: State, e: ev.AccountCreated) -> State:
    return state.put(ACCOUNTS, e.account)


@PROJECTION.on(ev.AccountUpdated)
def _account_updated(state: State, e: ev.AccountUpdated) -> State:
    return _update(state, ACCOUNTS, e.account_id, {**e.changes, "updated_at": e.updated_at})


_OWNED: dict[str, TableKey[Any]] = {"account": ACCOUNTS, "contact": CONTACTS, "deal": DEALS, "lead": LEADS}


@PROJECTION.on(ev.OwnerAssigned)
def _owner_assigned(state: State, e: ev.OwnerAssigned) -> State:
    key = _OWNED[e.record_type]
    changes: dict[str, Any] = {"owner_id": e.owner_id}
    if e.record_type != "lead":
        changes["updated_at"] = e.assigned_at
    return _update(state, key, e.record_id, changes)


# --- leads ----------------------------------------------------------------------------


@PROJECTION.on(ev.LeadCreated)
def _lead_created(state: State, e: ev.LeadCreated) -> State:
    return state.put(LEADS, e.lead)


@PROJECTION.on(ev.LeadStatusChanged)
def _lead_status(state: State, e: ev.LeadStatusChanged) -> State:
    return _update(state, LEADS, e.lead_id, {"status": e.status})


@PROJECTION.on(ev.LeadConverted)
def _lead_converted(state: State, e: ev.LeadConverted) -> State:
    return _update(
        state,
        LEADS,
        e.lead_id,
        {
            "status": "converted",
            "converted_at": e.converted_at,
            "converted_contact_id": e.contact_id,
            "converted_account_id": e.account_id,
            "converted_deal_id": e.deal_id,
        },
    )


# --- deals ----------------------------------------------------------------------------


@PROJECTION.on(ev.DealCreated)
def _deal_created(state: State, e: ev.DealCreated) -> State:
    return state.put(DEALS, e.deal)


@PROJECTION.on(ev.DealStageChanged)
def _deal_stage_changed(state: State, e: ev.DealStageChanged) -> State:
    return _update(
        state,
        DEALS,
        e.deal_id,
        {"stage": e.to_stage, "stage_changed_at": e.changed_at, "updated_at": e.changed_at},
    )


@PROJECTION.on(ev.DealUpdated)
def _deal_updated(state: State, e: ev.DealUpdated) -> State:
    changes: dict[str, Any] = {name: getattr(e, name) for name in e.fields}
    changes["updated_at"] = e.updated_at
    return _update(state, DEALS, e.deal_id, changes)


@PROJECTION.on(ev.LineItemsReplaced)
def _line_items_replaced(state: State, e: ev.LineItemsReplaced) -> State:
    deal = _require(state, DEALS, e.deal_id)
    removed = set(e.removed_ids)
    for item_id in e.removed_ids:
        state = state.delete(LINE_ITEMS, item_id)
    state = state.put_many(LINE_ITEMS, e.added)
    kept = [i for i in deal.line_item_ids if i not in removed]
    ids = tuple(kept + [item.id for item in e.added])
    return state.put(DEALS, patched(deal, {"line_item_ids": ids, "updated_at": e.updated_at}))


# --- engagement -----------------------------------------------------------------------


def _touch(state: State, activity: Activity) -> State:
    """Stores an activity and bumps the deal's and contact's last-touch instants."""
    state = state.put(ACTIVITIES, activity)
    at: datetime = activity.occurred_at
    if activity.deal_id is not None:
        deal = _require(state, DEALS, activity.deal_id)
        if deal.last_activity_at is None or deal.last_activity_at < at:
            state = state.put(DEALS, patched(deal, {"last_activity_at": at}))
    if activity.contact_id is not None and activity.direction != "inbound" and activity.kind != "note":
        contact = _require(state, CONTACTS, activity.contact_id)
        if contact.last_contacted_at is None or contact.last_contacted_at < at:
            state = state.put(CONTACTS, patched(contact, {"last_contacted_at": at}))
    return state


@PROJECTION.on(ev.ActivityLogged)
def _activity_logged(state: State, e: ev.ActivityLogged) -> State:
    return _touch(state, e.activity)


@PROJECTION.on(ev.EmailSent)
def _email_sent(state: State, e: ev.EmailSent) -> State:
    return _touch(state, e.activity)


@PROJECTION.on(ev.InboundEmailReceived)
def _inbound_email(state: State, e: ev.InboundEmailReceived) -> State:
    return _touch(state, e.activity)


@PROJECTION.on(ev.TaskCreated)
def _task_created(state: State, e: ev.TaskCreated) -> State:
    return state.put(TASKS, e.task)


@PROJECTION.on(ev.TaskCompleted)
def _task_completed(state: State, e: ev.TaskCompleted) -> State:
    return _update(state, TASKS, e.task_id, {"status": "completed", "completed_at": e.completed_at})


@PROJECTION.on(ev.TaskRescheduled)
def _task_rescheduled(state: State, e: ev.TaskRescheduled) -> State:
    return _update(state, TASKS, e.task_id, {"due_at": e.due_at})


@PROJECTION.on(ev.ContactEnrolled)
def _contact_enrolled(state: State, e: ev.ContactEnrolled) -> State:
    return state.put(ENROLLMENTS, e.enrollment)


@PROJECTION.on(ev.EnrollmentRemoved)
def _enrollment_removed(state: State, e: ev.EnrollmentRemoved) -> State:
    return _update(
        state,
        ENROLLMENTS,
        e.enrollment_id,
        {"status": "removed", "removed_at": e.removed_at, "reason": e.reason},
    )


@PROJECTION.on(ev.ReportSubmitted)
def _report_submitted(state: State, e: ev.ReportSubmitted) -> State:
    return state.put(REPORTS, e.report)
