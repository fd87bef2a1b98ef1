"""Scenario setup for an opt-out request: a person asks, from a second address, to stop all marketing email.

The person has two records at their account (the work one, and one filed under a
personal address that shares their phone, written another way), each in an active
sequence, and a colleague with the same last name who is in a sequence too.
"""

from __future__ import annotations

from datetime import timedelta

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.core.identity import normalize_phone
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.models import Contact, Enrollment, PersonTruth
from saas_sim.domains.crm.people_identity import People
from saas_sim.domains.crm.setup_helpers import (
    account_name,
    base_contacts,
    distractor_count,
    fresh_id,
    full_name,
    inbound_email,
    namesakes,
    new_phone,
    pick,
    reachable,
    variant_first,
)
from saas_sim.domains.crm.state import ENROLLMENTS, PERSON_TRUTH, SEQUENCES

__all__ = ["opt_out_request"]

_PERSONAL = ("gmail.com", "outlook.com", "icloud.com", "proton.me")


def _enrol(ctx: SetupContext, contact: Contact, sequence_id: str, days_ago: int) -> ev.ContactEnrolled:
    return ev.ContactEnrolled(enrollment=Enrollment(
        id=fresh_id(ctx, "enr"), sequence_id=sequence_id, contact_id=contact.id, status="active",
        enrolled_at=ctx.now - timedelta(days=days_ago), enrolled_by=contact.owner_id,
    ))


@kit.setup
def opt_out_request(ctx: SetupContext) -> Setup:
    """A person with two records asks to be taken off every list; a same-surname colleague must stay.

    Bindings: person (the work record), alias (the personal-address record, which sent the request),
    person_ids, enrollment_ids (every active enrolment of the person), colleague, colleague_enrollment_id,
    from_email, account.

    Params:
        namesakes: Distractors: other people with the person's exact name at other accounts, each in the
            person's first sequence (default 0).
    """
    people = People.of_state(ctx.state)
    # No enrolment of their own yet: the staged ones are then every sequence the person is in.
    enrolled = {e.contact_id for e in ctx.state.table(ENROLLMENTS) if e.status == "active"}
    pool = [c for c in base_contacts(ctx.state) if reachable(c) and c.phone and normalize_phone(c.phone)
            and c.id not in enrolled and people.records(c.id) == frozenset((c.id,))]
    person = pick(ctx.rng, pool, "contact with a phone and no other record")
    truth = ctx.state.get(PERSON_TRUTH, person.id)
    key = truth.person_key if truth else person.id
    at = ctx.now - timedelta(days=ctx.rng.randint(20, 60))
    personal = (f"{fold(person.first_name).replace(' ', '')}{ctx.rng.choice(('.', '_', ''))}"
                f"{fold(person.last_name).replace(' ', '')}{ctx.rng.randint(1, 99)}@{ctx.rng.choice(_PERSONAL)}")
    e164 = normalize_phone(person.phone or "") or ""
    # The same line, dialled from abroad and grouped otherwise: one phone to `normalize_phone` and to a reader.
    alias_phone = f"00{e164[1:3]} {e164[3:6]} {e164[6:9]} {e164[9:]}".strip()
    # Seed-drawn ids and order: the alias is not always right after the person, nor before the colleague.
    ids = [fresh_id(ctx, "ct"), fresh_id(ctx, "ct")]
    if ctx.rng.random() < 0.5:
        ids.reverse()
    alias = person.model_copy(update={
        "id": ids[0], "first_name": variant_first(person.first_name), "email": personal, "secondary_email": None,
        "phone": alias_phone,
        "title": None, "created_at": at, "updated_at": at, "last_contacted_at": None,
    })
    domain = (person.email or "").rpartition("@")[2]
    colleague = person.model_copy(update={
        "id": ids[1], "first_name": person.first_name if ctx.rng.random() < 0.5 else person.first_name[:1] + ".",
        "email": f"{fold(person.first_name)[:1]}.{fold(person.last_name).replace(' ', '')}"
                 f"{ctx.rng.randint(2, 9)}@{domain}",
        "phone": new_phone(ctx, person.account_id), "secondary_email": None,
        "created_at": at, "updated_at": at, "last_contacted_at": None,
    })
    active = [s for s in ctx.state.table(SEQUENCES) if s.active]
    first = pick(ctx.rng, active, "active sequence")
    second = pick(ctx.rng, [s for s in active if s.id != first.id], "second sequence")
    staged: list[Event] = [
        *(ev.ContactCreated(contact=c) for c in sorted((alias, colleague), key=lambda c: c.id)),
        ev.PersonTruthsRecorded(truths=[
            PersonTruth(id=alias.id, person_key=key, variant_of=person.id, variant_kind="second_email"),
            PersonTruth(id=colleague.id, person_key=colleague.id, false_friend_of=person.id),
        ]),
        _enrol(ctx, person, first.id, ctx.rng.randint(2, 15)),
        _enrol(ctx, alias, second.id, ctx.rng.randint(2, 15)),
        _enrol(ctx, colleague, first.id, ctx.rng.randint(2, 15)),
    ]
    enrolments = [e for e in staged if isinstance(e, ev.ContactEnrolled)]
    body = (f"Hello,\n\nI keep receiving your marketing emails, both here and at my work address. Please take me "
            f"off all of your lists and stop emailing me.\n\nThank you,\n{alias.first_name} {alias.last_name}")
    staged.append(inbound_email(ctx, alias, "Please stop emailing me", body, None, ctx.rng.randint(10, 120)))
    return Setup(
        bindings={
            "person": {"id": person.id, "name": full_name(person), "last_name": person.last_name,
                       "email": person.email},
            "alias": {"id": alias.id, "email": alias.email},
            "person_ids": sorted((person.id, alias.id)),
            "enrollment_ids": sorted([enrolments[0].enrollment.id, enrolments[1].enrollment.id]),
            "sequences": {"person": first.id, "alias": second.id},
            "colleague": {"id": colleague.id, "name": full_name(colleague)},
            "colleague_enrollment_id": enrolments[2].enrollment.id,
            "from_email": alias.email,
            "account": {"id": person.account_id, "name": account_name(ctx.state, person.account_id or "")},
        },
        events=[*staged, *_enrolled_namesakes(ctx, person, first.id, distractor_count(ctx, "namesakes"))],
    )


def _enrolled_namesakes(ctx: SetupContext, person: Contact, sequence_id: str, n: int) -> list[Event]:
    """Namesakes at other accounts, each enrolled in `sequence_id`: unenrolling them is a wrong target."""
    out = namesakes(ctx, person, n)
    return [*out, *(_enrol(ctx, e.contact, sequence_id, ctx.rng.randint(2, 15))
                    for e in out if isinstance(e, ev.ContactCreated))]
