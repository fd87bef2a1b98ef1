"""Scenario setup for lead routing: new web-form leads, written routing rules, and their edge cases.

The rules apply in order: a lead whose company already is an account goes to
the account's owner (whatever its size); otherwise a company at or above the
size threshold goes to its region's enterprise AE; every other lead goes to
the inbound SDRs round-robin, in lead id order, only the leads this rule routes
taking a turn. Country and size are in each lead's web-form message, written
several ways. The customer's lead is large (the size rule would misroute it),
one large lead sits exactly at the threshold, and with `distractors` a lead's
company shares a word with an account but is another company (other name,
other domain).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import account_candidates
from saas_sim.domains.crm.models import Lead, User
from saas_sim.domains.crm.reference_data import TITLES
from saas_sim.domains.crm.setup_helpers import account_name, fresh_id, pick, user_name
from saas_sim.domains.crm.state import ACCOUNTS
from saas_sim.errors import ScenarioError

__all__ = ["leads_to_route"]

Rule = Literal["account", "size", "round_robin"]

_COUNTRIES = (("United States", "us", "com", True), ("Germany", "de", "de", False),
              ("United Kingdom", "uk", "co.uk", False), ("France", "fr", "fr", False),
              ("Spain", "es", "es", False), ("Sweden", "se", "se", False))
"""(country, short code, email TLD, in the Americas) of the leads' home countries."""

_FIRST = ("Alex", "Maria", "Jonas", "Priya", "Tom", "Elena", "Samir", "Chloe", "Lukas", "Nora", "Omar", "Ines")
_LAST = ("Berg", "Navarro", "Kim", "Dubois", "Weber", "Okafor", "Lindqvist", "Moreau", "Shah", "Costa", "Hale")
_COMPANY_WORDS = ("Bluepeak", "Ironleaf", "Quillstone", "Marlowe", "Tidewell", "Brightfold", "Corvane", "Ostara",
                  "Pinecrest", "Solvent", "Umbra", "Vellum", "Westgate", "Zephyr")
_SUFFIXES = ("Labs", "Group", "Analytics", "Robotics", "Foods", "Logistics")
_REPS = ("Ava Lindgren", "Ben Okoro", "Carla Mendes", "Dev Patel", "Erin Walsh", "Felix Braun", "Grace Liu",
         "Hugo Martin")


def _size_text(ctx: SetupContext, size: int, country: str) -> str:
    """The web form's free text, naming the country and the head count in one of several ways."""
    n = f"{size:,}"
    return ctx.rng.choice((
        f"Country: {country}\nCompany size: {n} employees\n\nWe would like a demo of the platform.",
        f"Hi, we are a {n}-person company based in {country} and are evaluating tools for our sales team.",
        f"Location: {country}. Headcount: {n}. Please send pricing.",
    ))


def _lead(ctx: SetupContext, company: str, domain: str, message: str, minutes_ago: int) -> Lead:
    first, last = ctx.rng.choice(_FIRST), ctx.rng.choice(_LAST)
    return Lead(id=fresh_id(ctx, "ld"), first_name=first, last_name=last,
                email=f"{first.lower()}.{last.lower()}@{domain}", phone=None, company=company,
                title=ctx.rng.choice(TITLES), source="web_form", status="new", owner_id=None, message=message,
                created_at=ctx.now - timedelta(minutes=minutes_ago))


