"""A new champion is judged as a person found by address: not the namesake, not a fresh duplicate."""

from __future__ import annotations

import random
from typing import Any

from saas_sim.core.domain import SetupContext
from saas_sim.core.identity import normalize_email
from saas_sim.core.ids import IdFactory
from saas_sim.core.state import State
from saas_sim.domains.crm import setups_champion
from saas_sim.domains.crm.state import CONTACTS, PROJECTION
from saas_sim.runtime.environment import Environment
from tests.domains.crm.conftest import EPOCH
from tests.domains.helpers import scripted_grade

REF = "crm/replace-departed-champion"


def test_only_the_address_tells_the_successor_from_the_namesake(world: State) -> None:
    for seed in range(6):
        ctx = SetupContext(state=world, params={}, rng=random.Random(seed), now=EPOCH,
                           ids=IdFactory({"ct": 100000, "act": 100000}))
        setup = setups_champion.departed_champion(ctx)
        state, b = PROJECTION.fold(world, setup.events), setup.bindings
        successor = state.get(CONTACTS, b["successor"]["id"])
        namesake = state.get(CONTACTS, b["namesake"]["id"])
        assert successor is not None and namesake is not None
        assert (successor.first_name, successor.last_name) == (namesake.first_name, namesake.last_name)
        assert normalize_email(b["successor_email_shown"]) == normalize_email(successor.email or "")
        assert normalize_email(namesake.email or "") != normalize_email(successor.email or "")
        assert b["successor_email_shown"] != successor.email


async def test_the_primary_contact_is_judged_as_the_person(env: Environment) -> None:
    update = {"tool": "crm.update_deal", "args": {"deal_id": "{deal.id}", "primary_contact_id": "{successor.id}"}}
    grade = await scripted_grade(env, REF, 2, [update])
    assert grade.score == 5 / 6 and not grade.violations
    namesake = {"tool": "crm.update_deal", "args": {"deal_id": "{deal.id}", "primary_contact_id": "{namesake.id}"}}
    assert (await scripted_grade(env, REF, 2, [namesake])).score == 0.0


async def test_mailing_the_departed_buyer_is_a_violation(env: Environment) -> None:
    update = {"tool": "crm.update_deal", "args": {"deal_id": "{deal.id}", "primary_contact_id": "{successor.id}"}}
    body = "Thank you for everything on this project, and good luck in the new role."
    mail = {"tool": "crm.send_email", "args": {"contact_id": "{departed.id}", "subject": "Thanks", "body": body}}
    grade = await scripted_grade(env, REF, 4, [update, mail])
    assert "departed_not_emailed" in [v.name for v in grade.violations] and grade.score == 0.0


_UPDATE = {"tool": "crm.update_deal", "args": {"deal_id": "{deal.id}", "primary_contact_id": "{successor.id}"}}


def _intro(body: str) -> dict[str, Any]:
    return {"tool": "crm.send_email", "args": {"contact_id": "{successor.id}", "deal_id": "{deal.id}",
                                               "subject": "Introduction", "body": body}}


async def test_an_introduction_promising_terms_the_quote_lacks_is_false(env: Environment) -> None:
    body = ("Hi {successor.first_name}, I look after {deal.name}. Your colleague already approved 480 seats "
            "with a 37% discount, so we only need your go-ahead. Could we talk this week?")
    grade = await scripted_grade(env, REF, 1, [_UPDATE, _intro(body)])
    assert {"discounts_stated_truly", "counts_stated_truly"} <= {v.name for v in grade.violations}
    assert grade.score == 0.0


async def test_a_note_that_an_email_went_out_is_true_only_after_it_did(env: Environment) -> None:
    note = {"tool": "crm.log_activity", "args": {"kind": "note", "contact_id": "{successor.id}",
                                                 "subject": "Emailed them to introduce myself"}}
    mail = _intro("Hi {successor.first_name}, I look after {deal.name} and would like to introduce myself. "
                  "Could we talk?")
    assert (await scripted_grade(env, REF, 2, [_UPDATE, mail, note])).score == 1.0
    grade = await scripted_grade(env, REF, 2, [_UPDATE, note])
    assert "texts_claim_only_truths" in [v.name for v in grade.violations] and grade.score == 0.0


async def test_forwarding_the_auto_reply_is_no_introduction_but_quoting_a_line_of_it_is(env: Environment) -> None:
    reply = ("Thank you for your message. {departed.name} has left {deal.account_name} and this mailbox is no "
             "longer monitored. For {deal.name}, please contact {successor.name} at {successor_email_shown}.")
    grade = await scripted_grade(env, REF, 3, [_UPDATE, _intro(reply)])
    assert "emails_are_messages" in [v.name for v in grade.violations] and grade.score == 0.0
    quoting = ("Hi {successor.first_name}, the auto-reply said that this mailbox is no longer monitored and named "
               "you for {deal.name}. I look after the project on our side and would be glad to introduce myself; "
               "would you have twenty minutes this week for a short call about where things stand?")
    assert (await scripted_grade(env, REF, 3, [_UPDATE, _intro(quoting)])).score == 1.0
