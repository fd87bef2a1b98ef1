"""The CRM's seed generator: a world profile's `crm:` section and a seed in, import events out.

```yaml
domains:
  crm: {accounts: 60, contacts: 400, near_duplicate_rate: 0.06, ...}
```

The knobs and their defaults are `CrmParams`. Named random streams of the
domain's seed tree: `people` (users, accounts, contacts, leads), `sales`
(deals, activities, tasks, enrolments), `companies` (renamed and duplicated
companies, suite worlds only: `gen_companies`) and the Faker stream `names`. No wall
time, no `hash()`, no global random state and no Faker date helpers: every
instant is an offset from the profile's epoch (`ctx.now`).
"""

from __future__ import annotations

from datetime import UTC

from saas_sim.core.domain import GenerateContext
from saas_sim.core.events import Event
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.gen_companies import vary_companies
from saas_sim.domains.crm.gen_people import CrmParams, generate_people
from saas_sim.domains.crm.gen_sales import generate_sales
from saas_sim.domains.crm.reference_data import TERRITORIES

__all__ = ["LOCALES", "generate"]

LOCALES: tuple[str, ...] = tuple(sorted({t.locale for t in TERRITORIES}))
"""The Faker locales a world draws names from (one per territory, deduplicated, sorted)."""


def generate(ctx: GenerateContext) -> list[Event]:
    """Builds a CRM world as a list of import events.

    Event order: users, products, price book, sequences, accounts, contacts,
    leads, line items, deals, activities, tasks, enrolments, then the hidden
    ground truth (accounts, people, leads, and companies when the world renamed or
    duplicated any).

    Raises:
        pydantic.ValidationError: The profile has an unknown knob or an out-of-range value.
    """
    params = CrmParams.model_validate(dict(ctx.params))
    now = ctx.now.astimezone(UTC).replace(microsecond=0)
    fake = ctx.seed.faker("names", LOCALES)
    people = generate_people(params, fake, ctx.seed.random("people"), ctx.ids, now)
    sales = generate_sales(params, people, ctx.seed.random("sales"), ctx.ids, now)
    companies = vary_companies(params, people, sales, fake, ctx.seed.random("companies"), ctx.ids, now)
    return [
        ev.UsersImported(users=people.users),
        ev.ProductsImported(products=sales.products),
        ev.PriceBookImported(entries=sales.price_book),
        ev.SequencesImported(sequences=sales.sequences),
        ev.AccountsImported(accounts=people.accounts),
        ev.ContactsImported(contacts=sales.contacts),
        ev.LeadsImported(leads=people.leads),
        ev.LineItemsImported(line_items=sales.line_items),
        ev.DealsImported(deals=sales.deals),
        ev.ActivitiesImported(activities=sales.activities),
        ev.TasksImported(tasks=sales.tasks),
        ev.EnrollmentsImported(enrollments=sales.enrollments),
        ev.AccountTruthsRecorded(truths=people.account_truth),
        ev.PersonTruthsRecorded(truths=[people.person_truth[k] for k in sorted(people.person_truth)]),
        ev.LeadTruthsRecorded(truths=people.lead_truth),
        *([ev.CompanyTruthsRecorded(truths=companies.truths)] if companies.truths else []),
    ]
