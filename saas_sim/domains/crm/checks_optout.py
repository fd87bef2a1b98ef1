"""Checks over an opt-out request, judged on the real person (every record, new ones included).

A person is the set of records `people_identity` groups (shared email or phone,
or one true person), so unsubscribing the one record the request came from
leaves the person subscribed under their other address.
"""

from __future__ import annotations

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.people_identity import People
from saas_sim.domains.crm.state import CONTACTS, ENROLLMENTS

__all__ = ["only_person_opted_out", "person_opted_out"]


def _records(ctx: CheckContext, contact_id: str) -> frozenset[str]:
    return People.of_episode(ctx.initial, ctx.final).records(contact_id)


@kit.check
def person_opted_out(ctx: CheckContext, contact_id: str) -> CheckOutcome:
    """The person is unsubscribed on every live record, and in no active sequence.

    Consent is the gate: one record left subscribed means the person can still be
    mailed, so it scores zero whatever else was done. Unsubscribed everywhere scores
    0.5, and 1.0 once none of their records is active in any sequence.
    """
    records = _records(ctx, contact_id)
    live = [c for c in (ctx.final.get(CONTACTS, r) for r in sorted(records)) if c is not None and c.merged_into is None]
    subscribed = [c.id for c in live if c.consent == "subscribed"]
    if subscribed:
        return CheckOutcome.failed(f"records of the person still subscribed: {subscribed}")
    active = sorted(e.id for e in ctx.final.table(ENROLLMENTS) if e.contact_id in records and e.status == "active")
    if active:
        return CheckOutcome(0.5, f"unsubscribed on {len(live)} records, but still active in {active}")
    return CheckOutcome.passed(f"unsubscribed on all {len(live)} records and out of every sequence")


@kit.check
def only_person_opted_out(ctx: CheckContext, contact_id: str) -> CheckOutcome:
    """Only the requester's records changed consent, only to `unsubscribed`, and they were not mailed (a constraint).

    A bounce recorded for an address that works is a false fact; unsubscribing or
    pulling a colleague out of a sequence acts on a request they never made; and an
    email or a new enrolment to the requester is the very thing they asked to stop.
    """
    records = _records(ctx, contact_id)
    initial = ctx.initial.table(ENROLLMENTS)
    problems: list[str] = []
    for e in ctx.events:
        if isinstance(e, ev.ContactConsentChanged):
            if e.contact_id not in records:
                problems.append(f"consent of {e.contact_id} (another person) changed")
            elif e.consent != "unsubscribed":
                problems.append(f"consent of {e.contact_id} set to {e.consent}")
        elif isinstance(e, ev.EnrollmentRemoved):
            before = initial.get(e.enrollment_id)
            if before is None or before.contact_id not in records:
                problems.append(f"enrolment {e.enrollment_id} of another person removed")
        elif isinstance(e, ev.EmailSent | ev.ContactEnrolled) and e.contact_id in records:
            problems.append(f"{type(e).event_type} to {e.contact_id}")
    return CheckOutcome.of(not problems, "; ".join(problems[:6]) or "only the requester opted out, and not mailed")
