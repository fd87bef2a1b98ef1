"""Checks over a change of champion on a deal, judged on the real people, never on record ids."""

from __future__ import annotations

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.check_helpers import deal
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.people_identity import People

__all__ = ["not_emailed", "primary_contact_is"]


@kit.check
def primary_contact_is(ctx: CheckContext, deal_id: str, contact_id: str) -> CheckOutcome:
    """The deal's primary contact is a record of the person behind `contact_id`.

    Any record of the person counts; a new record for them is still them, and
    `no_new_duplicate_people` is what charges for having filed it.
    """
    primary = deal(ctx.final, deal_id).primary_contact_id
    ok = primary is not None and People.of_episode(ctx.initial, ctx.final).same(contact_id, primary)
    return CheckOutcome.of(ok, f"deal {deal_id}'s primary contact is {primary} (expected the person of {contact_id})")


@kit.check
def not_emailed(ctx: CheckContext, contact_id: str) -> CheckOutcome:
    """No one-off email or sequence step went to any record of the person behind `contact_id` (a constraint).

    A person who has left reads nothing; mail to their address reaches whoever inherited the mailbox.
    """
    people = People.of_episode(ctx.initial, ctx.final)
    hits = sorted({e.activity.id for e in ctx.events if isinstance(e, ev.EmailSent)
                   and e.activity.contact_id is not None and people.same(contact_id, e.activity.contact_id)})
    return CheckOutcome.of(not hits, f"emails to the person of {contact_id}: {hits}" if hits else "not emailed")
