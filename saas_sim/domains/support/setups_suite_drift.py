"""Cross-app name-drift setups in the support desk: a customer who still writes their company's old name.

* `old_name_ticket`: the desk's customer who is a given CRM contact (found by `crm_contact_id`, or
  filed now when the desk has no record of them) writes, naming their company by the name it had
  before a rename, that they want to extend their plan and to know who handles their account.

The ticket gets a seed-drawn id (`stage`); the text is in English.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import Customer
from saas_sim.domains.support.setup_helpers import ago, customer_b, random_mess, skip_ids, stage, ticket_b
from saas_sim.domains.support.state import CUSTOMERS
from saas_sim.domains.support.ticket_factory import TicketSpec

__all__ = ["old_name_ticket"]

_SUBJECT = "Extending our plan"
_BODY = ("Hello, I am writing on behalf of {company}. We would like to extend our plan with you and add more "
         "users this quarter. Could you note this for our account team and let me know that it reached them?")
_REPLY = ("Hello {first}, thank you. {company} is now {account} in our records; I have logged your request to "
          "extend the plan on your account and on its open deal, so your account team has it.")


def _customer(ctx: SetupContext) -> tuple[Customer, list[Event]]:
    contact_id = str(ctx.params["contact_id"])
    known = sorted((c for c in ctx.state.table(CUSTOMERS) if c.crm_contact_id == contact_id), key=lambda c: c.id)
    if known:
        return known[0], []
    skip_ids(ctx, "cus")
    name = str(ctx.params["name"])
    person = Customer(
        id=ctx.ids.next("cus"), name=name, first_name=str(ctx.params.get("first_name") or name.split()[0]),
        email=str(ctx.params["email"]), phone=f"+1 555 {ctx.rng.randrange(100, 999)} {ctx.rng.randrange(1000, 9999)}",
        language="en", country="US", tier="vip", created_at=ctx.now - timedelta(days=ctx.rng.randrange(60, 900)),
        crm_contact_id=contact_id, company=str(ctx.params["old_name"]))
    return person, [ev.CustomerCreated(customer=person)]


@kit.setup
def old_name_ticket(ctx: SetupContext) -> Setup:
    """A CRM contact asks, naming their company by its old name, to pass a plan extension to their account team.

    Params:
        contact_id, name, first_name, email: The CRM contact (from the CRM's setup).
        old_name: The company's name before its rename, as the customer writes it.
        account_name: The account's current name, for the oracle's reply.

    Bindings: ticket (id, subject), customer (id, name, first_name, email, language), reply (for the oracle).
    """
    customer, created = _customer(ctx)
    old = str(ctx.params["old_name"])
    # No typos: the old name must read as written.
    mess = replace(random_mess(ctx.rng, vague_subject=False), typos=False)
    ticket, events = stage(ctx, TicketSpec(
        customer=customer, requester=customer, issue="billing_question", resolution="reply",
        created_at=ago(ctx, 10, 90),
        priority="normal", group="general", mess=mess, body_core=_BODY.format(company=old)), list(created))
    ticket = ticket.model_copy(update={"subject": _SUBJECT, "tags": ()})
    events = [ev.TicketCreated(ticket=ticket) if isinstance(e, ev.TicketCreated) else e for e in events]
    bindings: dict[str, Any] = {
        "ticket": ticket_b(ticket), "customer": customer_b(customer),
        "reply": _REPLY.format(first=customer.first_name, company=old, account=ctx.params["account_name"]),
    }
    return Setup(bindings=bindings, events=events)
