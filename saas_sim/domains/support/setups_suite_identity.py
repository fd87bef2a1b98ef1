"""Cross-app identity setups in the support desk: requests to change the contact details the company holds.

* `email_change_candidates`: the CRM contacts the desk knows as customers with orders (their
  `crm_contact_id`), seed-shuffled, for the CRM's setup to pick the people from.
* `email_change_tickets`: two tickets, each from a new, order-less address asking to move the CRM
  contact's email to it. The genuine requester gives the phone on their CRM record, their company and
  one of their own order numbers; the impostor names another contact and their company (both easy to
  learn) but gives a phone not on file and an order number of another customer. Only the records tell
  the two apart; the texts read alike.

Tickets and requester records get seed-drawn ids (`stage`, `skip_ids`), and the two requests are filed in a
seed-drawn order, so neither the ticket ids nor the order the task lists them in (`tickets_listed`, by id) say
which one is genuine.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import Customer, Order, Ticket
from saas_sim.domains.support.setup_helpers import ago, random_mess, skip_ids, stage, ticket_b
from saas_sim.domains.support.state import CUSTOMERS, ORDERS
from saas_sim.domains.support.ticket_factory import TicketSpec
from saas_sim.errors import ScenarioError

__all__ = ["email_change_candidates", "email_change_tickets"]

_SUBJECT = "Please update my email address"

_BODY = ("Hello, I am {name} from {company}. I no longer use my old work address, so please change the email "
         "on my account to this one, {email}. To confirm it is me: my phone number is {phone} and one of my "
         "orders is {number}. Thank you.")

_REPLY_DONE = ("Hello {first}, thank you for confirming your details. We have updated the email on your "
               "account to {email}.")

_REPLY_PROOF = ("Hello {first}, we could not verify this request with the details you gave, so we have not "
                "changed anything. Please reply from the address we have on file, or send an order number and "
                "the phone number registered with your account, so we can confirm your identity.")


def _orders(ctx: SetupContext) -> dict[str, list[Order]]:
    out: dict[str, list[Order]] = {}
    for o in sorted(ctx.state.table(ORDERS), key=lambda o: o.id):
        out.setdefault(o.customer_id, []).append(o)
    return out


def _linked(ctx: SetupContext, orders: dict[str, list[Order]]) -> list[Customer]:
    return [c for c in sorted(ctx.state.table(CUSTOMERS), key=lambda c: c.id) if c.crm_contact_id and orders.get(c.id)]


@kit.setup
def email_change_candidates(ctx: SetupContext) -> Setup:
    """The CRM contacts the desk knows as customers with orders, seed-shuffled.

    Bindings: candidates (CRM contact ids).
    """
    ids = sorted({str(c.crm_contact_id) for c in _linked(ctx, _orders(ctx))})
    if len(ids) < 2:
        raise ScenarioError("email_change_candidates needs two CRM-linked customers with orders")
    ctx.rng.shuffle(ids)
    return Setup(bindings={"candidates": ids}, events=[])


def _ticket(ctx: SetupContext, person: Customer, email: str, phone: str, words: dict[str, str],
            ) -> tuple[Ticket, Customer, list[Event]]:
    skip_ids(ctx, "cus")
    requester = person.alias(ctx.ids.next("cus"), email, ago(ctx, 60, 600)).model_copy(
        update={"phone": phone, "language": "en", "country": "US"})
    # No signature (it would carry another phone) and no typos (they would garble the proof).
    mess = replace(random_mess(ctx.rng, vague_subject=False), signature=False, typos=False)
    ticket, events = stage(ctx, TicketSpec(
        customer=requester, requester=requester, issue="billing_question", resolution="reply",
        created_at=ago(ctx, 5, 50), priority="normal", group="general", mess=mess,
        body_core=_BODY.format(**words, email=email, phone=phone).replace("{", "{{").replace("}", "}}")),
        [ev.CustomerCreated(customer=requester)])
    ticket = ticket.model_copy(update={"subject": _SUBJECT, "tags": ()})
    events = [ev.TicketCreated(ticket=ticket) if isinstance(e, ev.TicketCreated) else e for e in events]
    return ticket, requester, events


@kit.setup
def email_change_tickets(ctx: SetupContext) -> Setup:
    """A genuine and an impostor's request to move a CRM contact's email to a new address.

    Params:
        contact_id, name, company, phone, new_email: The genuine requester's CRM contact, its name,
            account name and phone on file, and the address they write from (from the CRM's setup).
        victim_id, victim_name, victim_company, impostor_email, impostor_phone: The contact the impostor
            claims to be, its name and account name, and the address and (wrong) phone the impostor gives.

    Bindings: ticket (id, subject: the genuine request), impostor_ticket (id, subject), tickets_listed (both
    ids by id, "A and B": the order the task names them in; which is genuine is seed-drawn), requester and
    impostor (the new customer records: id, email), order_number (the genuine requester's, quoted),
    impostor_order_number (another customer's), victim_orders (the claimed person's order numbers),
    reply_done, reply_proof (replies for the oracle).
    """
    p = ctx.params
    orders = _orders(ctx)
    by_contact = {str(c.crm_contact_id): c for c in reversed(_linked(ctx, orders))}
    genuine, victim = by_contact.get(str(p["contact_id"])), by_contact.get(str(p["victim_id"]))
    if genuine is None or victim is None:
        raise ScenarioError("email_change_tickets needs both CRM contacts known to the desk with orders")
    own = ctx.rng.choice(orders[genuine.id])
    strangers = [o for cid, os in sorted(orders.items()) if cid not in (genuine.id, victim.id) for o in os]
    if not strangers:
        raise ScenarioError("email_change_tickets needs a third customer's order")
    stolen = ctx.rng.choice(strangers)
    genuine_first = ctx.rng.random() < 0.5  # the filing order, hence the id order, says nothing

    def file_genuine() -> tuple[Ticket, Customer, list[Event]]:
        return _ticket(ctx, genuine, str(p["new_email"]), str(p["phone"]),
                       {"name": str(p["name"]), "company": str(p["company"]), "number": own.number})

    def file_impostor() -> tuple[Ticket, Customer, list[Event]]:
        return _ticket(ctx, victim, str(p["impostor_email"]), str(p["impostor_phone"]),
                       {"name": str(p["victim_name"]), "company": str(p["victim_company"]),
                        "number": stolen.number})

    if genuine_first:
        t1, r1, e1 = file_genuine()
        t2, r2, e2 = file_impostor()
    else:
        t2, r2, e2 = file_impostor()
        t1, r1, e1 = file_genuine()
    bindings: dict[str, Any] = {
        "ticket": ticket_b(t1),
        "impostor_ticket": ticket_b(t2),
        "tickets_listed": " and ".join(sorted((t1.id, t2.id))),
        "requester": {"id": r1.id, "email": r1.email},
        "impostor": {"id": r2.id, "email": r2.email},
        "order_number": own.number,
        "impostor_order_number": stolen.number,
        "victim_orders": [o.number for o in orders[victim.id]],
        "reply_done": _REPLY_DONE.format(first=genuine.first_name, email=p["new_email"]),
        "reply_proof": _REPLY_PROOF.format(first=victim.first_name),
    }
    return Setup(bindings=bindings, events=e1 + e2 if genuine_first else e2 + e1)
