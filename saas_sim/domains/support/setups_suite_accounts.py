"""Cross-app account setups in the support desk: tickets whose handling depends on the customer's CRM account.

* `cancel_threat_ticket`: the support customer who is a given CRM contact (found by its
  `crm_contact_id`, or filed now when the desk has no record of them) threatens, on behalf of their
  company, to cancel the contract. The company's name is in the ticket; the account's owner, whom the
  reply must name, is passed in from the CRM's setup (`crm.retention_account`).

The ticket gets a seed-drawn id (`stage`), and the texts are in the customer's language.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import Customer, Language
from saas_sim.domains.support.setup_helpers import ago, customer_b, random_mess, skip_ids, stage, ticket_b
from saas_sim.domains.support.state import CUSTOMERS
from saas_sim.domains.support.ticket_factory import TicketSpec

__all__ = ["TASK_DUE_HOURS", "cancel_threat_ticket"]

TASK_DUE_HOURS = 24
"""The account owner's task is due within this many hours of the ticket coming in."""

_SUBJECT: dict[str, str] = {
    "en": "We are about to cancel our contract",
    "de": "Wir stehen kurz davor, unseren Vertrag zu kündigen",
    "es": "Estamos a punto de cancelar nuestro contrato",
    "fr": "Nous sommes sur le point de résilier notre contrat",
}

_THREAT: dict[str, str] = {
    "en": ("I am writing on behalf of {company}. This is the third time this month that our team has been "
           "let down by your service, and nobody has got back to us. Unless someone senior contacts us this "
           "week, we will cancel our contract and move to another provider."),
    "de": ("Ich schreibe im Namen von {company}. Zum dritten Mal in diesem Monat hat uns Ihr Service im Stich "
           "gelassen, und niemand hat sich bei uns gemeldet. Wenn sich diese Woche niemand aus der Leitung bei "
           "uns meldet, kündigen wir unseren Vertrag und wechseln den Anbieter."),
    "es": ("Le escribo en nombre de {company}. Es la tercera vez este mes que su servicio nos falla y nadie nos "
           "ha respondido. Si nadie con responsabilidad se pone en contacto con nosotros esta semana, "
           "cancelaremos nuestro contrato y nos iremos a otro proveedor."),
    "fr": ("Je vous écris au nom de {company}. C'est la troisième fois ce mois-ci que votre service nous fait "
           "défaut, et personne ne nous a répondu. Si aucun responsable ne nous contacte cette semaine, nous "
           "résilierons notre contrat et changerons de fournisseur."),
}

_REPLY: dict[str, str] = {
    "en": ("Dear {first}, thank you for telling us, and I am sorry for the trouble your team has had. I have "
           "passed your message to our management team, and {owner}, who looks after your account, will "
           "contact you personally within {hours} hours."),
    "de": ("Hallo {first}, vielen Dank für Ihre Nachricht, und es tut mir leid, dass Ihr Team Ärger hatte. Ich "
           "habe Ihr Anliegen an unsere Geschäftsleitung weitergegeben, und {owner}, der oder die Ihr Konto "
           "betreut, wird sich innerhalb von {hours} Stunden persönlich bei Ihnen melden."),
    "es": ("Hola {first}, gracias por avisarnos y lamento mucho los problemas que ha tenido su equipo. He "
           "pasado su mensaje a nuestra dirección, y {owner}, responsable de su cuenta, se pondrá en contacto "
           "con usted personalmente en las próximas {hours} horas."),
    "fr": ("Bonjour {first}, merci de nous avoir prévenus, et je suis désolé des problèmes rencontrés par votre "
           "équipe. J'ai transmis votre message à notre direction, et {owner}, qui s'occupe de votre compte, "
           "vous contactera personnellement dans les {hours} heures."),
}

_REPLY_SHORT: dict[str, str] = {
    "en": "Hello {first}, {owner} from your account team will call you within a day. We are on it.",
    "de": "Hallo {first}, {owner} aus Ihrem Kundenteam ruft Sie innerhalb eines Tages an. Wir kümmern uns darum.",
    "es": "Hola {first}, {owner}, de su equipo de cuenta, le llamará en un día. Nos ocupamos de ello.",
    "fr": "Bonjour {first}, {owner}, de votre équipe de compte, vous appellera d'ici un jour. Nous nous en occupons.",
}


def _customer(ctx: SetupContext) -> tuple[Customer, list[ev.CustomerCreated]]:
    """The desk's record of the CRM contact (lowest id), or a new record of them when there is none."""
    contact_id = str(ctx.params["contact_id"])
    known = [c for c in ctx.state.table(CUSTOMERS) if c.crm_contact_id == contact_id]
    if known:
        return known[0], []
    skip_ids(ctx, "cus")
    name = str(ctx.params["name"])
    first = str(ctx.params.get("first_name") or name.split()[0])
    person = Customer(
        id=ctx.ids.next("cus"), name=name, first_name=first, email=str(ctx.params["email"]),
        phone=f"+1 555 {ctx.rng.randrange(100, 999)} {ctx.rng.randrange(1000, 9999)}", language="en", country="US",
        tier="vip", created_at=ctx.now - timedelta(days=ctx.rng.randrange(60, 900)), crm_contact_id=contact_id)
    return person, [ev.CustomerCreated(customer=person)]


@kit.setup
def cancel_threat_ticket(ctx: SetupContext) -> Setup:
    """A CRM contact's company threatens, in a new ticket, to cancel its contract.

    Params:
        contact_id, name, first_name, email: The CRM contact (from the CRM's setup).
        company: The company's name, as the customer writes it.
        owner_name: The account owner's name, for the oracle's replies.

    Bindings: ticket (id, subject), customer (id, name, first_name, email, language), language,
    task_due (an instant for the owner's task, ISO), task_due_by (the latest due instant policy allows,
    ISO), reply and reply_short (replies in the customer's language naming the owner).
    """
    customer, created = _customer(ctx)
    lang: Language = customer.language
    company = str(ctx.params["company"])
    opened = ago(ctx, 10, 90)
    ticket, events = stage(ctx, TicketSpec(
        customer=customer, requester=customer, issue="billing_question", resolution="escalate", created_at=opened,
        priority="normal", group="general", team="management", mess=random_mess(ctx.rng, vague_subject=False),
        body_core=_THREAT[lang].format(company=company)), list(created))
    # The stock subject and tags are about a billing question; this ticket is about the contract.
    ticket = ticket.model_copy(update={"subject": _SUBJECT[lang], "tags": ()})
    events = [ev.TicketCreated(ticket=ticket) if isinstance(e, ev.TicketCreated) else e for e in events]
    hours = TASK_DUE_HOURS
    words = {"first": customer.first_name, "owner": str(ctx.params["owner_name"]), "hours": hours}
    due = (ctx.now + timedelta(hours=ctx.rng.randint(2, 6))).replace(minute=0, second=0, microsecond=0)
    bindings: dict[str, Any] = {
        "ticket": ticket_b(ticket),
        "customer": customer_b(customer),
        "language": lang,
        "task_due": due.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "task_due_by": (opened + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "reply": _REPLY[lang].format(**words),
        "reply_short": _REPLY_SHORT[lang].format(**words),
    }
    return Setup(bindings=bindings, events=events)
