"""Cross-app billing setups in the CRM: deals and accounts whose figures come from the company's code.

* `code_priced_deal`: an open deal for a seat plan (the seats and the term are in its name and in the
  buyer's email) carries a stale amount from last year's price sheet, which the buyer's email and a
  note repeat. The code's `quote(seats, months)` is the truth (the IDE setup `ide.code_quote` binds it
  and passes it here). Other open deals of the account are plans of other sizes: distractors.
* `billing_account`: the CRM account of a support customer's contact, with a same-named account of
  another company (another domain and owner, an open deal) staged beside it: a note about the
  customer's incident belongs on their own account, reached through their contact.

Staged records get seed-drawn ids (`fresh_id`), so no id can be memorized.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.models import Account, Activity, Contact, Deal
from saas_sim.domains.crm.setup_helpers import (
    account_name,
    fresh_id,
    full_name,
    inbound_email,
    pick,
    reachable,
    twin_created_at,
    user_name,
)
from saas_sim.domains.crm.state import ACCOUNTS, CONTACTS, DEALS
from saas_sim.errors import ScenarioError

__all__ = ["billing_account", "code_priced_deal", "plan_name"]

_MAX_OTHER_DEALS = 3


def plan_name(account: str, seats: int, months: int) -> str:
    """The name a seat-plan deal carries: `Initech - Platform, 40 seats / 12 months`."""
    return f"{account} - Platform, {seats} seats / {months} months"


def _money(value: Decimal) -> str:
    return f"{value.quantize(Decimal('0.01')):.2f}"


def _usd(value: str) -> str:
    whole, _, cents = value.partition(".")
    return f"${int(whole):,}.{cents or '00'}"


def _note(ctx: SetupContext, deal: Deal, subject: str, body: str, days_ago: int) -> Activity:
    return Activity(id=fresh_id(ctx, "act"), kind="note", subject=subject, body=body, direction=None, outcome=None,
                    contact_id=None, deal_id=deal.id, account_id=deal.account_id, owner_id=deal.owner_id,
                    occurred_at=ctx.now - timedelta(days=days_ago))


def _plan_deals(ctx: SetupContext) -> list[tuple[Deal, Contact]]:
    """Open USD deals past qualification whose primary contact is a reachable person of the deal's account."""
    out = []
    for d in ctx.state.table(DEALS):
        c = ctx.state.get(CONTACTS, d.primary_contact_id) if d.primary_contact_id else None
        if d.stage in ("discovery", "proposal", "negotiation") and d.currency == "USD" and c is not None \
                and reachable(c) and c.account_id == d.account_id:
            out.append((d, c))
    return out


def _other_plans(ctx: SetupContext, seats: int, months: int, n: int) -> list[tuple[int, int]]:
    plans: list[tuple[int, int]] = []
    while len(plans) < n:
        plan = (max(1, seats + ctx.rng.choice((-1, 1)) * ctx.rng.randint(3, 30)), ctx.rng.choice((6, 12, 24, 36)))
        if plan[0] != seats and plan not in plans:
            plans.append(plan)
    return plans


