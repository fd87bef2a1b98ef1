"""Cross-app name-drift setups in the CRM: a renamed account that another product still knows by its old name.

* `renamed_account`: an account with one open deal and a contact, renamed since (a world's renamed
  account, or one renamed now: either way a note on it says "X is now Y"), beside accounts named like
  the *old* name (one letter dropped or doubled), each with an open deal and a same-named contact.
  Text that names the old company matches the look-alikes better than the real account; only the
  contact's account, or the rename note, leads to the right one.

Staged records get seed-drawn ids (`fresh_id`).
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.models import Account, Activity, Contact, Deal
from saas_sim.domains.crm.setup_helpers import account_name, base_contacts, fresh_id, full_name, pick, twin_created_at
from saas_sim.domains.crm.setups_suite_accounts import typo_name
from saas_sim.domains.crm.state import ACCOUNTS, COMPANY_TRUTH, DEALS, USERS
from saas_sim.errors import ScenarioError

__all__ = ["renamed_account"]

_MAX_SIMILAR = 3
_CLOSED = frozenset({"closed_won", "closed_lost"})


def _open_deals(ctx: SetupContext, account_id: str) -> list[Deal]:
    return sorted((d for d in ctx.state.table(DEALS) if d.account_id == account_id and d.stage not in _CLOSED),
                  key=lambda d: d.id)


def _look_alike(ctx: SetupContext, account: Account, name: str, owner: str, contact: Contact, deal: Deal,
                ) -> tuple[Account, Contact, Deal]:
    slug = "".join(ch for ch in fold(name) if ch.isalnum())[:14] or "company"
    created = twin_created_at(ctx, account.created_at, 30, 400)
    twin = account.model_copy(update={
        "id": fresh_id(ctx, "acc"), "name": name, "domain": f"{slug}.example", "phone": None, "owner_id": owner,
        "created_at": created, "updated_at": created})
    namesake = contact.model_copy(update={
        "id": fresh_id(ctx, "ct"), "account_id": twin.id, "email": f"{fold(contact.first_name)[:1]}."
        f"{''.join(ch for ch in fold(contact.last_name) if ch.isalnum())}@{twin.domain}",
        "secondary_email": None, "phone": None, "owner_id": owner, "created_at": created, "updated_at": created,
        "last_contacted_at": None})
    copy = deal.model_copy(update={
        "id": fresh_id(ctx, "dl"), "name": f"{name} - {deal.name.split(' - ')[-1]}", "account_id": twin.id,
        "owner_id": owner, "primary_contact_id": namesake.id, "line_item_ids": (), "created_at": created,
        "updated_at": created, "stage_changed_at": created, "last_activity_at": None})
    ctx.declare_lookalikes(account.id, twin.id)
    ctx.declare_lookalikes(contact.id, namesake.id)
    ctx.declare_lookalikes(deal.id, copy.id)
    return twin, namesake, copy


_BRANDS = ("Northwind", "Bluepeak", "Silverline", "Brightway", "Ironclad", "Evergreen", "Clearwater", "Redstone",
           "Skybridge", "Goldleaf", "Harborline", "Tidewater")
_FORMS = ("Group", "Holdings", "Labs", "Works", "Partners", "Systems")


def _new_name(ctx: SetupContext, taken: set[str]) -> str:
    names = sorted(f"{b} {f}" for b in _BRANDS for f in _FORMS if fold(f"{b} {f}") not in taken)
    return pick(ctx.rng, names, "free company name")


def _rename(ctx: SetupContext, account: Account, old: str, new: str) -> list[Event]:
    """The account's rename some weeks ago, and the note the CRM keeps of it (as the world's renames have)."""
    at = max(ctx.now - timedelta(days=ctx.rng.randint(20, 200)), account.created_at)
    note = Activity(
        id=fresh_id(ctx, "act"), kind="note", subject=f"Company renamed: {old} is now {new}",
        body=f"{old} rebranded as {new}. Older deals and other systems may still use the old name.",
        direction=None, outcome=None, contact_id=None, deal_id=None, account_id=account.id,
        owner_id=account.owner_id, occurred_at=at)
    return [ev.AccountUpdated(account_id=account.id, changes={"name": new}, updated_at=at),
            ev.ActivityLogged(activity=note)]


@kit.setup
def renamed_account(ctx: SetupContext) -> Setup:
    """A renamed account with one open deal and a contact, beside look-alike accounts of its old name.

    Params:
        similar: Look-alike accounts of the old name (each with an open deal and a same-named contact),
            1-3 (default 1).

    Bindings: account (id, name: its current name, old_name, owner_id), contact (id, name, first_name,
    email), deal (id, name: its open deal),
    look_alike (id, name, deal_id, contact_id: the first look-alike), look_alike_ids, look_alike_names,
    look_alike_deal_ids.
    """
    n = int(ctx.params.get("similar", 1))
    if not 1 <= n <= _MAX_SIMILAR:
        raise ScenarioError(f"renamed_account takes 1-{_MAX_SIMILAR} look-alikes, got {n}")
    truths = ctx.state.table(COMPANY_TRUTH)
    open_count = Counter(d.account_id for d in ctx.state.table(DEALS) if d.stage not in _CLOSED)
    pool = [c for c in base_contacts(ctx.state) if c.email and c.account_id and open_count[c.account_id] == 1]
    contact = pick(ctx.rng, pool, "contact of an account with one open deal")
    account = ctx.state.table(ACCOUNTS).get(str(contact.account_id))
    if account is None:
        raise ScenarioError(f"contact {contact.id} has no account")
    deals = _open_deals(ctx, account.id)
    staged: list[Event] = []
    truth = truths.get(account.id)
    if truth is not None and truth.former_names:
        old, new = truth.former_names[-1], account_name(ctx.state, account.id)
    else:
        old = account_name(ctx.state, account.id)
        new = _new_name(ctx, {fold(a.name) for a in ctx.state.table(ACCOUNTS)})
        staged += _rename(ctx, account, old, new)
    users = sorted(u.id for u in ctx.state.table(USERS) if u.active and u.id != account.owner_id)
    if len(users) < n:
        raise ScenarioError("renamed_account needs an active user per look-alike")
    taken = {fold(a.name) for a in ctx.state.table(ACCOUNTS)} | {fold(old)}
    made: list[tuple[Account, Contact, Deal]] = []
    for owner in ctx.rng.sample(users, n):
        name = typo_name(ctx.rng, old, taken)
        taken.add(fold(name))
        made.append(_look_alike(ctx, account, name, owner, contact, ctx.rng.choice(deals)))
    staged += [
        ev.AccountsImported(accounts=[m[0] for m in made]),
        ev.ContactsImported(contacts=[m[1] for m in made]),
        ev.DealsImported(deals=[m[2] for m in made]),
    ]
    bindings: dict[str, Any] = {
        "account": {"id": account.id, "name": new, "old_name": old,
                    "owner_id": account.owner_id},
        "contact": {"id": contact.id, "name": full_name(contact), "first_name": contact.first_name,
                    "email": contact.email},
        "deal": {"id": deals[0].id, "name": deals[0].name},
        "look_alike": {"id": made[0][0].id, "name": made[0][0].name, "deal_id": made[0][2].id,
                       "contact_id": made[0][1].id},
        "look_alike_ids": [m[0].id for m in made],
        "look_alike_names": [m[0].name for m in made],
        "look_alike_deal_ids": [m[2].id for m in made],
    }
    return Setup(bindings=bindings, events=staged)
