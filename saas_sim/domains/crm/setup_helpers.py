"""Helpers for scenario setups: candidate pools in id order, readable sim times, inbound emails."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import TypeVar

from saas_sim.core.domain import SetupContext
from saas_sim.core.events import Event
from saas_sim.core.rng import peek_coin
from saas_sim.core.state import State
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.matching import NICKNAMES, canonical_first_name, fold
from saas_sim.domains.crm.models import Activity, Contact, Deal, PersonTruth
from saas_sim.domains.crm.reference_data import TERRITORIES, format_phone
from saas_sim.domains.crm.state import ACCOUNT_TRUTH, ACCOUNTS, CONTACTS, DEALS, PERSON_TRUTH, USERS
from saas_sim.errors import ScenarioError

__all__ = [
    "account_name",
    "base_contacts",
    "day_text",
    "distractor_count",
    "fresh_id",
    "full_name",
    "inbound_email",
    "instant_text",
    "iso",
    "lookalike_deals",
    "namesakes",
    "new_phone",
    "pick",
    "reachable",
    "twin_created_at",
    "user_name",
    "variant_first",
]

T = TypeVar("T")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def pick(rng: random.Random, pool: Sequence[T], what: str) -> T:
    """Picks one candidate (the pool must be in a stable order); an empty pool is a scenario bug."""
    if not pool:
        raise ScenarioError(f"this world has no {what} for the scenario")
    return pool[rng.randrange(len(pool))]


# Staged records skip up to this many ids, so no staged id is "the next id after the world".
_MAX_ID_SKIP = 40


def fresh_id(ctx: SetupContext, prefix: str) -> str:
    """Allocates an id for a staged record after a seed-drawn gap, so its id cannot be memorized."""
    for _ in range(ctx.rng.randint(1, _MAX_ID_SKIP)):
        ctx.ids.next(prefix)
    return ctx.ids.next(prefix)


def twin_created_at(ctx: SetupContext, original: datetime, low: int, high: int) -> datetime:
    """Returns when a same-named twin of a record was created: `low`-`high` days before or after `original`.

    The side is seed-drawn (and the instant stays a day before the start), so "the older record" is no rule
    that tells the real one from its twin.
    """
    days = timedelta(days=ctx.rng.randint(low, high))
    at = original - days if peek_coin(ctx.rng) else original + days
    return min(at, ctx.now - timedelta(days=1))


def iso(instant: datetime) -> str:
    """Returns a UTC instant as `2026-03-04T15:00:00Z`."""
    return instant.strftime("%Y-%m-%dT%H:%M:%SZ")


def day_text(day: date) -> str:
    """Returns `Wednesday 4 March 2026` (locale-independent)."""
    return f"{_DAYS[day.weekday()]} {day.day} {_MONTHS[day.month - 1]} {day.year}"


def instant_text(instant: datetime) -> str:
    """Returns `Wednesday 4 March 2026 at 15:00 UTC`."""
    return f"{day_text(instant.date())} at {instant:%H:%M} UTC"


def full_name(c: Contact) -> str:
    """Returns a contact's name as stored."""
    return f"{c.first_name} {c.last_name}"


def account_name(state: State, account_id: str) -> str:
    """Returns an account's clean name (its canonical name from the ground truth)."""
    truth = state.get(ACCOUNT_TRUTH, account_id)
    if truth is not None:
        return truth.canonical_name
    account = state.get(ACCOUNTS, account_id)
    return " ".join(account.name.split()) if account else account_id


def user_name(state: State, user_id: str) -> str:
    """Returns a user's name."""
    user = state.get(USERS, user_id)
    return user.name if user else user_id


def base_contacts(state: State) -> list[Contact]:
    """Returns live, current, original contact records at accounts (no variants, false friends or leavers)."""
    truth = state.table(PERSON_TRUTH)
    out = []
    for c in state.table(CONTACTS):
        t = truth.get(c.id)
        if c.merged_into is None and c.account_id and t is not None and t.variant_of is None \
                and t.false_friend_of is None and not t.departed:
            out.append(c)
    return out


def reachable(c: Contact) -> bool:
    """Returns whether a contact may be emailed."""
    return c.consent == "subscribed" and c.email is not None and c.merged_into is None


def inbound_email(ctx: SetupContext, contact: Contact, subject: str, body: str, deal: Deal | None,
                  minutes_ago: int) -> ev.InboundEmailReceived:
    """Returns the staging event of an email from `contact` that arrived `minutes_ago` before the start."""
    return ev.InboundEmailReceived(activity=Activity(
        id=ctx.ids.next("act"), kind="email", subject=subject, body=body, direction="inbound", outcome=None,
        contact_id=contact.id, deal_id=deal.id if deal else None, account_id=contact.account_id,
        owner_id=deal.owner_id if deal else contact.owner_id, occurred_at=ctx.now - timedelta(minutes=minutes_ago),
    ))


