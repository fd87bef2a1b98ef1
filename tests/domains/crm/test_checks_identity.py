"""Issue 9 checks: people by identity, emails by what was sent, staged ids drawn from the seed."""

from __future__ import annotations

import random

from saas_sim.core.domain import CheckContext, SetupContext
from saas_sim.core.ids import IdFactory
from saas_sim.core.state import State
from saas_sim.domains.crm import checks_deals as cd
from saas_sim.domains.crm import checks_email as ce
from saas_sim.domains.crm import checks_identity as ci
from saas_sim.domains.crm import setups_people
from saas_sim.domains.crm.state import CONTACTS, DEALS
from tests.domains.crm import picks
from tests.domains.crm.conftest import EPOCH, Caller


def _ctx(crm: Caller, initial: State) -> CheckContext:
    return CheckContext(initial=initial, final=crm.state, bindings={}, events=crm.events, now=EPOCH)


def test_a_new_contact_with_an_opted_out_email_is_still_opted_out(crm: Caller, world: State) -> None:
    c = picks.contact(world, "unsubscribed")
    assert c.email is not None
    made = crm("crm.create_contact", first_name="New", last_name="Record", email=c.email.upper(),
               owner_id=c.owner_id, force=True).contact
    assert ci.no_optout_contacted(_ctx(crm, world)).score == 0.0
    assert made.id in ci.duplicate_people(_ctx(crm, world))


def test_a_new_record_of_an_existing_person_is_a_duplicate(crm: Caller, world: State) -> None:
    c = picks.contact(world)
    assert ci.no_new_duplicate_people(_ctx(crm, world)).score == 1.0
    crm("crm.create_contact", first_name="Someone", last_name="Else", email=f"  {(c.email or '').upper()} ",
        owner_id=c.owner_id, force=True)
    assert ci.no_new_duplicate_people(_ctx(crm, world)).score == 0.0


def _deal_with_reachable_contact(world: State) -> tuple[str, str]:
    for d in world.table(DEALS):
        if d.primary_contact_id and not d.stage.startswith("closed"):
            c = world.get(CONTACTS, d.primary_contact_id)
            if c is not None and c.consent == "subscribed" and c.email and not c.merged_into:
                return d.id, c.id
    raise AssertionError("no deal with a reachable primary contact")


def test_an_email_with_a_dot_body_is_not_a_personal_email(crm: Caller, world: State) -> None:
    deal_id, contact_id = _deal_with_reachable_contact(world)
    crm("crm.send_email", contact_id=contact_id, deal_id=deal_id, subject=".", body=".")
    assert ce.personal_email_sent(_ctx(crm, world), contact_id, deal_id).score == 0.0


def test_a_logged_email_activity_is_not_a_sent_email(crm: Caller, world: State) -> None:
    deal_id, contact_id = _deal_with_reachable_contact(world)
    name = next(c.first_name for c in world.table(CONTACTS) if c.id == contact_id)
    body = f"Hi {name}, could we find some time this week to go through the open points of the proposal?"
    crm("crm.log_activity", kind="email", contact_id=contact_id, deal_id=deal_id, subject="Follow up", body=body)
    assert ce.personal_email_sent(_ctx(crm, world), contact_id, deal_id).score == 0.0
    crm("crm.send_email", contact_id=contact_id, deal_id=deal_id, subject="Follow up", body=body)
    assert ce.personal_email_sent(_ctx(crm, world), contact_id, deal_id).score == 1.0


def test_a_next_step_of_one_word_is_not_concrete(crm: Caller, world: State) -> None:
    deal_id, _ = _deal_with_reachable_contact(world)
    crm("crm.update_deal", deal_id=deal_id, next_step="hello")
    assert cd.next_step_changed(_ctx(crm, world), deal_id).score == 0.0
    crm("crm.update_deal", deal_id=deal_id, next_step="Review call with the buyer")
    assert cd.next_step_changed(_ctx(crm, world), deal_id).score == 1.0


def test_staged_duplicate_ids_differ_across_seeds(world: State) -> None:
    counters = {"ct": max(int(c.id.split("_")[1]) for c in world.table(CONTACTS))}
    ids = set()
    for seed in range(8):
        ctx = SetupContext(state=world, params={}, rng=random.Random(seed), now=EPOCH, ids=IdFactory(counters))
        b = setups_people.duplicate_pair(ctx).bindings
        ids.add(b["dup_id"])
    # Eight seeds, ids drawn after a gap of 1-40: a constant would give one id.
    assert len(ids) >= 4
