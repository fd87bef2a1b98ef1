"""The CRM's indexed searches return exactly what a full scan returns, on the world and after random edits."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from saas_sim.core.indexes import prewarm
from saas_sim.core.paging import Page
from saas_sim.core.snapshots import decode_state, encode_state
from saas_sim.core.state import State
from saas_sim.domains.crm import DOMAIN
from saas_sim.domains.crm.matching import fold, phone_digits
from saas_sim.domains.crm.models import Contact
from saas_sim.domains.crm.pipeline import is_open
from saas_sim.domains.crm.search_index import deal_key
from saas_sim.domains.crm.state import ACCOUNTS, ACTIVITIES, CONTACTS, DEALS, LEADS
from saas_sim.domains.crm.tool_helpers import Query
from tests.domains.crm.conftest import SPECS, Caller

# --- the tools as they were before indexes: a scan of the whole table, then Page.of --------------


def _scan_contacts(state: State, a: Any) -> Any:
    q = Query(a.query)
    rows = [c for c in state.table(CONTACTS)
            if (a.include_merged or c.merged_into is None) and (a.account_id is None or c.account_id == a.account_id)
            and (a.owner_id is None or c.owner_id == a.owner_id) and (a.consent is None or c.consent == a.consent)
            and q(c.first_name, c.last_name, c.email, c.secondary_email, c.title,
                  phone_digits(c.phone) if q.has_digits else None)]
    return rows, lambda c: (fold(c.last_name), fold(c.first_name), c.id)


def _scan_leads(state: State, a: Any) -> Any:
    q = Query(a.query)
    rows = [ld for ld in state.table(LEADS)
            if (a.status is None or ld.status == a.status) and (a.source is None or ld.source == a.source)
            and (a.owner_id is None or ld.owner_id == a.owner_id)
            and q(ld.first_name, ld.last_name, ld.email, ld.company)]
    return rows, lambda ld: (-int(ld.created_at.timestamp()), ld.id)


def _scan_accounts(state: State, a: Any) -> Any:
    industry = fold(a.industry) if a.industry else None
    q = Query(a.query)
    rows = [x for x in state.table(ACCOUNTS)
            if (a.territory is None or x.territory == a.territory) and (a.owner_id is None or x.owner_id == a.owner_id)
            and (industry is None or fold(x.industry or "") == industry) and q(x.name, x.domain, x.city)]
    return rows, lambda x: (fold(x.name), x.id)


def _scan_deals(state: State, a: Any) -> Any:
    q = Query(a.query)
    rows = [d for d in state.table(DEALS)
            if (a.account_id is None or d.account_id == a.account_id)
            and (a.owner_id is None or d.owner_id == a.owner_id)
            and (a.stage is None or d.stage == a.stage)
            and (a.status == "all" or (a.status == "open") == is_open(d.stage))
            and (a.currency is None or d.currency == a.currency)
            and (a.close_date_from is None or (d.close_date is not None and d.close_date >= a.close_date_from))
            and (a.close_date_to is None or (d.close_date is not None and d.close_date <= a.close_date_to))
            and q(d.name)]
    return rows, lambda d: deal_key(a.sort, d)


def _scan_activities(state: State, a: Any) -> Any:
    rows = [x for x in state.table(ACTIVITIES)
            if (a.contact_id is None or x.contact_id == a.contact_id) and (a.deal_id is None or x.deal_id == a.deal_id)
            and (a.account_id is None or x.account_id == a.account_id) and (a.kind is None or x.kind == a.kind)
            and (a.direction is None or x.direction == a.direction)]
    return rows, lambda x: (-int(x.occurred_at.timestamp()), x.id)


SCANS = {
    "crm.search_contacts": _scan_contacts,
    "crm.search_leads": _scan_leads,
    "crm.search_accounts": _scan_accounts,
    "crm.search_deals": _scan_deals,
    "crm.list_activities": _scan_activities,
}


def _both(state: State, tool: str, args: dict[str, Any]) -> tuple[Any, Any]:
    """The tool's result and the scan's, as plain data (or the error each raised)."""
    spec = SPECS[tool]
    parsed = spec.args_model.model_validate(args)
    try:
        got: Any = Caller(state).call(tool, **args).model_dump(mode="json")
    except Exception as exc:
        got = repr(exc)
    try:
        rows, key = SCANS[tool](state, parsed)
        page_cls: type[Page[Any]] = spec.result_model
        expected: Any = page_cls.of(rows, key, parsed).model_dump(mode="json")
    except Exception as exc:
        expected = repr(exc)
    return got, expected


def _queries(state: State, rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    contacts = state.table(CONTACTS).values()
    c = rng.choice(contacts)
    words = [w for w in (c.last_name, c.first_name, c.email or "", c.title or "", c.phone or "") if w]
    word = rng.choice(words)
    cut = word[rng.randrange(len(word)):][: rng.randint(1, 6)] or "a"
    account = rng.choice(state.table(ACCOUNTS).values())
    deal = rng.choice(state.table(DEALS).values())
    lead = rng.choice(state.table(LEADS).values())
    return [
        ("crm.search_contacts", {"query": word}),
        ("crm.search_contacts", {"query": f"{cut} {c.last_name[:3]}", "include_merged": rng.random() < 0.5}),
        ("crm.search_contacts", {"query": phone_digits(c.phone)[-4:] or "12"}),
        ("crm.search_contacts", {"account_id": c.account_id, "limit": 100}),
        ("crm.search_contacts", {"owner_id": c.owner_id, "consent": c.consent, "limit": rng.randint(1, 30)}),
        ("crm.search_contacts", {"include_merged": True, "limit": 7}),
        ("crm.search_contacts", {}),
        ("crm.search_leads", {"query": lead.company.split()[0]}),
        ("crm.search_leads", {"status": lead.status, "limit": 50}),
        ("crm.search_leads", {"query": cut}),
        ("crm.search_accounts", {"query": account.name[:4]}),
        ("crm.search_accounts", {"territory": account.territory, "industry": (account.industry or "x").upper()}),
        ("crm.search_accounts", {}),
        ("crm.search_deals", {"account_id": deal.account_id}),
        ("crm.search_deals", {"status": rng.choice(["open", "closed", "all"]),
                              "sort": rng.choice(["id", "close_date", "amount_desc", "last_activity"]), "limit": 50}),
        ("crm.search_deals", {"owner_id": deal.owner_id, "stage": deal.stage, "currency": deal.currency}),
        ("crm.search_deals", {"query": deal.name.split()[0], "close_date_from": "2026-01-01"}),
        ("crm.list_activities", {"account_id": account.id}),
        ("crm.list_activities", {"kind": "email", "direction": "inbound", "limit": 100}),
        ("crm.list_activities", {}),
    ]


def _edit(state: State, rng: random.Random, n: int) -> State:
    """Changes, adds and deletes random contacts (names, emails, accounts, merges)."""
    contacts = state.table(CONTACTS).values()
    accounts = state.table(ACCOUNTS).values()
    for k in range(n):
        c = rng.choice(contacts)
        roll = rng.random()
        if roll < 0.15:
            state = state.delete(CONTACTS, c.id)
            continue
        changes: dict[str, Any] = {
            "last_name": rng.choice([c.last_name, c.last_name.upper(), "Ørsted", "Núñez", c.first_name]),
            "email": rng.choice([c.email, None, f"new{k}@example.org"]),
            "account_id": rng.choice([c.account_id, rng.choice(accounts).id, None]),
            "merged_into": rng.choice([None, None, contacts[0].id]),
        }
        if roll < 0.3:
            changes["id"] = f"ct_{900000 + k:06d}"  # a new record
        state = state.put(CONTACTS, Contact.model_validate({**c.model_dump(), **changes}))
    return state


def _fresh(state: State) -> State:
    """The same state through a snapshot: tables made from raw maps, nothing built."""
    return decode_state(encode_state(state), DOMAIN.schema)


@pytest.fixture(scope="module")
def warm_world(world: State) -> State:
    prewarm(world, DOMAIN.indexes)
    return world


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), edits=st.sampled_from([0, 1, 5, 40, 300]))
def test_indexed_searches_equal_a_scan_after_random_edits(warm_world: State, seed: int, edits: int) -> None:
    rng = random.Random(seed)
    state = _edit(warm_world, rng, edits)
    for tool, args in _queries(state, rng):
        got, expected = _both(state, tool, args)
        assert got == expected, (tool, args)


def test_indexed_searches_equal_a_scan_on_a_table_never_prewarmed(world: State) -> None:
    rng = random.Random(7)
    state = _edit(_fresh(world), rng, 3)
    for tool, args in _queries(state, rng):
        got, expected = _both(state, tool, args)
        assert got == expected, (tool, args)


def test_a_cursor_walks_the_same_pages_as_a_scan(warm_world: State) -> None:
    state = _edit(warm_world, random.Random(3), 10)
    for tool, args in [("crm.search_contacts", {"limit": 37}), ("crm.search_contacts", {"query": "a", "limit": 41}),
                       ("crm.search_deals", {"status": "open", "sort": "amount_desc", "limit": 13})]:
        cursor = None
        for _ in range(30):
            page_args = {**args, **({"cursor": cursor} if cursor else {})}
            got, expected = _both(state, tool, page_args)
            assert got == expected
            cursor = got["next_cursor"]
            if cursor is None:
                break


def test_a_merge_moves_the_records_a_scan_finds_in_id_order(warm_world: State) -> None:
    from saas_sim.domains.crm.events import ContactsMerged

    state = _edit(warm_world, random.Random(11), 20)
    acts = state.table(ACTIVITIES).values()
    counts: dict[str, int] = {}
    for a in acts:
        if a.contact_id:
            counts[a.contact_id] = counts.get(a.contact_id, 0) + 1
    contacts = state.table(CONTACTS)
    loser = next(c for i in sorted(counts, key=lambda i: (-counts[i], i))
                 if (c := contacts.get(i)) is not None and c.merged_into is None)
    winner = next(c for c in contacts
                  if c.id != loser.id and c.merged_into is None and c.account_id == loser.account_id)
    crm = Caller(state)
    crm.call("crm.merge_contacts", winner_id=winner.id, loser_id=loser.id)
    merged = next(e for e in crm.events if isinstance(e, ContactsMerged))
    assert merged.moved_activity_ids == [a.id for a in acts if a.contact_id == loser.id]
    assert len(merged.moved_activity_ids) == counts[loser.id] > 0
    assert merged.moved_deal_ids == [d.id for d in state.table(DEALS) if d.primary_contact_id == loser.id]
