"""World generation, part 1: users, accounts, contacts (with near-duplicates and false friends) and leads.

Every random choice comes from a named stream of the domain's seed tree, and
every list is built in a fixed order, so one (profile, seed) always yields the
same records. Mess is injected on purpose, at the rates of `CrmParams`, and
recorded as ground truth in the hidden tables.
"""

from __future__ import annotations

import math
import random
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from faker import Faker
from pydantic import BaseModel, ConfigDict, Field

from saas_sim.core.ids import IdFactory
from saas_sim.domains.crm.matching import NICKNAMES, canonical_first_name, fold, norm_company
from saas_sim.domains.crm.models import (
    Account,
    AccountTruth,
    Consent,
    Contact,
    Lead,
    LeadSource,
    LeadStatus,
    LeadTruth,
    PersonTruth,
    User,
)
from saas_sim.domains.crm.reference_data import INDUSTRIES, PHONE_FORMATS, TERRITORIES, TITLES, Territory, format_phone

__all__ = ["CrmParams", "People", "generate_people"]

SELLER_DOMAIN = "brightline.io"
"""The email domain of the CRM's own users (the selling company)."""

_PERSONAL_DOMAINS = ("gmail.com", "outlook.com", "gmx.de", "yahoo.fr", "hotmail.es", "icloud.com")
_REVERSE_NICKNAMES: dict[str, list[str]] = {}
for _nick, _formal in sorted(NICKNAMES.items()):
    _REVERSE_NICKNAMES.setdefault(_formal, []).append(_nick)


