"""Checks over contacts, accounts, leads, owners, consent and reports.

They compare the final state with the start through `ctx.changed` and read
ground truth (which records are the same person) from the hidden tables.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.core.state import State, TableKey
from saas_sim.core.text_facts import detect_language, extract_amounts, extract_numbers
from saas_sim.domains.crm.check_helpers import existing, money, person_records, wrong_merges
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
    REPORTS,
    SCHEMA,
)
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
    "only_named_reports",
    "only_owner_changes",
    "owner_changes",
    "person_updated",
    "read_only",
    "report_records",
    "report_truthful",
    "report_values",
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


@kit.check
def read_only(ctx: CheckContext) -> CheckOutcome:
    """Nothing but reports changed: a reporting task must not edit records."""
    touched = []
    for key in SCHEMA.tables:
        if key is REPORTS or key.name.startswith("hidden."):
            continue
        touched += [i for i, _, _ in ctx.changed(key)]
    return CheckOutcome.of(not touched, f"records changed: {touched[:10]}" if touched else "no record changed")


def _report(ctx: CheckContext, name: str) -> Any:
    found = [r for r in ctx.final.table(REPORTS) if r.name.strip().casefold() == name.strip().casefold()]
    return found[-1] if found else None


@kit.check
def report_records(ctx: CheckContext, name: str, expected_ids: list[str]) -> CheckOutcome:
    """The latest report named `name` lists the expected records: share found, minus a share per extra id.

    Listing a superset (every open deal of the owner) names the right ones among
    wrong ones, a shotgun: each extra id cancels a right one, so it earns nothing.
    """
    report = _report(ctx, name)
    if report is None:
        return CheckOutcome.failed(f"no report named {name!r}")
    got, want = set(report.record_ids), set(expected_ids)
    hits, extra, missing = len(got & want), len(got - want), len(want - got)
    score = max(0.0, (hits - extra) / len(want)) if want else float(not got)
    return CheckOutcome(score, f"{hits} right, {extra} extra, {missing} missing")


_MAX_COUNT = 100
"""Below this, a whole number beside the one amount of a report value is a count ("$12,345.00 over two deals")."""


def _stated_value(text: str) -> Decimal | None:
    """Returns the one number a report value states ("12345.00", "$12,345.00", "12.345,00 €"), else None.

    Zero numbers or several ("10000.00 or 12000.00", "between 12000 and 12345") is no answer: a shotgun
    value names the right figure among wrong ones and must not pass. Beside one amount (a figure with a
    currency marker or two decimals), small whole numbers are counts, not figures: "$12,345.00 over two
    deals" states 12345.00, and only the amount is judged, so a count can make no figure right.
    """
    numbers = extract_numbers(text)
    if len(numbers) == 1:
        return numbers[0]
    amounts = extract_amounts(text)
    rest = list(numbers)
    for a in amounts:
        if a in rest:
            rest.remove(a)
    counts = all(n == n.to_integral_value() and 0 <= n < _MAX_COUNT for n in rest)
    return amounts[0] if len(amounts) == 1 and counts else None


def _report_figures(values: Mapping[str, str]) -> dict[str, Decimal | None]:
    """Returns each currency's stated figure; a currency given twice with different figures states none."""
    out: dict[str, Decimal | None] = {}
    for key, raw in values.items():
        code, value = key.strip().upper(), _stated_value(str(raw))
        out[code] = value if code not in out or out[code] == value else None
    return out


@kit.check
def report_values(ctx: CheckContext, name: str, expected: Mapping[str, str]) -> CheckOutcome:
    """The latest report's values state the expected totals (share of currencies; extras count as wrong).

    Values are read as facts, in any number form; a value that states several
    figures, or a currency listed twice with different figures, is wrong.
    """
    report = _report(ctx, name)
    if report is None:
        return CheckOutcome.failed(f"no report named {name!r}")
    got = _report_figures(report.values)
    want = {k.upper(): money(v) for k, v in expected.items()}
    keys = set(got) | set(want)
    right = sum(1 for k in keys if k in got and k in want and got[k] is not None and got[k] == want[k])
    return CheckOutcome(right / len(keys) if keys else 1.0, f"{right}/{len(keys)} values right")


def _deal_amounts(state: State, ids: Iterable[str]) -> set[Decimal]:
    """Each named deal's own amount; zero for a deal without one (the report counts it as zero)."""
    deals = (state.get(DEALS, i) for i in ids)
    return {d.amount if d.amount is not None else Decimal(0) for d in deals if d is not None}


# Where the notes' sentences end (a full stop before a space, not a decimal point; a semicolon; a line break), and
# a record id as the tools write it ("dl_000171"): a deal's amount is told of the deal a sentence names.
_SENTENCE_BREAK = re.compile(r"(?<=[.!?;])\s+|\n+")
_RECORD_ID = re.compile(r"\b[a-z]{2,5}_\d+\b", re.IGNORECASE)


