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
from saas_sim.domains.crm.models import Deal
from saas_sim.domains.crm.state import CONTACTS, DEALS, USERS
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
