"""Cross-app tax setup in the CRM: which customer's account is tax-exempt.

`tax_exempt_accounts` records a valid tax-exemption certificate in a note on the exempt customer's
own account (beside a same-named account of another company, as `billing_account` stages it), and
on the accounts of the customers who only claim exemption either nothing or a certificate that has
expired, so the word "exempt" alone decides nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.models import Account, Activity
from saas_sim.domains.crm.setup_helpers import fresh_id
from saas_sim.domains.crm.setups_suite_billing import billing_account
from saas_sim.domains.crm.state import ACCOUNTS, CONTACTS
from saas_sim.errors import ScenarioError

__all__ = ["tax_exempt_accounts"]


def _account(ctx: SetupContext, contact_id: str) -> Account:
    contact = ctx.state.get(CONTACTS, contact_id)
    account = ctx.state.get(ACCOUNTS, contact.account_id) if contact and contact.account_id else None
    if account is None:
        raise ScenarioError(f"contact {contact_id!r} has no CRM account")
    return account


def _note(ctx: SetupContext, account: Account, subject: str, body: str, days_ago: int) -> Activity:
    return Activity(id=fresh_id(ctx, "act"), kind="note", subject=subject, body=body, direction=None, outcome=None,
                    contact_id=None, deal_id=None, account_id=account.id, owner_id=account.owner_id,
                    occurred_at=ctx.now - timedelta(days=days_ago))


def _certificate(ctx: SetupContext) -> str:
    return f"EX-{ctx.rng.randrange(10_000, 99_999)}"


@kit.setup
def tax_exempt_accounts(ctx: SetupContext) -> Setup:
    """The exempt customer's account holds a valid exemption certificate; the claimants' accounts do not.

    Params:
        contact_id: The exempt customer's CRM contact.
        other_contact_ids: The contacts of customers who claim exemption but are not exempt.

    Bindings: billing_account's (crm_account, namesake, crm_contact), certificate (the valid one's
    number), other_account_ids.
    """
    staged = billing_account(ctx)
    account = _account(ctx, str(ctx.params["contact_id"]))
    others: Sequence[Any] = ctx.params.get("other_contact_ids", [])
    certificate = _certificate(ctx)
    until = (ctx.now + timedelta(days=ctx.rng.randint(120, 700))).date().isoformat()
    notes = [_note(ctx, account, "Tax exemption certificate on file",
                   f"Certificate {certificate} received and verified: the organisation is exempt from sales tax "
                   f"until {until}. Invoice without tax.", ctx.rng.randint(60, 400))]
    other_accounts: list[str] = []
    for contact_id in others:
        other = _account(ctx, str(contact_id))
        if other.id == account.id:
            raise ScenarioError("a customer who is not exempt shares the exempt customer's account")
        other_accounts.append(other.id)
        if ctx.rng.random() < 0.5:
            expired = (ctx.now - timedelta(days=ctx.rng.randint(30, 300))).date().isoformat()
            notes.append(_note(ctx, other, "Tax exemption certificate expired",
                               f"Certificate {_certificate(ctx)} expired on {expired} and no renewal was received: "
                               "sales tax applies to every invoice since.", ctx.rng.randint(5, 25)))
    events: list[Event] = [*staged.events, ev.ActivitiesImported(activities=notes)]
    return Setup(bindings={**staged.bindings, "certificate": certificate, "other_account_ids": other_accounts},
                 events=events)
