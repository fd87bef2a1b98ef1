"""READ tools: results, filters, stable sorting and cursor pagination. READ tools never emit."""

from __future__ import annotations

import random
from datetime import date

import pytest

from saas_sim.core.paging import DEFAULT_PAGE_SIZE, Page, PageArgs
from saas_sim.core.state import State
from saas_sim.core.tools import READ, ToolContext
from saas_sim.domains.crm import DOMAIN
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.pipeline import STAGES
from saas_sim.domains.crm.state import ACCOUNTS, CONTACTS, DEALS, PROJECTION, SEQUENCES, USERS
from tests.domains.crm import picks
from tests.domains.crm.conftest import EPOCH, SPECS, Caller


def test_read_tools_are_named_get_list_or_search() -> None:
    for spec in DOMAIN.tools:
        verb = spec.name.split(".", 1)[1].split("_", 1)[0]
        assert (verb in ("get", "list", "search")) == (spec.kind is READ), spec.name


def test_read_tools_emit_nothing(world: State) -> None:
    spec = SPECS["crm.search_contacts"]
    ctx = ToolContext(world, EPOCH, PROJECTION, random.Random(0), spec.kind)
    spec.handler(ctx, spec.args_model.model_validate({"query": "a"}))
    assert ctx.events == []
    assert ctx.state is world


LIST_TOOLS = sorted(t.name for t in DOMAIN.tools if t.name.split(".")[1].startswith(("list_", "search_")))


@pytest.mark.parametrize("name", LIST_TOOLS)
def test_every_list_and_search_tool_pages_by_the_core_convention(crm: Caller, name: str) -> None:
    spec = SPECS[name]
    assert issubclass(spec.args_model, PageArgs) and issubclass(spec.result_model, Page), name
    page = crm(name)
    assert page.total >= len(page.items)
    assert len(page.items) <= DEFAULT_PAGE_SIZE
    assert (page.next_cursor is None) == (page.total <= DEFAULT_PAGE_SIZE)


def test_a_cursor_only_continues_the_query_it_came_from(crm: Caller) -> None:
    first = crm("crm.search_contacts", limit=5)
    assert first.next_cursor is not None
    assert crm("crm.search_contacts", limit=9, cursor=first.next_cursor).items  # limit is not a filter
    err = crm.error("crm.search_contacts", query="a", limit=5, cursor=first.next_cursor)
    assert (err.code, err.details["fields"]) == ("invalid_argument", ["cursor"])


def test_list_users_filters_by_role(crm: Caller) -> None:
    page = crm("crm.list_users", role="ae", limit=100)
    assert page.items and all(u.role == "ae" for u in page.items)
    assert [u.id for u in page.items] == sorted(u.id for u in page.items)


def test_search_accounts_matches_messy_names_case_insensitively(crm: Caller, world: State) -> None:
    account = next(a for a in world.table(ACCOUNTS) if a.name != a.name.strip() or a.name.isupper())
    word = account.name.split()[0].lower()
    page = crm("crm.search_accounts", query=word, limit=100)
    assert account.id in [a.id for a in page.items]
    names = [(fold(a.name), a.id) for a in page.items]
    assert names == sorted(names)


def test_get_account_returns_the_record(crm: Caller, world: State) -> None:
    account = next(iter(world.table(ACCOUNTS)))
    assert crm("crm.get_account", account_id=account.id).account == account


