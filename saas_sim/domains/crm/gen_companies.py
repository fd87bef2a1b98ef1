"""World generation, part 3 (suite worlds): renamed companies and companies filed twice.

Runs after people and sales on its own random stream (`companies`), and draws nothing when both
rates are 0, so a CRM world without this mess is byte-identical to one built before it existed.

* A **renamed** account takes a new company name; its deals keep the old one in their names (they
  were opened before), a note on the account records the rename, and the hidden truth keeps the
  former name. Other products (a support desk) may still know the company by its old name.
* A **duplicated** company gets a second account with a typo'd name, created later, that takes
  about a third of the original's contacts (at least one when it has two). Both accounts share one
  `company_key` in `hidden.crm.company_truth`, and the copy's `AccountTruth` names the real company.

Accounts are picked in id order from sorted samples; the two kinds never hit the same account.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from faker import Faker

from saas_sim.core.ids import IdFactory
from saas_sim.domains.crm.gen_people import CrmParams, People
from saas_sim.domains.crm.gen_sales import Sales
from saas_sim.domains.crm.matching import norm_company
from saas_sim.domains.crm.models import Account, AccountTruth, Activity, CompanyTruth

__all__ = ["Companies", "typo_name", "vary_companies"]


@dataclass
class Companies:
    """What the company mess added: the hidden truth of the affected accounts."""

    truths: list[CompanyTruth] = field(default_factory=list)


def typo_name(rng: random.Random, name: str) -> str:
    """Returns `name` with one typing slip: two neighbouring letters swapped, one dropped or one doubled."""
    spots = [i for i in range(len(name) - 1) if name[i].isalpha() and name[i + 1].isalpha()]
    if not spots:
        return f"{name}."
    i = spots[rng.randrange(len(spots))]
    style = rng.randrange(3)
    if style == 0 and name[i].lower() != name[i + 1].lower():
        return name[:i] + name[i + 1] + name[i] + name[i + 2:]
    if style == 1 and len(name) > 4:
        return name[:i + 1] + name[i + 2:]
    return name[:i + 1] + name[i] + name[i + 1:]


def _new_name(fake: Faker, rng: random.Random, old: str, taken: set[str]) -> str:
    for _ in range(20):
        candidate = fake.company()
        if norm_company(candidate) not in taken:
            return candidate
    return f"{old.split()[0]} {rng.choice(('Group', 'Holdings', 'Labs', 'Works'))}"


def vary_companies(p: CrmParams, people: People, sales: Sales, fake: Faker, rng: random.Random,
                   ids: IdFactory, now: datetime) -> Companies:
    """Renames and duplicates accounts in place (in `people` and `sales`) and returns their truth."""
    out = Companies()
    accounts = sorted(people.accounts, key=lambda a: a.id)
    n_renamed = round(len(accounts) * p.renamed_account_rate)
    n_dup = round(len(accounts) * p.duplicate_company_rate)
    if not n_renamed and not n_dup:
        return out
    picked = rng.sample(accounts, k=min(len(accounts), n_renamed + n_dup))
    renamed = sorted(picked[:n_renamed], key=lambda a: a.id)
    duplicated = sorted(picked[n_renamed:], key=lambda a: a.id)
    taken = {norm_company(people.canonical_name[a.id]) for a in accounts}
    by_id = {a.id: i for i, a in enumerate(people.accounts)}
    truth_at = {t.id: i for i, t in enumerate(people.account_truth)}
    for acc in renamed:
        old = people.canonical_name[acc.id]
        new = _new_name(fake[people.territory_of[acc.id].locale], rng, old, taken)
        taken.add(norm_company(new))
        at = now - timedelta(days=rng.randint(20, 300))
        people.accounts[by_id[acc.id]] = acc.model_copy(update={"name": new, "updated_at": max(at, acc.created_at)})
        people.account_truth[truth_at[acc.id]] = AccountTruth(id=acc.id, canonical_name=new)
        people.canonical_name[acc.id] = new
        sales.activities.append(Activity(
            id=ids.next("act"), kind="note", subject=f"Company renamed: {old} is now {new}",
            body=f"{old} rebranded as {new}. Older deals and other systems may still use the old name.",
            direction=None, outcome=None, contact_id=None, deal_id=None, account_id=acc.id,
            owner_id=acc.owner_id, occurred_at=max(at, acc.created_at)))
        out.truths.append(CompanyTruth(id=acc.id, company_key=acc.id, former_names=(old,)))
    for acc in duplicated:
        out.truths += _duplicate(people, sales, rng, ids, now, acc)
    out.truths.sort(key=lambda t: t.id)
    return out


def _duplicate(people: People, sales: Sales, rng: random.Random, ids: IdFactory, now: datetime,
               acc: Account) -> list[CompanyTruth]:
    real = people.canonical_name[acc.id]
    copy_id = ids.next("acc")
    created = acc.created_at + timedelta(days=rng.randint(5, 200))
    created = min(created, now - timedelta(days=1))
    typo = typo_name(rng, real)
    owner = rng.choice([u.id for u in people.users if u.role != "manager"] or [acc.owner_id])
    people.accounts.append(acc.model_copy(update={
        "id": copy_id, "name": typo, "domain": None, "phone": None, "owner_id": owner,
        "created_at": created, "updated_at": created}))
    people.account_truth.append(AccountTruth(id=copy_id, canonical_name=real, messy_name=typo))
    people.canonical_name[copy_id] = real
    people.territory_of[copy_id] = people.territory_of[acc.id]
    people.email_domain[copy_id] = people.email_domain[acc.id]
    members = [i for i, c in enumerate(sales.contacts) if c.account_id == acc.id and c.merged_into is None]
    moved = rng.sample(members, k=len(members) // 3 or (1 if len(members) >= 2 else 0))
    for i in sorted(moved):
        sales.contacts[i] = sales.contacts[i].model_copy(update={"account_id": copy_id})
    return [CompanyTruth(id=acc.id, company_key=acc.id),
            CompanyTruth(id=copy_id, company_key=acc.id, duplicate_of=acc.id)]
