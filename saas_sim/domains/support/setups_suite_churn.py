"""Cross-app churn setup in the support desk: the escalated tickets of CRM contacts, open and solved.

* `escalation_history`: stages, for each entry of a plan (from the CRM's `crm.churn_review`), the given
  numbers of open (on hold) and solved tickets of the support customer who is that CRM contact, each
  escalated to one team. Which accounts are at risk is the CRM's to know; the desk only knows its
  customers' `crm_contact_id`.

Tickets get seed-drawn ids (`stage`); the texts are in each customer's language.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import Customer, Escalation, Team
from saas_sim.domains.support.setup_helpers import random_mess, skip_ids, stage
from saas_sim.domains.support.state import CUSTOMERS, ESCALATIONS
from saas_sim.domains.support.ticket_factory import TicketSpec
from saas_sim.errors import ScenarioError

__all__ = ["escalation_history"]

_COMPLAINT: dict[str, str] = {
    "en": "Our team has again lost a day's work because of your service. This keeps happening and we need it fixed.",
    "de": "Unser Team hat wegen Ihres Dienstes wieder einen Arbeitstag verloren. Das passiert ständig, bitte beheben.",
    "es": ("Nuestro equipo ha vuelto a perder un día de trabajo por su servicio. Pasa una y otra vez; "
           "necesitamos una solución."),
    "fr": ("Notre équipe a encore perdu une journée de travail à cause de votre service. Cela se répète ; "
           "il faut corriger cela."),
}
_SUBJECT: dict[str, str] = {
    "en": "Service failures keep costing us work",
    "de": "Ständige Ausfälle kosten uns Arbeit",
    "es": "Los fallos del servicio nos siguen costando trabajo",
    "fr": "Les pannes du service nous coûtent du travail",
}


def _customer(ctx: SetupContext, entry: Mapping[str, Any], made: dict[str, Customer]) -> tuple[Customer, list[Event]]:
    """The desk's record of the entry's CRM contact (lowest id), or a new record of them."""
    contact_id = str(entry["contact_id"])
    if contact_id in made:
        return made[contact_id], []
    known = [c for c in ctx.state.table(CUSTOMERS) if c.crm_contact_id == contact_id]
    if known:
        return known[0], []
    skip_ids(ctx, "cus")
    person = Customer(
        id=ctx.ids.next("cus"), name=str(entry["name"]), first_name=str(entry["first_name"]),
        email=str(entry["email"]), phone=f"+1 555 {ctx.rng.randrange(100, 999)} {ctx.rng.randrange(1000, 9999)}",
        language="en", country="US", tier="standard", created_at=ctx.now - timedelta(days=ctx.rng.randrange(90, 900)),
        crm_contact_id=contact_id)
    made[contact_id] = person
    return person, [ev.CustomerCreated(customer=person)]


def _escalated(ctx: SetupContext, customer: Customer, team: Team, solved: bool) -> tuple[str, list[Event]]:
    lang = customer.language
    opened = ctx.now - timedelta(days=ctx.rng.randint(1, 25), minutes=ctx.rng.randrange(1440))
    ticket, events = stage(ctx, TicketSpec(
        customer=customer, requester=customer, issue="billing_question", resolution="escalate", created_at=opened,
        priority="high", group="general", team=team, status="solved" if solved else "on-hold",
        solved_at=opened + timedelta(days=1) if solved else None, persona_resolved=solved,
        mess=random_mess(ctx.rng, vague_subject=False), body_core=_COMPLAINT[lang]))
    ticket = ticket.model_copy(update={"subject": _SUBJECT[lang], "tags": ()})
    events = [ev.TicketCreated(ticket=ticket) if isinstance(e, ev.TicketCreated) else e for e in events]
    esc = Escalation(id=ctx.ids.next("esc"), ticket_id=ticket.id, team=team,
                     reason="Repeated service failures; the customer asks for someone senior.",
                     created_at=opened + timedelta(hours=ctx.rng.randint(1, 6)))
    return ticket.id, [*events, ev.TicketEscalated(escalation=esc)]


@kit.setup
def escalation_history(ctx: SetupContext) -> Setup:
    """Open and solved escalated tickets of the support customers who are the plan's CRM contacts.

    Params:
        plan: Entries `{contact_id, name, first_name, email, open, solved}` (from `crm.churn_review`).
        team: The team every ticket was escalated to (default `management`); the desk must hold no
            escalation to it yet, so the plan is the whole truth.

    Bindings: escalated (per plan entry, in plan order, its open tickets' ids), open_escalations (CRM
    contact id to its open escalated tickets' ids), solved_escalations (the same for solved ones).
    """
    team: Team = str(ctx.params.get("team", "management"))  # type: ignore[assignment]
    plan: Sequence[Mapping[str, Any]] = ctx.params["plan"]
    if any(e.team == team for e in ctx.state.table(ESCALATIONS)):
        raise ScenarioError(f"the desk already holds escalations to {team}; the plan would not be the truth")
    made: dict[str, Customer] = {}
    events: list[Event] = []
    escalated: list[list[str]] = []
    open_by: dict[str, list[str]] = {}
    solved_by: dict[str, list[str]] = {}
    # The plan lists the risk accounts' people first; the tickets are filed in a seed-drawn order, so the
    # lowest ticket and escalation ids are no sign of a churn risk.
    jobs = [(i, solved) for i, entry in enumerate(plan)
            for solved in [False] * int(entry["open"]) + [True] * int(entry["solved"])]
    ctx.rng.shuffle(jobs)
    customers: dict[int, Customer] = {}
    mine: dict[int, list[str]] = {i: [] for i in range(len(plan))}
    for i, solved in jobs:
        entry = plan[i]
        if i not in customers:
            customers[i], created = _customer(ctx, entry, made)
            events += created
        ticket_id, evs = _escalated(ctx, customers[i], team, solved)
        events += evs
        (solved_by if solved else open_by).setdefault(str(entry["contact_id"]), []).append(ticket_id)
        if not solved:
            mine[i].append(ticket_id)
    for i, entry in enumerate(plan):
        if i not in customers:  # an entry with no ticket still gets its desk record
            customers[i], created = _customer(ctx, entry, made)
            events += created
        escalated.append(sorted(mine[i]))
    open_by = {k: sorted(v) for k, v in open_by.items()}
    solved_by = {k: sorted(v) for k, v in solved_by.items()}
    return Setup(bindings={"escalated": escalated, "open_escalations": open_by, "solved_escalations": solved_by},
                 events=events)