def test_search_contacts_paginates_without_gaps_or_repeats(crm: Caller, world: State) -> None:
    seen: list[str] = []
    cursor = None
    while True:
        page = crm("crm.search_contacts", limit=37, cursor=cursor)
        seen += [c.id for c in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    live = [c.id for c in world.table(CONTACTS) if c.merged_into is None]
    assert sorted(seen) == sorted(live)
    assert len(seen) == len(set(seen)) == page.total


def test_search_contacts_finds_by_phone_digits_and_accents(crm: Caller, world: State) -> None:
    c = next(c for c in world.table(CONTACTS) if c.phone and not c.last_name.isascii())
    digits = "".join(ch for ch in c.phone or "" if ch.isdigit())[-7:]
    assert c.id in [x.id for x in crm("crm.search_contacts", query=digits, limit=100).items]
    assert c.id in [x.id for x in crm("crm.search_contacts", query=fold(c.last_name), limit=100).items]


def test_get_contact_includes_the_account_name(crm: Caller, world: State) -> None:
    c = picks.contact(world)
    result = crm("crm.get_contact", contact_id=c.id)
    assert result.contact == c
    assert result.account_name == world.get(ACCOUNTS, c.account_id or "").name  # type: ignore[union-attr]


def test_search_leads_is_newest_first(crm: Caller) -> None:
    page = crm("crm.search_leads", limit=50)
    stamps = [ld.created_at for ld in page.items]
    assert stamps == sorted(stamps, reverse=True)


def test_get_lead(crm: Caller, world: State) -> None:
    lead = picks.lead(world)
    assert crm("crm.get_lead", lead_id=lead.id).lead == lead


def test_search_deals_filters_open_deals_by_close_window(crm: Caller) -> None:
    page = crm("crm.search_deals", status="open", close_date_from="2026-03-02", close_date_to="2026-06-30",
               sort="close_date", limit=100)
    assert page.items
    assert all(d.stage not in ("closed_won", "closed_lost") for d in page.items)
    dates = [d.close_date for d in page.items]
    assert all(x is not None and date(2026, 3, 2) <= x <= date(2026, 6, 30) for x in dates)
    assert dates == sorted(d for d in dates if d is not None)


def test_get_deal_shows_line_totals_and_allowed_moves(crm: Caller, world: State) -> None:
    deal = picks.deal(world, "negotiation", items=True)
    result = crm("crm.get_deal", deal_id=deal.id)
    assert [v.line_item.id for v in result.line_items] == list(deal.line_item_ids)
    assert "closed_won" in result.allowed_next_stages
    assert result.probability == 80


def test_get_pipeline_lists_every_stage_in_order(crm: Caller) -> None:
    stages = crm("crm.get_pipeline").stages
    assert tuple(s.stage for s in stages) == STAGES
    assert stages[-2].required_fields == ["primary_contact_id", "close_date", "amount"]


def test_list_products_prices_in_the_requested_currency(crm: Caller) -> None:
    usd = crm("crm.list_products", currency="USD").items
    eur = crm("crm.list_products", currency="EUR").items
    assert [p.product.sku for p in usd] == sorted(p.product.sku for p in usd)
    assert all(e.unit_price is not None and u.unit_price is not None and e.unit_price < u.unit_price
               for u, e in zip(usd, eur, strict=True))


def test_list_activities_newest_first_for_a_deal(crm: Caller, world: State) -> None:
    deal = picks.deal(world, "proposal")
    page = crm("crm.list_activities", deal_id=deal.id)
    assert page.items and all(a.deal_id == deal.id for a in page.items)
    stamps = [a.occurred_at for a in page.items]
    assert stamps == sorted(stamps, reverse=True)


def test_list_tasks_earliest_due_first(crm: Caller) -> None:
    page = crm("crm.list_tasks", status="open", limit=100)
    dues = [t.due_at for t in page.items]
    assert dues and dues == sorted(dues)


def test_list_sequences_and_enrollments(crm: Caller, world: State) -> None:
    sequences = crm("crm.list_sequences").items
    assert [s.id for s in sequences] == [s.id for s in world.table(SEQUENCES)]
    enrolled = crm("crm.list_enrollments", sequence_id=sequences[0].id, limit=100).items
    assert all(e.sequence_id == sequences[0].id for e in enrolled)


def test_deals_of_every_stage_meet_their_required_fields(world: State) -> None:
    from saas_sim.domains.crm.pipeline import missing_fields

    for d in world.table(DEALS):
        assert missing_fields(d, d.stage) == [], d.id
    assert {u.role for u in world.table(USERS)} == {"manager", "ae", "sdr"}