@kit.setup
def code_priced_deal(ctx: SetupContext) -> Setup:
    """An open seat-plan deal whose amount is last year's price; the code's quote is the truth.

    Params:
        seats, months: The plan (from `ide.code_quote`).
        amount: The code's figure, dollars (`"1234.56"`).
        stale_amount: The old price sheet's figure, which the deal, a note and the buyer's email carry.
        other_deals: Other open plan deals of the account, of other sizes (0-3, default 1).

    Bindings: account (id, name), contact (the buyer: id, name, first_name, email), deal (id, name),
    other_deal (the first distractor deal, else the account's deal of another account when none),
    other_deal_ids, owner_first.
    """
    seats, months = int(ctx.params["seats"]), int(ctx.params["months"])
    amount, stale = str(ctx.params["amount"]), str(ctx.params["stale_amount"])
    n_other = int(ctx.params.get("other_deals", 1))
    if not 0 <= n_other <= _MAX_OTHER_DEALS or amount == stale:
        raise ScenarioError(f"code_priced_deal takes other_deals 0-{_MAX_OTHER_DEALS} and a stale amount that differs")
    target, buyer = pick(ctx.rng, _plan_deals(ctx), "open USD deal with a reachable buyer")
    acct = account_name(ctx.state, target.account_id)
    name = plan_name(acct, seats, months)
    when = ctx.now - timedelta(days=ctx.rng.randint(20, 60))
    staged: list[Event] = [ev.DealUpdated(
        deal_id=target.id, fields=["amount", "name", "next_step"], amount=Decimal(stale), name=name,
        next_step="Confirm the price with the buyer", updated_at=when)]
    notes = [_note(ctx, target, "Pricing from the price sheet",
                   f"{seats} seats, {months}-month term, at last year's price sheet: {_usd(stale)} in total.",
                   (ctx.now - when).days)]
    others: list[Deal] = []
    for o_seats, o_months in _other_plans(ctx, seats, months, n_other):
        deal_id = fresh_id(ctx, "dl")
        at = ctx.now - timedelta(days=ctx.rng.randint(10, 120))
        others.append(target.model_copy(update={
            "id": deal_id, "name": plan_name(acct, o_seats, o_months), "stage": "discovery",
            "amount": Decimal(ctx.rng.randrange(2000, 90000)).quantize(Decimal("0.01")),
            "next_step": "Scope the rollout", "line_item_ids": (), "created_at": at, "updated_at": at,
            "stage_changed_at": at, "last_activity_at": None, "lost_reason": None}))
    if others:
        staged.append(ev.DealsImported(deals=others))
    staged.append(ev.ActivitiesImported(activities=notes))
    owner_first = user_name(ctx.state, target.owner_id).split()[0]
    body = (f"Hi {owner_first},\n\nwe are ready to go ahead with {seats} seats on a {months}-month term. Last "
            f"year you quoted us {_usd(stale)} for this plan; can you confirm that is still the price, so I can "
            f"get the purchase order approved?\n\nThanks,\n{buyer.first_name}")
    staged.append(inbound_email(ctx, buyer, f"{seats} seats for {months} months", body, target,
                                ctx.rng.randint(30, 600)))
    return Setup(bindings={
        "account": {"id": target.account_id, "name": acct},
        "contact": {"id": buyer.id, "name": full_name(buyer), "first_name": buyer.first_name,
                    "email": buyer.email},
        "deal": {"id": target.id, "name": name},
        "other_deal": {"id": others[0].id if others else _elsewhere(ctx, target).id},
        "other_deal_ids": [d.id for d in others],
        "owner_first": owner_first,
    }, events=staged)


def _elsewhere(ctx: SetupContext, target: Deal) -> Deal:
    pool = [d for d in ctx.state.table(DEALS) if d.account_id != target.account_id and d.stage != "closed_won"]
    return pick(ctx.rng, pool, "deal of another account")


@kit.setup
def billing_account(ctx: SetupContext) -> Setup:
    """The CRM account of a contact, beside a same-named account of another company.

    Params:
        contact_id: The CRM contact (a support customer's `crm_contact_id`).

    Bindings: crm_account (id, name, owner_id), namesake (id: the other company's account, deal_id: its
    open deal), crm_contact (id, name).
    """
    contact = ctx.state.get(CONTACTS, str(ctx.params["contact_id"]))
    account = ctx.state.get(ACCOUNTS, contact.account_id) if contact and contact.account_id else None
    if contact is None or account is None:
        raise ScenarioError(f"contact {ctx.params['contact_id']!r} has no CRM account")
    name = account_name(ctx.state, account.id)
    owners = sorted({a.owner_id for a in ctx.state.table(ACCOUNTS) if a.owner_id != account.owner_id})
    city = ctx.rng.choice(("Leeds", "Austin", "Lyon", "Graz", "Porto", "Denver"))
    created = twin_created_at(ctx, account.created_at, 30, 300)
    twin = Account(
        id=fresh_id(ctx, "acc"), name=name, domain=f"{name.split()[0].lower()}-{city.lower()}.example",
        industry=account.industry, employees=account.employees, territory=account.territory,
        country=account.country, city=city, phone=None, owner_id=pick(ctx.rng, owners, "other owner"),
        created_at=created, updated_at=max(created, account.updated_at))
    model = pick(ctx.rng, sorted((d for d in ctx.state.table(DEALS) if d.stage == "proposal"), key=lambda d: d.id),
                 "open deal to copy")
    at = ctx.now - timedelta(days=ctx.rng.randint(5, 90))
    twin_deal = model.model_copy(update={
        "id": fresh_id(ctx, "dl"), "name": f"{name} - Platform renewal", "account_id": twin.id,
        "owner_id": twin.owner_id,
        "primary_contact_id": None, "stage": "discovery", "line_item_ids": (), "created_at": at, "updated_at": at,
        "stage_changed_at": at, "last_activity_at": None, "next_step": "Renewal call", "lost_reason": None})
    ctx.declare_lookalikes(account.id, twin.id)
    return Setup(bindings={
        "crm_account": {"id": account.id, "name": name, "owner_id": account.owner_id},
        "namesake": {"id": twin.id, "deal_id": twin_deal.id},
        "crm_contact": {"id": contact.id, "name": full_name(contact)},
    }, events=[ev.AccountsImported(accounts=[twin]), ev.DealsImported(deals=[twin_deal])])
