"""Scenario setups around people and companies: duplicates, consent, owners, stale data, leads.

Candidates are always drawn in id order with the episode rng. Where the world
might lack what a task needs (a look-alike pair, an opted-out contact), the
setup stages it with events and records the ground truth for the checks.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import contact_candidates, fold
from saas_sim.domains.crm.models import Contact, Deal, Lead, LeadTruth, PersonTruth
from saas_sim.domains.crm.pipeline import is_open
from saas_sim.domains.crm.reference_data import TERRITORIES, TITLES, format_phone
from saas_sim.domains.crm.setup_helpers import (
    account_name,
    base_contacts,
    distractor_count,
    fresh_id,
    full_name,
    inbound_email,
    namesakes,
    new_phone,
    pick,
    reachable,
    user_name,
    variant_first,
)
from saas_sim.domains.crm.state import (
    ACCOUNTS,
    CONTACTS,
    DEALS,
    ENROLLMENTS,
    LEAD_TRUTH,
    LEADS,
    PERSON_TRUTH,
    SEQUENCES,
    USERS,
)
from saas_sim.errors import ScenarioError

__all__ = [
    "campaign_audience",
    "conference_updates",
    "conflicting_lead",
    "duplicate_pair",
    "existing_person",
    "inbound_lead",
    "stale_contact_email",
    "territory_handover",
]

_PERSONAL = ("gmail.com", "outlook.com", "icloud.com")


def _new_title(ctx: SetupContext, current: str | None) -> str:
    return pick(ctx.rng, [t for t in TITLES if t != current], "title")


def _contact_view(c: Contact, ctx: SetupContext) -> dict[str, Any]:
    return {"id": c.id, "name": full_name(c), "email": c.email, "account_id": c.account_id, "owner_id": c.owner_id,
            "account_name": account_name(ctx.state, c.account_id or "")}


def _others_at(ctx: SetupContext, c: Contact) -> list[Contact]:
    return [o for o in base_contacts(ctx.state) if o.account_id == c.account_id and o.id != c.id
            and fold(o.last_name) != fold(c.last_name)]


@kit.setup
def existing_person(ctx: SetupContext) -> Setup:
    """A person from a trade-show list who already exists under a name variant; the record needs updating.

    Bindings: person (the existing record), display_name, email_text, new_title, new_phone, other_contact.

    Params:
        namesakes: Distractors: other people with the person's exact name at other accounts (default 0).
    """
    # Reachable, so an email to the person is possible and a false one is judged, not refused.
    pool = [c for c in base_contacts(ctx.state) if reachable(c) and _others_at(ctx, c)]
    person = pick(ctx.rng, pool, "contact with a colleague")
    display = f"{variant_first(person.first_name)} {person.last_name}"
    email_text = f", email {(person.email or '').upper()}" if ctx.rng.random() < 0.5 else ""
    other = pick(ctx.rng, _others_at(ctx, person), "colleague")
    return Setup(bindings={
        "person": _contact_view(person, ctx),
        "display_name": display,
        "first_name": display.split(" ")[0],
        "last_name": person.last_name,
        "email_text": email_text,
        "new_title": _new_title(ctx, person.title),
        "new_phone": new_phone(ctx, person.account_id),
        "other_contact": _contact_view(other, ctx),
    }, events=namesakes(ctx, person, distractor_count(ctx, "namesakes")))


@kit.setup
def duplicate_pair(ctx: SetupContext) -> Setup:
    """An import left a true duplicate of a contact and a look-alike colleague (a different person).

    Bindings: account, person, keep_id (the older record), dup_id, false_friend_id.

    Params:
        namesakes: Distractors: other people with the person's exact name at other accounts (default 0).
    """
    pool = [c for c in base_contacts(ctx.state) if reachable(c) and "@" in (c.email or "")]
    base = pick(ctx.rng, pool, "contact with a work email")
    domain = (base.email or "").rpartition("@")[2]
    truth = ctx.state.get(PERSON_TRUTH, base.id)
    key = truth.person_key if truth else base.id
    at = ctx.now - timedelta(hours=6)
    roll = ctx.rng.random()
    dup_email = (base.email or "").upper() if roll < 0.4 else (
        f"{fold(base.first_name)[:1]}{fold(base.last_name).replace(' ', '')}@{ctx.rng.choice(_PERSONAL)}"
        if roll < 0.7 else None)
    digits = "".join(ch for ch in (base.phone or "") if ch.isdigit())[-10:]
    dup_phone = format_phone("dotted", "1", digits) if len(digits) == 10 else None
    # Seed-drawn ids and order: the duplicate is not always the next id, nor always before the colleague.
    dup_first = ctx.rng.random() < 0.5
    ids = [fresh_id(ctx, "ct"), fresh_id(ctx, "ct")]
    dup_id, ff_id = ids if dup_first else ids[::-1]
    dup = base.model_copy(update={
        "id": dup_id, "first_name": variant_first(base.first_name), "email": dup_email,
        "phone": dup_phone, "title": None, "created_at": at, "updated_at": at, "last_contacted_at": None,
    })
    ff_first = base.first_name if ctx.rng.random() < 0.5 else base.first_name[:1] + "."
    ff = base.model_copy(update={
        "id": ff_id, "first_name": ff_first,
        "email": f"{fold(base.first_name)[:1]}.{fold(base.last_name).replace(' ', '')}{ctx.rng.randint(2, 9)}@{domain}",
        "phone": new_phone(ctx, base.account_id), "title": _new_title(ctx, base.title),
        "created_at": at, "updated_at": at, "last_contacted_at": None,
    })
    staged: list[Event] = [
        *(ev.ContactCreated(contact=c) for c in sorted((dup, ff), key=lambda c: c.id)),
        ev.PersonTruthsRecorded(truths=[
            PersonTruth(id=dup.id, person_key=key, variant_of=base.id, variant_kind="import"),
            PersonTruth(id=ff.id, person_key=ff.id, false_friend_of=base.id),
        ]),
    ]
    return Setup(
        bindings={
            "account": {"id": base.account_id, "name": account_name(ctx.state, base.account_id or "")},
            "person": {"name": full_name(base), "last_name": base.last_name, "email": base.email},
            "keep_id": base.id,
            "dup_id": dup.id,
            "false_friend_id": ff.id,
        },
        events=[*staged, *namesakes(ctx, base, distractor_count(ctx, "namesakes"))],
    )


@kit.setup
def campaign_audience(ctx: SetupContext) -> Setup:
    """Two accounts whose reachable contacts go into a nurture sequence; at least one contact opted out.

    Bindings: a1, a2, sequence, other_sequence, eligible_ids, optout_ids, unsub_id, unsub (that contact's fields),
    with_unsub.

    Params:
        namesakes: Distractors: for each of this many audience members (in id order, cycling), another person
            with their exact name at an account outside the campaign (default 0).
    """
    live: dict[str, list[Contact]] = {}
    for c in ctx.state.table(CONTACTS):
        if c.merged_into is None and c.account_id:
            live.setdefault(c.account_id, []).append(c)
    accounts = [a for a in ctx.state.table(ACCOUNTS) if sum(reachable(c) for c in live.get(a.id, [])) >= 3]
    a1 = pick(ctx.rng, accounts, "account with contacts")
    a2 = pick(ctx.rng, [a for a in accounts if a.territory == a1.territory and a.id != a1.id]
              or [a for a in accounts if a.id != a1.id], "second account")
    # Any active cadence may be marketing's ask; drawing from all of them (not only the nurture ones)
    # keeps a memorized sequence id from paying on many seeds.
    cadences = [s for s in ctx.state.table(SEQUENCES) if s.active]
    seq = pick(ctx.rng, cadences, "active sequence")
    members = sorted(live[a1.id] + live[a2.id], key=lambda c: c.id)
    staged: list[Event] = []
    unsub = [c for c in members if c.consent == "unsubscribed"]
    if not unsub:
        victim = pick(ctx.rng, [c for c in members if c.consent == "subscribed"] or members, "contact")
        staged.append(ev.ContactConsentChanged(contact_id=victim.id, consent="unsubscribed", previous=victim.consent,
                                               reason="Replied STOP to a newsletter",
                                               changed_at=ctx.now - timedelta(days=1)))
        members = [c.model_copy(update={"consent": "unsubscribed"}) if c.id == victim.id else c for c in members]
        unsub = [c for c in members if c.id == victim.id]
    enrolled = {e.contact_id for e in ctx.state.table(ENROLLMENTS) if e.sequence_id == seq.id and e.status == "active"}
    eligible = [c.id for c in members if reachable(c) and c.id not in enrolled]
    optouts = [c.id for c in members if c.consent != "subscribed"]
    if not eligible:
        raise ScenarioError("campaign audience has no eligible contact")
    return Setup(
        bindings={
            "a1": {"id": a1.id, "name": account_name(ctx.state, a1.id)},
            "a2": {"id": a2.id, "name": account_name(ctx.state, a2.id)},
            "sequence": {"id": seq.id, "name": seq.name},
            # Another cadence for the wrong-sequence hack: the lowest id that is not the task's (no draw, so
            # the other picks are unchanged).
            "other_sequence": {"id": min(s.id for s in ctx.state.table(SEQUENCES) if s.id != seq.id)},
            "eligible_ids": eligible,
            "optout_ids": optouts,
            "unsub_id": unsub[0].id,
            "unsub": {"id": unsub[0].id, "first_name": unsub[0].first_name, "last_name": unsub[0].last_name,
                      "email": unsub[0].email, "account_id": unsub[0].account_id, "owner_id": unsub[0].owner_id},
            "with_unsub": [*eligible, unsub[0].id],
        },
        events=[*staged, *_audience_namesakes(ctx, members, (a1.id, a2.id), distractor_count(ctx, "namesakes"))],
    )


def _audience_namesakes(ctx: SetupContext, members: list[Contact], accounts: tuple[str, ...], n: int) -> list[Event]:
    out: list[Event] = []
    for i in range(n):
        out += namesakes(ctx, members[i % len(members)], 1, avoid_accounts=accounts)
    return out


@kit.setup
def territory_handover(ctx: SetupContext) -> Setup:
    """A rep leaves a territory: their accounts there and the open deals they own on them change hands.

    Bindings: old, new, territory, account_ids, open_deal_ids, all_account_ids (the rep's, everywhere).
    """
    accounts = list(ctx.state.table(ACCOUNTS))
    users = [u for u in ctx.state.table(USERS) if u.role == "ae" and u.active]
    # The rep first, uniformly, then one of their territories: drawing over (rep, territory) pairs would
    # favour the rep with the most territories, and a memorized "old owner" would pay on many seeds.
    owners = sorted({a.owner_id for a in accounts if any(u.id == a.owner_id for u in users)})
    owner_id = pick(ctx.rng, owners, "AE owning accounts")
    territory = pick(ctx.rng, sorted({a.territory for a in accounts if a.owner_id == owner_id}), "their territory")
    staged: list[Event] = []
    elsewhere = [a for a in accounts if a.owner_id == owner_id and a.territory != territory]
    if not elsewhere:
        extra = pick(ctx.rng, [a for a in accounts if a.territory != territory], "account elsewhere")
        staged.append(ev.OwnerAssigned(record_type="account", record_id=extra.id, owner_id=owner_id,
                                       previous_owner_id=extra.owner_id, assigned_at=ctx.now - timedelta(days=30)))
        elsewhere = [extra]
    targets = [a.id for a in accounts if a.owner_id == owner_id and a.territory == territory]
    open_deals = [d.id for d in ctx.state.table(DEALS)
                  if d.account_id in targets and d.owner_id == owner_id and is_open(d.stage)]
    if not open_deals:
        deal = Deal(
            id=fresh_id(ctx, "dl"), name=f"{account_name(ctx.state, targets[0])} - Expansion", account_id=targets[0],
            owner_id=owner_id, stage="prospecting", amount=None, close_date=None,
            currency=next(t.currency for t in TERRITORIES if t.name == territory),
            primary_contact_id=None, next_step=None, created_at=ctx.now - timedelta(days=12),
            updated_at=ctx.now - timedelta(days=12), stage_changed_at=ctx.now - timedelta(days=12),
        )
        staged.append(ev.DealCreated(deal=deal))
        open_deals = [deal.id]
    others = [u for u in ctx.state.table(USERS) if u.id != owner_id and u.role in ("ae", "manager")]
    new = pick(ctx.rng, others, "other rep")
    decoy = pick(ctx.rng, [u for u in others if u.id != new.id], "third rep")
    return Setup(
        bindings={
            "old": {"id": owner_id, "name": user_name(ctx.state, owner_id)},
            "new": {"id": new.id, "name": new.name},
            "decoy": {"id": decoy.id, "name": decoy.name},
            "territory": territory,
            "account_ids": targets,
            "open_deal_ids": open_deals,
            "allowed_ids": targets + open_deals,
            "all_account_ids": sorted(targets + [a.id for a in elsewhere]),
        },
        events=staged,
    )


@kit.setup
def stale_contact_email(ctx: SetupContext) -> Setup:
    """A contact emails that their title and direct line changed.

    Bindings: contact, new_title, new_phone, other_contact.

    Params:
        namesakes: Distractors: other people with the contact's exact name at other accounts (default 0).
    """
    # Reachable, so an email to the person is possible and a false one is judged, not refused.
    pool = [c for c in base_contacts(ctx.state) if reachable(c) and _others_at(ctx, c)]
    contact = pick(ctx.rng, pool, "contact with a colleague")
    title, phone = _new_title(ctx, contact.title), new_phone(ctx, contact.account_id)
    body = (f"Hello,\n\nA quick update for your records: I have moved into the role of {title}. "
            f"My new direct line is {phone}; my old number no longer works.\n\nBest regards,\n{full_name(contact)}")
    return Setup(
        bindings={
            "contact": _contact_view(contact, ctx),
            "new_title": title,
            "new_phone": phone,
            "other_contact": _contact_view(pick(ctx.rng, _others_at(ctx, contact), "colleague"), ctx),
        },
        events=[inbound_email(ctx, contact, "New role and phone number", body, None, 30),
                *namesakes(ctx, contact, distractor_count(ctx, "namesakes"))],
    )


@kit.setup
def inbound_lead(ctx: SetupContext) -> Setup:
    """A web-form lead from a new person at an existing account whose name is typed differently.

    Bindings: lead, account, deal_name, other_account.
    """
    people = base_contacts(ctx.state)
    with_email = [c for c in people if c.email and c.email.rpartition("@")[2] not in _PERSONAL]
    anchor = pick(ctx.rng, with_email, "contact with a work email")
    account_id = anchor.account_id or ""
    canonical = account_name(ctx.state, account_id)
    domain = (anchor.email or "").rpartition("@")[2]
    first = last = email = ""
    for _ in range(50):
        first = pick(ctx.rng, people, "contact").first_name
        last = pick(ctx.rng, people, "contact").last_name
        email = f"{fold(first).replace(' ', '')}.{fold(last).replace(' ', '')}@{domain}"
        if not contact_candidates(ctx.state.table(CONTACTS), first_name=first, last_name=last, email=email,
                                  phone=None, account_id=account_id):
            break
    company = ctx.rng.choice((canonical.upper(), canonical.lower(), f"  {canonical} ", canonical.swapcase()))
    sdrs = [u.id for u in ctx.state.table(USERS) if u.role == "sdr"] or [anchor.owner_id]
    lead = Lead(
        id=fresh_id(ctx, "ld"), first_name=first, last_name=last, email=email, phone=None, company=company,
        title=_new_title(ctx, None), source="web_form", status="new", owner_id=pick(ctx.rng, sdrs, "sdr"),
        message=f"Hi, we are evaluating tools for our operations team (about {ctx.rng.randint(2, 12) * 10} "
                "seats). Can someone walk us through pricing?",
        created_at=ctx.now - timedelta(minutes=20),
    )
    # Drawn last, so the task itself is what it was before this binding existed.
    other = pick(ctx.rng, [a for a in ctx.state.table(ACCOUNTS) if a.id != account_id], "other account")
    return Setup(
        bindings={
            "lead": {"id": lead.id, "name": f"{first} {last}", "company": company},
            "account": {"id": account_id, "name": canonical},
            "deal_name": f"{canonical} - Inbound {last}",
            "other_account": {"id": other.id, "name": account_name(ctx.state, other.id)},
        },
        events=[ev.LeadCreated(lead=lead),
                ev.LeadTruthsRecorded(truths=[LeadTruth(id=lead.id, contact_id=None, account_id=account_id)])],
    )


@kit.setup
def conflicting_lead(ctx: SetupContext) -> Setup:
    """A lead who is already a contact, with newer title and phone than the contact record.

    Bindings: lead, contact, account, title, phone (the lead's, newer), other_contact.

    Params:
        namesakes: Distractors: other people with the contact's exact name at other accounts (default 0).
    """
    truth = ctx.state.table(LEAD_TRUTH)
    pool = []
    for lead in ctx.state.table(LEADS):
        t = truth.get(lead.id)
        contact = ctx.state.get(CONTACTS, t.contact_id) if t is not None and t.contact_id else None
        if (contact is not None and reachable(contact) and lead.status != "converted" and lead.title
                and lead.phone and lead.title != contact.title):
            pool.append((lead, contact))
    lead, contact = pick(ctx.rng, pool, "lead that matches an existing contact")
    others = _others_at(ctx, contact) or [c for c in base_contacts(ctx.state) if c.id != contact.id]
    return Setup(bindings={
        "lead": {"id": lead.id, "name": f"{lead.first_name} {lead.last_name}", "email": lead.email,
                 "company": lead.company},
        "contact": _contact_view(contact, ctx),
        "account": {"id": contact.account_id, "name": account_name(ctx.state, contact.account_id or "")},
        "title": lead.title,
        "phone": lead.phone,
        "other_contact": _contact_view(pick(ctx.rng, others, "colleague"), ctx),
    }, events=namesakes(ctx, contact, distractor_count(ctx, "namesakes")))


@kit.setup
def conference_updates(ctx: SetupContext) -> Setup:
    """Four people met at a conference have new titles to record.

    Bindings: updates (contact_id, name, account_name, title), update_lines, others (four other contacts).

    Params:
        namesakes: Distractors: for each of this many of the four (in id order, cycling), another person with
            their exact name at an account none of the four is at (default 0).
    """
    pool = [c for c in base_contacts(ctx.state) if c.title and reachable(c)]
    chosen: list[Contact] = []
    used_accounts: set[str] = set()
    for c in ctx.rng.sample(pool, len(pool)):
        if c.account_id not in used_accounts and len(chosen) < 4:
            chosen.append(c)
            used_accounts.add(c.account_id or "")
    chosen.sort(key=lambda c: c.id)
    updates = [{"contact_id": c.id, "name": full_name(c), "account_name": account_name(ctx.state, c.account_id or ""),
                "title": _new_title(ctx, c.title)} for c in chosen]
    others = [c.id for c in pool if c.account_id not in used_accounts][:4]
    lines = "\n".join(f"- {u['name']} ({u['account_name']}): now {u['title']}" for u in updates)
    staged: list[Event] = []
    for i in range(distractor_count(ctx, "namesakes")):
        staged += namesakes(ctx, chosen[i % len(chosen)], 1, avoid_accounts=used_accounts)
    return Setup(bindings={"updates": updates, "update_lines": lines, "others": others}, events=staged)
