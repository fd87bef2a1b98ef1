"""Scenario setup for forecast hygiene: some buyers declined in writing, others only went quiet.

Two reviewed deals were declined by their buyer, each for a stated cause (a named
competitor, a frozen budget, a cancelled project, an in-house build). The
distractors look like declines and are not: a deal whose buyer never answered
the rep's follow-ups, a buyer who says "no" to one detail while the deal goes
ahead, and (from the third distractor on) a buyer who declined and then took it
back in a later email. With `depth` 2 the declines are filed on the buyer's
contact record only, so reading the deal's own timeline misses them.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.decline_causes import CAUSES, COMPETITORS, Cause
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.models import Activity, Contact, Deal
from saas_sim.domains.crm.pipeline import is_open
from saas_sim.domains.crm.setup_helpers import full_name, inbound_email, reachable, user_name
from saas_sim.domains.crm.state import CONTACTS, DEALS
from saas_sim.errors import ScenarioError

__all__ = ["declined_deals"]

_DECLINED = 2
"""Declined deals per task (the oracle closes each by name)."""

_KINDS = ("quiet", "soft_no", "reversed", "quiet", "soft_no", "reversed")
"""Distractor kinds, in the order a task takes them (`distractors` of them)."""

_SOFT_NOS = (
    "No, we won't need the training day after all, so please leave it out. Everything else stays as "
    "proposed and we still plan to sign {deal} this quarter.",
    "No need to send the security questionnaire again: our IT team approved it yesterday. We are going "
    "ahead with {deal} as planned.",
    "No problem at all about the delay on your side. We remain committed to {deal}; could we meet next week "
    "to go through the order form?",
)

_RETRACTIONS = (
    "Please disregard my last email. Our leadership reviewed it again and we are going ahead with {deal} "
    "after all. Sorry for the confusion.",
    "Quick correction to my previous message: that decision was reversed this morning, and we do want to "
    "proceed with {deal}. Let's keep the timeline we discussed.",
)


def _decline_text(cause: Cause, competitor: str, deal: Deal) -> str:
    """The buyer's decline, naming only its own cause (no word of another cause's family)."""
    if cause == "competitor":
        return (f"Thanks for all the time you put into {deal.name}. After comparing the options we have decided "
                f"to go with {competitor} instead, so we will not move forward with you.")
    if cause == "budget":
        return (f"Unfortunately the budget for {deal.name} was frozen for the rest of the year, so we have to "
                "stop here and will not move forward.")
    if cause == "cancelled":
        return (f"The initiative behind {deal.name} was cancelled in last week's reorganisation, so we will not "
                "go ahead with it.")
    return (f"Our engineering team has decided to build this in-house, so we will not go ahead with "
            f"{deal.name}.")


def _signed(body: str, owner_first: str, buyer: Contact) -> str:
    return f"Hi {owner_first},\n\n{body}\n\nBest regards,\n{buyer.first_name}"


def _email(ctx: SetupContext, buyer: Contact, deal: Deal, subject: str, body: str, minutes_ago: int,
           on_deal: bool) -> ev.InboundEmailReceived:
    owner_first = user_name(ctx.state, deal.owner_id).split()[0]
    staged = inbound_email(ctx, buyer, subject, _signed(body, owner_first, buyer), deal, minutes_ago)
    if on_deal:
        return staged
    # Filed by the mail sync on the person only: the deal's own timeline does not show it.
    return ev.InboundEmailReceived(activity=staged.activity.model_copy(update={"deal_id": None}))


def _follow_ups(ctx: SetupContext, buyer: Contact, deal: Deal) -> ev.ActivitiesImported:
    """Two follow-ups the rep sent that the buyer never answered (the deal only went quiet)."""
    acts = []
    for days, subject in ((ctx.rng.randint(18, 30), f"Checking in on {deal.name}"),
                          (ctx.rng.randint(5, 12), f"Any update on {deal.name}?")):
        acts.append(Activity(
            id=ctx.ids.next("act"), kind="email", subject=subject,
            body=f"Hi {buyer.first_name}, just checking in on {deal.name}. Happy to help with any questions.",
            direction="outbound", outcome=None, contact_id=buyer.id, deal_id=deal.id, account_id=deal.account_id,
            owner_id=deal.owner_id, occurred_at=ctx.now - timedelta(days=days),
        ))
    return ev.ActivitiesImported(activities=acts)


def _deal_view(d: Deal, buyer: Contact) -> dict[str, Any]:
    return {"id": d.id, "name": d.name, "stage": d.stage, "owner_id": d.owner_id, "contact_id": buyer.id,
            "contact_name": full_name(buyer), "contact_email": buyer.email}


@kit.setup
def declined_deals(ctx: SetupContext) -> Setup:
    """Reviewed open deals: two declined in writing (with a cause), the others quiet, soft noes or retracted.

    Params: `distractors` (deals that must stay open, default 3) and `depth` (1: declines filed on the deal;
    2: on the buyer's contact only).

    Bindings: d1, d2 (each a deal view plus cause, competitor, reason: a lost reason naming the cause, and
    reason_alt: another wording), declined_ids, declined_contact_ids, kept (the distractor deal views with
    their kind), kept_ids, reviewed_ids, deal_list (the reviewed deals as the instructions name them),
    wrong_reason (d1 closed for another cause), every_cause (a reason naming every cause).
    """
    n_kept = int(ctx.params.get("distractors", 3))
    depth = int(ctx.params.get("depth", 1))
    if not 0 <= n_kept <= len(_KINDS) or depth not in (1, 2):
        raise ScenarioError("declined_deals takes distractors 0-6 and depth 1 or 2")
    pool: list[tuple[Deal, Contact]] = []
    for d in ctx.state.table(DEALS):
        c = ctx.state.get(CONTACTS, d.primary_contact_id) if d.primary_contact_id else None
        if is_open(d.stage) and c is not None and reachable(c) and c.account_id == d.account_id:
            pool.append((d, c))
    # One buyer per reviewed deal: a person with two reviewed deals would make "the buyer's email" ambiguous.
    distinct: dict[str, tuple[Deal, Contact]] = {}
    for d, c in pool:
        distinct.setdefault(c.id, (d, c))
    if len(distinct) < _DECLINED + n_kept:
        raise ScenarioError("this world has too few open deals with distinct reachable buyers")
    chosen = ctx.rng.sample(sorted(distinct.values(), key=lambda dc: dc[0].id), _DECLINED + n_kept)
    causes = ctx.rng.sample(CAUSES, _DECLINED)
    staged: list[Event] = []
    bindings: dict[str, Any] = {}
    competitor = ctx.rng.choice(COMPETITORS)
    kinds = [""] * _DECLINED + list(_KINDS[:n_kept])
    # The deals' emails are staged in a seed-drawn order, so the declines are not always the lowest activity
    # ids (nor the earliest staged events).
    slots = list(range(len(chosen)))
    ctx.rng.shuffle(slots)
    for j in slots:
        deal, buyer = chosen[j]
        kind = kinds[j]
        if j < _DECLINED:
            cause = causes[j]
            rival = competitor if cause == "competitor" else None
            text = _decline_text(cause, competitor, deal)
            staged.append(_email(ctx, buyer, deal, f"Re: {deal.name}", text, ctx.rng.randint(60, 60 * 48),
                                 depth == 1))
            reason, alt = {
                "competitor": (f"Chose {competitor}", f"Lost to competitor {competitor}"),
                "budget": ("Budget frozen for the rest of the year", "No budget this year"),
                "cancelled": ("Project cancelled in a reorganisation", "Buyer's initiative was cancelled"),
                "in_house": ("Building it in-house", "Buyer will build the tool internally"),
            }[cause]
            bindings[f"d{j + 1}"] = {**_deal_view(deal, buyer), "cause": cause, "competitor": rival,
                                     "reason": reason, "reason_alt": alt}
        elif kind == "quiet":
            staged.append(_follow_ups(ctx, buyer, deal))
        elif kind == "soft_no":
            body = ctx.rng.choice(_SOFT_NOS).format(deal=deal.name)
            staged.append(_email(ctx, buyer, deal, f"Re: {deal.name}", body, ctx.rng.randint(60, 60 * 48), True))
        else:
            cause = ctx.rng.choice(CAUSES)
            first = ctx.rng.randint(60 * 50, 60 * 96)
            staged.append(_email(ctx, buyer, deal, f"Re: {deal.name}", _decline_text(cause, competitor, deal),
                                 first, depth == 1))
            staged.append(_email(ctx, buyer, deal, f"Re: {deal.name} - correction",
                                 ctx.rng.choice(_RETRACTIONS).format(deal=deal.name),
                                 first - ctx.rng.randint(120, 60 * 40), depth == 1))
    kept: list[dict[str, Any]] = [{**_deal_view(deal, buyer), "kind": kind}
                                  for (deal, buyer), kind in zip(chosen[_DECLINED:], kinds[_DECLINED:], strict=True)]
    reviewed = [d for d, _ in chosen]
    ctx.rng.shuffle(reviewed)
    d1 = bindings["d1"]
    other_cause = next(c for c in CAUSES if c not in (d1["cause"], "competitor"))
    bindings.update({
        "declined_ids": [bindings["d1"]["id"], bindings["d2"]["id"]],
        "declined_contact_ids": [bindings["d1"]["contact_id"], bindings["d2"]["contact_id"]],
        "kept": kept,
        "kept_ids": [k["id"] for k in kept],
        "reviewed_ids": sorted(d.id for d in reviewed),
        "deal_list": "; ".join(f'"{d.name}" ({d.id})' for d in reviewed),
        "wrong_reason": {"budget": "Budget frozen", "cancelled": "Project cancelled",
                         "in_house": "Building it in-house"}[other_cause],
        "every_cause": f"Chose a competitor ({', '.join(COMPETITORS)}), budget frozen, project cancelled or "
                       "building in-house",
    })
    return Setup(bindings=bindings, events=staged)
