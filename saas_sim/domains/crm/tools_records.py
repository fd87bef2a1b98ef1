"""WRITE tools over contacts and accounts: create (with duplicate detection), update, merge, consent, owners."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from saas_sim.core.identity import normalize_email
from saas_sim.core.tool_errors import bad_args, conflict, denied, require
from saas_sim.core.tools import WRITE, ToolArgs, ToolContext
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import AccountMatch, account_candidates, contact_candidates
from saas_sim.domains.crm.models import Account, Consent, Contact
from saas_sim.domains.crm.pipeline import is_open
from saas_sim.domains.crm.reference_data import TERRITORIES
from saas_sim.domains.crm.search_index import ACTIVITY_INDEX, DEAL_INDEX
from saas_sim.domains.crm.state import ACCOUNTS, ACTIVITIES, CONTACTS, DEALS, ENROLLMENTS, LEADS, TASKS
from saas_sim.domains.crm.tool_helpers import clean, contact_conflict, live_contact, require_user, table
from saas_sim.domains.crm.views_records import AccountResult, AssignOwnerResult, ContactResult, MergeResult
from saas_sim.errors import ToolError

__all__ = [
    "assign_owner",
    "check_email",
    "create_account",
    "create_contact",
    "merge_contacts",
    "update_account",
    "update_contact",
    "update_contact_consent",
]

_TERRITORY_NAMES = tuple(t.name for t in TERRITORIES)


def check_email(value: str | None, field: str) -> str | None:
    """Returns a cleaned email, or raises `invalid_argument` if it is not a valid address.

    Validity is the identity layer's own test (`core.identity.normalize_email`): an address the
    checks could not tie to a person (a zero-width space inside it, say) must not enter the CRM,
    or a new record of an opted-out person would escape every consent and duplicate check.
    """
    email = clean(value)
    if email is None:
        return None
    if normalize_email(email) is None:
        raise bad_args(f"{field} {email!r} is not a valid email address", [field])
    return email


def _account_conflict(matches: list[AccountMatch]) -> ToolError:
    return conflict(
        f"{len(matches)} existing account(s) look like the same company; use one of them, "
        "or pass force=true if you verified it is a different company",
        candidates=[
            {"id": m.account.id, "name": m.account.name, "domain": m.account.domain, "reason": m.reason}
            for m in matches
        ],
    )


# --- contacts -------------------------------------------------------------------------


class CreateContactArgs(ToolArgs):
    first_name: str = Field(min_length=1, max_length=100, description="Given name.")
    last_name: str = Field(min_length=1, max_length=100, description="Family name.")
    email: str | None = Field(default=None, max_length=200, description="Work email address.")
    phone: str | None = Field(default=None, max_length=50, description="Phone number, any format.")
    title: str | None = Field(default=None, max_length=100, description="Job title.")
    account_id: str | None = Field(default=None, description="The account the person works for.")
    owner_id: str | None = Field(default=None, description="Owning user; defaults to the account's owner.")
    force: bool = Field(
        default=False,
        description="Create even if probable duplicates exist. Only after verifying they are different people.",
    )


@kit.tool(WRITE)
def create_contact(ctx: ToolContext, args: CreateContactArgs) -> ContactResult:
    """Creates a contact. Search first: if the person probably exists already (same email or phone, or a
    similar name at the same account), this fails with `conflict` and lists the candidates in
    `details.candidates`, unless `force` is true.
    """
    first, last = clean(args.first_name), clean(args.last_name)
    missing = [f for f, v in (("first_name", first), ("last_name", last)) if v is None]
    if first is None or last is None:
        raise bad_args("names must not be blank", missing)
    email = check_email(args.email, "email")
    account = require(ctx, ACCOUNTS, args.account_id, "account", "account_id") if args.account_id else None
    owner = args.owner_id or (account.owner_id if account else None)
    if owner is None:
        raise bad_args("owner_id is required for a contact without an account", ["owner_id"])
    require_user(ctx, owner)
    if not args.force:
        matches = contact_candidates(
            table(ctx, CONTACTS), first_name=first, last_name=last, email=email, phone=args.phone,
            account_id=args.account_id,
        )
        if matches:
            raise contact_conflict(matches)
    contact = Contact(
        id=ctx.ids.next("ct"),
        account_id=account.id if account else None,
        first_name=first,
        last_name=last,
        email=email,
        phone=clean(args.phone),
        title=clean(args.title),
        consent="subscribed",
        owner_id=owner,
        created_at=ctx.now,
        updated_at=ctx.now,
    )
    ctx.emit(ev.ContactCreated(contact=contact))
    return ContactResult(contact=contact)


class UpdateContactArgs(ToolArgs):
    contact_id: str = Field(description="The contact to update.")
    first_name: str | None = Field(default=None, max_length=100, description="New given name; omit to keep.")
    last_name: str | None = Field(default=None, max_length=100, description="New family name; omit to keep.")
    email: str | None = Field(default=None, max_length=200, description='New work email; "" clears it; omit to keep.')
    secondary_email: str | None = Field(
        default=None, max_length=200, description='New secondary email; "" clears it; omit to keep.'
    )
    phone: str | None = Field(default=None, max_length=50, description='New phone; "" clears it; omit to keep.')
    title: str | None = Field(default=None, max_length=100, description='New job title; "" clears it; omit to keep.')
    account_id: str | None = Field(default=None, description="Move the contact to this account; omit to keep.")


@kit.tool(WRITE)
def update_contact(ctx: ToolContext, args: UpdateContactArgs) -> ContactResult:
    """Updates some fields of a contact. Omitted fields keep their value; "" clears an optional field.

    Changing the email to one another contact already uses fails with `conflict`.
    """
    contact = live_contact(ctx, args.contact_id)
    changes: dict[str, str | None] = {}
    for name in ("first_name", "last_name"):
        value = getattr(args, name)
        if value is not None:
            if clean(value) is None:
                raise bad_args(f"{name} must not be blank", [name])
            changes[name] = clean(value)
    for name in ("email", "secondary_email"):
        value = getattr(args, name)
        if value is not None:
            changes[name] = check_email(value, name)
    for name in ("phone", "title"):
        value = getattr(args, name)
        if value is not None:
            changes[name] = clean(value)
    if args.account_id is not None:
        changes["account_id"] = require(ctx, ACCOUNTS, args.account_id, "account", "account_id").id
    if not changes:
        raise bad_args("nothing to update: pass at least one field", ["contact_id"])
    new_email = changes.get("email")
    if new_email and new_email.casefold() != (contact.email or "").casefold():
        matches = [
            m for m in contact_candidates(
                table(ctx, CONTACTS), first_name="", last_name="", email=new_email, phone=None,
                account_id=None, exclude_id=contact.id,
            )
            if m.reason == "same_email"
        ]
        if matches:
            raise contact_conflict(matches)
    changed = {k: v for k, v in changes.items() if getattr(contact, k) != v}
    if changed:
        ctx.emit(ev.ContactUpdated(contact_id=contact.id, changes=changed, updated_at=ctx.now))
    return ContactResult(contact=require(ctx, CONTACTS, contact.id, "contact"))


class UpdateConsentArgs(ToolArgs):
    contact_id: str = Field(description="The contact whose email consent changes.")
    consent: Consent = Field(description="subscribed, unsubscribed or bounced.")
    reason: str = Field(min_length=3, max_length=500, description="Why, e.g. the contact's own request.")


@kit.tool(WRITE)
def update_contact_consent(ctx: ToolContext, args: UpdateConsentArgs) -> ContactResult:
    """Records a change of a contact's email consent, with the reason.

    Policy: only re-subscribe a contact who asked for it in writing. A bounced
    address cannot be re-subscribed (`permission_denied`); update the email first.
    """
    contact = live_contact(ctx, args.contact_id)
    if args.consent == "subscribed" and contact.consent == "bounced":
        raise denied(f"contact {contact.id}'s address bounced; set a new email before re-subscribing", ["consent"],
                     consent=contact.consent)
    if args.consent != contact.consent:
        ctx.emit(
            ev.ContactConsentChanged(
                contact_id=contact.id, consent=args.consent, previous=contact.consent,
                reason=args.reason, changed_at=ctx.now,
            )
        )
    return ContactResult(contact=require(ctx, CONTACTS, contact.id, "contact"))


class MergeContactsArgs(ToolArgs):
    winner_id: str = Field(description="The record that survives (by policy, the older one: the lower id).")
    loser_id: str = Field(description="The duplicate record that is merged away.")


_CONSENT_RANK: dict[str, int] = {"subscribed": 0, "unsubscribed": 1, "bounced": 2}


@kit.tool(WRITE)
def merge_contacts(ctx: ToolContext, args: MergeContactsArgs) -> MergeResult:
    """Merges a duplicate contact into another record of the same person.

    The winner keeps its values; its empty fields are filled from the loser, a
    different loser email becomes the winner's secondary email, and the stricter
    consent wins. The loser's activities, tasks, deals and enrolments move to the
    winner, and the loser is kept with `merged_into` set. Both must be at the same account.
    """
    if args.winner_id == args.loser_id:
        raise bad_args("a contact cannot be merged into itself", ["loser_id"])
    winner = live_contact(ctx, args.winner_id, "winner_id")
    loser = live_contact(ctx, args.loser_id, "loser_id")
    if winner.account_id != loser.account_id:
        raise bad_args("contacts belong to different accounts", ["loser_id"])
    changes: dict[str, str | None] = {}
    for name in ("email", "phone", "title", "secondary_email"):
        if getattr(winner, name) is None and getattr(loser, name) is not None:
            changes[name] = getattr(loser, name)
    if (
        loser.email and winner.email and loser.email.casefold() != winner.email.casefold()
        and winner.secondary_email is None
    ):
        changes["secondary_email"] = loser.email
    if _CONSENT_RANK[loser.consent] > _CONSENT_RANK[winner.consent]:
        changes["consent"] = loser.consent
    # In id order, as a scan finds them (the indexes hand out sets).
    moved_acts = sorted(table(ctx, ACTIVITIES).matching(ACTIVITY_INDEX, [("contact", loser.id)]))
    moved_tasks = [t.id for t in table(ctx, TASKS) if t.contact_id == loser.id]
    moved_deals = sorted(table(ctx, DEALS).matching(DEAL_INDEX, [("primary_contact", loser.id)]))
    moved_enr = [e.id for e in table(ctx, ENROLLMENTS) if e.contact_id == loser.id]
    ctx.emit(
        ev.ContactsMerged(
            winner_id=winner.id, loser_id=loser.id, changes=changes, moved_activity_ids=moved_acts,
            moved_task_ids=moved_tasks, moved_deal_ids=moved_deals, moved_enrollment_ids=moved_enr,
            merged_at=ctx.now,
        )
    )
    return MergeResult(
        contact=require(ctx, CONTACTS, winner.id, "contact"),
        moved={"activities": len(moved_acts), "tasks": len(moved_tasks), "deals": len(moved_deals),
               "enrollments": len(moved_enr)},
    )


# --- accounts -------------------------------------------------------------------------


class CreateAccountArgs(ToolArgs):
    name: str = Field(min_length=1, max_length=200, description="Company name.")
    territory: str = Field(description="Sales territory: one of " + ", ".join(_TERRITORY_NAMES) + ".")
    owner_id: str = Field(description="The owning user's id.")
    domain: str | None = Field(default=None, max_length=200, description="Website domain, e.g. acme.com.")
    industry: str | None = Field(default=None, max_length=100, description="Industry.")
    employees: int | None = Field(default=None, ge=1, le=5_000_000, description="Headcount.")
    city: str | None = Field(default=None, max_length=100, description="City.")
    phone: str | None = Field(default=None, max_length=50, description="Main phone number.")
    force: bool = Field(default=False, description="Create even if a probable duplicate account exists.")


def _territory(name: str) -> str:
    if name not in _TERRITORY_NAMES:
        raise bad_args(f"unknown territory {name!r}", ["territory"], allowed=list(_TERRITORY_NAMES))
    return name


def _domain(value: str | None) -> str | None:
    domain = clean(value)
    if domain is None:
        return None
    domain = domain.casefold().removeprefix("https://").removeprefix("http://").removeprefix("www.").rstrip("/")
    if "." not in domain or " " in domain or "@" in domain:
        raise bad_args(f"domain {value!r} is not a domain name", ["domain"])
    return domain


@kit.tool(WRITE)
def create_account(ctx: ToolContext, args: CreateAccountArgs) -> AccountResult:
    """Creates an account (company). If one probably exists already (same domain, or the same name ignoring
    case, spacing, punctuation and legal suffixes), this fails with `conflict` listing the candidates,
    unless `force` is true.
    """
    name = clean(args.name)
    if name is None:
        raise bad_args("name must not be blank", ["name"])
    territory = _territory(args.territory)
    domain = _domain(args.domain)
    require_user(ctx, args.owner_id)
    if not args.force:
        matches = account_candidates(table(ctx, ACCOUNTS), name=name, domain=domain)
        if matches:
            raise _account_conflict(matches)
    country = next(t.country for t in TERRITORIES if t.name == territory)
    account = Account(
        id=ctx.ids.next("acc"), name=name, domain=domain, industry=clean(args.industry), employees=args.employees,
        territory=territory, country=country, city=clean(args.city), phone=clean(args.phone),
        owner_id=args.owner_id, created_at=ctx.now, updated_at=ctx.now,
    )
    ctx.emit(ev.AccountCreated(account=account))
    return AccountResult(account=account)


class UpdateAccountArgs(ToolArgs):
    account_id: str = Field(description="The account to update.")
    name: str | None = Field(default=None, max_length=200, description="New name; omit to keep.")
    domain: str | None = Field(default=None, max_length=200, description='New domain; "" clears; omit to keep.')
    industry: str | None = Field(default=None, max_length=100, description='New industry; "" clears; omit to keep.')
    employees: int | None = Field(default=None, ge=1, le=5_000_000, description="New headcount; omit to keep.")
    city: str | None = Field(default=None, max_length=100, description='New city; "" clears; omit to keep.')
    phone: str | None = Field(default=None, max_length=50, description='New phone; "" clears; omit to keep.')
    territory: str | None = Field(default=None, description="New territory; omit to keep.")


@kit.tool(WRITE)
def update_account(ctx: ToolContext, args: UpdateAccountArgs) -> AccountResult:
    """Updates some fields of an account. Omitted fields keep their value; "" clears an optional field."""
    account = require(ctx, ACCOUNTS, args.account_id, "account", "account_id")
    changes: dict[str, str | int | None] = {}
    if args.name is not None:
        name = clean(args.name)
        if name is None:
            raise bad_args("name must not be blank", ["name"])
        changes["name"] = name
    if args.domain is not None:
        domain = _domain(args.domain)
        if domain and any(a.domain == domain and a.id != account.id for a in table(ctx, ACCOUNTS)):
            others = account_candidates(table(ctx, ACCOUNTS), name="", domain=domain, exclude_id=account.id)
            raise _account_conflict(others)
        changes["domain"] = domain
    for name in ("industry", "city", "phone"):
        value = getattr(args, name)
        if value is not None:
            changes[name] = clean(value)
    if args.employees is not None:
        changes["employees"] = args.employees
    if args.territory is not None:
        changes["territory"] = _territory(args.territory)
    if not changes:
        raise bad_args("nothing to update: pass at least one field", ["account_id"])
    changed = {k: v for k, v in changes.items() if getattr(account, k) != v}
    if changed:
        ctx.emit(ev.AccountUpdated(account_id=account.id, changes=changed, updated_at=ctx.now))
    return AccountResult(account=require(ctx, ACCOUNTS, account.id, "account"))


# --- owners ---------------------------------------------------------------------------


class AssignOwnerArgs(ToolArgs):
    record_type: Literal["account", "contact", "deal", "lead"] = Field(description="What kind of records.")
    record_ids: list[str] = Field(min_length=1, max_length=200, description="The records to reassign (1-200).")
    owner_id: str = Field(description="The new owner's user id.")
    include_open_deals: bool = Field(
        default=False,
        description=(
            "Accounts only: also move each account's open deals that the account's previous owner owned. "
            "Closed deals and deals owned by anyone else never move."
        ),
    )


_KEYS: dict[str, Any] = {"account": ACCOUNTS, "contact": CONTACTS, "deal": DEALS, "lead": LEADS}


@kit.tool(WRITE)
def assign_owner(ctx: ToolContext, args: AssignOwnerArgs) -> AssignOwnerResult:
    """Reassigns accounts, contacts, deals or leads to another user, in bulk (all or nothing)."""
    require_user(ctx, args.owner_id)
    if args.include_open_deals and args.record_type != "account":
        raise bad_args("include_open_deals applies to accounts only", ["include_open_deals"])
    if len(set(args.record_ids)) != len(args.record_ids):
        raise bad_args("record_ids has repeated ids", ["record_ids"])
    key = _KEYS[args.record_type]
    records = []
    for i, rid in enumerate(args.record_ids):
        records.append(require(ctx, key, rid, args.record_type, f"record_ids.{i}"))
    changed: list[str] = []
    unchanged: list[str] = []
    targets = {r.id: r.owner_id for r in records}
    for record in records:
        if record.owner_id == args.owner_id:
            unchanged.append(record.id)
        else:
            ctx.emit(ev.OwnerAssigned(record_type=args.record_type, record_id=record.id, owner_id=args.owner_id,
                                      previous_owner_id=record.owner_id, assigned_at=ctx.now))
            changed.append(record.id)
    if args.include_open_deals:
        for deal in table(ctx, DEALS):
            previous = targets.get(deal.account_id)
            if previous is not None and is_open(deal.stage) and deal.owner_id == previous != args.owner_id:
                ctx.emit(ev.OwnerAssigned(record_type="deal", record_id=deal.id, owner_id=args.owner_id,
                                          previous_owner_id=deal.owner_id, assigned_at=ctx.now))
                changed.append(deal.id)
    return AssignOwnerResult(changed=changed, unchanged=unchanged)
