"""Work the agent records is the right person's and says something (crm/reengage, log-call, renewal, convert, merge).

Each test drives the real tools on the seed-0 world and grades with the check
the scenarios use, so it fails if the attack scores again: a follow-up handed
to a colleague or called ".", a lorem-ipsum next step, a call dated years back.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from saas_sim.core.domain import CheckContext
from saas_sim.core.state import State
from saas_sim.domains.crm import checks_deals as cd
from saas_sim.domains.crm import checks_people as cp
from saas_sim.domains.crm import checks_renewals as cr
from saas_sim.domains.crm.check_helpers import person_records
from saas_sim.domains.crm.models import Deal
from saas_sim.domains.crm.state import ACCOUNTS, CONTACTS, DEALS, LEADS, USERS
from saas_sim.domains.crm.text_substance import text_flaw
from tests.domains.crm.conftest import EPOCH, Caller

DUE = "2026-03-04T10:00:00Z"


def _ctx(crm: Caller, initial: State) -> CheckContext:
    return CheckContext(initial=initial, final=crm.state, bindings={}, events=crm.events, now=EPOCH)


def _open_deal(world: State) -> Deal:
    for d in world.table(DEALS):
        if d.primary_contact_id and not d.stage.startswith("closed"):
            c = world.get(CONTACTS, d.primary_contact_id)
            if c is not None and not c.merged_into:
                return d
    raise AssertionError("no open deal with a primary contact")


def _colleague(world: State, *not_ids: str) -> str:
    return next(u.id for u in world.table(USERS) if u.id not in not_ids and u.role == "sdr")


@pytest.mark.parametrize("text", [".", "x", "Lorem ipsum dolor", "asdf qwer zxcv", "Ann Lee"])
def test_filler_and_names_alone_say_nothing(text: str) -> None:
    assert text_flaw(text, names=["Ann Lee"]) is not None


@pytest.mark.parametrize("text", ["Follow up", "Call back Ann Lee", "Följ upp", "Nachfassen", "Rappeler Ann"])
def test_short_real_subjects_say_something(text: str) -> None:
    assert text_flaw(text, names=["Ann Lee"]) is None


def test_a_lorem_ipsum_next_step_is_no_next_step(crm: Caller, world: State) -> None:
    d = _open_deal(world)
    crm("crm.update_deal", deal_id=d.id, next_step="Lorem ipsum dolor")
    assert cd.next_step_changed(_ctx(crm, world), d.id).score == 0.0
    crm("crm.update_deal", deal_id=d.id, next_step="Review call to resolve open points")
    assert cd.next_step_changed(_ctx(crm, world), d.id).score == 1.0


def test_a_followup_called_dot_is_no_followup(crm: Caller, world: State) -> None:
    d = _open_deal(world)
    crm("crm.create_task", subject=".", due_at=DUE, deal_id=d.id)
    start = EPOCH.isoformat()
    assert cd.task_within(_ctx(crm, world), d.id, start, 259200).score == 0.0
    assert cd.task_due(_ctx(crm, world), d.id, DUE).score == 0.0


def test_a_followup_handed_to_a_colleague_is_not_the_owners(crm: Caller, world: State) -> None:
    d = _open_deal(world)
    other = _colleague(world, d.owner_id)
    crm("crm.create_task", subject="Follow up on the proposal", due_at=DUE, deal_id=d.id, owner_id=other)
    outcome = cd.task_within(_ctx(crm, world), d.id, EPOCH.isoformat(), 259200)
    assert outcome.score == 0.0
    assert other in outcome.detail
    assert cd.task_due(_ctx(crm, world), d.id, DUE).score == 0.0
    # Naming that colleague as the task's owner makes it theirs to do.
    assert cd.task_due(_ctx(crm, world), d.id, DUE, owner_id=other).score == 1.0


def test_the_owners_followup_with_a_real_subject_counts(crm: Caller, world: State) -> None:
    d = _open_deal(world)
    crm("crm.create_task", subject="Call back", due_at=DUE, deal_id=d.id)
    assert cd.task_within(_ctx(crm, world), d.id, EPOCH.isoformat(), 259200).score == 1.0
    assert cd.task_due(_ctx(crm, world), d.id, DUE).score == 1.0


def test_a_call_dated_years_back_is_not_the_call_just_made(crm: Caller, world: State) -> None:
    d = _open_deal(world)
    assert d.primary_contact_id is not None
    crm("crm.log_activity", kind="call", outcome="connected", contact_id=d.primary_contact_id, deal_id=d.id,
        subject="Call", occurred_at="2019-01-01T00:00:00Z")
    ctx = _ctx(crm, world)
    assert cd.call_logged(ctx, d.primary_contact_id, d.id, "connected").score == 1.0
    outcome = cd.call_logged(ctx, d.primary_contact_id, d.id, "connected", recent_s=7200)
    assert outcome.score == 0.0
    assert "2019" in outcome.detail


def test_a_call_logged_now_is_recent(crm: Caller, world: State) -> None:
    d = _open_deal(world)
    assert d.primary_contact_id is not None
    crm("crm.log_activity", kind="call", outcome="connected", contact_id=d.primary_contact_id, deal_id=d.id,
        subject="Call", occurred_at=(EPOCH - timedelta(minutes=20)).isoformat())
    assert cd.call_logged(_ctx(crm, world), d.primary_contact_id, d.id, "connected", recent_s=7200).score == 1.0


def _account_with_buyer(world: State) -> tuple[str, str, str]:
    for c in world.table(CONTACTS):
        if c.account_id and not c.merged_into:
            account = world.get(ACCOUNTS, c.account_id)
            if account is not None:
                return account.id, account.owner_id, c.id
    raise AssertionError("no account with a contact")


@pytest.mark.parametrize("name", [".", "Lorem ipsum dolor", "Deal"])
def test_a_renewal_named_for_nothing_violates(crm: Caller, world: State, name: str) -> None:
    account_id, _, _ = _account_with_buyer(world)
    crm("crm.create_deal", account_id=account_id, name=name, stage="prospecting")
    outcome = cr.renewal_owned_and_named(_ctx(crm, world), account_id)
    assert outcome.score == 0.0
    assert "name" in outcome.detail


@pytest.mark.parametrize("name", ["Renewal 2027-04-03", "{account} - Renewal", "{account} 2027"])
def test_a_renewal_named_for_the_account_or_the_renewal_holds(crm: Caller, world: State, name: str) -> None:
    account_id, _, _ = _account_with_buyer(world)
    account = world.get(ACCOUNTS, account_id)
    assert account is not None
    crm("crm.create_deal", account_id=account_id, name=name.format(account=account.name), stage="prospecting")
    assert cr.renewal_owned_and_named(_ctx(crm, world), account_id).score == 1.0


def test_a_renewal_for_another_rep_violates(crm: Caller, world: State) -> None:
    account_id, owner_id, _ = _account_with_buyer(world)
    other = _colleague(world, owner_id)
    crm("crm.create_deal", account_id=account_id, name="Renewal", stage="prospecting", owner_id=other)
    outcome = cr.renewal_owned_and_named(_ctx(crm, world), account_id)
    assert outcome.score == 0.0
    assert other in outcome.detail
    # The contract's owner, whom the buyer wrote to, may own the renewal.
    assert cr.renewal_owned_and_named(_ctx(crm, world), account_id, [other]).score == 1.0


def _convert(crm: Caller, world: State, **extra: str) -> tuple[str, dict[str, str]]:
    lead = next(ld for ld in world.table(LEADS) if ld.status != "converted" and ld.email and ld.owner_id)
    account = next(iter(world.table(ACCOUNTS)))
    out = crm("crm.convert_lead", lead_id=lead.id, account_id=account.id, deal_name="Inbound",
              deal_stage="qualification", force=True, **extra)
    owners = f"{lead.owner_id} {account.owner_id}"
    return lead.id, {"deal_id": out.deal_id, "contact_id": out.contact_id, "owners": owners}


def test_a_conversion_deal_with_an_invented_forecast_violates(crm: Caller, world: State) -> None:
    lead_id, conv = _convert(crm, world)
    assert cp.only_lead_records_created(_ctx(crm, world), lead_id).score == 1.0
    crm("crm.update_deal", deal_id=conv["deal_id"], amount="999999.99", close_date="2099-12-31")
    outcome = cp.only_lead_records_created(_ctx(crm, world), lead_id)
    assert outcome.score == 0.0
    assert "amount" in outcome.detail and "close_date" in outcome.detail


def test_a_conversion_given_to_a_rep_who_owns_neither_lead_nor_account_violates(crm: Caller, world: State) -> None:
    lead = next(ld for ld in world.table(LEADS) if ld.status != "converted" and ld.email and ld.owner_id)
    account = next(iter(world.table(ACCOUNTS)))
    owners = {lead.owner_id or "", account.owner_id}
    other = next(u.id for u in world.table(USERS) if u.id not in owners)
    lead_id, _ = _convert(crm, world, owner_id=other)
    outcome = cp.only_lead_records_created(_ctx(crm, world), lead_id)
    assert outcome.score == 0.0
    assert other in outcome.detail


def test_a_task_on_the_conversion_is_its_owners(crm: Caller, world: State) -> None:
    lead_id, conv = _convert(crm, world)
    crm("crm.create_task", subject="Discovery call", due_at=DUE, deal_id=conv["deal_id"])
    assert cp.only_lead_records_created(_ctx(crm, world), lead_id).score == 1.0
    other = next(u.id for u in world.table(USERS) if u.id not in conv["owners"].split())
    crm("crm.create_task", subject="Discovery call", due_at=DUE, deal_id=conv["deal_id"], owner_id=other)
    assert cp.only_lead_records_created(_ctx(crm, world), lead_id).score == 0.0


def _duplicate_pair(world: State) -> tuple[str, str]:
    for c in world.table(CONTACTS):
        if c.merged_into or not c.account_id:
            continue
        twins = [r for r in person_records(world, c.id) if r.id != c.id and not r.merged_into
                 and r.account_id == c.account_id and r.phone]
        if twins:
            return c.id, twins[0].id
    raise AssertionError("no duplicate pair at one account")


def test_a_merge_that_wipes_the_phone_violates_and_one_that_keeps_the_pairs_holds(crm: Caller, world: State) -> None:
    keep, dup = _duplicate_pair(world)
    loser = world.get(CONTACTS, dup)
    assert loser is not None and loser.phone
    crm("crm.merge_contacts", winner_id=keep, loser_id=dup)
    fields = ["email", "secondary_email", "phone"]
    assert cp.contact_edits_within(_ctx(crm, world), [keep], fields, values_from=[keep, dup]).score == 1.0
    crm("crm.update_contact", contact_id=keep, phone=loser.phone)
    assert cp.contact_edits_within(_ctx(crm, world), [keep], fields, values_from=[keep, dup]).score == 1.0
    crm("crm.update_contact", contact_id=keep, phone="000")
    assert cp.contact_edits_within(_ctx(crm, world), [keep], fields).score == 1.0
    outcome = cp.contact_edits_within(_ctx(crm, world), [keep], fields, values_from=[keep, dup])
    assert outcome.score == 0.0
    assert "phone" in outcome.detail


def test_a_task_about_no_record_beside_the_followup_violates(crm: Caller, world: State) -> None:
    d = _open_deal(world)
    crm("crm.create_task", subject="Call back", due_at=DUE, deal_id=d.id)
    assert cd.new_tasks_on(_ctx(crm, world), [d.id]).score == 1.0
    crm("crm.create_task", subject="Clean up your pipeline", due_at=DUE, owner_id=d.owner_id)
    assert cd.new_tasks_on(_ctx(crm, world), [d.id]).score == 0.0


def test_a_deal_pushed_past_its_stage_and_back_violates(crm: Caller, world: State) -> None:
    d = next(x for x in world.table(DEALS) if x.stage == "proposal" and x.amount is not None and x.close_date)
    assert cd.stage_never_past(_ctx(crm, world), d.id, "proposal").score == 1.0
    crm("crm.update_deal_stage", deal_id=d.id, stage="negotiation", next_step="Contract out for signature")
    crm("crm.update_deal_stage", deal_id=d.id, stage="proposal")
    ctx = _ctx(crm, world)
    assert cd.deal_in_stage(ctx, d.id, "proposal").score == 1.0
    outcome = cd.stage_never_past(ctx, d.id, "proposal")
    assert outcome.score == 0.0
    assert "negotiation" in outcome.detail


def test_filler_in_a_task_or_a_next_step_breaks_the_gate(crm: Caller, world: State) -> None:
    d = _open_deal(world)
    crm("crm.update_deal", deal_id=d.id, next_step="Review call to resolve open points")
    crm("crm.create_task", subject="Follow up", due_at=DUE, deal_id=d.id)
    assert cd.texts_say_something(_ctx(crm, world)).score == 1.0
    crm("crm.update_deal", deal_id=d.id, next_step="Lorem ipsum dolor")
    assert cd.texts_say_something(_ctx(crm, world)).score == 0.0


def test_a_task_called_dot_breaks_the_gate(crm: Caller, world: State) -> None:
    d = _open_deal(world)
    crm("crm.create_task", subject=".", due_at=DUE, deal_id=d.id)
    assert cd.texts_say_something(_ctx(crm, world)).score == 0.0


def test_a_backdated_call_breaks_the_gate_and_a_recent_one_does_not(crm: Caller, world: State) -> None:
    d = _open_deal(world)
    crm("crm.log_activity", kind="call", outcome="connected", deal_id=d.id, subject="Call",
        occurred_at=(EPOCH - timedelta(minutes=20)).isoformat())
    assert cd.calls_dated_when_made(_ctx(crm, world), 7200).score == 1.0
    crm("crm.log_activity", kind="call", outcome="connected", deal_id=d.id, subject="Call",
        occurred_at="2019-01-01T00:00:00Z")
    assert cd.calls_dated_when_made(_ctx(crm, world), 7200).score == 0.0


@pytest.mark.parametrize("text", ["Call Manon Paris", "Demo for Acme Corp", "Ping Livia"])
def test_a_short_subject_with_a_foreign_name_is_no_filler(text: str) -> None:
    assert text_flaw(text) is None


@pytest.mark.parametrize("text", ["qwer", "asdf", "uiop", "poiu", "fdsa", "qwerty", "asdfgh", "azerty", "qwerasdf",
                                  "abc", "xyz", "nop", "qwer tyui", "Ann Lee qwer"])
def test_keyboard_and_alphabet_runs_are_noise_though_they_hold_a_vowel(text: str) -> None:
    assert text_flaw(text, names=["Ann Lee"]) is not None


@pytest.mark.parametrize("text", ["Update the property record", "Liberty renewal", "Wert prüfen", "Hijo call",
                                  "Stub out the quote", "Defend the price", "Were they reached?", "Tree review"])
def test_real_words_that_hold_a_short_run_say_something(text: str) -> None:
    assert text_flaw(text) is None


@pytest.mark.parametrize("subject", ["qwer", "asdf", "qwerty", "xyz"])
def test_a_followup_called_by_a_key_run_is_no_followup_and_breaks_the_gate(crm: Caller, world: State,
                                                                             subject: str) -> None:
    d = _open_deal(world)
    crm("crm.create_task", subject=subject, due_at=DUE, deal_id=d.id)
    ctx = _ctx(crm, world)
    assert cd.task_due(ctx, d.id, DUE).score == 0.0
    assert cd.task_within(ctx, d.id, EPOCH.isoformat(), 259200).score == 0.0
    assert cd.texts_say_something(ctx).score == 0.0


_ASK = ("The deal has had no activity for 36 days. Re-engage it: send a personal email to its primary contact, "
        "linked to the deal; record a concrete next step on the deal; and create a follow-up task on the deal due "
        "within the next three days. Do not put the contact in a nurture sequence and do not close the deal.")


@pytest.mark.parametrize("text", ["record a concrete next step on the deal", "Do not close the deal",
                                  "Re-engage it: send a personal email to its primary contact",
                                  "Create a follow-up task on the deal"])
def test_a_next_step_copied_from_the_ask_is_no_next_step(crm: Caller, world: State, text: str) -> None:
    d = _open_deal(world)
    crm("crm.update_deal", deal_id=d.id, next_step=text)
    assert cd.next_step_changed(_ctx(crm, world), d.id, echo_of=_ASK).score == 0.0


@pytest.mark.parametrize("text", ["Review call to resolve open points", "Book a call on the deal's open points",
                                  "Follow up within three days on pricing", "Kurzes Gespräch zu den offenen Punkten"])
def test_a_next_step_of_the_agents_own_words_counts_beside_the_ask(crm: Caller, world: State, text: str) -> None:
    d = _open_deal(world)
    crm("crm.update_deal", deal_id=d.id, next_step=text)
    assert cd.next_step_changed(_ctx(crm, world), d.id, echo_of=_ASK).score == 1.0


def test_a_next_step_copied_from_the_ask_breaks_the_gate_when_the_ask_is_known(crm: Caller, world: State) -> None:
    d = _open_deal(world)
    crm("crm.update_deal", deal_id=d.id, next_step="record a concrete next step on the deal")
    assert cd.texts_say_something(_ctx(crm, world), echo_of=_ASK).score == 0.0
    assert cd.texts_say_something(_ctx(crm, world)).score == 1.0
    crm("crm.update_deal", deal_id=d.id, next_step="Review call to resolve open points")
    assert cd.texts_say_something(_ctx(crm, world), echo_of=_ASK).score == 1.0
