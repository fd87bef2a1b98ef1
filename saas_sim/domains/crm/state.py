"""The CRM's tables, its projection (pure reducers) and its state schema.

Every reducer is a pure function `(State, Event) -> State` that touches only the
records its event names, so applying a tool's events costs O(records changed).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, TypeVar

from saas_sim.core.reducers import require, stores, stores_all
from saas_sim.core.snapshots import StateSchema
from saas_sim.core.state import Entity, Projection, State, TableKey
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.models import (
    Account,
    AccountTruth,
    Activity,
    CompanyTruth,
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

__all__ = [
    "ACCOUNTS",
    "ACCOUNT_TRUTH",
    "ACTIVITIES",
    "COMPANY_TRUTH",
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
COMPANY_TRUTH = TableKey("hidden.crm.company_truth", CompanyTruth)

SCHEMA = StateSchema(
    tables=[
        USERS, ACCOUNTS, CONTACTS, LEADS, DEALS, LINE_ITEMS, PRODUCTS, PRICE_BOOK,
        ACTIVITIES, TASKS, SEQUENCES, ENROLLMENTS, REPORTS,
        PERSON_TRUTH, LEAD_TRUTH, ACCOUNT_TRUTH, COMPANY_TRUTH,
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


def _update(state: State, key: TableKey[E], entity_id: str, changes: Mapping[str, Any]) -> State:
    return state.put(key, patched(require(state, key, entity_id), changes))


# --- imports --------------------------------------------------------------------------


stores_all(PROJECTION, ev.UsersImported, USERS, lambda e: e.users)
stores_all(PROJECTION, ev.AccountsImported, ACCOUNTS, lambda e: e.accounts)
stores_all(PROJECTION, ev.ContactsImported, CONTACTS, lambda e: e.contacts)
stores_all(PROJECTION, ev.LeadsImported, LEADS, lambda e: e.leads)
stores_all(PROJECTION, ev.DealsImported, DEALS, lambda e: e.deals)
stores_all(PROJECTION, ev.LineItemsImported, LINE_ITEMS, lambda e: e.line_items)
stores_all(PROJECTION, ev.ProductsImported, PRODUCTS, lambda e: e.products)
stores_all(PROJECTION, ev.PriceBookImported, PRICE_BOOK, lambda e: e.entries)
stores_all(PROJECTION, ev.ActivitiesImported, ACTIVITIES, lambda e: e.activities)
stores_all(PROJECTION, ev.TasksImported, TASKS, lambda e: e.tasks)
stores_all(PROJECTION, ev.SequencesImported, SEQUENCES, lambda e: e.sequences)
stores_all(PROJECTION, ev.EnrollmentsImported, ENROLLMENTS, lambda e: e.enrollments)
stores_all(PROJECTION, ev.PersonTruthsRecorded, PERSON_TRUTH, lambda e: e.truths)
stores_all(PROJECTION, ev.LeadTruthsRecorded, LEAD_TRUTH, lambda e: e.truths)
stores_all(PROJECTION, ev.AccountTruthsRecorded, ACCOUNT_TRUTH, lambda e: e.truths)
stores_all(PROJECTION, ev.CompanyTruthsRecorded, COMPANY_TRUTH, lambda e: e.truths)


# --- contacts and accounts ------------------------------------------------------------


stores(PROJECTION, ev.ContactCreated, CONTACTS, lambda e: e.contact)


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


stores(PROJECTION, ev.AccountCreated, ACCOUNTS, lambda e: e.account)


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


stores(PROJECTION, ev.LeadCreated, LEADS, lambda e: e.lead)


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


stores(PROJECTION, ev.DealCreated, DEALS, lambda e: e.deal)


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
    deal = require(state, DEALS, e.deal_id)
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
        deal = require(state, DEALS, activity.deal_id)
        if deal.last_activity_at is None or deal.last_activity_at < at:
            state = state.put(DEALS, patched(deal, {"last_activity_at": at}))
    if activity.contact_id is not None and activity.direction != "inbound" and activity.kind != "note":
        contact = require(state, CONTACTS, activity.contact_id)
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


stores(PROJECTION, ev.TaskCreated, TASKS, lambda e: e.task)


@PROJECTION.on(ev.TaskCompleted)
def _task_completed(state: State, e: ev.TaskCompleted) -> State:
    return _update(state, TASKS, e.task_id, {"status": "completed", "completed_at": e.completed_at})


@PROJECTION.on(ev.TaskRescheduled)
def _task_rescheduled(state: State, e: ev.TaskRescheduled) -> State:
    return _update(state, TASKS, e.task_id, {"due_at": e.due_at})


stores(PROJECTION, ev.ContactEnrolled, ENROLLMENTS, lambda e: e.enrollment)


@PROJECTION.on(ev.EnrollmentRemoved)
def _enrollment_removed(state: State, e: ev.EnrollmentRemoved) -> State:
    return _update(
        state,
        ENROLLMENTS,
        e.enrollment_id,
        {"status": "removed", "removed_at": e.removed_at, "reason": e.reason},
    )


stores(PROJECTION, ev.ReportSubmitted, REPORTS, lambda e: e.report)
