"""Cross-app setup in the CRM: a deal stalled on a bug the prospect reported to support.

* `blocked_deal`: picks an account with at least two open deals and a contact with an email; one deal
  (the blocked one) gets a next step saying it waits on the bug fix, and the contact as its primary
  contact. The account's other open deal, and a same-named account's open deal (`crm.billing_account`
  stages the namesake), are the traps.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.models import Deal
from saas_sim.domains.crm.pipeline import OPEN_STAGES
from saas_sim.domains.crm.setup_helpers import account_name, base_contacts, full_name, pick
from saas_sim.domains.crm.setups_suite_billing import billing_account
from saas_sim.domains.crm.setups_suite_churn import CLOSED_STAGES
from saas_sim.domains.crm.state import DEALS

__all__ = ["BLOCKED_STEP", "blocked_deal"]

BLOCKED_STEP = "On hold: buyer waits for the fix of the amount display bug they reported to support"
"""The blocked deal's next step as the setup leaves it."""

_FALLBACK_AMOUNT = 10_000
"""The amount a hasty move forward states when the deal has none yet (a stage may require one)."""


def _forward(d: Deal) -> str:
    """The stage a hasty rep would move the deal to: the next open stage, or won from negotiation."""
    index = OPEN_STAGES.index(d.stage)
    return OPEN_STAGES[index + 1] if index + 1 < len(OPEN_STAGES) else "closed_won"


@kit.setup
def blocked_deal(ctx: SetupContext) -> Setup:
    """Stalls one open deal of a two-deal account on a reported bug, beside a same-named account's deal.

    Bindings: account (id, name), contact (id, name, first_name, email), deal (id, name, stage: the
    blocked deal; moved_stage: the stage a move forward takes it to; amount and close_date: its own or
    stand-ins, which that move may need), other_deal (id: the account's other open deal), namesake
    (id, deal_id), crm_account, crm_contact (as `crm.billing_account` binds them).
    """
    open_deals: dict[str, list[Deal]] = {}
    for d in sorted(ctx.state.table(DEALS), key=lambda d: d.id):
        if d.stage not in CLOSED_STAGES:
            open_deals.setdefault(d.account_id, []).append(d)
    people = [c for c in base_contacts(ctx.state)
              if c.email and c.account_id and len(open_deals.get(c.account_id, [])) >= 2]
    contact = pick(ctx.rng, sorted(people, key=lambda c: c.id), "contact of an account with two open deals")
    assert contact.account_id is not None  # people holds only contacts with an account
    blocked, other = ctx.rng.sample(open_deals[contact.account_id], 2)
    twin = billing_account(replace(ctx, params={"contact_id": contact.id}))
    stall = ev.DealUpdated(deal_id=blocked.id, fields=["next_step", "primary_contact_id"], next_step=BLOCKED_STEP,
                           primary_contact_id=contact.id, updated_at=ctx.now)
    return Setup(bindings={
        **twin.bindings,
        "account": {"id": contact.account_id, "name": account_name(ctx.state, contact.account_id)},
        "contact": {"id": contact.id, "name": full_name(contact), "first_name": contact.first_name,
                    "email": contact.email},
        "deal": {"id": blocked.id, "name": blocked.name, "stage": blocked.stage,
                 "moved_stage": _forward(blocked), "amount": str(blocked.amount or _FALLBACK_AMOUNT),
                 "close_date": (blocked.close_date or (ctx.now + timedelta(days=30)).date()).isoformat()},
        "other_deal": {"id": other.id},
    }, events=[*twin.events, stall])
