"""Cross-app setup in the support desk: a prospect's bug report, and another customer's unrelated ticket.

* `bug_report_tickets`: the support customer who is a given CRM contact (found by `crm_contact_id`, or
  filed now) reports that our billing pages show one of their amounts wrong (the figure and what it
  showed come from the IDE's setup, `ide.money_display_bug`). A second, open ticket from another
  customer asks an unrelated how-to question and must stay as it is.
"""

from __future__ import annotations

from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import Customer, Ticket
from saas_sim.domains.support.setup_helpers import ago, customer_b, random_mess, stage, ticket_b
from saas_sim.domains.support.setups_suite_accounts import _customer
from saas_sim.domains.support.state import CUSTOMERS
from saas_sim.domains.support.ticket_factory import TicketSpec
from saas_sim.errors import ScenarioError

__all__ = ["bug_report_tickets"]

_REPORT = ("We are evaluating your platform before we sign. When our quote for {dollars} dollars is displayed, "
           "it shows as {shown}. Our finance team will not approve the purchase while amounts show wrong.")

_OTHERS: tuple[tuple[str, str], ...] = (
    ("Exporting invoices", "How do I export all of last year's invoices as one CSV file? I could not find the "
                           "option in the billing settings."),
    ("Adding a second admin", "Can two people on our team be admins of the billing account? I could not find "
                              "where to add a second one."),
    ("Invoice address", "Where do I change the postal address printed on our invoices? We moved offices."),
)
"""The unrelated tickets of other customers (subject, body), in the order `others` adds them."""


@kit.setup
def bug_report_tickets(ctx: SetupContext) -> Setup:
    """A CRM contact's ticket reporting an amount shown wrong, and another customer's how-to ticket.

    Params:
        contact_id, name, first_name, email: The CRM contact (from the CRM's setup).
        dollars: The amount as a plain figure (`"1234.05"`); shown: what the buggy code displayed.
        others: Unrelated open tickets of other customers (1-3, default 1).

    Bindings: ticket (id, subject), customer (id, name, first_name, email, language), other_ticket (id,
    subject: the first unrelated ticket), other_ticket_ids (all of them), other_customer (id, name).
    """
    n_others = int(ctx.params.get("others", 1))
    if not 1 <= n_others <= len(_OTHERS):
        raise ScenarioError(f"others must be 1-{len(_OTHERS)}, got {n_others}")
    customer, created = _customer(ctx)
    ticket, events = stage(ctx, TicketSpec(
        customer=customer, requester=customer, issue="billing_question", resolution="reply",
        created_at=ago(ctx, 20, 240),
        priority="high", group="technical", mess=random_mess(ctx.rng, vague_subject=False),
        body_core=_REPORT.format(dollars=ctx.params["dollars"], shown=ctx.params["shown"])), list(created))
    ticket = ticket.model_copy(update={"subject": "Amounts on our quote show wrong", "tags": ()})
    others = sorted((c for c in ctx.state.table(CUSTOMERS)
                     if c.id != customer.id and c.crm_contact_id != customer.crm_contact_id), key=lambda c: c.id)
    if not others:
        raise ScenarioError("this world has no second support customer")
    staged: list[Ticket] = []
    asked: list[Customer] = []
    for subject, body in _OTHERS[:n_others]:
        other = ctx.rng.choice(others)
        asked.append(other)
        t, events = stage(ctx, TicketSpec(
            customer=other, requester=other, issue="howto", resolution="reply", created_at=ago(ctx, 30, 300),
            priority="normal", group="billing", mess=random_mess(ctx.rng, vague_subject=False), body_core=body,
            status="open"), events)
        staged.append(t.model_copy(update={"subject": subject, "tags": ()}))
    # The stock subjects and tags are about the stock issues; these tickets say what they are about.
    by_id = {t.id: t for t in (ticket, *staged)}
    events = [ev.TicketCreated(ticket=by_id[e.ticket.id]) if isinstance(e, ev.TicketCreated) and e.ticket.id in by_id
              else e for e in events]
    first = staged[0]
    bindings: dict[str, Any] = {
        "ticket": ticket_b(ticket), "customer": customer_b(customer),
        "other_ticket": ticket_b(first), "other_ticket_ids": [t.id for t in staged],
        "other_customer": {"id": asked[0].id, "name": asked[0].name},
    }
    return Setup(bindings=bindings, events=events)
