"""Seeded world generation for the support desk: a messy, production-like inbox.

`generate(ctx)` builds agents, the catalogue, help-centre articles, macros,
customers, orders and tickets as events. Every random choice comes from a named
stream of `ctx.seed` (`ctx.seed.random(name)` / `ctx.seed.faker(name, locales)`);
every instant is computed from `ctx.now`. Faker is only asked for names, phone
numbers and mail domains, never for anything relative to "now".

Mess knobs (profile keys, with defaults in `DEFAULTS`): `html_rate`,
`signature_rate`, `quoted_rate`, `typo_rate`, `missing_order_rate`,
`alt_email_rate`, `duplicate_rate`, `vague_subject_rate`, `final_sale_rate`,
`vip_rate` and `languages` (weights per language).

When the world holds a CRM, customers take over the names and addresses of its
contacts, read through the CRM's declared ports `crm.people` and
`crm.organizations` (`saas_sim.core.links`; domains never read each other's
tables), and keep `crm_contact_id`. A linked customer's tier is the account's
(`enterprise` and `strategic` accounts' contacts are VIP), their `company` is the
account's name as they knew it (the old one when the account was renamed since),
and about `crm_email_drift_rate` of them write from another address than the
CRM's (their own personal one). The stream `crm-links` draws only for linked
customers, and `hidden.support.customer_links` records each link, so a world
without a CRM is what it was. The domain declares `uses=("crm",)`, so a world
builds the CRM first whatever order its profile lists the domains in.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import timedelta
from decimal import Decimal
from typing import Any, Literal

from saas_sim.core.domain import GenerateContext
from saas_sim.core.events import Event
from saas_sim.core.links import LinkedOrganization, LinkedPerson
from saas_sim.domains.support import events as ev
from saas_sim.domains.support import reference_data
from saas_sim.domains.support.customer_text import LANGUAGES, ascii_slug
from saas_sim.domains.support.gen_tickets import TicketGenerator
from saas_sim.domains.support.models import (
    Customer,
    CustomerLink,
    KbFacts,
    Language,
    Order,
    OrderLine,
    Product,
)

__all__ = ["DEFAULTS", "generate"]

DEFAULTS: dict[str, Any] = {
    "customers": 300,
    "orders": 900,
    "tickets": 250,
    "languages": {"en": 0.55, "de": 0.15, "es": 0.15, "fr": 0.15},
    "vip_rate": 0.06,
    "final_sale_rate": 0.15,
    "html_rate": 0.25,
    "signature_rate": 0.6,
    "quoted_rate": 0.2,
    "typo_rate": 0.3,
    "missing_order_rate": 0.3,
    "alt_email_rate": 0.1,
    "duplicate_rate": 0.08,
    "vague_subject_rate": 0.15,
    "crm_email_drift_rate": 0.0,
}

VIP_TIERS = frozenset({"enterprise", "strategic"})
"""CRM account tiers whose contacts the desk treats as VIP customers."""

_LOCALES: dict[str, str] = {"en": "en_US", "de": "de_DE", "es": "es_ES", "fr": "fr_FR"}
_COUNTRY: dict[str, str] = {"en": "US", "de": "DE", "es": "ES", "fr": "FR"}
_CARRIERS: dict[str, tuple[str, ...]] = {"USD": ("UPS", "USPS", "FedEx"), "EUR": ("DHL", "DPD", "GLS")}


def _params(ctx: GenerateContext) -> dict[str, Any]:
    merged = dict(DEFAULTS)
    merged.update(dict(ctx.params))
    return merged


def _weighted_language(rng: random.Random, weights: Mapping[str, float]) -> Language:
    langs = [lang for lang in LANGUAGES if weights.get(lang, 0) > 0]
    return rng.choices(langs, weights=[float(weights[lang]) for lang in langs])[0]


def _customers(ctx: GenerateContext, p: Mapping[str, Any]) -> tuple[list[Customer], list[CustomerLink]]:
    rng = ctx.seed.random("customers")
    fakers = {lang: ctx.seed.faker(f"people-{lang}", [_LOCALES[lang]]) for lang in LANGUAGES}
    contacts = ctx.links.read("crm.people", LinkedPerson)
    orgs = {o.id: o for o in ctx.links.read("crm.organizations", LinkedOrganization)} if contacts else {}
    link_rng = ctx.seed.random("crm-links")
    out: list[Customer] = []
    links: list[CustomerLink] = []
    for i in range(int(p["customers"])):
        lang = _weighted_language(rng, p["languages"])
        fake = fakers[lang]
        first, last = fake.first_name(), fake.last_name()
        phone = fake.phone_number()
        domain = fake.free_email_domain()
        email = f"{ascii_slug(first)}.{ascii_slug(last)}{rng.randrange(1, 99)}@{domain}"
        days_ago = rng.randrange(30, 1500)
        # Drawn in the order the fields were always drawn, so a world without a CRM keeps its bytes.
        tier: Literal["standard", "vip"] = "vip" if rng.random() < float(p["vip_rate"]) else "standard"
        created_at = ctx.now - timedelta(days=days_ago, minutes=rng.randrange(1440))
        customer_id = ctx.ids.next("cus")
        crm_id: str | None = None
        company: str | None = None
        if i < len(contacts):
            contact = contacts[i]
            org = orgs.get(contact.organization_id or "")
            personal = email
            crm_id, first, last = contact.id, contact.first_name or first, contact.last_name or last
            drift = link_rng.random() < float(p["crm_email_drift_rate"])
            email = personal if drift or not contact.email else contact.email
            tier = "vip" if org is not None and org.tier in VIP_TIERS else "standard"
            company = (org.former_names[0] if org.former_names else org.name) if org is not None else None
            links.append(CustomerLink(
                id=customer_id, crm_contact_id=contact.id, crm_account_id=org.id if org else None,
                crm_tier=org.tier if org else "unknown",
                email_differs=email.casefold() != (contact.email or "").casefold(),
                former_company_name=org is not None and bool(org.former_names)))
        out.append(
            Customer(
                id=customer_id,
                name=f"{first} {last}",
                first_name=first,
                email=email,
                phone=phone,
                language=lang,
                country=_COUNTRY[lang],
                tier=tier,
                created_at=created_at,
                crm_contact_id=crm_id,
                company=company,
            )
        )
    return out, links


def _order(
    rng: random.Random, ctx: GenerateContext, customer: Customer, products: list[Product], number: str
) -> Order:
    currency = "USD" if customer.language == "en" else "EUR"
    picks = rng.sample(products, k=rng.choice((1, 1, 1, 2, 2, 3)))
    lines: list[OrderLine] = []
    for product in picks:
        qty = rng.choices((1, 2, 3, 4), weights=(70, 20, 6, 4))[0]
        lines.append(
            OrderLine(
                id=ctx.ids.next("ol"),
                product_id=product.id,
                sku=product.sku,
                name=product.name,
                quantity=qty,
                unit_price=product.price,
                total=product.price * qty,
            )
        )
    shipping = Decimal("0.00") if rng.random() < 0.5 else Decimal("4.99" if currency == "USD" else "5.90")
    placed = ctx.now - timedelta(days=rng.randrange(1, 150), minutes=rng.randrange(1440))
    shipped = placed + timedelta(hours=rng.randrange(6, 48))
    delivered = shipped + timedelta(days=rng.randrange(2, 7), hours=rng.randrange(24))
    status = "delivered"
    if shipped > ctx.now:
        status = "processing"
    elif delivered > ctx.now:
        status = "shipped"
    carrier = rng.choice(_CARRIERS[currency])
    return Order(
        id=ctx.ids.next("ord"),
        number=number,
        customer_id=customer.id,
        placed_at=placed,
        currency=currency,
        lines=tuple(lines),
        shipping=shipping,
        total=sum((ln.total for ln in lines), Decimal("0.00")) + shipping,
        status=status,
        carrier=carrier,
        tracking_number=None if status == "processing" else f"{carrier[:2].upper()}{rng.getrandbits(40):012d}",
        shipped_at=None if status == "processing" else shipped,
        delivered_at=delivered if status == "delivered" else None,
    )


def _orders(ctx: GenerateContext, p: Mapping[str, Any], customers: list[Customer],
            products: list[Product]) -> list[Order]:
    rng = ctx.seed.random("orders")
    n_orders = max(int(p["orders"]), len(customers))
    owners = list(customers) + [rng.choice(customers) for _ in range(n_orders - len(customers))]
    # Orders are placed in time order, so ids and numbers rise together.
    drafts = []
    for i, owner in enumerate(owners):
        drafts.append((owner, 100_000 + i * 3 + rng.randrange(1, 4)))
    return [_order(rng, ctx, owner, products, str(number)) for owner, number in drafts]


def generate(ctx: GenerateContext) -> list[Event]:
    """Returns the events of a support-desk world for `ctx`'s profile section and seed."""
    p = _params(ctx)
    out: list[Event] = []
    cat_rng = ctx.seed.random("catalog")
    agents = reference_data.make_agents(ctx.seed.faker("agents", ["en_US"]), ctx.ids)
    out += [ev.AgentCreated(agent=a) for a in agents]
    products = reference_data.make_products(cat_rng, ctx.ids, float(p["final_sale_rate"]))
    out += [ev.ProductCreated(product=pr) for pr in products]
    articles = reference_data.make_articles(cat_rng, ctx.ids, products, ctx.now)
    out += [ev.KbArticlePublished(article=a.article) for a in articles]
    out += [
        ev.KbFactsRecorded(facts=KbFacts(id=a.article.id, topic=a.topic, facts=a.facts))
        for a in articles
        if a.facts
    ]
    out += [ev.MacroCreated(macro=m) for m in reference_data.make_macros(ctx.ids)]
    customers, links = _customers(ctx, p)
    out += [ev.CustomerCreated(customer=c) for c in customers]
    if links:
        out.append(ev.CustomerLinksRecorded(links=links))
    orders = _orders(ctx, p, customers, products)
    out += [ev.OrderPlaced(order=o) for o in orders]
    gen = TicketGenerator(
        rng=ctx.seed.random("tickets"),
        alias_faker=ctx.seed.faker("aliases", ["en_US"]),
        ids=ctx.ids,
        now=ctx.now,
        params=p,
        customers=customers,
        orders=orders,
        products=products,
        articles=articles,
        agents=agents,
    )
    out += gen.run(int(p["tickets"]))
    return out
