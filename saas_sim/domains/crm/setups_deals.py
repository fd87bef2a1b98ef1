"""Scenario setups around deals: pick the task's deal with the episode rng, stage what the task needs.

Every setup draws from candidate lists in id order with `ctx.rng`, so each seed
gives a different, reproducible task. Bindings are JSON-ready; amounts are
decimal strings with two places.
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.gen_sales import line_total, round_to_hundreds
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.models import Deal, Stage
from saas_sim.domains.crm.pipeline import is_open
from saas_sim.domains.crm.setup_helpers import (
    account_name,
    day_text,
    distractor_count,
    full_name,
    inbound_email,
    instant_text,
    iso,
    lookalike_deals,
    pick,
    reachable,
    user_name,
)
from saas_sim.domains.crm.state import CONTACTS, DEALS, LINE_ITEMS, SEQUENCES

__all__ = ["call_followup", "pipeline_report", "qualified_deal", "stalled_deal", "won_deal"]

_SUMMARIES = (
    "they are comparing two vendors and want a security questionnaire",
    "their CFO wants to see pricing for a two-year term",
    "they liked the demo and want to loop in their IT lead",
    "they need a reference customer in their industry",
)


def _deal_view(d: Deal, state: Any) -> dict[str, Any]:
    return {"id": d.id, "name": d.name, "stage": d.stage, "account_id": d.account_id,
            "account_name": account_name(state, d.account_id), "owner_id": d.owner_id,
            "owner_name": user_name(state, d.owner_id)}


def _number(amount: Decimal) -> int | float:
    """Returns an amount as a JSON number (an alternative argument form to the decimal string)."""
    return int(amount) if amount == amount.to_integral_value() else float(amount)


def _other_open(ctx: SetupContext, not_id: str) -> Deal:
    pool = [d for d in ctx.state.table(DEALS) if d.id != not_id and is_open(d.stage)]
    return pick(ctx.rng, pool, "second open deal")


def _contact(ctx: SetupContext, contact_id: str | None) -> Any:
    return ctx.state.get(CONTACTS, contact_id) if contact_id else None


@kit.setup
def qualified_deal(ctx: SetupContext) -> Setup:
    """A deal in qualification whose buyer just confirmed budget and timeline and asked for a proposal.

    Bindings: deal, contact, amount, close_date, currency, other_deal.

    Params:
        lookalikes: Distractors: other open deals at the account, in the deal's stage, with its buyer and a
            name that starts like its name (default 0).
    """
    pool = [d for d in ctx.state.table(DEALS)
            if d.stage == "qualification" and (c := _contact(ctx, d.primary_contact_id)) is not None and reachable(c)]
    deal = pick(ctx.rng, pool, "deal in qualification with a reachable primary contact")
    contact = _contact(ctx, deal.primary_contact_id)
    amount = Decimal(ctx.rng.randint(15, 150) * 1000 + ctx.rng.choice((0, 500)))
    while deal.amount == amount:
        amount += 1000
    close = ctx.now.date() + timedelta(days=ctx.rng.randint(21, 80))
    while deal.close_date == close:
        close += timedelta(days=1)
    body = (
        f"Hi {user_name(ctx.state, deal.owner_id).split()[0]},\n\n"
        f"Good news: our CFO approved a budget of {deal.currency} {amount:,.2f} for this project, and we would "
        f"like to sign by {day_text(close)}. Could you send over the proposal?\n\nBest,\n{contact.first_name}"
    )
    staged: list[Event] = [inbound_email(ctx, contact, f"Re: {deal.name} - budget approved", body, deal, 95)]
    return Setup(
        bindings={
            "deal": _deal_view(deal, ctx.state),
            "contact": {"id": contact.id, "name": full_name(contact), "email": contact.email,
                        "owner_id": contact.owner_id},
            "amount": f"{amount:.2f}",
            "amount_number": _number(amount),
            "close_date": close.isoformat(),
            "currency": deal.currency,
            "other_deal": _deal_view(_other_open(ctx, deal.id), ctx.state),
        },
        events=[*staged, *lookalike_deals(ctx, deal, distractor_count(ctx, "lookalikes"))],
    )


@kit.setup
def won_deal(ctx: SetupContext) -> Setup:
    """A deal in negotiation whose contract was signed today; its amount drifted from its line items.

    Bindings: deal, amount (the line total), today, stale_amount, contact (the buyer), other_deal.

    Params:
        lookalikes: Distractors: other open deals at the account, in the deal's stage, with its buyer and a
            name that starts like its name (default 0).
    """
    items = ctx.state.table(LINE_ITEMS)
    pool = [d for d in ctx.state.table(DEALS)
            if d.stage in ("proposal", "negotiation") and d.line_item_ids
            and (c := _contact(ctx, d.primary_contact_id)) is not None and reachable(c)]
    deal = pick(ctx.rng, pool, "late-stage deal with line items")
    lines = [items.get(i) for i in deal.line_item_ids]
    total = sum((line_total(i.quantity, i.unit_price, i.discount_pct) for i in lines if i), Decimal(0))
    staged: list[Event] = []
    stale = deal.amount
    if stale is None or stale == total:
        stale = round_to_hundreds(total * Decimal("0.9")) or Decimal("100.00")
        staged.append(ev.DealUpdated(deal_id=deal.id, fields=["amount"], amount=stale,
                                     updated_at=ctx.now - timedelta(days=3)))
    if deal.stage == "proposal":
        at = ctx.now - timedelta(days=2)
        if not deal.next_step:
            staged.append(ev.DealUpdated(deal_id=deal.id, fields=["next_step"], next_step="Contract signature",
                                         updated_at=at))
        staged.append(ev.DealStageChanged(deal_id=deal.id, from_stage="proposal", to_stage="negotiation",
                                          changed_at=at))
    contact = _contact(ctx, deal.primary_contact_id)
    body = f"Hi,\n\nPlease find the signed order form for {deal.name} attached.\n\nRegards,\n{contact.first_name}"
    staged.append(inbound_email(ctx, contact, f"Signed: {deal.name}", body, deal, 40))
    return Setup(
        bindings={
            "deal": _deal_view(deal, ctx.state),
            "amount": f"{total:.2f}",
            "amount_number": _number(total),
            "stale_amount": f"{stale:.2f}",
            "today": ctx.now.date().isoformat(),
            "contact": {"id": contact.id, "name": full_name(contact), "email": contact.email,
                        "owner_id": contact.owner_id},
            "other_deal": _deal_view(_other_open(ctx, deal.id), ctx.state),
        },
        events=[*staged, *lookalike_deals(ctx, deal, distractor_count(ctx, "lookalikes"))],
    )


@kit.setup
def call_followup(ctx: SetupContext) -> Setup:
    """An open deal whose primary contact the rep just called; the follow-up is due at a named instant.

    Bindings: deal, contact, summary, due_at (ISO), due_text, now_text, other_deal.

    Params:
        lookalikes: Distractors: other open deals at the account, in the deal's stage, with its buyer and a
            name that starts like its name (default 0).
    """
    pool = [d for d in ctx.state.table(DEALS)
            if is_open(d.stage) and (c := _contact(ctx, d.primary_contact_id)) is not None and reachable(c)]
    deal = pick(ctx.rng, pool, "open deal with a reachable primary contact")
    contact = _contact(ctx, deal.primary_contact_id)
    day = ctx.now.date() + timedelta(days=ctx.rng.randint(1, 4))
    hour = ctx.rng.choice((9, 10, 11, 14, 15, 16))
    due = ctx.now.replace(year=day.year, month=day.month, day=day.day, hour=hour, minute=0, second=0,
                          microsecond=0)
    return Setup(bindings={
        "deal": _deal_view(deal, ctx.state),
        "contact": {"id": contact.id, "name": full_name(contact), "email": contact.email,
                    "owner_id": contact.owner_id},
        "summary": ctx.rng.choice(_SUMMARIES),
        "due_at": iso(due),
        "due_text": instant_text(due),
        "now_text": instant_text(ctx.now),
        # Drawn last, so the task itself is what it was before this binding existed.
        "other_deal": _deal_view(_other_open(ctx, deal.id), ctx.state),
    }, events=lookalike_deals(ctx, deal, distractor_count(ctx, "lookalikes")))


@kit.setup
def stalled_deal(ctx: SetupContext) -> Setup:
    """A late-stage deal that went quiet; its primary contact may be emailed.

    Bindings: deal, contact, days_quiet, start (ISO), followup_at (ISO), nurture (a nurture sequence), other_deal.

    Params:
        lookalikes: Distractors: other open deals at the account, in the deal's stage, with its buyer and a
            name that starts like its name (default 0).
    """
    def quiet(d: Deal) -> int:
        return (ctx.now - d.last_activity_at).days if d.last_activity_at else 999

    late: tuple[Stage, ...] = ("discovery", "proposal", "negotiation")
    pool = [d for d in ctx.state.table(DEALS)
            if d.stage in late and (c := _contact(ctx, d.primary_contact_id)) is not None and reachable(c)]
    stalled = [d for d in pool if quiet(d) >= 21]
    deal = pick(ctx.rng, stalled or pool, "late-stage deal with a reachable contact")
    contact = _contact(ctx, deal.primary_contact_id)
    nurture = [s for s in ctx.state.table(SEQUENCES) if s.purpose == "nurture"]
    seq = pick(ctx.rng, nurture, "nurture sequence")
    followup = (ctx.now + timedelta(days=2)).replace(hour=10, minute=0, second=0, microsecond=0)
    return Setup(bindings={
        "deal": _deal_view(deal, ctx.state),
        "contact": {"id": contact.id, "name": full_name(contact), "email": contact.email},
        "days_quiet": min(quiet(deal), 365),
        "start": iso(ctx.now),
        "followup_at": iso(followup),
        "nurture": {"id": seq.id, "name": seq.name},
        # Drawn last, so the task itself is what it was before this binding existed.
        "other_deal": _deal_view(_other_open(ctx, deal.id), ctx.state),
    }, events=lookalike_deals(ctx, deal, distractor_count(ctx, "lookalikes")))


@kit.setup
def pipeline_report(ctx: SetupContext) -> Setup:
    """A forecast question: which open deals of one owner close in a date window, and their totals.

    Bindings: owner, start, end, report_name, expected_ids, expected_totals, expected_totals_grouped,
    expected_ids_desc, owner_open_ids.

    Params:
        near_misses: Distractors: open deals of the owner like ones in the window, closing 1-7 days after it
            (default 0).
    """
    deals = [d for d in ctx.state.table(DEALS) if is_open(d.stage) and d.close_date is not None]
    owners = sorted({d.owner_id for d in deals})
    today = ctx.now.date()
    options: list[tuple[str, int]] = []
    for owner in owners:
        open_deals = sum(1 for d in ctx.state.table(DEALS) if d.owner_id == owner and is_open(d.stage))
        for days in (30, 45, 60, 90, 120):
            end = today + timedelta(days=days)
            n = sum(1 for d in deals if d.owner_id == owner and d.close_date and today <= d.close_date <= end)
            # The window must discriminate: at least as many of the owner's open deals fall outside it,
            # so "every open deal of the owner" (a superset) is no answer.
            if 2 <= n <= 25 and open_deals - n >= n:
                options.append((owner, days))
    owner, days = pick(ctx.rng, options, "owner with 2-25 deals closing in a window")
    end = today + timedelta(days=days)
    chosen = [d for d in deals if d.owner_id == owner and d.close_date and today <= d.close_date <= end]
    totals: dict[str, Decimal] = {}
    for d in chosen:
        totals[d.currency] = totals.get(d.currency, Decimal(0)) + (d.amount or Decimal(0))
    return Setup(bindings={
        "owner": {"id": owner, "name": user_name(ctx.state, owner)},
        "start": today.isoformat(),
        "end": end.isoformat(),
        "report_name": f"forecast-{owner}",
        "expected_ids": [d.id for d in chosen],
        "expected_totals": {k: f"{v:.2f}" for k, v in sorted(totals.items())},
        # Other valid forms of the same answer, and every open deal of the owner (a superset answer).
        "expected_totals_grouped": {k: f"{v:,.2f}" for k, v in sorted(totals.items())},
        "expected_ids_desc": [d.id for d in chosen][::-1],
        "owner_open_ids": sorted(d.id for d in ctx.state.table(DEALS) if d.owner_id == owner and is_open(d.stage)),
    }, events=_near_misses(ctx, chosen, end, distractor_count(ctx, "near_misses")))


def _near_misses(ctx: SetupContext, chosen: list[Deal], end: date, n: int) -> list[Event]:
    """Look-alikes of deals in the window that close just after it, so only the dates keep them out."""
    out: list[Event] = []
    for _ in range(n):
        staged = lookalike_deals(ctx, pick(ctx.rng, chosen, "deal in the window"), 1)[0]
        assert isinstance(staged, ev.DealCreated)
        close = end + timedelta(days=ctx.rng.randint(1, 7))
        out.append(ev.DealCreated(deal=staged.deal.model_copy(update={"close_date": close})))
    return out
