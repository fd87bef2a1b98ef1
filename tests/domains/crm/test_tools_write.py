"""WRITE tools: successful changes, read-your-writes, conflicts and policy errors."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest

from saas_sim.core.state import State
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.gen_sales import line_total
from saas_sim.domains.crm.state import (
    ACCOUNTS,
    ACTIVITIES,
    CONTACTS,
    DEALS,
    ENROLLMENTS,
    LEADS,
    LINE_ITEMS,
    PRODUCTS,
    REPORTS,
    SEQUENCES,
    TASKS,
    USERS,
)
from tests.domains.crm import picks
from tests.domains.crm.conftest import EPOCH, Caller


def _ae(world: State, not_id: str | None = None) -> str:
    return next(u.id for u in world.table(USERS) if u.role == "ae" and u.id != not_id)


# --- contacts -------------------------------------------------------------------------


def test_create_contact_then_read_it_back(crm: Caller, world: State) -> None:
    account = picks.contact(world).account_id
    made = crm("crm.create_contact", first_name=" Zoltan ", last_name="Quaxley", email="zq@quax.example",
               account_id=account, title="CFO").contact
    assert made.first_name == "Zoltan" and made.owner_id == world.get(ACCOUNTS, account or "").owner_id  # type: ignore[union-attr]
    assert crm("crm.get_contact", contact_id=made.id).contact == made
    assert isinstance(crm.events[0], ev.ContactCreated)


def test_create_contact_names_duplicate_candidates(crm: Caller, world: State) -> None:
    base, dup = picks.variant_pair(world)
    err = crm.error("crm.create_contact", first_name=dup.first_name, last_name=dup.last_name,
                    account_id=base.account_id)
    assert err.code == "conflict"
    ids = [c["id"] for c in err.details["candidates"]]
    assert base.id in ids


def test_create_contact_with_same_email_in_other_case_conflicts(crm: Caller, world: State) -> None:
    c = picks.contact(world)
    err = crm.error("crm.create_contact", first_name="Someone", last_name="Else", email=(c.email or "").upper(),
                    owner_id=c.owner_id)
    assert err.code == "conflict" and err.details["candidates"][0]["reason"] == "same_email"


def test_create_contact_force_skips_the_duplicate_check(crm: Caller, world: State) -> None:
    base, dup = picks.variant_pair(world)
    made = crm("crm.create_contact", first_name=dup.first_name, last_name=dup.last_name,
               account_id=base.account_id, force=True).contact
    assert crm.state.get(CONTACTS, made.id) == made


def test_update_contact_changes_only_given_fields(crm: Caller, world: State) -> None:
    c = picks.contact(world)
    after = crm("crm.update_contact", contact_id=c.id, title="Chief Revenue Officer", phone="").contact
    assert after.title == "Chief Revenue Officer" and after.phone is None
    assert after.email == c.email and after.updated_at == EPOCH


def test_update_contact_to_a_used_email_conflicts(crm: Caller, world: State) -> None:
    c = picks.contact(world)
    other = picks.colleague(world, c)
    err = crm.error("crm.update_contact", contact_id=c.id, email=other.email)
    assert err.code == "conflict"


def test_update_contact_consent_records_the_change(crm: Caller, world: State) -> None:
    c = picks.contact(world)
    assert crm("crm.update_contact_consent", contact_id=c.id, consent="unsubscribed",
               reason="asked by phone").contact.consent == "unsubscribed"


def test_bounced_contact_cannot_be_resubscribed(crm: Caller, world: State) -> None:
    c = picks.contact(world, "bounced")
    err = crm.error("crm.update_contact_consent", contact_id=c.id, consent="subscribed", reason="please")
    assert err.code == "permission_denied"


def test_merge_moves_records_and_keeps_the_loser(crm: Caller, world: State) -> None:
    base, dup = picks.variant_pair(world)
    result = crm("crm.merge_contacts", winner_id=base.id, loser_id=dup.id)
    loser = crm.state.get(CONTACTS, dup.id)
    assert loser is not None and loser.merged_into == base.id
    assert not any(a.contact_id == dup.id for a in crm.state.table(ACTIVITIES))
    assert result.contact.id == base.id
    assert dup.id not in [c.id for c in crm("crm.search_contacts", account_id=base.account_id, limit=100).items]


def test_merge_keeps_the_stricter_consent(crm: Caller, world: State) -> None:
    c = picks.contact(world)
    other = picks.colleague(world, c)
    crm("crm.update_contact_consent", contact_id=other.id, consent="unsubscribed", reason="asked")
    assert crm("crm.merge_contacts", winner_id=c.id, loser_id=other.id).contact.consent == "unsubscribed"


def test_merging_a_merged_contact_conflicts(crm: Caller, world: State) -> None:
    base, dup = picks.variant_pair(world)
    crm("crm.merge_contacts", winner_id=base.id, loser_id=dup.id)
    assert crm.error("crm.merge_contacts", winner_id=base.id, loser_id=dup.id).code == "conflict"
    assert crm.error("crm.update_contact", contact_id=dup.id, title="x").code == "conflict"


def test_merge_across_accounts_is_invalid(crm: Caller, world: State) -> None:
    a = picks.contact(world)
    b = picks.first(world, CONTACTS, lambda c: c.account_id not in (None, a.account_id) and not c.merged_into)
    assert crm.error("crm.merge_contacts", winner_id=a.id, loser_id=b.id).details["fields"] == ["loser_id"]


# --- accounts and owners ----------------------------------------------------------------


def test_create_account_detects_a_messy_duplicate(crm: Caller, world: State) -> None:
    account = next(iter(world.table(ACCOUNTS)))
    err = crm.error("crm.create_account", name=f"  {account.name.upper()} ", territory=account.territory,
                    owner_id=account.owner_id)
    assert err.code == "conflict" and account.id in [c["id"] for c in err.details["candidates"]]
    made = crm("crm.create_account", name="Quuxbridge Analytics", territory="DACH", owner_id=account.owner_id,
               domain="https://www.quuxbridge.example/").account
    assert made.domain == "quuxbridge.example" and made.country == "DE"


def test_update_account(crm: Caller, world: State) -> None:
    account = next(iter(world.table(ACCOUNTS)))
    after = crm("crm.update_account", account_id=account.id, name="Clean Name GmbH", employees=120).account
    assert (after.name, after.employees) == ("Clean Name GmbH", 120)


def test_update_account_to_a_taken_domain_conflicts(crm: Caller, world: State) -> None:
    a, b = [x for x in world.table(ACCOUNTS) if x.domain][:2]
    assert crm.error("crm.update_account", account_id=a.id, domain=b.domain).code == "conflict"


def test_assign_owner_moves_open_deals_of_the_previous_owner_only(crm: Caller, world: State) -> None:
    deal = next(d for d in world.table(DEALS) if d.stage == "proposal"
                and d.owner_id == world.get(ACCOUNTS, d.account_id).owner_id)  # type: ignore[union-attr]
    new = _ae(world, deal.owner_id)
    result = crm("crm.assign_owner", record_type="account", record_ids=[deal.account_id], owner_id=new,
                 include_open_deals=True)
    assert deal.account_id in result.changed and deal.id in result.changed
    for d in crm.state.table(DEALS):
        if d.account_id == deal.account_id and d.stage in ("closed_won", "closed_lost"):
            assert d.owner_id == world.get(DEALS, d.id).owner_id  # type: ignore[union-attr]


def test_assign_owner_to_unknown_user_is_not_found(crm: Caller, world: State) -> None:
    deal = picks.deal(world, "proposal")
    err = crm.error("crm.assign_owner", record_type="deal", record_ids=[deal.id], owner_id="usr_999999")
    assert err.code == "not_found" and err.details["fields"] == ["owner_id"]


# --- deals and leads --------------------------------------------------------------------


def test_stage_move_sets_fields_in_the_same_call(crm: Caller, world: State) -> None:
    deal = picks.first(world, DEALS, lambda d: d.stage == "qualification" and d.close_date is None)
    err = crm.error("crm.update_deal_stage", deal_id=deal.id, stage="discovery")
    assert err.details["fields"] == ["close_date"]
    after = crm("crm.update_deal_stage", deal_id=deal.id, stage="discovery", close_date="2026-04-30").deal
    assert after.stage == "discovery" and str(after.close_date) == "2026-04-30"


def test_stage_cannot_skip_forward(crm: Caller, world: State) -> None:
    deal = picks.deal(world, "prospecting")
    err = crm.error("crm.update_deal_stage", deal_id=deal.id, stage="proposal")
    assert err.details["allowed"][-2:] == ["qualification", "closed_lost"]


def test_close_won_needs_negotiation_and_then_freezes_the_deal(crm: Caller, world: State) -> None:
    deal = picks.deal(world, "negotiation", items=True)
    won = crm("crm.update_deal_stage", deal_id=deal.id, stage="closed_won", close_date="2026-03-02").deal
    assert won.stage == "closed_won"
    assert crm.error("crm.update_deal", deal_id=deal.id, amount="1.00").code == "conflict"
    assert crm.error("crm.update_deal_stage", deal_id=deal.id, stage="closed_lost", lost_reason="x").code \
        == "invalid_argument"


def test_create_and_update_deal(crm: Caller, world: State) -> None:
    c = picks.contact(world)
    made = crm("crm.create_deal", account_id=c.account_id, name="New pilot", stage="qualification",
               primary_contact_id=c.id, amount="1000.50").deal
    assert made.amount == Decimal("1000.50") and made.stage == "qualification"
    updated = crm("crm.update_deal", deal_id=made.id, next_step="Send deck", close_date="2026-05-01").deal
    assert updated.next_step == "Send deck"
    other = picks.first(world, CONTACTS, lambda x: x.account_id not in (None, c.account_id) and not x.merged_into)
    assert crm.error("crm.update_deal", deal_id=made.id, primary_contact_id=other.id).details["fields"] == [
        "primary_contact_id"]


def test_set_line_items_replaces_lines_and_can_set_the_amount(crm: Caller, world: State) -> None:
    deal = picks.deal(world, "proposal", items=True)
    product = next(iter(world.table(PRODUCTS)))
    result = crm("crm.set_line_items", deal_id=deal.id, update_amount=True,
                 items=[{"product_id": product.id, "quantity": 3, "discount_pct": "10"}])
    item = result.line_items[0]
    assert result.line_total == line_total(3, item.unit_price, Decimal(10)) == result.deal.amount
    assert all(crm.state.get(LINE_ITEMS, i) is None for i in deal.line_item_ids)
    assert result.deal.line_item_ids == (item.id,)


def test_convert_lead_onto_existing_account(crm: Caller, world: State) -> None:
    lead = picks.lead(world)
    account = picks.contact(world).account_id
    result = crm("crm.convert_lead", lead_id=lead.id, account_id=account, deal_name="Inbound", force=True)
    assert result.lead.status == "converted" and result.account_id == account
    deal = crm.state.get(DEALS, result.deal_id or "")
    assert deal is not None and deal.primary_contact_id == result.contact_id and deal.stage == "qualification"
    assert crm.error("crm.convert_lead", lead_id=lead.id, account_id=account, deal_name="x").code == "conflict"


def test_convert_lead_without_account_detects_the_company(crm: Caller, world: State) -> None:
    from saas_sim.domains.crm.state import LEAD_TRUTH

    truth = picks.first(world, LEAD_TRUTH, lambda t: t.account_id is not None and t.contact_id is None)
    lead = world.get(LEADS, truth.id)
    assert lead is not None
    err = crm.error("crm.convert_lead", lead_id=lead.id, deal_name="x", owner_id=_ae(world))
    assert err.code == "conflict" and truth.account_id in [c["id"] for c in err.details["candidates"]]


# --- engagement -------------------------------------------------------------------------


def test_log_call_touches_deal_and_contact(crm: Caller, world: State) -> None:
    deal = picks.deal(world, "proposal")
    act = crm("crm.log_activity", kind="call", outcome="connected", subject="Call",
              contact_id=deal.primary_contact_id, deal_id=deal.id).activity
    assert act.direction == "outbound" and act.account_id == deal.account_id
    assert crm.state.get(DEALS, deal.id).last_activity_at == EPOCH  # type: ignore[union-attr]
    assert crm.error("crm.log_activity", kind="note", subject="x", deal_id=deal.id,
                     outcome="connected").details["fields"] == ["outcome"]
    assert crm.error("crm.log_activity", kind="call", subject="x", deal_id=deal.id,
                     occurred_at="2026-03-03T00:00:00Z").details["fields"] == ["occurred_at"]


def test_send_email_logs_an_outbound_email(crm: Caller, world: State) -> None:
    c = picks.contact(world)
    act = crm("crm.send_email", contact_id=c.id, subject="Hello", body="Hi there").activity
    assert (act.kind, act.direction, act.sequence_id) == ("email", "outbound", None)
    assert crm.state.get(CONTACTS, c.id).last_contacted_at == EPOCH  # type: ignore[union-attr]


@pytest.mark.parametrize("consent", ["unsubscribed", "bounced"])
def test_emailing_an_opted_out_contact_is_denied(crm: Caller, world: State, consent: str) -> None:
    c = picks.contact(world, consent)
    err = crm.error("crm.send_email", contact_id=c.id, subject="Hello", body="Hi")
    assert err.code == "permission_denied" and err.details["consent"] == consent


def test_task_lifecycle(crm: Caller, world: State) -> None:
    deal = picks.deal(world, "proposal")
    due = EPOCH + timedelta(days=2)
    task = crm("crm.create_task", subject="Call back", due_at=due.isoformat(), deal_id=deal.id).task
    assert task.owner_id == deal.owner_id and task.status == "open"
    moved = crm("crm.reschedule_task", task_id=task.id, due_at=(due + timedelta(hours=3)).isoformat()).task
    assert moved.due_at == due + timedelta(hours=3)
    done = crm("crm.complete_task", task_id=task.id).task
    assert done.status == "completed" and done.completed_at == EPOCH
    assert crm.error("crm.complete_task", task_id=task.id).code == "conflict"
    assert crm.error("crm.reschedule_task", task_id=task.id, due_at=due.isoformat()).code == "conflict"
    assert crm.state.get(TASKS, task.id) == done


def test_create_task_needs_a_timezone(crm: Caller, world: State) -> None:
    deal = picks.deal(world, "proposal")
    err = crm.error("crm.create_task", subject="x", due_at="2026-03-04T10:00:00", deal_id=deal.id)
    assert err.details["fields"] == ["due_at"]


def test_enrolment_sends_the_first_step_and_is_all_or_nothing(crm: Caller, world: State) -> None:
    seq = next(iter(world.table(SEQUENCES)))
    c = picks.contact(world)
    result = crm("crm.enroll_in_sequence", sequence_id=seq.id, contact_ids=[c.id])
    assert result.enrollments[0].contact_id == c.id
    sent = [a for a in crm.state.table(ACTIVITIES) if a.sequence_id == seq.id and a.contact_id == c.id]
    assert len(sent) == 1 and sent[0].subject == seq.steps[0].subject
    again = crm("crm.enroll_in_sequence", sequence_id=seq.id, contact_ids=[c.id])
    assert again.already_enrolled == [c.id] and again.enrollments == []
    opted = picks.contact(world, "unsubscribed")
    err = crm.error("crm.enroll_in_sequence", sequence_id=seq.id, contact_ids=[picks.colleague(world, c).id,
                                                                               opted.id])
    assert err.code == "permission_denied" and err.details["contact_ids"] == [opted.id]
    removed = crm("crm.remove_from_sequence", sequence_id=seq.id, contact_id=c.id).enrollment
    assert removed.status == "removed"
    assert crm.state.get(ENROLLMENTS, removed.id) == removed


def test_submit_report_records_the_answer(crm: Caller) -> None:
    report = crm("crm.submit_report", name=" forecast ", record_ids=["dl_000001"], values={"USD": "10.00"}).report
    assert report.name == "forecast" and crm.state.get(REPORTS, report.id) == report
    assert isinstance(crm.events[-1], ev.ReportSubmitted)
