"""Cross-app tiering setups in the CRM: the account tier that decides how the support desk serves a customer.

* `tiering_accounts`: a contact of an enterprise or strategic account (the CRM's segmentation,
  `ports.TIER_EMPLOYEES`), beside smaller accounts of exactly the same name, each with a contact of the
  same name at another address, and a contact of a small (SMB or mid-market) account. Only the contact's
  own account says which company, and so which tier, is theirs.

Staged records get seed-drawn ids (`fresh_id`), so no id can be memorized.
"""

from __future__ import annotations

from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.models import Account, Contact
from saas_sim.domains.crm.ports import account_tier
from saas_sim.domains.crm.setup_helpers import base_contacts, fresh_id, full_name, pick, twin_created_at
from saas_sim.domains.crm.state import ACCOUNTS, USERS
from saas_sim.errors import ScenarioError

__all__ = ["VIP_TIERS", "tiering_accounts"]

VIP_TIERS = frozenset({"enterprise", "strategic"})
"""The CRM tiers whose contacts the support desk serves as VIP."""

_SMALL_TIERS = frozenset({"smb", "mid_market"})
_MAX_NAMESAKES = 4
_CITIES = ("Leeds", "Austin", "Lyon", "Graz", "Porto", "Denver", "Turin", "Ghent")


def _contacts_of(ctx: SetupContext, tiers: frozenset[str]) -> list[Contact]:
    accounts = ctx.state.table(ACCOUNTS)
    out = []
    for c in base_contacts(ctx.state):
        a = accounts.get(c.account_id) if c.account_id else None
        if a is not None and c.email and account_tier(a.employees) in tiers:
            out.append(c)
    return out


def _namesake(ctx: SetupContext, account: Account, contact: Contact, owner_id: str) -> tuple[Account, Contact]:
    """A smaller company of exactly the account's name, with a person of the contact's name at another address."""
    city = ctx.rng.choice(_CITIES)
    slug = "".join(ch for ch in fold(account.name) if ch.isalnum())[:14] or "company"
    created = twin_created_at(ctx, account.created_at, 30, 400)
    twin = account.model_copy(update={
        "id": fresh_id(ctx, "acc"), "domain": f"{slug}-{city.lower()}.example", "city": city, "phone": None,
        "employees": ctx.rng.randint(8, 450), "owner_id": owner_id, "created_at": created, "updated_at": created})
    local = f"{fold(contact.first_name)}.{fold(contact.last_name)}".replace(" ", "")
    person = contact.model_copy(update={
        "id": fresh_id(ctx, "ct"), "account_id": twin.id, "email": f"{local}@{twin.domain}",
        "secondary_email": None, "phone": None, "owner_id": owner_id, "created_at": created,
        "updated_at": created, "last_contacted_at": None})
    return twin, person


def _name_of(ctx: SetupContext, contact: Contact) -> str:
    account = ctx.state.table(ACCOUNTS).get(str(contact.account_id))
    return account.name if account else ""


@kit.setup
def tiering_accounts(ctx: SetupContext) -> Setup:
    """A contact of an enterprise or strategic account, same-named smaller accounts, and a small account's contact.

    Params:
        namesakes: Smaller accounts of exactly the account's name, each with a same-named contact, 1-4
            (default 1).

    Bindings: account (id, name, tier, employees), contact (id, name, first_name, email), namesake (the
    first same-named account: id, contact_id), namesake_ids, namesake_contact_ids, small_account (id,
    name, tier), small_contact (id, name, first_name, email).
    """
    n = int(ctx.params.get("namesakes", 1))
    if not 1 <= n <= _MAX_NAMESAKES:
        raise ScenarioError(f"tiering_accounts takes 1-{_MAX_NAMESAKES} namesakes, got {n}")
    accounts = ctx.state.table(ACCOUNTS)
    contact = pick(ctx.rng, _contacts_of(ctx, VIP_TIERS), "contact of an enterprise or strategic account")
    account = accounts.get(str(contact.account_id))
    if account is None:
        raise ScenarioError(f"contact {contact.id} has no account")
    names = {fold(account.name)}
    small_pool = [c for c in _contacts_of(ctx, _SMALL_TIERS)
                  if fold(_name_of(ctx, c)) not in names and fold(full_name(c)) != fold(full_name(contact))]
    small = pick(ctx.rng, small_pool, "contact of a small account")
    small_account = accounts.get(str(small.account_id))
    if small_account is None:
        raise ScenarioError(f"contact {small.id} has no account")
    users = sorted(u.id for u in ctx.state.table(USERS) if u.active)
    twins: list[Account] = []
    people: list[Contact] = []
    for _ in range(n):
        twin, person = _namesake(ctx, account, contact, ctx.rng.choice(users))
        twins.append(twin)
        people.append(person)
    ctx.declare_lookalikes(account.id, *(t.id for t in twins))
    ctx.declare_lookalikes(contact.id, *(p.id for p in people))
    bindings: dict[str, Any] = {
        "account": {"id": account.id, "name": account.name, "tier": account_tier(account.employees),
                    "employees": account.employees},
        "contact": {"id": contact.id, "name": full_name(contact), "first_name": contact.first_name,
                    "email": contact.email},
        "namesake": {"id": twins[0].id, "contact_id": people[0].id},
        "namesake_ids": [t.id for t in twins],
        "namesake_contact_ids": [p.id for p in people],
        "small_account": {"id": small_account.id, "name": small_account.name,
                          "tier": account_tier(small_account.employees)},
        "small_contact": {"id": small.id, "name": full_name(small), "first_name": small.first_name,
                          "email": small.email},
    }
    return Setup(bindings=bindings, events=[ev.AccountsImported(accounts=twins), ev.ContactsImported(contacts=people)])
