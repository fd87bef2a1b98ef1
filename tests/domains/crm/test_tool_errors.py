"""Every CRM tool's `not_found` and `invalid_argument` behaviour, table-driven.

The tables must name every tool: `test_tables_cover_every_tool` fails when a
tool is added without error tests. List tools that resolve no id have no
`not_found` case; for them an unknown filter id gives an empty page instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from saas_sim.core.state import State
from saas_sim.core.tool_errors import ERROR_DETAIL_KEYS
from saas_sim.domains.crm import DOMAIN
from saas_sim.domains.crm.models import Contact
from saas_sim.domains.crm.state import CONTACTS, PRODUCTS, SEQUENCES, USERS
from tests.domains.crm import picks
from tests.domains.crm.conftest import EPOCH, SPECS, Caller

Args = Callable[[State], dict[str, Any]]
MISSING = "zz_999999"


def _seq(w: State) -> str:
    return next(iter(w.table(SEQUENCES))).id


def _user(w: State) -> str:
    return next(iter(w.table(USERS))).id


def _no_email(w: State) -> Contact:
    return picks.first(w, CONTACTS, lambda c: c.email is None and c.consent == "subscribed" and not c.merged_into)


NOT_FOUND: dict[str, Args] = {
    "crm.get_account": lambda w: {"account_id": MISSING},
    "crm.get_contact": lambda w: {"contact_id": MISSING},
    "crm.get_lead": lambda w: {"lead_id": MISSING},
    "crm.get_deal": lambda w: {"deal_id": MISSING},
    "crm.list_enrollments": lambda w: {"sequence_id": MISSING},
    "crm.create_contact": lambda w: {"first_name": "Ana", "last_name": "Nobody", "account_id": MISSING},
    "crm.update_contact": lambda w: {"contact_id": MISSING, "title": "CEO"},
    "crm.update_contact_consent": lambda w: {"contact_id": MISSING, "consent": "unsubscribed", "reason": "asked"},
    "crm.merge_contacts": lambda w: {"winner_id": picks.contact(w).id, "loser_id": MISSING},
    "crm.create_account": lambda w: {"name": "Zyx Unique Co", "territory": "DACH", "owner_id": MISSING},
    "crm.update_account": lambda w: {"account_id": MISSING, "city": "Oslo"},
    "crm.assign_owner": lambda w: {"record_type": "deal", "record_ids": [MISSING], "owner_id": _user(w)},
    "crm.convert_lead": lambda w: {"lead_id": MISSING, "deal_name": "X"},
    "crm.create_deal": lambda w: {"account_id": MISSING, "name": "X"},
    "crm.update_deal": lambda w: {"deal_id": MISSING, "next_step": "Call"},
    "crm.update_deal_stage": lambda w: {"deal_id": MISSING, "stage": "closed_lost", "lost_reason": "Price"},
    "crm.set_line_items": lambda w: {"deal_id": picks.deal(w, "proposal").id,
                                     "items": [{"product_id": MISSING, "quantity": 1}]},
    "crm.log_activity": lambda w: {"kind": "note", "subject": "x", "contact_id": MISSING},
    "crm.send_email": lambda w: {"contact_id": MISSING, "subject": "Hi", "body": "Hello"},
    "crm.create_task": lambda w: {"subject": "x", "due_at": "2026-03-03T10:00:00Z", "deal_id": MISSING},
    "crm.complete_task": lambda w: {"task_id": MISSING},
    "crm.reschedule_task": lambda w: {"task_id": MISSING, "due_at": "2026-03-03T10:00:00Z"},
    "crm.enroll_in_sequence": lambda w: {"sequence_id": MISSING, "contact_ids": [picks.contact(w).id]},
    "crm.remove_from_sequence": lambda w: {"sequence_id": _seq(w), "contact_id": picks.contact(w).id},
}

EMPTY_ON_UNKNOWN_FILTER: dict[str, dict[str, Any]] = {
    "crm.list_users": {"territory": "Atlantis"},
    "crm.search_accounts": {"owner_id": MISSING},
    "crm.search_contacts": {"account_id": MISSING},
    "crm.search_leads": {"owner_id": MISSING},
    "crm.search_deals": {"account_id": MISSING},
    "crm.list_activities": {"deal_id": MISSING},
    "crm.list_tasks": {"deal_id": MISSING},
    "crm.list_sequences": {"query": "no such sequence"},
}
"""List tools filter by ids without resolving them: an unknown id matches nothing."""

NO_NOT_FOUND = {"crm.get_pipeline", "crm.list_products", "crm.submit_report"}
"""Tools that reference no record: the pipeline, the catalogue, and free-form report answers."""

BAD_CURSOR = "not-a-cursor!"

INVALID: dict[str, tuple[Args, list[str]]] = {
    "crm.list_users": (lambda w: {"cursor": BAD_CURSOR}, ["cursor"]),
    "crm.search_accounts": (lambda w: {"cursor": BAD_CURSOR}, ["cursor"]),
    "crm.search_contacts": (lambda w: {"cursor": "WzEsMl0"}, ["cursor"]),
    "crm.search_leads": (lambda w: {"cursor": BAD_CURSOR}, ["cursor"]),
    "crm.search_deals": (lambda w: {"close_date_from": "2026-05-01", "close_date_to": "2026-04-01"},
                         ["close_date_from", "close_date_to"]),
    "crm.list_activities": (lambda w: {"cursor": BAD_CURSOR}, ["cursor"]),
    "crm.list_tasks": (lambda w: {"due_before": "2026-03-04T10:00:00"}, ["due_before"]),
    "crm.list_enrollments": (lambda w: {"cursor": BAD_CURSOR}, ["cursor"]),
    "crm.create_contact": (lambda w: {"first_name": "Ana", "last_name": "Zyx", "email": "not-an-email",
                                      "owner_id": _user(w)}, ["email"]),
    "crm.update_contact": (lambda w: {"contact_id": picks.contact(w).id}, ["contact_id"]),
    "crm.merge_contacts": (lambda w: {"winner_id": picks.contact(w).id, "loser_id": picks.contact(w).id},
                           ["loser_id"]),
    "crm.create_account": (lambda w: {"name": "Zyx Unique Co", "territory": "Mars", "owner_id": _user(w)},
                           ["territory"]),
    "crm.update_account": (lambda w: {"account_id": picks.contact(w).account_id, "domain": "no domain"},
                           ["domain"]),
    "crm.assign_owner": (lambda w: {"record_type": "deal", "record_ids": [picks.deal(w, "proposal").id],
                                    "owner_id": _user(w), "include_open_deals": True}, ["include_open_deals"]),
    "crm.convert_lead": (lambda w: {"lead_id": picks.lead(w).id}, ["deal_name"]),
    "crm.create_deal": (lambda w: {"account_id": picks.contact(w).account_id, "name": "X",
                                   "stage": "qualification"}, ["primary_contact_id"]),
    "crm.update_deal": (lambda w: {"deal_id": picks.deal(w, "proposal").id, "amount": "-5"}, ["amount"]),
    "crm.update_deal_stage": (lambda w: {"deal_id": picks.deal(w, "qualification").id, "stage": "negotiation"},
                              ["stage"]),
    "crm.set_line_items": (lambda w: {"deal_id": picks.deal(w, "proposal").id, "items": [],
                                      "update_amount": True}, ["update_amount"]),
    "crm.log_activity": (lambda w: {"kind": "note", "subject": "x"}, ["contact_id", "deal_id"]),
    "crm.send_email": (lambda w: {"contact_id": _no_email(w).id, "subject": "Hi", "body": "x"},
                       ["contact_id"]),
    "crm.create_task": (lambda w: {"subject": "x", "due_at": "2026-03-01T10:00:00Z",
                                   "deal_id": picks.deal(w, "proposal").id}, ["due_at"]),
    "crm.reschedule_task": (lambda w: {"task_id": picks.task(w, "open").id, "due_at": "2026-02-01T10:00:00Z"},
                            ["due_at"]),
    "crm.enroll_in_sequence": (lambda w: {"sequence_id": _seq(w),
                                          "contact_ids": [picks.contact(w).id, picks.contact(w).id]},
                               ["contact_ids"]),
    "crm.submit_report": (lambda w: {"name": "r", "values": {f"k{i}": "1" for i in range(51)}}, ["values"]),
}

SCHEMA_INVALID: dict[str, dict[str, Any]] = {
    "crm.get_pipeline": {"unexpected": 1},
    "crm.list_products": {"currency": "JPY"},
    "crm.list_sequences": {"query": "x" * 300},
    "crm.get_account": {},
    "crm.get_contact": {"contact_id": 42},
    "crm.get_lead": {"lead_id": None},
    "crm.get_deal": {"deal_id": "dl_1", "extra": True},
    "crm.update_contact_consent": {"contact_id": "ct_000001", "consent": "maybe", "reason": "x"},
    "crm.complete_task": {},
    "crm.remove_from_sequence": {"sequence_id": "seq_000001", "contact_id": "ct_000001", "reason": ""},
    "crm.search_deals": {"limit": 0},
}
"""Argument-model failures; the runtime turns these into `invalid_argument` naming the field paths."""


def test_tables_cover_every_tool() -> None:
    names = {t.name for t in DOMAIN.tools}
    assert names == set(NOT_FOUND) | set(EMPTY_ON_UNKNOWN_FILTER) | NO_NOT_FOUND
    assert names == set(INVALID) | set(SCHEMA_INVALID) | {"crm.get_account", "crm.get_contact"}
    assert len(names) >= 20


@pytest.mark.parametrize("name", sorted(NOT_FOUND))
def test_unknown_record_is_not_found(world: State, name: str) -> None:
    args = NOT_FOUND[name](world)
    err = Caller(world).error(name, **args)
    assert err.code == "not_found"
    assert not err.retryable
    assert ERROR_DETAIL_KEYS["not_found"] <= set(err.details)
    assert f"'{err.details['id']}'" in repr(args), err.details  # the id the agent passed, not a derived one
    assert len(err.details["fields"]) == 1 and err.details["fields"][0].split(".")[0] in args, err.details


@pytest.mark.parametrize("name", sorted(EMPTY_ON_UNKNOWN_FILTER))
def test_unknown_filter_id_gives_an_empty_page(world: State, name: str) -> None:
    page = Caller(world)(name, **EMPTY_ON_UNKNOWN_FILTER[name])
    assert page.items == []


@pytest.mark.parametrize("name", sorted(INVALID))
def test_bad_argument_is_invalid_argument_naming_fields(world: State, name: str) -> None:
    make, fields = INVALID[name]
    err = Caller(world).error(name, **make(world))
    assert err.code == "invalid_argument", err.message
    assert err.details["fields"] == fields


@pytest.mark.parametrize("name", sorted(SCHEMA_INVALID))
def test_malformed_arguments_fail_validation(name: str) -> None:
    with pytest.raises(ValidationError):
        SPECS[name].args_model.model_validate(SCHEMA_INVALID[name])


def test_unknown_product_names_the_item_path(world: State) -> None:
    err = Caller(world).error("crm.set_line_items", **NOT_FOUND["crm.set_line_items"](world))
    assert err.details["fields"] == ["items.0.product_id"]


def test_product_fixture_exists(world: State) -> None:
    assert len(world.table(PRODUCTS)) >= 10
    assert EPOCH.tzinfo is not None


@pytest.mark.parametrize("email", ["ana\u200bzyx@example.com", "ana zyx@example.com", "ana@localhost", "@example.com"])
def test_an_email_the_identity_layer_cannot_read_is_refused(world: State, email: str) -> None:
    # A zero-width space made an address no check could tie to its person: a way round consent.
    err = Caller(world).error("crm.create_contact", first_name="Ana", last_name="Zyx", email=email,
                              owner_id=_user(world))
    assert err.code == "invalid_argument" and err.details["fields"] == ["email"]
