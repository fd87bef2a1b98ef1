"""Cross-app tiering setups in the support desk: two new tickets whose routing depends on the CRM account.

* `tiering_tickets`: two new, unrouted tickets in the general queue, from the support customers who are
  two given CRM contacts (found by `crm_contact_id`, or filed now). Both records say `standard` tier:
  the desk never learnt that the VIP contact's company is an enterprise account in the CRM
  (`crm.tiering_accounts` passes it in), so only the CRM says which is served as VIP. The two questions,
  the filing order (hence the ids) and the order the task lists them in are seed-drawn. The VIP agents
  carry seed-drawn extra load, so the least-loaded one is no constant.

Tickets and new customers get seed-drawn ids (`stage`, `skip_ids`); texts are in each customer's language.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import ACTIVE_STATUSES, Agent, Customer, Ticket
from saas_sim.domains.support.setup_helpers import ago, customer_b, random_mess, skip_ids, stage, ticket_b
from saas_sim.domains.support.state import AGENTS, CUSTOMERS, TICKETS
from saas_sim.domains.support.ticket_factory import TicketSpec
from saas_sim.errors import ScenarioError

__all__ = ["tiering_tickets"]

_SUBJECTS: dict[str, tuple[str, str]] = {
    "en": ("Export of our order history", "Question about adding a user"),
    "de": ("Export unserer Bestellhistorie", "Frage zum Hinzufügen eines Benutzers"),
    "es": ("Exportar nuestro historial de pedidos", "Pregunta sobre añadir un usuario"),
    "fr": ("Export de notre historique de commandes", "Question sur l'ajout d'un utilisateur"),
}

_BODIES: dict[str, tuple[str, str]] = {
    "en": ("Our finance team needs a full export of our order history for the audit this quarter. Could "
           "someone help us get it?",
           "How do I add a colleague to our account so they can see our orders too?"),
    "de": ("Unsere Finanzabteilung braucht für die Prüfung in diesem Quartal einen vollständigen Export "
           "unserer Bestellhistorie. Kann uns jemand dabei helfen?",
           "Wie füge ich einen Kollegen zu unserem Konto hinzu, damit er unsere Bestellungen auch sieht?"),
    "es": ("Nuestro equipo de finanzas necesita una exportación completa de nuestro historial de pedidos para "
           "la auditoría de este trimestre. ¿Alguien nos puede ayudar?",
           "¿Cómo añado a un compañero a nuestra cuenta para que también vea nuestros pedidos?"),
    "fr": ("Notre service financier a besoin d'un export complet de notre historique de commandes pour l'audit "
           "de ce trimestre. Quelqu'un peut-il nous aider ?",
           "Comment ajouter un collègue à notre compte pour qu'il voie aussi nos commandes ?"),
}


def _standard_customer(ctx: SetupContext, prefix: str) -> tuple[Customer, list[Event]]:
    """The desk's record of a CRM contact (lowest id) at standard tier, or a new standard record of them."""
    contact_id = str(ctx.params[f"{prefix}contact_id"])
    known = [c for c in ctx.state.table(CUSTOMERS) if c.crm_contact_id == contact_id]
    if known:
        if known[0].tier == "standard":
            return known[0], []
        # The desk's record predates the account's growth: it was never moved up from standard.
        person = known[0].model_copy(update={"tier": "standard"})
        return person, [ev.CustomerCreated(customer=person)]
    skip_ids(ctx, "cus")
    name = str(ctx.params[f"{prefix}name"])
    person = Customer(
        id=ctx.ids.next("cus"), name=name, first_name=str(ctx.params.get(f"{prefix}first_name") or name.split()[0]),
        email=str(ctx.params[f"{prefix}email"]),
        phone=f"+1 555 {ctx.rng.randrange(100, 999)} {ctx.rng.randrange(1000, 9999)}", language="en", country="US",
        tier="standard", created_at=ctx.now - timedelta(days=ctx.rng.randrange(60, 900)), crm_contact_id=contact_id)
    return person, [ev.CustomerCreated(customer=person)]


