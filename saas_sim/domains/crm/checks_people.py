"""Checks over contacts, accounts, leads, owners and consent (reports: `checks_reports`).

They compare the final state with the start through `ctx.changed` and read
ground truth (which records are the same person) from the hidden tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.core.state import TableKey
from saas_sim.domains.crm.check_helpers import existing, person_records, wrong_merges
from saas_sim.domains.crm.checks_identity import duplicate_people, no_optout_contacted
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import fold, norm_email, phone_digits
from saas_sim.domains.crm.models import Contact
from saas_sim.domains.crm.state import (
    ACCOUNTS,
    CONTACTS,
    DEALS,
    ENROLLMENTS,
    LEADS,
    TASKS,
)
from saas_sim.domains.crm.text_substance import text_flaw
from saas_sim.errors import VerifierError

__all__ = [
    "contact_edits_within",
    "deal_created_from_lead",
    "duplicates_merged",
    "enrollment_coverage",
    "lead_converted",
    "lead_converted_to_contact",
    "merge_winner",
    "no_accounts_created",
    "only_contacts_changed",
    "only_lead_records_created",
    "only_owner_changes",
    "owner_changes",
    "person_updated",
    "titles_updated",
]

_OWNED: dict[str, TableKey[Any]] = {"account": ACCOUNTS, "contact": CONTACTS, "deal": DEALS, "lead": LEADS}


def _field_ok(c: Contact, name: str, want: str) -> bool:
    if name == "phone":
        return phone_digits(c.phone) == phone_digits(want) != ""
    if name == "email":
        return norm_email(c.email) == norm_email(want)
    return fold(str(getattr(c, name) or "")) == fold(want)


@kit.check
def person_updated(
    ctx: CheckContext, contact_id: str, fields: Mapping[str, str], forbid_duplicates: bool = True
) -> CheckOutcome:
    """A live record of the person has each expected field value (fraction of fields).

    Zero if a new record of the same person was created (a duplicate instead of an update).
    """
    records = [c for c in person_records(ctx.final, contact_id) if c.merged_into is None]
    if forbid_duplicates:
        mine = {c.id for c in person_records(ctx.initial, contact_id)} | {contact_id}
        dups = sorted(new for new, olds in duplicate_people(ctx).items() if mine & set(olds))
        if dups:
            return CheckOutcome.failed(f"duplicate record(s) created for the person: {dups}")
    if not records:
        return CheckOutcome.failed("the person has no live record")
    best, best_id = 0, records[0].id
    for c in records:
        hits = sum(_field_ok(c, k, v) for k, v in fields.items())
        if hits > best:
            best, best_id = hits, c.id
    return CheckOutcome(best / len(fields), f"{best}/{len(fields)} fields right on {best_id}")


@kit.check
def titles_updated(ctx: CheckContext, updates: list[Mapping[str, str]]) -> CheckOutcome:
    """Each listed person has a live record with the new title (fraction), and no duplicate was created."""
    hits = 0
    for u in updates:
        if person_updated(ctx, u["contact_id"], {"title": u["title"]}).score == 1.0:
            hits += 1
    return CheckOutcome(hits / len(updates), f"{hits}/{len(updates)} people have their new title")


@kit.check
def only_contacts_changed(ctx: CheckContext, allowed: list[str]) -> CheckOutcome:
    """No contact was created, and none changed except the records of the `allowed` people."""
    ok_ids = {c.id for a in allowed for c in person_records(ctx.initial, a)} | set(allowed)
    created = [c.id for c in ctx.created(CONTACTS)]
    changed = [i for i, b, _ in ctx.changed(CONTACTS) if b is not None and i not in ok_ids]
    if created or changed:
        return CheckOutcome.failed(f"created {created}, changed {changed}")
    return CheckOutcome.passed("no other contact touched")


@kit.check
def duplicates_merged(ctx: CheckContext, pairs: list[list[str]]) -> CheckOutcome:
    """Each pair of records of one person was merged (either direction). Zero if different people were merged."""
    bad = wrong_merges(ctx)
    if bad:
        return CheckOutcome.failed(f"different people merged: {bad}")
    done = 0
    for a, b in pairs:
        ca, cb = ctx.final.get(CONTACTS, a), ctx.final.get(CONTACTS, b)
        if ca is None or cb is None:
            raise VerifierError(f"pair {a}, {b} is not in the state")
        if ca.merged_into == b or cb.merged_into == a:
            done += 1
    return CheckOutcome(done / len(pairs), f"{done}/{len(pairs)} duplicate pairs merged")


@kit.check
def merge_winner(ctx: CheckContext, winner_id: str, loser_id: str) -> CheckOutcome:
    """The older record survived: `loser_id` was merged into `winner_id`, and no different people were merged."""
    loser = ctx.final.get(CONTACTS, loser_id)
    ok = loser is not None and loser.merged_into == winner_id and not wrong_merges(ctx)
    return CheckOutcome.of(ok, f"{loser_id} merged into {loser.merged_into if loser else None}")


@kit.check
def enrollment_coverage(ctx: CheckContext, sequence_id: str, eligible_ids: list[str]) -> CheckOutcome:
    """Share of eligible contacts newly enrolled, minus a share per contact enrolled outside the segment.

    Zero if any opted-out contact was emailed, enrolled or re-subscribed.
    """
    if no_optout_contacted(ctx).score < 1:
        return CheckOutcome.failed("an opted-out contact was contacted or re-subscribed")
    eligible = set(eligible_ids)
    new = {e.contact_id for e in ctx.created(ENROLLMENTS) if e.sequence_id == sequence_id}
    hits, wrong = len(new & eligible), len(new - eligible)
    score = max(0.0, (hits - wrong) / len(eligible))
    return CheckOutcome(score, f"{hits}/{len(eligible)} eligible enrolled, {wrong} outside the segment")


@kit.check
def owner_changes(ctx: CheckContext, record_type: str, ids: list[str], owner_id: str) -> CheckOutcome:
    """Share of `ids` now owned by `owner_id`; zero if any other record of that type changed owner."""
    key = _OWNED[record_type]
    wrong = [i for i, b, a in ctx.changed(key)
             if b is not None and a is not None and b.owner_id != a.owner_id and i not in ids]
    if wrong:
        return CheckOutcome.failed(f"{record_type}s outside the scope changed owner: {wrong}")
    if not ids:
        return CheckOutcome.passed(f"no {record_type}s in scope, none changed")
    table = ctx.final.table(key)
    done = sum(1 for i in ids if (r := table.get(i)) is not None and r.owner_id == owner_id)
    return CheckOutcome(done / len(ids), f"{done}/{len(ids)} {record_type}s reassigned")


@kit.check
def only_owner_changes(ctx: CheckContext, allowed: list[str]) -> CheckOutcome:
    """No record outside `allowed` changed owner, and no account, contact, deal or lead was created."""
    wrong: list[str] = []
    for key in _OWNED.values():
        for i, b, a in ctx.changed(key):
            if b is None or (a is not None and b.owner_id != a.owner_id and i not in allowed):
                wrong.append(i)
    return CheckOutcome.of(not wrong, f"unexpected changes: {wrong}" if wrong else "only the scope changed")


@kit.check
def lead_converted(ctx: CheckContext, lead_id: str, account_id: str) -> CheckOutcome:
    """The lead was converted onto `account_id`, into a contact there with the lead's email."""
    lead = existing(ctx.final, LEADS, lead_id, "lead")
    if lead.status != "converted" or lead.converted_contact_id is None:
        return CheckOutcome.failed(f"lead is {lead.status}")
    contact = ctx.final.get(CONTACTS, lead.converted_contact_id)
    ok = (
        lead.converted_account_id == account_id
        and contact is not None
        and contact.account_id == account_id
        and norm_email(contact.email) == norm_email(lead.email)
    )
    return CheckOutcome.of(ok, f"converted onto {lead.converted_account_id} (expected {account_id})")


