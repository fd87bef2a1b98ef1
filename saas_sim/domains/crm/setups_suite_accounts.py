"""Cross-app account setups in the CRM: the account behind a support customer, with the traps around its owner.

* `retention_account`: an enterprise (or strategic) account and one of its contacts, whose record still
  names a former owner (the contact's `owner_id` went stale when the account changed hands), beside
  duplicate accounts of the same company under a typo'd name, each with another owner and a contact of
  the same name at another address. Only the contact's own account says whose account it is, and only
  the account (not the contact record) says who owns it.

Staged records get seed-drawn ids (`fresh_id`), so no id can be memorized.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.models import Account, Contact
from saas_sim.domains.crm.setup_helpers import (
    account_name,
    base_contacts,
    fresh_id,
    full_name,
    pick,
    twin_created_at,
    user_name,
)
from saas_sim.domains.crm.state import ACCOUNTS, USERS
from saas_sim.errors import ScenarioError

__all__ = ["ENTERPRISE_EMPLOYEES", "retention_account", "typo_name"]

ENTERPRISE_EMPLOYEES = 1000
"""The head-count floor of an enterprise account (the CRM's segmentation; strategic accounts are larger)."""

_MAX_DUPLICATES = 3


def typo_name(rng: random.Random, name: str, taken: set[str]) -> str:
    """Returns `name` with one interior letter of one word dropped or doubled, unlike every name in `taken`.

    Neither the typo'd name nor the real one contains the other once folded, so a text that names one
    does not name the other.
    """
    words = name.split()
    spots = [(i, j) for i, w in enumerate(words) if len(w) >= 4 for j in range(1, len(w) - 1) if w[j].isalpha()]
    rng.shuffle(spots)
    for i, j in spots:
        w = words[i]
        for typo in (w[:j] + w[j + 1:], w[:j] + w[j] + w[j:]):
            cand = " ".join([*words[:i], typo, *words[i + 1:]])
            key = fold(cand)
            if key not in taken and key not in fold(name) and fold(name) not in key:
                return cand
    raise ScenarioError(f"no typo of {name!r} is free")


def _eligible(ctx: SetupContext) -> list[Contact]:
    accounts = ctx.state.table(ACCOUNTS)
    out = []
    for c in base_contacts(ctx.state):
        a = accounts.get(c.account_id) if c.account_id else None
        if a is not None and c.email and (a.employees or 0) >= ENTERPRISE_EMPLOYEES:
            out.append(c)
    return out


def _duplicate(ctx: SetupContext, account: Account, name: str, owner_id: str, contact: Contact,
               ) -> tuple[Account, Contact]:
    slug = "".join(ch for ch in fold(name) if ch.isalnum())[:14] or "company"
    city = ctx.rng.choice(("Leeds", "Austin", "Lyon", "Graz", "Porto", "Denver", "Turin", "Ghent"))
    created = twin_created_at(ctx, account.created_at, 30, 400)
    twin = account.model_copy(update={
        "id": fresh_id(ctx, "acc"), "name": name, "domain": f"{slug}-{city.lower()}.example", "city": city,
        "phone": None, "owner_id": owner_id, "created_at": created, "updated_at": created})
    local = f"{fold(contact.first_name)}.{fold(contact.last_name)}".replace(" ", "")
    namesake = contact.model_copy(update={
        "id": fresh_id(ctx, "ct"), "account_id": twin.id, "email": f"{local}{ctx.rng.randint(2, 99)}@{twin.domain}",
        "secondary_email": None, "phone": None, "owner_id": owner_id, "created_at": created,
        "updated_at": created, "last_contacted_at": None})
    return twin, namesake


@kit.setup
def retention_account(ctx: SetupContext) -> Setup:
    """An enterprise account's contact whose record names a former owner, beside typo'd duplicate accounts.

    Params:
        duplicates: Duplicate accounts of the company (a typo'd name, another owner, a same-named contact
            at another address), 1-3 (default 1).

    Bindings: account (id, name, owner_id, owner_name), contact (id, name, first_name, email),
    stale_owner (id, name: the owner the contact record still names), duplicate (the first duplicate
    account: id, name, owner_id, owner_name, contact_id), wrong_owner_ids, wrong_owner_names and
    duplicate_names (every owner and name that is not the account's), duplicate_contact_ids,
    other_user_names (every CRM user but the account's owner, in id order).
    """
    n = int(ctx.params.get("duplicates", 1))
    if not 1 <= n <= _MAX_DUPLICATES:
        raise ScenarioError(f"retention_account takes 1-{_MAX_DUPLICATES} duplicates, got {n}")
    contact = pick(ctx.rng, _eligible(ctx), f"contact of an account of {ENTERPRISE_EMPLOYEES}+ people")
    account = ctx.state.table(ACCOUNTS).get(str(contact.account_id))
    if account is None:
        raise ScenarioError(f"contact {contact.id} has no account")
    name = account_name(ctx.state, account.id)
    users = sorted(u.id for u in ctx.state.table(USERS) if u.active and u.id != account.owner_id)
    if len(users) < n + 1:
        raise ScenarioError("retention_account needs more active users than duplicates + 1")
    others = ctx.rng.sample(users, n + 1)
    stale, dup_owners = others[0], others[1:]
    taken = {fold(a.name) for a in ctx.state.table(ACCOUNTS)}
    twins: list[Account] = []
    namesakes: list[Contact] = []
    for owner in dup_owners:
        dup_name = typo_name(ctx.rng, name, taken)
        taken.add(fold(dup_name))
        twin, namesake = _duplicate(ctx, account, dup_name, owner, contact)
        twins.append(twin)
        namesakes.append(namesake)
    moved = ctx.now - timedelta(days=ctx.rng.randint(20, 200))
    staged: list[Event] = [
        ev.AccountsImported(accounts=twins),
        ev.ContactsImported(contacts=namesakes),
        # The account changed hands; the contact record kept naming its former owner.
        ev.ContactUpdated(contact_id=contact.id, changes={"owner_id": stale}, updated_at=moved),
    ]
    owner_name = user_name(ctx.state, account.owner_id)
    bindings: dict[str, Any] = {
        "account": {"id": account.id, "name": name, "owner_id": account.owner_id, "owner_name": owner_name},
        "contact": {"id": contact.id, "name": full_name(contact), "first_name": contact.first_name,
                    "email": contact.email},
        "stale_owner": {"id": stale, "name": user_name(ctx.state, stale)},
        "duplicate": {"id": twins[0].id, "name": twins[0].name, "owner_id": dup_owners[0],
                      "owner_name": user_name(ctx.state, dup_owners[0]), "contact_id": namesakes[0].id},
        "wrong_owner_ids": others,
        "wrong_owner_names": [user_name(ctx.state, u) for u in others],
        # Every other user: a reply naming the whole sales team so that one name is right is a shotgun.
        "other_user_names": [u.name for u in ctx.state.table(USERS) if u.id != account.owner_id],
        "duplicate_names": [t.name for t in twins],
        "duplicate_contact_ids": [c.id for c in namesakes],
    }
    return Setup(bindings=bindings, events=staged)
