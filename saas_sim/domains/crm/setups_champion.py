"""Scenario setup for a departed champion: the buyer's auto-reply says they left and names a successor.

The successor already has a record at the account (the reply writes their
address in another case), and a colleague with the very same name, at another
address, was filed by an import: only the address tells them apart.
"""

from __future__ import annotations

from datetime import timedelta

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.models import Contact, Deal, PersonTruth
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
)
from saas_sim.domains.crm.state import CONTACTS, DEALS, PERSON_TRUTH

__all__ = ["departed_champion"]

_LATE = ("qualification", "discovery", "proposal", "negotiation")


def _shown(email: str) -> str:
    """The address as an auto-reply types it: each dotted part capitalized (`Jane.Doe@Acme.com`)."""
    local, _, domain = email.partition("@")
    return f"{'.'.join(p.capitalize() for p in local.split('.'))}@{domain.capitalize()}"


@kit.setup
def departed_champion(ctx: SetupContext) -> Setup:
    """An open deal whose primary contact left; the auto-reply names an existing colleague as successor.

    Bindings: deal, departed (the old primary contact), successor, successor_email_shown, namesake
    (the same-name colleague at another address), other_colleague, other_deal, other_close_date. Of the two
    same-named records, the successor is the world's older one or the one added lately (seed-drawn), so
    neither the id order nor a name search's order says which.

    Params:
        namesakes: Distractors: more people with the successor's exact name, at other accounts (default 0).
    """
    base = base_contacts(ctx.state)
    by_account: dict[str, list[Contact]] = {}
    for c in base:
        if c.account_id and reachable(c) and "@" in (c.email or ""):
            by_account.setdefault(c.account_id, []).append(c)
    pool: list[tuple[Deal, Contact, list[Contact]]] = []
    for d in ctx.state.table(DEALS):
        p = ctx.state.get(CONTACTS, d.primary_contact_id) if d.primary_contact_id else None
        if d.stage not in _LATE or p is None or not reachable(p):
            continue
        others = [c for c in by_account.get(d.account_id, [])
                  if c.id != p.id and fold(c.last_name) != fold(p.last_name)]
        if len(others) >= 2:
            pool.append((d, p, others))
    deal, departed, others = pick(ctx.rng, pool, "open deal whose account has two more reachable contacts")
    colleague = pick(ctx.rng, others, "successor")
    other = pick(ctx.rng, [c for c in others if c.id != colleague.id], "another colleague")
    domain = (colleague.email or "").rpartition("@")[2]
    at = ctx.now - timedelta(days=ctx.rng.randint(5, 30))
    added = colleague.model_copy(update={
        "id": fresh_id(ctx, "ct"),
        "email": f"{fold(colleague.first_name)[:1]}{fold(colleague.last_name).replace(' ', '')}"
                 f"{ctx.rng.randint(2, 9)}@{domain}",
        "secondary_email": None, "phone": new_phone(ctx, colleague.account_id), "title": None,
        "created_at": at, "updated_at": at, "last_contacted_at": None,
    })
    # Which of the two same-named records is the successor is seed-drawn: the world's older record (lower
    # id, first in a name search) or the one added lately, who then has a title of their own.
    added_is_successor = ctx.rng.random() >= 0.5
    if not added_is_successor:
        successor, namesake = colleague, added
    else:
        titles = sorted({c.title for c in base if c.title and c.title != colleague.title})
        successor = added.model_copy(update={"title": pick(ctx.rng, titles, "another title")})
        namesake = colleague
    truth = ctx.state.get(PERSON_TRUTH, departed.id)
    shown = _shown(successor.email or "")
    title = successor.title or "buyer"
    body = (f"Thank you for your message. {departed.first_name} {departed.last_name} has left "
            f"{account_name(ctx.state, deal.account_id)} and this mailbox is no longer monitored. For "
            f"{deal.name}, please contact {successor.first_name} {successor.last_name} ({title}) at {shown}.")
    staged: list[Event] = [
        ev.ContactCreated(contact=successor if added_is_successor else namesake),
        ev.PersonTruthsRecorded(truths=[
            PersonTruth(id=added.id, person_key=added.id, false_friend_of=None if added_is_successor else colleague.id),
            PersonTruth(id=departed.id, person_key=truth.person_key if truth else departed.id, departed=True),
        ]),
        inbound_email(ctx, departed, f"Automatic reply: {deal.name}", body, deal, ctx.rng.randint(5, 60)),
    ]
    other_deal = pick(ctx.rng, [d for d in ctx.state.table(DEALS) if d.id != deal.id and d.stage in _LATE],
                      "second open deal")
    return Setup(
        bindings={
            "deal": {"id": deal.id, "name": deal.name, "owner_id": deal.owner_id, "account_id": deal.account_id,
                     "owner_name": user_name(ctx.state, deal.owner_id),
                     "account_name": account_name(ctx.state, deal.account_id)},
            "departed": {"id": departed.id, "name": full_name(departed)},
            "successor": {"id": successor.id, "name": full_name(successor), "first_name": successor.first_name,
                          "last_name": successor.last_name, "email": successor.email,
                          "owner_id": successor.owner_id},
            "successor_email_shown": shown,
            "namesake": {"id": namesake.id},
            "other_colleague": {"id": other.id},
            "other_deal": {"id": other_deal.id},
            "other_close_date": (ctx.now.date() + timedelta(days=ctx.rng.randint(40, 90))).isoformat(),
        },
        events=[*staged, *namesakes(ctx, successor, distractor_count(ctx, "namesakes"))],
    )
