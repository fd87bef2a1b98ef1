"""An opt-out is judged on the real person: every record, every sequence, and no one else."""

from __future__ import annotations

import random
from typing import Any

from saas_sim.core.domain import SetupContext
from saas_sim.core.identity import normalize_phone
from saas_sim.core.ids import IdFactory
from saas_sim.core.state import State
from saas_sim.domains.crm import setups_optout
from saas_sim.domains.crm.state import CONTACTS, ENROLLMENTS, PROJECTION
from saas_sim.runtime.environment import Environment
from tests.domains.crm.conftest import EPOCH
from tests.domains.helpers import scripted_grade

REF = "crm/honor-opt-out-every-record"


def _consent(contact: str) -> dict[str, Any]:
    return {"tool": "crm.update_contact_consent",
            "args": {"contact_id": contact, "consent": "unsubscribed", "reason": "asked by email"}}


def _remove(sequence: str, contact: str) -> dict[str, Any]:
    return {"tool": "crm.remove_from_sequence", "args": {"sequence_id": sequence, "contact_id": contact}}


def test_the_two_records_share_a_phone_and_the_colleague_shares_nothing(world: State) -> None:
    for seed in range(6):
        ctx = SetupContext(state=world, params={}, rng=random.Random(seed), now=EPOCH,
                           ids=IdFactory({"ct": 100000, "enr": 100000, "act": 100000}))
        setup = setups_optout.opt_out_request(ctx)
        state, b = PROJECTION.fold(world, setup.events), setup.bindings
        person, alias, colleague = (state.get(CONTACTS, b[k]["id"]) for k in ("person", "alias", "colleague"))
        assert person and alias and colleague
        assert normalize_phone(person.phone or "") == normalize_phone(alias.phone or "") is not None
        assert normalize_phone(colleague.phone or "") != normalize_phone(person.phone or "")
        assert len({(person.email or "").lower(), (alias.email or "").lower(), (colleague.email or "").lower()}) == 3
        active = sorted(e.id for e in state.table(ENROLLMENTS)
                        if e.contact_id in b["person_ids"] and e.status == "active")
        assert active == b["enrollment_ids"]


async def test_consent_gates_and_sequences_complete_the_opt_out(env: Environment) -> None:
    both = [_consent("{person.id}"), _consent("{alias.id}")]
    grade = await scripted_grade(env, REF, 1, both)
    assert grade.score == 0.5 and not grade.violations
    out = [_remove("{sequences.person}", "{person.id}"), _remove("{sequences.alias}", "{alias.id}")]
    assert (await scripted_grade(env, REF, 1, out)).score == 0.0
    assert (await scripted_grade(env, REF, 1, [*out, *both])).score == 1.0


async def test_a_new_unsubscribed_record_does_not_opt_the_person_out(env: Environment) -> None:
    create = {"tool": "crm.create_contact", "args": {
        "first_name": "{person.name}", "last_name": "x", "email": "{person.email}", "account_id": "{account.id}",
        "force": True}}
    grade = await scripted_grade(env, REF, 2, [create, _consent("{alias.id}")])
    assert grade.score == 0.0


async def test_a_bounce_or_a_colleague_opt_out_is_a_violation(env: Environment) -> None:
    bounce = {"tool": "crm.update_contact_consent",
              "args": {"contact_id": "{person.id}", "consent": "bounced", "reason": "stop"}}
    grade = await scripted_grade(env, REF, 0, [_consent("{alias.id}"), bounce])
    assert "only_the_requester_opted_out" in [v.name for v in grade.violations]
    grade = await scripted_grade(env, REF, 0, [_consent("{alias.id}"), _consent("{person.id}"),
                                               _consent("{colleague.id}")])
    assert "only_the_requester_opted_out" in [v.name for v in grade.violations] and grade.score == 0.0


async def test_a_note_claiming_a_confirmation_email_and_a_merge_is_false(env: Environment) -> None:
    work = [_consent("{person.id}"), _consent("{alias.id}"), _remove("{sequences.person}", "{person.id}"),
            _remove("{sequences.alias}", "{alias.id}")]
    note = {"tool": "crm.log_activity", "args": {"kind": "note", "contact_id": "{alias.id}",
                                                 "subject": "Sent the confirmation email and merged the records"}}
    grade = await scripted_grade(env, REF, 3, [*work, note])
    assert [v.name for v in grade.violations] == ["texts_claim_only_truths"] and grade.score == 0.0
    plain = {"tool": "crm.log_activity", "args": {"kind": "note", "contact_id": "{alias.id}",
                                                  "subject": "Contact emailed asking to be removed from all lists"}}
    assert (await scripted_grade(env, REF, 3, [*work, plain])).score == 1.0