def _calling_code(ctx: SetupContext, account_id: str | None) -> str:
    account = ctx.state.get(ACCOUNTS, account_id) if account_id else None
    return next((t.calling_code for t in TERRITORIES if account and t.name == account.territory), "1")


def new_phone(ctx: SetupContext, account_id: str | None) -> str:
    """Draws a new phone number in the account's territory, written `+CC AAA BBB CCCC`."""
    national = str(ctx.rng.randint(2, 9)) + "".join(str(ctx.rng.randint(0, 9)) for _ in range(9))
    return format_phone("intl_spaced", _calling_code(ctx, account_id), national)


def variant_first(first: str) -> str:
    """Returns another form of a first name: the formal one for a nickname, a nickname, or upper case."""
    formal = canonical_first_name(first)
    if formal != fold(first):
        return formal.capitalize()
    nicks = sorted(n for n, f in NICKNAMES.items() if f == fold(first))
    return nicks[0].capitalize() if nicks else first.upper()


def distractor_count(ctx: SetupContext, key: str) -> int:
    """Returns a setup's distractor count param `key` (0 when absent: the episode as it always was)."""
    n = int(ctx.params.get(key, 0))
    if n < 0:
        raise ScenarioError(f"{key} must be 0 or more, got {n}")
    return n


def namesakes(ctx: SetupContext, contact: Contact, n: int, avoid_accounts: Iterable[str] = ()) -> list[Event]:
    """Returns events staging `n` distractors: other people with `contact`'s exact name at other accounts.

    Each is a different real person (own person key, an address at their own account's domain, their own
    phone), so acting on one is acting on the wrong person; the account or the address tells them apart.
    Call it after every other draw of a setup: at `n == 0` it draws nothing, so the default episode is
    unchanged. Accounts in `avoid_accounts` (and the contact's own) get none.
    """
    if n <= 0:
        return []
    avoid = {contact.account_id, *avoid_accounts}
    accounts = [a for a in ctx.state.table(ACCOUNTS) if a.id not in avoid and a.domain]
    taken = {(c.email or "").lower() for c in ctx.state.table(CONTACTS)}
    people: list[Contact] = []
    for _ in range(n):
        account = pick(ctx.rng, accounts, "other account with a domain")
        local = f"{fold(contact.first_name).replace(' ', '')}.{fold(contact.last_name).replace(' ', '')}"
        email = f"{local}@{account.domain}"
        while email in taken:
            email = f"{local}{ctx.rng.randint(2, 99)}@{account.domain}"
        taken.add(email)
        at = ctx.now - timedelta(days=ctx.rng.randint(10, 400))
        people.append(contact.model_copy(update={
            "id": fresh_id(ctx, "ct"), "account_id": account.id, "email": email, "secondary_email": None,
            "phone": new_phone(ctx, account.id), "owner_id": account.owner_id, "consent": "subscribed",
            "created_at": at, "updated_at": at, "last_contacted_at": None, "merged_into": None,
        }))
    ctx.declare_lookalikes(contact.id, *(c.id for c in people))
    return [*(ev.ContactCreated(contact=c) for c in people), ev.PersonTruthsRecorded(truths=[
        PersonTruth(id=c.id, person_key=c.id, false_friend_of=contact.id) for c in people])]


_LOOKALIKE_SUFFIXES = (" - Phase 2", " - Expansion", " - Renewal", " - Pilot", " (EMEA)", " - Add-on")


def lookalike_deals(ctx: SetupContext, deal: Deal, n: int) -> list[Event]:
    """Returns events staging `n` distractors: other open deals at `deal`'s account, in its stage, with its
    buyer, a name that starts like its name and an amount within 15% of its amount.

    Only the deal's full name or id tells them apart. Call it after every other draw of a setup: at
    `n == 0` it draws nothing, so the default episode is unchanged.
    """
    if n <= 0:
        return []
    names = {d.name for d in ctx.state.table(DEALS)}
    out: list[Event] = []
    for _ in range(n):
        name = deal.name + ctx.rng.choice(_LOOKALIKE_SUFFIXES)
        while name in names:
            name = f"{deal.name} - Phase {ctx.rng.randint(3, 9)}"
        names.add(name)
        base = deal.amount if deal.amount is not None else Decimal(ctx.rng.randint(10, 90) * 1000)
        amount = (base * Decimal(ctx.rng.choice((85, 90, 95, 105, 110, 115))) / 100).quantize(Decimal("1.00"))
        at = ctx.now - timedelta(days=ctx.rng.randint(5, 60))
        close = deal.close_date + timedelta(days=ctx.rng.randint(-10, 10)) if deal.close_date else None
        out.append(ev.DealCreated(deal=deal.model_copy(update={
            "id": fresh_id(ctx, "dl"), "name": name, "amount": amount, "close_date": close, "next_step": None,
            "lost_reason": None, "line_item_ids": (), "created_at": at, "updated_at": at, "stage_changed_at": at,
            "last_activity_at": None,
        })))
    ctx.declare_lookalikes(deal.id, *(e.deal.id for e in out if isinstance(e, ev.DealCreated)))
    return out
