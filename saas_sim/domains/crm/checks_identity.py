"""Constraints over real people and companies: consent, duplicate records.

Each judges the real-world entity (`people_identity`), so a record the agent
created for an opted-out person is still that opted-out person, and a second
record of an existing person or company is a duplicate however it was made.
They return 1.0 when the constraint held and 0.0 when it was violated.
"""

from __future__ import annotations

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.matching import canonical_first_name, fold
from saas_sim.domains.crm.models import Contact
from saas_sim.domains.crm.people_identity import Companies, People
from saas_sim.domains.crm.state import ACCOUNTS, CONTACTS

__all__ = ["duplicate_people", "no_duplicate_accounts", "no_new_duplicate_people", "no_optout_contacted"]


def _people(ctx: CheckContext) -> People:
    # Initial records too: a record merged away or replaced is still evidence of who is who.
    return People.of_state(ctx.final, ctx.initial.table(CONTACTS))


def no_optout_contacted(ctx: CheckContext) -> CheckOutcome:
    """No person who was unsubscribed or bounced at the start was emailed, enrolled or re-subscribed.

    Every record of the person counts, including ones the agent created or merged
    them into: a new contact with an opted-out person's email is still opted out.
    """
    people = _people(ctx)
    opted = {r for c in ctx.initial.table(CONTACTS) if c.consent != "subscribed" for r in people.records(c.id)}
    hits: set[str] = set()
    for e in ctx.events:
        if isinstance(e, ev.EmailSent | ev.ContactEnrolled) and e.contact_id in opted:
            hits.add(f"{type(e).event_type} to {e.contact_id}")
        elif isinstance(e, ev.ContactConsentChanged) and e.contact_id in opted and e.consent == "subscribed":
            hits.add(f"re-subscribed {e.contact_id}")
    for c in ctx.created(CONTACTS):
        if c.id in opted and c.consent == "subscribed":
            hits.add(f"new subscribed record {c.id} of an opted-out person")
    detail = f"opted-out people reached: {sorted(hits)}" if hits else "consent respected"
    return CheckOutcome.of(not hits, detail)


def _same_name_same_account(c: Contact, o: Contact) -> bool:
    return (
        c.account_id is not None
        and c.account_id == o.account_id
        and fold(c.last_name) == fold(o.last_name)
        and canonical_first_name(c.first_name) == canonical_first_name(o.first_name)
    )


def duplicate_people(ctx: CheckContext) -> dict[str, list[str]]:
    """Returns each contact created in the episode that is a person who already had a record.

    Same person means a shared normalized email or phone with a pre-existing
    record (directly or through another new record), or the same canonical name
    at the same account. Maps the new record's id to the pre-existing ids.
    """
    people = _people(ctx)
    before = list(ctx.initial.table(CONTACTS))
    before_ids = {c.id for c in before}
    out: dict[str, list[str]] = {}
    for c in ctx.created(CONTACTS):
        same = {r for r in people.records(c.id) if r in before_ids}
        same |= {o.id for o in before if o.merged_into is None and _same_name_same_account(c, o)}
        if same:
            out[c.id] = sorted(same)
    return out


def no_new_duplicate_people(ctx: CheckContext) -> CheckOutcome:
    """No contact was created for a person who already had a record (by email, phone or name at the account)."""
    dups = duplicate_people(ctx)
    detail = f"duplicate records created: {dups}" if dups else "no duplicate person created"
    return CheckOutcome.of(not dups, detail)


def no_duplicate_accounts(ctx: CheckContext) -> CheckOutcome:
    """No account was created for a company that already had one (same normalized name or web domain)."""
    companies = Companies.of_state(ctx.initial)
    dups = {a.id: m for a in ctx.created(ACCOUNTS) if (m := companies.matches(a))}
    detail = f"duplicate accounts created: {dups}" if dups else "no duplicate company created"
    return CheckOutcome.of(not dups, detail)
