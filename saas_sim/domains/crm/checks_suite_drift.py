"""Cross-app name-drift checks in the CRM: a support ticket logged on the renamed account and its open deals.

The account and deals are judged by id (the real company, whatever name the ticket used), and a log
counts only when it names the ticket (a seed-drawn id only reading the desk gives), so a note about
something else, or on a look-alike of the old name, records nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.models import Activity
from saas_sim.domains.crm.state import ACCOUNTS, ACTIVITIES

__all__ = ["account_keeps_name", "ticket_logged_on_account", "ticket_logged_on_deals"]


def _naming(ctx: CheckContext, ref: str) -> list[Activity]:
    pattern = re.compile(rf"(?<![\w]){re.escape(ref)}(?![\w])", re.IGNORECASE)
    return [a for a in sorted(ctx.created(ACTIVITIES), key=lambda a: a.id)
            if a.kind in ("note", "call", "meeting") and pattern.search(f"{a.subject}\n{a.body or ''}")]


@kit.check
def ticket_logged_on_account(ctx: CheckContext, *, account_id: str, ref: str) -> CheckOutcome:
    """A note, call or meeting naming `ref` (the ticket) is logged on the account (directly, by contact or deal)."""
    hits = [a.id for a in _naming(ctx, ref) if a.account_id == account_id]
    if hits:
        return CheckOutcome.passed(f"{hits[0]} on {account_id} names {ref}")
    return CheckOutcome.failed(f"nothing logged on {account_id} names {ref}")


@kit.check
def ticket_logged_on_deals(ctx: CheckContext, *, deal_ids: Sequence[str], ref: str) -> CheckOutcome:
    """Each of `deal_ids` has a note, call or meeting naming `ref` logged on it (credit per deal)."""
    logged = {a.deal_id for a in _naming(ctx, ref)}
    missing = [d for d in deal_ids if d not in logged]
    if not deal_ids:
        return CheckOutcome.passed("no deal to log on")
    score = 1.0 - len(missing) / len(deal_ids)
    return CheckOutcome(score, f"not logged on {', '.join(missing)}" if missing else f"logged on {len(deal_ids)} deals")


@kit.check
def account_keeps_name(ctx: CheckContext, *, account_id: str) -> CheckOutcome:
    """The account keeps the name it started with (not renamed back to what another product still calls it)."""
    before, after = ctx.initial.get(ACCOUNTS, account_id), ctx.final.get(ACCOUNTS, account_id)
    if before is not None and after is not None and before.name == after.name:
        return CheckOutcome.passed(f"{account_id} is still {after.name}")
    return CheckOutcome.failed(f"{account_id} was renamed to {after.name if after else 'nothing'}")
