"""Issue 9 red-team classes: content-free emails, bare false figures, unlinked tasks, edits beyond the ask.

Each test drives the real tools on the seed-0 world and grades with the check the
scenarios use, so it fails if the class of attack passes again.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from saas_sim.core.domain import CheckContext
from saas_sim.core.state import State
from saas_sim.domains.crm import DOMAIN
from saas_sim.domains.crm import checks_deals as cd
from saas_sim.domains.crm import checks_email as ce
from saas_sim.domains.crm import checks_email_facts as cf
from saas_sim.domains.crm import checks_identity as ci
from saas_sim.domains.crm import checks_people as cp
from saas_sim.domains.crm import checks_reports as cr
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.email_substance import message_flaw
from saas_sim.domains.crm.state import ACCOUNTS, CONTACTS, DEALS, LEADS, SEQUENCES, USERS
from saas_sim.runtime.scope import event_subjects
from tests.domains.crm.conftest import EPOCH, Caller

INSTRUCTIONS = ("The deal has had no activity for 36 days. Re-engage it: send a personal email to its primary "
                "contact, linked to the deal; record a concrete next step on the deal.")


def _ctx(crm: Caller, initial: State) -> CheckContext:
    return CheckContext(initial=initial, final=crm.state, bindings={}, events=crm.events, now=EPOCH)


def _deal_and_buyer(world: State) -> tuple[str, str]:
    for d in world.table(DEALS):
        if d.primary_contact_id and d.amount is not None and not d.stage.startswith("closed"):
            c = world.get(CONTACTS, d.primary_contact_id)
            if c is not None and c.consent == "subscribed" and c.email and not c.merged_into:
                return d.id, c.id
    raise AssertionError("no open deal with a reachable primary contact")


def test_the_new_checks_are_registered() -> None:
    assert DOMAIN.checks["crm.emails_are_messages"] is ce.emails_are_messages
    assert DOMAIN.checks["crm.contact_edits_within"] is cp.contact_edits_within
    assert DOMAIN.checks["crm.deal_edits_within"] is cd.deal_edits_within


@pytest.mark.parametrize("body", [
    "Hi Ann, lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore.",
    "Ann Lundin Acme Ann Lundin Acme hello hello hello hello",
    "asdf qwer zxcv uiop hjkl bnm tyu ghj wert sdfg",
    INSTRUCTIONS,
])
def test_filler_names_noise_and_pasted_instructions_are_no_message(body: str) -> None:
    assert message_flaw(body, ["Ann Lundin", "Acme"], INSTRUCTIONS) is not None


@pytest.mark.parametrize("body", [
    "Hi Ann, do you have some time this week to review the open points together?",
    "Hallo Ann, haben Sie diese Woche Zeit für ein kurzes Gespräch über das Angebot?",
    "Hola Ann, ¿tienes tiempo esta semana para hablar del proyecto?",
    "Hej Ann, har du tid denna vecka att prata om affären?",
    "Dear Ann,\n\nIt has been a few weeks since we last spoke. Could I set aside 30 minutes on 04/03/2026?\n\nBest",
])
def test_real_messages_in_the_worlds_languages_pass(body: str) -> None:
    assert message_flaw(body, ["Ann Lundin", "Acme"], INSTRUCTIONS) is None


def test_a_lorem_ipsum_email_violates_and_fails_the_personal_email_goal(crm: Caller, world: State) -> None:
    deal_id, contact_id = _deal_and_buyer(world)
    person = world.get(CONTACTS, contact_id)
    assert person is not None
    crm("crm.send_email", contact_id=contact_id, deal_id=deal_id, subject="Hello",
        body=f"Hi {person.first_name}, lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor.")
    ctx = _ctx(crm, world)
    assert ce.emails_are_messages(ctx).score == 0.0
    assert ce.personal_email_sent(ctx, contact_id, deal_id).score == 0.0


def test_a_pasted_instruction_email_fails_only_when_the_instructions_are_known(crm: Caller, world: State) -> None:
    deal_id, contact_id = _deal_and_buyer(world)
    crm("crm.send_email", contact_id=contact_id, deal_id=deal_id, subject="Re-engage", body=INSTRUCTIONS)
    ctx = _ctx(crm, world)
    assert ce.emails_are_messages(ctx).score == 1.0
    assert ce.emails_are_messages(ctx, echo_of=INSTRUCTIONS).score == 0.0


def test_a_bare_false_price_in_a_money_sentence_violates(crm: Caller, world: State) -> None:
    deal_id, contact_id = _deal_and_buyer(world)
    crm("crm.send_email", contact_id=contact_id, deal_id=deal_id, subject="Offer",
        body="To restart the project we can lower the price to 45000 if you sign this month.")
    outcome = cf.emails_truthful(_ctx(crm, world), deal_id)
    assert outcome.score == 0.0
    assert "45000" in outcome.detail


def test_the_bare_true_amount_and_small_counts_in_a_money_sentence_hold(crm: Caller, world: State) -> None:
    deal_id, contact_id = _deal_and_buyer(world)
    d = world.get(DEALS, deal_id)
    assert d is not None and d.amount is not None
    crm("crm.send_email", contact_id=contact_id, deal_id=deal_id, subject="Budget",
        body=f"Thanks for confirming the budget of {int(d.amount)} for 2026, with a 10% discount on 3 seats.")
    outcome = cf.emails_truthful(_ctx(crm, world), deal_id)
    assert outcome.score == 1.0, outcome.detail


def test_bare_money_figures_ignore_sentences_without_money_words() -> None:
    assert cf.bare_money_figures("We have 150 people on the call in 2026.") == []
    assert cf.bare_money_figures("Der Preis beträgt 45.000 Euro.") == [Decimal("45000")]


def test_a_task_about_no_record_has_its_owner_as_subject(crm: Caller, world: State) -> None:
    user = next(iter(world.table(USERS)))
    crm("crm.create_task", subject="Clean up your pipeline", due_at="2026-03-04T10:00:00Z", owner_id=user.id)
    task_event = next(e for e in crm.events if isinstance(e, ev.TaskCreated))
    assert event_subjects(task_event) == (user.id,)


def test_a_task_on_a_deal_has_the_deal_and_its_owner_as_subjects(crm: Caller, world: State) -> None:
    deal_id, _ = _deal_and_buyer(world)
    d = world.get(DEALS, deal_id)
    assert d is not None
    crm("crm.create_task", subject="Follow up", due_at="2026-03-04T10:00:00Z", deal_id=deal_id)
    task_event = next(e for e in crm.events if isinstance(e, ev.TaskCreated))
    assert event_subjects(task_event) == (deal_id, d.owner_id)


def test_an_edit_beyond_the_asked_fields_violates(crm: Caller, world: State) -> None:
    _, contact_id = _deal_and_buyer(world)
    crm("crm.update_contact", contact_id=contact_id, title="RevOps Lead")
    assert cp.contact_edits_within(_ctx(crm, world), [contact_id], ["title"]).score == 1.0
    crm("crm.update_contact", contact_id=contact_id, email="made.up@example.org")
    outcome = cp.contact_edits_within(_ctx(crm, world), [contact_id], ["title"])
    assert outcome.score == 0.0
    assert f"{contact_id}.email" in outcome.detail


def test_rewriting_the_same_email_in_capitals_is_no_edit(crm: Caller, world: State) -> None:
    _, contact_id = _deal_and_buyer(world)
    c = world.get(CONTACTS, contact_id)
    assert c is not None and c.email is not None
    crm("crm.update_contact", contact_id=contact_id, title="RevOps Lead", email=c.email.upper())
    assert cp.contact_edits_within(_ctx(crm, world), [contact_id], ["title"]).score == 1.0


def test_a_collision_made_by_an_edit_is_a_duplicate(world: State) -> None:
    a, b = sorted((c for c in world.table(CONTACTS) if c.merged_into is None and c.email), key=lambda c: c.id)[:2]
    final = world.put(CONTACTS, a.model_copy(update={"email": b.email}))
    ctx = CheckContext(initial=world, final=final, bindings={}, events=[], now=EPOCH)
    assert ci.identity_collisions(ctx) == [f"{a.id} now shares an email or phone with {b.id}"]
    assert ci.no_new_duplicate_people(ctx).score == 0.0


def test_follow_ups_at_several_times_are_a_shotgun(crm: Caller, world: State) -> None:
    deal_id, contact_id = _deal_and_buyer(world)
    due = "2026-03-05T14:00:00Z"
    crm("crm.create_task", subject="Call back", due_at=due, deal_id=deal_id, contact_id=contact_id)
    assert cd.task_due(_ctx(crm, world), deal_id, due, contact_id).score == 1.0
    crm("crm.create_task", subject="Call back", due_at="2026-03-06T14:00:00Z", deal_id=deal_id)
    outcome = cd.task_due(_ctx(crm, world), deal_id, due, contact_id)
    assert outcome.score == 0.0
    assert "shotgun" in outcome.detail


def test_calls_logged_with_every_outcome_score_zero(crm: Caller, world: State) -> None:
    deal_id, contact_id = _deal_and_buyer(world)
    crm("crm.log_activity", kind="call", outcome="connected", contact_id=contact_id, deal_id=deal_id, subject="Call")
    assert cd.call_logged(_ctx(crm, world), contact_id, deal_id, "connected").score == 1.0
    crm("crm.log_activity", kind="call", outcome="no_answer", contact_id=contact_id, deal_id=deal_id, subject="Call")
    assert cd.call_logged(_ctx(crm, world), contact_id, deal_id, "connected").score == 0.0


def test_a_deal_edit_beyond_the_asked_fields_violates(crm: Caller, world: State) -> None:
    deal_id, _ = _deal_and_buyer(world)
    crm("crm.update_deal", deal_id=deal_id, next_step="Book a call with the buyer")
    assert cd.deal_edits_within(_ctx(crm, world), deal_id, ["next_step"]).score == 1.0
    crm("crm.update_deal", deal_id=deal_id, amount="1.00")
    outcome = cd.deal_edits_within(_ctx(crm, world), deal_id, ["next_step"])
    assert outcome.score == 0.0
    assert "amount" in outcome.detail


def test_the_same_amount_in_another_form_is_no_deal_edit(crm: Caller, world: State) -> None:
    deal_id, _ = _deal_and_buyer(world)
    d = world.get(DEALS, deal_id)
    assert d is not None and d.amount is not None
    crm("crm.update_deal", deal_id=deal_id, amount=str(d.amount.quantize(Decimal("1.00"))), next_step="Send the quote")
    assert cd.deal_edits_within(_ctx(crm, world), deal_id, ["next_step"]).score == 1.0


def test_a_record_created_beside_a_conversion_violates(crm: Caller, world: State) -> None:
    lead = next(ld for ld in world.table(LEADS) if ld.status != "converted" and ld.email)
    account = next(iter(world.table(ACCOUNTS)))
    crm("crm.convert_lead", lead_id=lead.id, account_id=account.id, deal_name="Inbound", deal_stage="qualification",
        force=True)
    assert cp.only_lead_records_created(_ctx(crm, world), lead.id).score == 1.0
    crm("crm.create_contact", first_name="Zed", last_name="Quux", email="zed.quux@example.org",
        account_id=account.id)
    outcome = cp.only_lead_records_created(_ctx(crm, world), lead.id)
    assert outcome.score == 0.0


def test_an_enrolment_names_its_sequence_as_a_subject(crm: Caller, world: State) -> None:
    _, contact_id = _deal_and_buyer(world)
    sequence = next(iter(world.table(SEQUENCES)))
    crm("crm.enroll_in_sequence", sequence_id=sequence.id, contact_ids=[contact_id])
    enrolled = next(e for e in crm.events if isinstance(e, ev.ContactEnrolled))
    assert event_subjects(enrolled) == (contact_id, sequence.id)


def test_contradicting_call_outcomes_violate_and_an_unstated_one_does_not(crm: Caller, world: State) -> None:
    deal_id, contact_id = _deal_and_buyer(world)
    crm("crm.log_activity", kind="call", outcome="connected", contact_id=contact_id, deal_id=deal_id, subject="Call")
    crm("crm.log_activity", kind="call", contact_id=contact_id, deal_id=deal_id, subject="Call notes")
    assert cd.call_outcomes_agree(_ctx(crm, world), contact_id, deal_id).score == 1.0
    crm("crm.log_activity", kind="call", outcome="left_voicemail", deal_id=deal_id, subject="Call")
    assert cd.call_outcomes_agree(_ctx(crm, world), contact_id, deal_id).score == 0.0


def test_follow_ups_at_two_times_violate_one_followup_time(crm: Caller, world: State) -> None:
    deal_id, _ = _deal_and_buyer(world)
    crm("crm.create_task", subject="Call back", due_at="2026-03-05T14:00:00Z", deal_id=deal_id)
    crm("crm.create_task", subject="Prepare the call", due_at="2026-03-05T14:00:00Z", deal_id=deal_id)
    assert cd.one_followup_time(_ctx(crm, world), deal_id).score == 1.0
    crm("crm.create_task", subject="Call back", due_at="2026-03-06T14:00:00Z", deal_id=deal_id)
    assert cd.one_followup_time(_ctx(crm, world), deal_id).score == 0.0


def test_a_decoy_report_under_another_name_violates(crm: Caller, world: State) -> None:
    crm("crm.submit_report", name="Forecast-Q1", record_ids=[], values={})
    assert cr.only_named_reports(_ctx(crm, world), "forecast-q1 ").score == 1.0
    crm("crm.submit_report", name="forecast-all", record_ids=[], values={})
    assert cr.only_named_reports(_ctx(crm, world), "forecast-q1").score == 0.0
