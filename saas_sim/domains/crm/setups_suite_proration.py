"""Cross-app proration setup in the CRM: the deal that holds a seat contract downgraded mid-term.

`downgrade_contract_deal` stages, on a support customer's own CRM account (reached through their
contact), an open deal for their running seat contract: its name gives the seats and the term, a note
gives the start and the price paid up front. The account's other plan deals (other seat counts and
terms) are distractors: only the contract's deal takes the new contract value. Staged records get
seed-drawn ids (`fresh_id`), so no id can be memorized.
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.models import Deal
from saas_sim.domains.crm.setup_helpers import account_name, fresh_id, pick, user_name
from saas_sim.domains.crm.setups_suite_billing import _note, _other_plans, _usd, plan_name
from saas_sim.domains.crm.state import ACCOUNTS, CONTACTS, DEALS
from saas_sim.errors import ScenarioError

__all__ = ["downgrade_contract_deal"]

_MAX_OTHER_DEALS = 3


def _open_deal(ctx: SetupContext, deal_id: str, name: str, account_id: str, owner_id: str, contact_id: str | None,
               amount: Decimal, next_step: str, days_ago: int) -> Deal:
    """A negotiation-stage deal on the account, copied from one of the world's (so its stage's fields hold)."""
    model = pick(ctx.rng, sorted((d for d in ctx.state.table(DEALS) if d.stage == "negotiation"),
                                 key=lambda d: d.id), "negotiation deal to copy")
    at = ctx.now - timedelta(days=days_ago)
    return model.model_copy(update={
        "id": deal_id, "name": name, "account_id": account_id, "owner_id": owner_id,
        "primary_contact_id": contact_id or model.primary_contact_id, "amount": amount, "currency": "USD",
        "next_step": next_step, "line_item_ids": (), "created_at": at, "updated_at": at, "stage_changed_at": at,
        "last_activity_at": None, "lost_reason": None})


@kit.setup
def downgrade_contract_deal(ctx: SetupContext) -> Setup:
    """The open deal of a customer's running seat contract, and other plan deals of the account beside it.

    Params:
        contact_id: The customer's CRM contact (support's `crm_contact_id`).
        old_seats, term: The contract's seats and months (from `ide.code_downgrade`).
        start: The contract's first day (ISO date, from `support.downgrade_ticket`).
        paid: The contract's price, paid up front (dollars): the deal's amount before the downgrade.
        other_deals: Other open plan deals of the account, of other sizes (0-3, default 1).

    Bindings: crm_account (id, name, owner_id), deal (id, name), other_deal (the first distractor, else
    a deal of another account), other_deal_ids, owner_first.
    """
    contact = ctx.state.get(CONTACTS, str(ctx.params["contact_id"]))
    account = ctx.state.get(ACCOUNTS, contact.account_id) if contact and contact.account_id else None
    if contact is None or account is None:
        raise ScenarioError(f"contact {ctx.params['contact_id']!r} has no CRM account")
    seats, term = int(ctx.params["old_seats"]), int(ctx.params["term"])
    start, paid = date.fromisoformat(str(ctx.params["start"])), Decimal(str(ctx.params["paid"]))
    n_other = int(ctx.params.get("other_deals", 1))
    if not 0 <= n_other <= _MAX_OTHER_DEALS:
        raise ScenarioError(f"downgrade_contract_deal takes other_deals 0-{_MAX_OTHER_DEALS}")
    acct = account_name(ctx.state, account.id)
    since = max(1, (ctx.now.date() - start).days)
    deal = _open_deal(ctx, fresh_id(ctx, "dl"), plan_name(acct, seats, term), account.id, account.owner_id,
                      contact.id, paid, "Review the seat count at the next quarterly check-in", since)
    start_text = f"{start.strftime('%B')} {start.day}, {start.year}"
    notes = [_note(ctx, deal, "Contract signed", f"{seats} seats, {term}-month term starting {start_text}: "
                                                 f"{_usd(f'{paid:.2f}')} paid up front.", since)]
    others = [_open_deal(ctx, fresh_id(ctx, "dl"), plan_name(acct, o_seats, o_months), account.id,
                         account.owner_id, contact.id, Decimal(ctx.rng.randrange(2000, 90000)),
                         "Scope the rollout", ctx.rng.randint(10, 120))
              for o_seats, o_months in _other_plans(ctx, seats, term, n_other)]
    staged: list[Event] = [ev.DealsImported(deals=[deal, *others]), ev.ActivitiesImported(activities=notes)]
    if others:
        other_id = others[0].id
    else:
        other_id = pick(ctx.rng, sorted(d.id for d in ctx.state.table(DEALS)
                                         if d.account_id != account.id and d.stage != "closed_won"), "other deal")
    return Setup(bindings={
        "crm_account": {"id": account.id, "name": acct, "owner_id": account.owner_id},
        "deal": {"id": deal.id, "name": deal.name},
        "other_deal": {"id": other_id},
        "other_deal_ids": [d.id for d in others],
        "owner_first": user_name(ctx.state, account.owner_id).split()[0],
    }, events=staged)