def _ticket(ctx: SetupContext, customer: Customer, which: int, events: list[Event]) -> tuple[Ticket, list[Event]]:
    lang = customer.language
    ticket, out = stage(ctx, TicketSpec(
        customer=customer, requester=customer, issue="howto", resolution="reply", created_at=ago(ctx, 5, 40),
        priority="normal", group="general", mess=random_mess(ctx.rng, vague_subject=False),
        body_core=_BODIES[lang][which]), events)
    ticket = ticket.model_copy(update={"subject": _SUBJECTS[lang][which], "tags": ()})
    return ticket, [ev.TicketCreated(ticket=ticket) if isinstance(e, ev.TicketCreated) and e.ticket.id == ticket.id
                    else e for e in out]


def _least_loaded_vip(ctx: SetupContext) -> tuple[Agent, list[Event]]:
    """Loads each VIP agent with 0-3 more of the world's unassigned tickets; returns the least loaded.

    Ties go to the lower agent id, the order `list_agents` shows them in.
    """
    load: dict[str, int] = {}
    for t in ctx.state.table(TICKETS):
        if t.assignee_id and t.status in ACTIVE_STATUSES:
            load[t.assignee_id] = load.get(t.assignee_id, 0) + 1
    # The world's tickets only: the two staged ones are not in the state yet.
    spare = sorted(t.id for t in ctx.state.table(TICKETS) if t.status in ("new", "open") and t.assignee_id is None)
    ctx.rng.shuffle(spare)
    vips = sorted((a for a in ctx.state.table(AGENTS) if "vip" in a.groups), key=lambda a: a.id)
    if not vips:
        raise ScenarioError("the support world has no VIP agent")
    extra: list[Event] = []
    for a in vips:
        for _ in range(ctx.rng.randrange(0, 4)):
            if not spare:
                break
            extra.append(ev.TicketAssigned(ticket_id=spare.pop(), group="vip", assignee_id=a.id, at=ctx.now))
            load[a.id] = load.get(a.id, 0) + 1
    return min(vips, key=lambda a: (load.get(a.id, 0), a.id)), extra


@kit.setup
def tiering_tickets(ctx: SetupContext) -> Setup:
    """Two new general-queue tickets: one from a contact of an enterprise CRM account, one from a small account's.

    Params:
        vip_contact_id, vip_name, vip_first_name, vip_email: The enterprise account's CRM contact.
        small_contact_id, small_name, small_first_name, small_email: The small account's CRM contact.

    Bindings: ticket (id, subject: the VIP's ticket), customer (its customer), agent (id, name: the
    least-loaded VIP agent), small_ticket (id, subject), small_customer, tickets_listed (both tickets by id,
    each with its subject in quotes: the order the task names them in; which is the VIP's is seed-drawn).
    """
    vip, events = _standard_customer(ctx, "vip_")
    small, more = _standard_customer(ctx, "small_")
    if vip.id == small.id:
        raise ScenarioError("the two CRM contacts are one support customer")
    # Which question each asks, and which is filed first (hence the lower id), are seed-drawn: neither the
    # subject nor the id order nor the order the task names them in (`tickets_listed`) says who is VIP.
    vip_text = ctx.rng.randrange(2)
    if ctx.rng.random() < 0.5:
        ticket, events = _ticket(ctx, vip, vip_text, events + more)
        small_ticket, events = _ticket(ctx, small, 1 - vip_text, events)
    else:
        small_ticket, events = _ticket(ctx, small, 1 - vip_text, events + more)
        ticket, events = _ticket(ctx, vip, vip_text, events)
    agent, load = _least_loaded_vip(ctx)
    bindings: dict[str, Any] = {
        "ticket": ticket_b(ticket),
        "customer": customer_b(vip),
        "agent": {"id": agent.id, "name": agent.name},
        "small_ticket": ticket_b(small_ticket),
        "tickets_listed": " and ".join(f'{t.id} ("{t.subject}")' for t in sorted((ticket, small_ticket),
                                                                              key=lambda t: t.id)),
        "small_customer": customer_b(small),
    }
    return Setup(bindings=bindings, events=load + events)