@kit.setup
def leads_to_route(ctx: SetupContext) -> Setup:
    """New unowned leads, a routing table of staged reps, and each lead's owner by the rules.

    Params: `leads` (routed by size or round-robin, besides the customer's lead; at least 5, default 7) and
    `distractors` (leads whose company only looks like an account's, default 1).

    Bindings: routes (each lead id with its owner and rule, in id order), lead_ids, lead_list, threshold,
    ae_us, ae_eu, sdr_order (the SDRs' names in round-robin order), sdrs (each with the ids it gets),
    customer (the customer's lead, its account and owner), false_friends (each with the owner of the
    account it looks like), size_first_ids (every lead by
    the size rule first), naive_rr (round-robin over every non-account lead, a turn each), all_to_first_sdr.
    """
    n = int(ctx.params.get("leads", 7))
    n_ff = int(ctx.params.get("distractors", 1))
    if not 5 <= n <= 20 or not 0 <= n_ff <= 3:
        raise ScenarioError("leads_to_route takes leads 5-20 and distractors 0-3")
    threshold = ctx.rng.choice((250, 500, 1000))
    names = ctx.rng.sample(_REPS, 5)
    reps = [User(id=fresh_id(ctx, "usr"), name=name, email=f"{name.lower().replace(' ', '.')}@brightline.io",
                 team="Inbound", territory=("NA-East" if i == 0 else "DACH" if i == 1 else "UK&I"),
                 role="ae" if i < 2 else "sdr") for i, name in enumerate(names)]
    ae_us, ae_eu, sdrs = reps[0], reps[1], reps[2:]
    accounts = [a for a in ctx.state.table(ACCOUNTS) if a.domain]
    customer_account = pick(ctx.rng, accounts, "account with a web domain")
    # Kinds of the non-customer leads: at least one per AE and one per SDR, the rest drawn.
    kinds: list[str] = ["size_us", "size_eu", "rr", "rr", "rr"]
    kinds += [ctx.rng.choice(("size_us", "size_eu", "rr", "rr")) for _ in range(n - 5)]
    kinds += ["ff"] * n_ff
    ctx.rng.shuffle(kinds)
    kinds.insert(ctx.rng.randrange(len(kinds) + 1), "customer")
    words = ctx.rng.sample(_COMPANY_WORDS, len(kinds))
    at_threshold = ctx.rng.randrange(sum(1 for k in kinds if k.startswith("size")))
    leads: list[tuple[Lead, Rule, str | None]] = []
    false_friends: list[dict[str, str]] = []
    size_seen = 0
    minutes = ctx.rng.randint(600, 900)
    for kind, word in zip(kinds, words, strict=True):
        minutes -= ctx.rng.randint(5, 60)
        country, _, tld, americas = ctx.rng.choice(_COUNTRIES)
        if kind == "customer":
            big = ctx.rng.randint(threshold, threshold * 4)
            name = account_name(ctx.state, customer_account.id)
            company = ctx.rng.choice((name.upper(), name.lower(), f"{name} Inc."))
            lead = _lead(ctx, company, customer_account.domain or "", _size_text(ctx, big, country), minutes)
            leads.append((lead, "account", customer_account.owner_id))
            continue
        if kind.startswith("size"):
            americas = kind == "size_us"
            country, _, tld, _ = ctx.rng.choice([c for c in _COUNTRIES if c[3] == americas])
            size = threshold if size_seen == at_threshold else ctx.rng.randint(threshold + 1, threshold * 5)
            size_seen += 1
        else:
            size = ctx.rng.choice((threshold - 1, ctx.rng.randint(12, threshold - 2)))
        company = f"{word} {ctx.rng.choice(_SUFFIXES)}"
        domain = f"{word.lower()}.{tld}"
        if kind == "ff":
            # Shares the first word of an account's name, but is another company (name and domain differ).
            lookalike = pick(ctx.rng, accounts, "account")
            base = account_name(ctx.state, lookalike.id).split()[0].strip(",.-")
            company, domain = f"{base} {ctx.rng.choice(_SUFFIXES)}", f"{base.lower()}-{word.lower()}.{tld}"
        if account_candidates(ctx.state.table(ACCOUNTS), name=company, domain=domain):
            company, domain = f"{word} {_SUFFIXES[0]} {len(leads)}", f"{word.lower()}{len(leads)}.{tld}"
        lead = _lead(ctx, company, domain, _size_text(ctx, size, country), minutes)
        if kind == "ff":
            false_friends.append({"id": lead.id, "lookalike_owner_id": lookalike.owner_id})
        if size >= threshold:
            leads.append((lead, "size", ae_us.id if americas else ae_eu.id))
        else:
            leads.append((lead, "round_robin", None))
    turn = 0
    routes: list[dict[str, Any]] = []
    for lead, rule, owner in leads:
        if rule == "round_robin":
            owner = sdrs[turn % len(sdrs)].id
            turn += 1
        routes.append({"id": lead.id, "owner_id": owner, "rule": rule})
    non_account = [r for r in routes if r["rule"] != "account"]
    customer = next(r for r in routes if r["rule"] == "account")
    staged: list[Event] = [ev.UsersImported(users=reps), ev.LeadsImported(leads=[lead for lead, _, _ in leads])]
    return Setup(
        bindings={
            "routes": routes,
            "lead_ids": [r["id"] for r in routes],
            "lead_list": ", ".join(r["id"] for r in routes),
            "threshold": f"{threshold:,}",
            "ae_us": {"id": ae_us.id, "name": ae_us.name,
                      "ids": [r["id"] for r in routes if r["owner_id"] == ae_us.id]},
            "ae_eu": {"id": ae_eu.id, "name": ae_eu.name,
                      "ids": [r["id"] for r in routes if r["owner_id"] == ae_eu.id]},
            "sdr_order": ", ".join(s.name for s in sdrs),
            "sdrs": [{"id": s.id, "name": s.name, "ids": [r["id"] for r in routes if r["owner_id"] == s.id]}
                     for s in sdrs],
            "rr_ids": [r["id"] for r in routes if r["rule"] == "round_robin"],
            "customer": {"id": customer["id"], "owner_id": customer["owner_id"],
                         "owner_name": user_name(ctx.state, customer["owner_id"]),
                         "account_id": customer_account.id},
            "false_friends": false_friends,
            "size_first_ids": [r["id"] for r in routes if r["rule"] != "round_robin"],
            "naive_rr": [{"id": s.id, "ids": [r["id"] for j, r in enumerate(non_account) if j % 3 == i]}
                         for i, s in enumerate(sdrs)],
        },
        events=staged,
    )