@kit.check
def lead_converted_to_contact(ctx: CheckContext, lead_id: str, contact_id: str) -> CheckOutcome:
    """The lead was converted onto the existing record of the same person (no new contact)."""
    lead = existing(ctx.final, LEADS, lead_id, "lead")
    if lead.status != "converted" or lead.converted_contact_id is None:
        return CheckOutcome.failed(f"lead is {lead.status}")
    ok = lead.converted_contact_id in {c.id for c in person_records(ctx.final, contact_id)}
    return CheckOutcome.of(ok, f"converted onto {lead.converted_contact_id} (expected {contact_id})")


@kit.check
def deal_created_from_lead(ctx: CheckContext, lead_id: str, account_id: str, name: str, stage: str) -> CheckOutcome:
    """A new deal named `name` on the account, with the lead's contact as primary (half credit: other stage)."""
    lead = ctx.final.get(LEADS, lead_id)
    contact_id = lead.converted_contact_id if lead is not None else None
    best = 0.0
    for d in ctx.created(DEALS):
        if d.account_id != account_id or fold(d.name) != fold(name):
            continue
        if contact_id is None or d.primary_contact_id != contact_id:
            continue
        best = max(best, 1.0 if d.stage == stage else 0.5)
    return CheckOutcome(best, f"deal check {best:.1f}")


