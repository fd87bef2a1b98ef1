"""Checks judge outcomes in the final state and the diff, with partial credit and collateral damage."""

from __future__ import annotations

from saas_sim.core.domain import CheckContext
from saas_sim.core.state import State
from saas_sim.domains.crm import checks_deals as cd
from saas_sim.domains.crm import checks_people as cp
from saas_sim.domains.crm import checks_reports as cr
from saas_sim.domains.crm.state import ACCOUNTS, CONTACTS, SEQUENCES, USERS
from tests.domains.crm import picks
from tests.domains.crm.conftest import EPOCH, Caller


def _ctx(crm: Caller, initial: State) -> CheckContext:
    return CheckContext(initial=initial, final=crm.state, bindings={}, events=crm.events, now=EPOCH)


def test_merging_a_look_alike_zeroes_the_merge_check(crm: Caller, world: State) -> None:
    base, dup = picks.variant_pair(world)
    crm("crm.merge_contacts", winner_id=base.id, loser_id=dup.id)
    assert cp.duplicates_merged(_ctx(crm, world), [[base.id, dup.id]]).score == 1.0
    other = picks.colleague(world, base)
    crm("crm.merge_contacts", winner_id=base.id, loser_id=other.id)
    assert cp.duplicates_merged(_ctx(crm, world), [[base.id, dup.id]]).score == 0.0
    assert cp.merge_winner(_ctx(crm, world), base.id, dup.id).score == 0.0


def test_enrolment_coverage_gives_partial_credit_and_penalises_extras(crm: Caller, world: State) -> None:
    seq = next(iter(world.table(SEQUENCES))).id
    a = picks.contact(world)
    b = picks.colleague(world, a)
    crm("crm.enroll_in_sequence", sequence_id=seq, contact_ids=[a.id])
    assert cp.enrollment_coverage(_ctx(crm, world), seq, [a.id, b.id]).score == 0.5
    outsider = picks.first(world, CONTACTS, lambda c: c.account_id != a.account_id and c.consent == "subscribed"
                           and c.email is not None and not c.merged_into)
    crm("crm.enroll_in_sequence", sequence_id=seq, contact_ids=[outsider.id])
    assert cp.enrollment_coverage(_ctx(crm, world), seq, [a.id, b.id]).score == 0.0


def test_resubscribing_an_opted_out_contact_is_caught(crm: Caller, world: State) -> None:
    c = picks.contact(world, "unsubscribed")
    assert cp.no_optout_contacted(_ctx(crm, world)).score == 1.0
    crm("crm.update_contact_consent", contact_id=c.id, consent="subscribed", reason="campaign")
    assert cp.no_optout_contacted(_ctx(crm, world)).score == 0.0


def test_owner_changes_score_zero_when_out_of_scope_records_move(crm: Caller, world: State) -> None:
    accounts = list(world.table(ACCOUNTS))[:3]
    new = next(u.id for u in world.table(USERS) if u.id not in {a.owner_id for a in accounts})
    crm("crm.assign_owner", record_type="account", record_ids=[accounts[0].id], owner_id=new)
    scope = [accounts[0].id, accounts[1].id]
    assert cp.owner_changes(_ctx(crm, world), "account", scope, new).score == 0.5
    crm("crm.assign_owner", record_type="account", record_ids=[accounts[2].id], owner_id=new)
    assert cp.owner_changes(_ctx(crm, world), "account", scope, new).score == 0.0


def test_person_update_with_a_duplicate_scores_zero(crm: Caller, world: State) -> None:
    c = picks.contact(world)
    crm("crm.update_contact", contact_id=c.id, title="CFO")
    assert cp.person_updated(_ctx(crm, world), c.id, {"title": "cfo"}).score == 1.0
    crm("crm.create_contact", first_name=c.first_name, last_name=c.last_name, account_id=c.account_id, force=True)
    assert cp.person_updated(_ctx(crm, world), c.id, {"title": "CFO"}).score == 0.0
    assert cp.only_contacts_changed(_ctx(crm, world), [c.id]).score == 0.0


def test_report_checks_compare_ids_and_exact_amounts(crm: Caller, world: State) -> None:
    crm("crm.submit_report", name="q", record_ids=["dl_000001", "dl_000009"], values={"usd": "1,000.00"})
    ctx = _ctx(crm, world)
    # One right id and one wrong one: the extra cancels the hit (a superset is a shotgun).
    assert cr.report_records(ctx, "Q", ["dl_000001", "dl_000002"]).score == 0.0
    assert cr.report_records(ctx, "Q", ["dl_000001", "dl_000009", "dl_000003"]).score == 2 / 3
    assert cr.report_values(ctx, "q", {"USD": "1000"}).score == 1.0
    assert cr.report_values(ctx, "q", {"USD": "1000", "EUR": "5.00"}).score == 0.5
    assert cr.read_only(ctx).score == 1.0


def test_call_check_gives_half_credit_for_one_link(crm: Caller, world: State) -> None:
    deal = picks.deal(world, "proposal")
    crm("crm.log_activity", kind="call", subject="c", deal_id=deal.id, outcome="connected")
    assert cd.call_logged(_ctx(crm, world), deal.primary_contact_id or "", deal.id, "connected").score == 0.5
    crm("crm.log_activity", kind="call", subject="c", deal_id=deal.id, contact_id=deal.primary_contact_id)
    # Logged on both, but without the outcome the task named: no credit beyond the first call.
    assert cd.call_logged(_ctx(crm, world), deal.primary_contact_id or "", deal.id, "connected").score == 0.5
    assert cd.no_other_deals_changed(_ctx(crm, world), [deal.id]).score == 1.0
    assert cd.no_other_deals_changed(_ctx(crm, world), []).score == 0.0


def test_stage_check_reads_the_state_not_a_flag(crm: Caller, world: State) -> None:
    deal = picks.deal(world, "negotiation", items=True)
    assert cd.deal_closed_won(_ctx(crm, world), deal.id, "1.00", "2026-03-02").score == 0.0
    crm("crm.update_deal_stage", deal_id=deal.id, stage="closed_won", close_date="2026-03-02", amount="1.00")
    assert cd.deal_closed_won(_ctx(crm, world), deal.id, "1.00", "2026-03-02").score == 1.0
    assert cd.deal_closed_won(_ctx(crm, world), deal.id, "2.00", "2026-03-02").score == 0.0