class CrmParams(BaseModel):
    """A world profile's `crm:` section: sizes and messiness knobs (rates are fractions of records)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    users: int | None = Field(default=None, ge=2, description="Default: max(6, accounts // 8).")
    accounts: int = Field(default=60, ge=5)
    contacts: int = Field(default=400, ge=20)
    leads: int | None = Field(default=None, ge=0, description="Default: contacts // 5.")
    deals_per_account: float = Field(default=1.5, ge=0)
    activities_per_deal: float = Field(default=2.5, ge=1)
    activities_per_contact: float = Field(default=0.6, ge=0)
    near_duplicate_rate: float = Field(default=0.06, ge=0, le=0.3)
    false_friend_rate: float = Field(default=0.02, ge=0, le=0.2)
    missing_optional_rate: float = Field(default=0.12, ge=0, le=0.9)
    messy_company_rate: float = Field(default=0.2, ge=0, le=1)
    stale_rate: float = Field(default=0.08, ge=0, le=0.5)
    departed_share: float = Field(default=0.35, ge=0, le=1)
    lead_conflict_rate: float = Field(default=0.15, ge=0, le=1)
    lead_existing_account_rate: float = Field(default=0.25, ge=0, le=1)
    unsubscribed_rate: float = Field(default=0.08, ge=0, le=1)
    bounced_rate: float = Field(default=0.03, ge=0, le=1)
    stale_amount_rate: float = Field(default=0.15, ge=0, le=1)
    stalled_deal_rate: float = Field(default=0.2, ge=0, le=1)
    renamed_account_rate: float = Field(default=0.0, ge=0, le=0.5, description=(
        "Accounts whose company was renamed (a note and the hidden truth keep the old name; other "
        "products' records may still carry it). Suite worlds set it; 0 leaves a CRM world as it was."))
    duplicate_company_rate: float = Field(default=0.0, ge=0, le=0.3, description=(
        "Companies filed twice: a second account with a typo'd name takes some of the contacts "
        "(ground truth: hidden.crm.company_truth). Suite worlds set it."))


@dataclass
class People:
    """The people half of a world, plus its ground truth."""

    users: list[User] = field(default_factory=list)
    accounts: list[Account] = field(default_factory=list)
    contacts: list[Contact] = field(default_factory=list)
    leads: list[Lead] = field(default_factory=list)
    account_truth: list[AccountTruth] = field(default_factory=list)
    person_truth: dict[str, PersonTruth] = field(default_factory=dict)
    lead_truth: list[LeadTruth] = field(default_factory=list)
    territory_of: dict[str, Territory] = field(default_factory=dict)
    canonical_name: dict[str, str] = field(default_factory=dict)
    email_domain: dict[str, str] = field(default_factory=dict)


def _ascii_slug(text: str) -> str:
    return "".join(ch for ch in fold(text) if ch.isalnum())


def _strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _minutes_ago(rng: random.Random, now: datetime, lo_days: float, hi_days: float) -> datetime:
    minutes = rng.randint(int(lo_days * 1440), int(hi_days * 1440))
    return now - timedelta(minutes=minutes)


def _national(rng: random.Random) -> str:
    return str(rng.randint(2, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(9))


def _phone(rng: random.Random, terr: Territory, national: str | None = None) -> str:
    style = PHONE_FORMATS[rng.randrange(len(PHONE_FORMATS))]
    return format_phone(style, terr.calling_code, national or _national(rng), str(rng.randint(10, 99)))


def _messy_company(rng: random.Random, name: str) -> str:
    style = rng.randrange(5)
    if style == 0:
        return f"  {name} "
    if style == 1:
        return name.replace(" ", "  ", 1) + " " if " " in name else f"{name}  "
    if style == 2:
        return name.upper()
    if style == 3:
        return name.lower()
    return name.swapcase()


class _Gen:
    """Holds the shared context while generating people (private to this module)."""

    def __init__(self, p: CrmParams, fake: Faker, rng: random.Random, ids: IdFactory, now: datetime) -> None:
        self.p, self.fake, self.rng, self.ids, self.now = p, fake, rng, ids, now
        self.out = People()
        self.emails: set[str] = set()

    def maybe(self, value: str | None) -> str | None:
        return None if self.rng.random() < self.p.missing_optional_rate else value

    def unique_email(self, local: str, domain: str) -> str:
        candidate, n = f"{local}@{domain}", 1
        while candidate.casefold() in self.emails:
            n += 1
            candidate = f"{local}{n}@{domain}"
        self.emails.add(candidate.casefold())
        return candidate

    def work_email(self, first: str, last: str, domain: str) -> str:
        f, last_slug = _ascii_slug(first) or "x", _ascii_slug(last) or "x"
        pattern = self.rng.randrange(4)
        local = (f"{f}.{last_slug}", f"{f[0]}{last_slug}", f"{f}_{last_slug}", f"{f}{last_slug[0]}")[pattern]
        return self.unique_email(local, domain)

    # --- users ------------------------------------------------------------------------
    def users(self) -> None:
        n = self.p.users or max(6, self.p.accounts // 8)
        for i in range(n):
            terr = TERRITORIES[i % len(TERRITORIES)] if i else TERRITORIES[0]
            loc = self.fake[terr.locale if terr.locale in ("en_US", "en_GB") else "en_US"]
            first, last = loc.first_name(), loc.last_name()
            role = "manager" if i == 0 else ("sdr" if i % 3 == 0 else "ae")
            group = "NA" if terr.name.startswith("NA") else "EMEA"
            self.out.users.append(
                User(
                    id=self.ids.next("usr"),
                    name=f"{first} {last}",
                    email=self.unique_email(f"{_ascii_slug(first)}.{_ascii_slug(last)}", SELLER_DOMAIN),
                    team=f"{group} Sales",
                    territory=terr.name,
                    role=role,
                )
            )

    def owner_for(self, territory: str, role: str = "ae") -> str:
        pool = [u.id for u in self.out.users if u.territory == territory and u.role == role]
        if not pool:
            pool = [u.id for u in self.out.users if u.role == role] or [self.out.users[0].id]
        return pool[self.rng.randrange(len(pool))]

    # --- accounts ---------------------------------------------------------------------
    def accounts(self) -> None:
        weights = [t.weight for t in TERRITORIES]
        seen: set[str] = set()
        domains: set[str] = set()
        for _ in range(self.p.accounts):
            terr = self.rng.choices(TERRITORIES, weights)[0]
            loc = self.fake[terr.locale]
            name = loc.company()
            tries = 0
            while norm_company(name) in seen or not norm_company(name):
                tries += 1
                name = loc.company() if tries < 10 else f"{loc.company()} {loc.last_name()}"
            seen.add(norm_company(name))
            slug = "".join(norm_company(name).split())[:18] or "company"
            domain, n = f"{slug}.{terr.tld}", 1
            while domain in domains:
                n += 1
                domain = f"{slug}{n}.{terr.tld}"
            domains.add(domain)
            messy = _messy_company(self.rng, name) if self.rng.random() < self.p.messy_company_rate else None
            created = _minutes_ago(self.rng, self.now, 60, 1500)
            acc_id = self.ids.next("acc")
            employees = int(math.exp(self.rng.uniform(math.log(8), math.log(20000))))
            self.out.accounts.append(
                Account(
                    id=acc_id,
                    name=messy or name,
                    domain=self.maybe(domain),
                    industry=self.maybe(INDUSTRIES[self.rng.randrange(len(INDUSTRIES))]),
                    employees=None if self.rng.random() < self.p.missing_optional_rate else employees,
                    territory=terr.name,
                    country=terr.country,
                    city=self.maybe(loc.city()),
                    phone=self.maybe(_phone(self.rng, terr)),
                    owner_id=self.owner_for(terr.name),
                    created_at=created,
                    updated_at=created,
                )
            )
            self.out.account_truth.append(AccountTruth(id=acc_id, canonical_name=name, messy_name=messy))
            self.out.territory_of[acc_id] = terr
            self.out.canonical_name[acc_id] = name
            self.out.email_domain[acc_id] = domain

    # --- contacts ---------------------------------------------------------------------
    def consent(self) -> Consent:
        r = self.rng.random()
        if r < self.p.unsubscribed_rate:
            return "unsubscribed"
        if r < self.p.unsubscribed_rate + self.p.bounced_rate:
            return "bounced"
        return "subscribed"

    def contacts(self) -> None:
        total = self.p.contacts
        n_dup = round(total * self.p.near_duplicate_rate)
        n_ff = round(total * self.p.false_friend_rate)
        n_base = max(len(self.out.accounts), total - n_dup - n_ff)
        accounts = self.out.accounts
        weights = [1.0 + math.log1p(a.employees or 50) for a in accounts]
        owners = list(accounts) + self.rng.choices(accounts, weights, k=n_base - len(accounts))
        owners.sort(key=lambda a: a.id)
        for acc in owners:
            self.base_contact(acc)
        bases = [c for c in self.out.contacts if c.account_id is not None]
        picked = self.rng.sample(bases, min(n_dup + n_ff, len(bases)))
        for c in sorted(picked[:n_dup], key=lambda x: x.id):
            self.variant(c)
        for c in sorted(picked[n_dup:], key=lambda x: x.id):
            self.false_friend(c)

    def base_contact(self, acc: Account) -> None:
        terr = self.out.territory_of[acc.id]
        locale = terr.locale if self.rng.random() < 0.85 else self.rng.choice(TERRITORIES).locale
        loc = self.fake[locale]
        first, last = loc.first_name(), loc.last_name()
        created = _minutes_ago(self.rng, self.now, 1, max(2, (self.now - acc.created_at).days - 1))
        title = TITLES[self.rng.randrange(len(TITLES))]
        cid = self.ids.next("ct")
        truth = PersonTruth(id=cid, person_key=cid)
        record_title = self.maybe(title)
        if self.rng.random() < self.p.stale_rate:
            if self.rng.random() < self.p.departed_share:
                truth = truth.model_copy(update={"departed": True})
            else:
                newer = [t for t in TITLES if t != title]
                record_title = title
                truth = truth.model_copy(update={"current_title": self.rng.choice(newer)})
        self.out.contacts.append(
            Contact(
                id=cid,
                account_id=acc.id,
                first_name=first,
                last_name=last,
                email=self.work_email(first, last, self.out.email_domain[acc.id]),
                phone=self.maybe(_phone(self.rng, terr)),
                title=record_title,
                consent=self.consent(),
                owner_id=acc.owner_id,
                created_at=created,
                updated_at=created,
            )
        )
        self.out.person_truth[cid] = truth

    def variant(self, base: Contact) -> None:
        """Adds a near-duplicate record of `base` (same person, messier data)."""
        first, last = base.first_name, base.last_name
        kinds = ["case", "typo", "second_email"]
        formal = canonical_first_name(first)
        if formal != fold(first) or fold(first) in _REVERSE_NICKNAMES:
            kinds.append("nickname")
        if _strip_accents(first + last) != first + last:
            kinds.append("accent")
        kind = kinds[self.rng.randrange(len(kinds))]
        if kind == "nickname":
            if formal != fold(first):
                first = formal.capitalize()
            else:
                first = self.rng.choice(_REVERSE_NICKNAMES[fold(first)]).capitalize()
        elif kind == "case":
            first, last = (first.upper(), last.upper()) if self.rng.random() < 0.5 else (first.lower(), last.lower())
        elif kind == "typo" and len(last) >= 4:
            i = self.rng.randrange(1, len(last) - 2)
            swapped = last[:i] + last[i + 1] + last[i] + last[i + 2 :]
            last = swapped if swapped != last else last[:-1]
        elif kind == "accent":
            first, last = _strip_accents(first), _strip_accents(last)
        r = self.rng.random()
        if kind == "second_email" or r < 0.3:
            email: str | None = self.unique_email(
                f"{_ascii_slug(first)}{_ascii_slug(last)}{self.rng.randint(1, 99)}",
                self.rng.choice(_PERSONAL_DOMAINS),
            )
        elif r < 0.65:
            email = None
        else:
            email = (base.email or "").upper() or None
        terr = self.out.territory_of[base.account_id or ""]
        digits = "".join(ch for ch in (base.phone or "") if ch.isdigit())[-10:]
        phone = _phone(self.rng, terr, digits) if len(digits) == 10 and self.rng.random() < 0.5 else None
        created = base.created_at + timedelta(minutes=self.rng.randint(60, 200 * 1440))
        created = min(created, self.now - timedelta(hours=1))
        cid = self.ids.next("ct")
        self.out.contacts.append(
            base.model_copy(
                update={
                    "id": cid,
                    "first_name": first,
                    "last_name": last,
                    "email": email,
                    "phone": phone,
                    "title": base.title if self.rng.random() < 0.5 else None,
                    "created_at": created,
                    "updated_at": created,
                }
            )
        )
        truth = self.out.person_truth[base.id]
        self.out.person_truth[cid] = PersonTruth(
            id=cid,
            person_key=truth.person_key,
            variant_of=base.id,
            variant_kind=kind,
            departed=truth.departed,
            current_title=truth.current_title,
        )

    def false_friend(self, base: Contact) -> None:
        """Adds a different person at the same account whose name looks like `base`'s."""
        terr = self.out.territory_of[base.account_id or ""]
        first = base.first_name
        if self.rng.random() < 0.5:
            loc = self.fake[terr.locale]
            for _ in range(25):
                cand = loc.first_name()
                if cand[0] == first[0] and cand != first:
                    first = cand
                    break
        title = self.rng.choice([t for t in TITLES if t != base.title])
        created = _minutes_ago(self.rng, self.now, 1, 400)
        cid = self.ids.next("ct")
        self.out.contacts.append(
            Contact(
                id=cid,
                account_id=base.account_id,
                first_name=first,
                last_name=base.last_name,
                email=self.work_email(f"{first}{self.rng.randint(2, 9)}", base.last_name,
                                      self.out.email_domain[base.account_id or ""]),
                phone=_phone(self.rng, terr),
                title=title,
                consent=self.consent(),
                owner_id=base.owner_id,
                created_at=created,
                updated_at=created,
            )
        )
        self.out.person_truth[cid] = PersonTruth(id=cid, person_key=cid, false_friend_of=base.id)

    # --- leads ------------------------------------------------------------------------
    def leads(self) -> None:
        n = self.p.leads if self.p.leads is not None else self.p.contacts // 5
        sources: tuple[LeadSource, ...] = ("web_form", "webinar", "trade_show", "referral", "outbound", "partner")
        statuses: tuple[LeadStatus, ...] = ("new", "working", "qualified", "unqualified")
        live = [
            c for c in self.out.contacts
            if self.out.person_truth[c.id].variant_of is None
            and not self.out.person_truth[c.id].departed and c.account_id
        ]
        for _ in range(n):
            r = self.rng.random()
            lid = self.ids.next("ld")
            created = _minutes_ago(self.rng, self.now, 0.2, 60)
            status = self.rng.choices(statuses, (0.4, 0.3, 0.1, 0.2))[0]
            source = sources[self.rng.randrange(len(sources))]
            truth = LeadTruth(id=lid, contact_id=None, account_id=None)
            title: str | None
            phone: str | None
            if r < self.p.lead_conflict_rate and live:
                c = live[self.rng.randrange(len(live))]
                acc_id = c.account_id or ""
                terr = self.out.territory_of[acc_id]
                first, last, email = c.first_name, c.last_name, (c.email or "")
                if self.rng.random() < 0.3:
                    email = email.upper()
                title = self.out.person_truth[c.id].current_title or self.rng.choice(
                    [t for t in TITLES if t != c.title])
                phone = _phone(self.rng, terr)
                company = _messy_company(self.rng, self.out.canonical_name[acc_id])
                conflicts = ("company", "phone", "title")
                truth = LeadTruth(id=lid, contact_id=c.id, account_id=acc_id, conflicts=conflicts)
            elif r < self.p.lead_conflict_rate + self.p.lead_existing_account_rate:
                acc = self.out.accounts[self.rng.randrange(len(self.out.accounts))]
                terr = self.out.territory_of[acc.id]
                loc = self.fake[terr.locale]
                first, last = loc.first_name(), loc.last_name()
                email = self.work_email(first, last, self.out.email_domain[acc.id])
                title, phone = self.maybe(self.rng.choice(TITLES)), self.maybe(_phone(self.rng, terr))
                company = self.out.canonical_name[acc.id]
                if self.rng.random() < 0.6:
                    company = _messy_company(self.rng, company)
                truth = LeadTruth(id=lid, contact_id=None, account_id=acc.id)
            else:
                terr = self.rng.choice(TERRITORIES)
                loc = self.fake[terr.locale]
                first, last = loc.first_name(), loc.last_name()
                company = loc.company()
                slug = "".join(norm_company(company).split())[:18] or "company"
                email = self.work_email(first, last, f"{slug}-{lid[-3:]}.{terr.tld}")
                title, phone = self.maybe(self.rng.choice(TITLES)), self.maybe(_phone(self.rng, terr))
            owner = self.owner_for(terr.name, "sdr") if self.rng.random() < 0.8 else None
            self.out.leads.append(
                Lead(
                    id=lid,
                    first_name=first,
                    last_name=last,
                    email=email,
                    phone=phone,
                    company=company,
                    title=title,
                    source=source,
                    status=status,
                    owner_id=owner,
                    message=None,
                    created_at=created,
                )
            )
            self.out.lead_truth.append(truth)


def generate_people(p: CrmParams, fake: Faker, rng: random.Random, ids: IdFactory, now: datetime) -> People:
    """Generates users, accounts, contacts and leads, with their ground truth.

    Order: users, then accounts, then base contacts in account-id order, then
    near-duplicates and false friends in base-id order, then leads.
    """
    gen = _Gen(p, fake, rng, ids, now)
    gen.users()
    gen.accounts()
    gen.contacts()
    gen.leads()
    return gen.out