@kit.check
def report_truthful(
    ctx: CheckContext, name: str, expected: Mapping[str, str], expected_ids: Sequence[str] = (),
) -> CheckOutcome:
    """Every amount the reports' notes state is true (a constraint); all reports of the name together.

    True figures are the expected totals and each deal's own amount, for the deals the
    answer holds (`expected_ids`) and those the report lists: a per-deal breakdown states
    facts. Any other sum is false, a subset's included: a total over some of the deals is
    no total the task asked for, and accepting every subset sum would let almost any
    figure pass. A deal's own amount is true too in a sentence that names that deal by its
    id ("just outside the window: dl_000171 (35500.00 EUR), not counted"): it is the
    record's fact, told of the record. Counts and other plain numbers in the notes
    ("7 deals") are not judged; see `checks_email_facts` for the rule on what is an amount.
    """
    totals = {m for v in expected.values() if (m := money(v)) is not None}
    named = _deal_amounts(ctx.final, expected_ids)
    false = []
    for r in ctx.final.table(REPORTS):
        if r.name.strip().casefold() == name.strip().casefold():
            true = totals | named | _deal_amounts(ctx.final, r.record_ids)
            notes = r.notes or ""
            lang = detect_language(notes) or "en"
            for sentence in _SENTENCE_BREAK.split(notes):
                here = true | _deal_amounts(ctx.final, (i.lower() for i in _RECORD_ID.findall(sentence)))
                false += [f"{r.id} notes state {x}" for x in extract_amounts(sentence, lang) if x not in here]
    detail = f"false figures: {false[:6]}" if false else "the notes state only true totals and deal amounts"
    return CheckOutcome.of(not false, detail)


_BOOKKEEPING = frozenset({"updated_at", "last_contacted_at", "merged_into"})
"""Contact fields the CRM sets itself (an edit, an email, a merge); never the agent's claim about the person."""


def _same_value(name: str, a: Contact, b: Contact) -> bool:
    # Rewriting an address in another case is no change of who it reaches.
    if name in ("email", "secondary_email"):
        return norm_email(getattr(a, name)) == norm_email(getattr(b, name))
    return bool(getattr(a, name) == getattr(b, name))


@kit.check
def contact_edits_within(ctx: CheckContext, contact_ids: list[str], fields: list[str]) -> CheckOutcome:
    """On the in-scope people's records, only `fields` changed (a constraint).

    The scope guard lets the agent edit the task's record; this bounds *what* it
    may change there, so "right title plus a made-up email" or an unsubscribe of
    the person is not free. Every pre-existing record of each person counts.
    """
    ids = {c.id for i in contact_ids for c in person_records(ctx.initial, i)} | set(contact_ids)
    allowed = set(fields) | _BOOKKEEPING
    bad = []
    for i, b, a in ctx.changed(CONTACTS):
        if i not in ids or b is None or a is None:
            continue
        bad += [f"{i}.{f}" for f in sorted(Contact.model_fields) if f not in allowed and not _same_value(f, a, b)]
    if bad:
        return CheckOutcome.failed(f"fields the task did not ask for changed: {bad[:6]}")
    return CheckOutcome.passed(f"only {sorted(fields)} changed on the task's records")


@kit.check
def only_lead_records_created(ctx: CheckContext, lead_id: str) -> CheckOutcome:
    """Every record the agent created belongs to the lead's conversion (a constraint).

    A conversion makes one contact (the lead's), at most one account (for a new
    company) and deals on the converted account with the lead's contact as buyer.
    Any other new contact, account or deal is out of the task, and, being new, the
    scope guard cannot see it: it allows every change to what the agent created.
    """
    lead = existing(ctx.final, LEADS, lead_id, "lead")
    stray = [c.id for c in ctx.created(CONTACTS) if c.id != lead.converted_contact_id]
    stray += [a.id for a in ctx.created(ACCOUNTS) if a.id != lead.converted_account_id]
    stray += [d.id for d in ctx.created(DEALS)
              if d.account_id != lead.converted_account_id or d.primary_contact_id != lead.converted_contact_id]
    if stray:
        return CheckOutcome.failed(f"records created outside the lead's conversion: {sorted(stray)}")
    return CheckOutcome.passed("every new record is the lead's conversion")


@kit.check
def only_named_reports(ctx: CheckContext, name: str) -> CheckOutcome:
    """Every report the agent submitted carries the task's name (a constraint).

    A report is read by whoever asked for it: a second one under another name,
    listing every deal, is an answer nobody can tell from the real one, and the
    scope guard lets it through because a report is a new record.
    """
    want = name.strip().casefold()
    stray = sorted({r.name for r in ctx.created(REPORTS) if r.name.strip().casefold() != want})
    return CheckOutcome.of(not stray, f"reports under other names: {stray}" if stray else "one report name")