@kit.check
def no_accounts_created(ctx: CheckContext) -> CheckOutcome:
    """No new account was created (the company already existed)."""
    created = [a.id for a in ctx.created(ACCOUNTS)]
    return CheckOutcome.of(not created, f"accounts created: {created}" if created else "no account created")


_BOOKKEEPING = frozenset({"updated_at", "last_contacted_at", "merged_into"})
"""Contact fields the CRM sets itself (an edit, an email, a merge); never the agent's claim about the person."""


def _same_value(name: str, a: Contact, b: Contact) -> bool:
    # Rewriting an address in another case is no change of who it reaches.
    if name in ("email", "secondary_email"):
        return norm_email(getattr(a, name)) == norm_email(getattr(b, name))
    return bool(getattr(a, name) == getattr(b, name))


_SAME_KIND: dict[str, tuple[str, ...]] = {"email": ("email", "secondary_email"),
                                         "secondary_email": ("email", "secondary_email")}
"""Fields whose values may move into each other: a merge makes the loser's email the winner's secondary one."""


def _held(ctx: CheckContext, name: str, ids: list[str]) -> set[str]:
    """The normalized values the records `ids` held at the start in `name` (or a field of its kind)."""
    out: set[str] = set()
    for i in ids:
        c = existing(ctx.initial, CONTACTS, i, "contact")
        for f in _SAME_KIND.get(name, (name,)):
            v = getattr(c, f)
            if v:
                out.add(_norm(f, v))
    return out


def _norm(name: str, value: str) -> str:
    if name in ("email", "secondary_email"):
        return norm_email(value)
    return phone_digits(value) if name == "phone" else fold(value)


