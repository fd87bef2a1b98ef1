"""The views the CRM offers other domains of a world (`saas_sim.core.links`).

* `crm.people` (`LinkedPerson`): every contact, in contact-id order, with its account's current name;
* `crm.organizations` (`LinkedOrganization`): every account, in account-id order, with its tier
  (`TIER_EMPLOYEES`), owner's name, open deals, former names and real company (`hidden.crm.company_truth`);
* `crm.price_book` (`Terms`): one per product, id = SKU, in SKU order: the list price per currency
  (`USD`, `EUR`, `GBP`), `seat` (1 for a per-seat product) and `months` (the term a price covers).

A generator reads these at world-build time only; no tool sees a port.
"""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

from saas_sim.core.links import LinkedOrganization, LinkedPerson, Port, Terms
from saas_sim.core.state import State
from saas_sim.domains.crm.state import ACCOUNTS, COMPANY_TRUTH, CONTACTS, DEALS, PRICE_BOOK, PRODUCTS, USERS

__all__ = ["PORTS", "TIER_EMPLOYEES", "account_tier"]

TIER_EMPLOYEES: tuple[tuple[str, int], ...] = (("strategic", 10000), ("enterprise", 5000), ("mid_market", 500),
                                                ("smb", 0))
"""The CRM's segmentation: the first tier whose head-count floor an account reaches (unknown size: `unknown`)."""

_SEAT_SKUS = frozenset({"PLT-SEAT"})
"""Products priced per seat; every list price covers a 12-month subscription or engagement."""

_CLOSED = frozenset({"closed_won", "closed_lost"})


def account_tier(employees: int | None) -> str:
    """Returns the commercial tier of an account of `employees` people (see `TIER_EMPLOYEES`)."""
    if employees is None:
        return "unknown"
    return next(tier for tier, floor in TIER_EMPLOYEES if employees >= floor)


def _people(state: State) -> tuple[LinkedPerson, ...]:
    accounts = state.table(ACCOUNTS)
    out = []
    for c in state.table(CONTACTS).values():
        account = accounts.get(c.account_id) if c.account_id else None
        out.append(LinkedPerson(id=c.id, first_name=c.first_name, last_name=c.last_name, email=c.email,
                                phone=c.phone, organization_id=c.account_id,
                                organization_name=account.name if account else None))
    return tuple(out)


def _organizations(state: State) -> tuple[LinkedOrganization, ...]:
    users = state.table(USERS)
    truths = state.table(COMPANY_TRUTH)
    open_deals = Counter(d.account_id for d in state.table(DEALS).values() if d.stage not in _CLOSED)
    out = []
    for a in state.table(ACCOUNTS).values():
        owner = users.get(a.owner_id)
        truth = truths.get(a.id)
        out.append(LinkedOrganization(
            id=a.id, name=a.name, tier=account_tier(a.employees), owner_name=owner.name if owner else None,
            former_names=truth.former_names if truth else (), company_key=truth.company_key if truth else a.id,
            open_deals=open_deals[a.id]))
    return tuple(out)


def _price_book(state: State) -> tuple[Terms, ...]:
    products = state.table(PRODUCTS)
    prices: dict[str, dict[str, Decimal]] = {}
    for entry in state.table(PRICE_BOOK).values():
        product = products.get(entry.product_id)
        if product is not None and product.active:
            prices.setdefault(product.sku, {})[entry.currency] = entry.unit_price
    return tuple(Terms(id=sku, values={**prices[sku], "seat": Decimal(int(sku in _SEAT_SKUS)),
                                       "months": Decimal(12)})
                 for sku in sorted(prices))


PORTS: tuple[Port, ...] = (
    Port("crm.people", LinkedPerson, _people, "Every contact, in id order, with its account's current name."),
    Port("crm.organizations", LinkedOrganization, _organizations,
         "Every account, in id order: tier, owner, open deals, former names, real company."),
    Port("crm.price_book", Terms, _price_book,
         "List prices per product (id = SKU, SKU order): USD, EUR, GBP, seat, months."),
)
"""The CRM's ports, registered on its `Domain`."""