@kit.check
def contact_edits_within(ctx: CheckContext, contact_ids: list[str], fields: list[str],
                         values_from: list[str] | None = None) -> CheckOutcome:
    """On the in-scope people's records, only `fields` changed (a constraint).

    The scope guard lets the agent edit the task's record; this bounds *what* it
    may change there, so "right title plus a made-up email" or an unsubscribe of
    the person is not free. Every pre-existing record of each person counts.
    With `values_from` (a merge's records), each of `fields` that changed must
    hold a value one of those records held at the start: a merge keeps the pair's
    addresses and phones, it does not wipe them or invent a "000".
    """
    ids = {c.id for i in contact_ids for c in person_records(ctx.initial, i)} | set(contact_ids)
    allowed = set(fields) | _BOOKKEEPING
    bad = []
    for i, b, a in ctx.changed(CONTACTS):
        if i not in ids or b is None or a is None:
            continue
        bad += [f"{i}.{f}" for f in sorted(Contact.model_fields) if f not in allowed and not _same_value(f, a, b)]
        if values_from is not None:
            bad += [f"{i}.{f}={getattr(a, f)!r} (no merged record held it)" for f in fields
                    if not _same_value(f, a, b) and (not getattr(a, f)
                                                     or _norm(f, getattr(a, f)) not in _held(ctx, f, values_from))]
    if bad:
        return CheckOutcome.failed(f"fields the task did not ask for changed: {bad[:6]}")
    return CheckOutcome.passed(f"only {sorted(fields)} changed on the task's records")


def _conversion_owners(ctx: CheckContext, lead_id: str) -> set[str]:
    """Who may own what a conversion makes: the lead's owner (the tool's default) or the account's owner."""
    lead = existing(ctx.initial, LEADS, lead_id, "lead")
    converted = existing(ctx.final, LEADS, lead_id, "lead").converted_account_id
    account = ctx.initial.get(ACCOUNTS, converted) if converted else None
    return {o for o in (lead.owner_id, account.owner_id if account else None) if o is not None}


def _conversion_strays(ctx: CheckContext, lead_id: str) -> list[str]:
    lead = existing(ctx.final, LEADS, lead_id, "lead")
    owners = _conversion_owners(ctx, lead_id)
    stray = [c.id for c in ctx.created(CONTACTS) if c.id != lead.converted_contact_id]
    stray += [a.id for a in ctx.created(ACCOUNTS) if a.id != lead.converted_account_id]
    deals = ctx.created(DEALS)
    stray += [d.id for d in deals
              if d.account_id != lead.converted_account_id or d.primary_contact_id != lead.converted_contact_id]
    made = [*((c.id, c.owner_id) for c in ctx.created(CONTACTS) if c.id == lead.converted_contact_id),
            *((a.id, a.owner_id) for a in ctx.created(ACCOUNTS) if a.id == lead.converted_account_id),
            *((d.id, d.owner_id) for d in deals)]
    stray += [f"{i} (owned by {o})" for i, o in made if o not in owners]
    # A lead brings a name and a person, not a forecast: an amount, a close date or product lines
    # on its new deal come from nowhere.
    stray += [f"{d.id} ({', '.join(f)})" for d in deals
              if (f := [n for n in ("amount", "close_date") if getattr(d, n) is not None]
                  + (["line items"] if d.line_item_ids else []))]
    new_deals = {d.id for d in deals}
    for t in ctx.created(TASKS):
        on_conversion = (t.contact_id or t.deal_id) and t.contact_id in (None, lead.converted_contact_id) \
            and (t.deal_id is None or t.deal_id in new_deals)
        if not on_conversion or t.owner_id not in owners or text_flaw(t.subject) is not None:
            stray.append(f"{t.id} (task {t.subject!r} for {t.owner_id})")
    return stray


@kit.check
def only_lead_records_created(ctx: CheckContext, lead_id: str) -> CheckOutcome:
    """Every record the agent created belongs to the lead's conversion, as the lead states it (a constraint).

    A conversion makes one contact (the lead's), at most one account (for a new
    company) and deals on the converted account with the lead's contact as buyer,
    owned by the lead's owner or the account's. Its deals state no amount, close
    date or product lines: the lead stated none. A task is on the conversion's
    records, its owner's, and says something. Any other new record is out of the
    task, and, being new, the scope guard cannot see it: it allows every change to
    what the agent created.
    """
    stray = _conversion_strays(ctx, lead_id)
    if stray:
        return CheckOutcome.failed(f"records created outside the lead's conversion: {sorted(stray)}")
    return CheckOutcome.passed("every new record is the lead's conversion")
