"""Customer-written text in four languages, and the mess real inboxes have.

Everything here is a pure function of its arguments and a `random.Random` the
caller seeded; nothing reads the clock or global randomness. World generation
and scenario setups share these writers, so a staged ticket reads like a world
ticket.
"""

from __future__ import annotations

import html
import random
import unicodedata
from datetime import datetime

from saas_sim.domains.support.models import IssueKind, Language

__all__ = [
    "LANGUAGES",
    "add_typos",
    "ascii_slug",
    "complaint",
    "format_when",
    "order_ref",
    "quoted_chain",
    "signature",
    "subject",
    "to_html",
]

LANGUAGES: tuple[Language, ...] = ("en", "de", "es", "fr")

_ORDER_REF = {
    "en": ("order #{n}", "order {n}", "order no. {n}", "#{n}"),
    "de": ("Bestellung {n}", "Bestellnummer {n}", "Bestellung Nr. {n}"),
    "es": ("pedido {n}", "pedido n.º {n}", "número de pedido {n}"),
    "fr": ("commande {n}", "commande n° {n}", "numéro de commande {n}"),
}
_MY_ORDER = {"en": "my order", "de": "meine Bestellung", "es": "mi pedido", "fr": "ma commande"}

# Bodies per issue and language. Placeholders: {product} {qty} {ref} {task}.
_BODIES: dict[str, dict[str, tuple[str, ...]]] = {
    "damaged_item": {
        "en": (
            "My {product} from {ref} arrived damaged. The box was crushed and it is cracked. "
            "Can I get my money back for it?",
            "{qty} of the {product} in {ref} came broken. Really disappointed. What can you do?",
        ),
        "de": (
            "Mein {product} aus {ref} ist beschädigt angekommen, das Gehäuse ist gesprungen. "
            "Kann ich mein Geld zurückbekommen?",
            "{qty} Stück {product} aus {ref} waren kaputt. Was können Sie tun?",
        ),
        "es": (
            "Mi {product} del {ref} llegó dañado, la caja venía aplastada y está roto. "
            "¿Me pueden devolver el dinero?",
            "{qty} unidades de {product} del {ref} llegaron rotas. ¿Qué pueden hacer?",
        ),
        "fr": (
            "Mon {product} de la {ref} est arrivé abîmé, il est fissuré. "
            "Est-ce que je peux être remboursé ?",
            "{qty} exemplaires de {product} de la {ref} sont arrivés cassés. Que pouvez-vous faire ?",
        ),
    },
    "wrong_item": {
        "en": ("I ordered the {product} ({ref}) but got something completely different in the box.",),
        "de": ("Ich habe {product} bestellt ({ref}), aber etwas ganz anderes bekommen.",),
        "es": ("Pedí {product} ({ref}) pero recibí otra cosa totalmente distinta.",),
        "fr": ("J'ai commandé {product} ({ref}) mais j'ai reçu un tout autre article.",),
    },
    "missing_item": {
        "en": ("The package for {ref} came but the {product} was not in it.",),
        "de": ("Das Paket zu {ref} kam an, aber {product} fehlte.",),
        "es": ("El paquete del {ref} llegó pero faltaba {product}.",),
        "fr": ("Le colis de la {ref} est arrivé mais {product} manquait.",),
    },
    "not_delivered": {
        "en": ("Tracking says {ref} was delivered but nothing arrived. Where is my package?",),
        "de": ("Laut Sendungsverfolgung wurde {ref} zugestellt, aber hier ist nichts angekommen.",),
        "es": ("El seguimiento dice que el {ref} fue entregado pero no recibí nada.",),
        "fr": ("Le suivi indique que la {ref} a été livrée mais je n'ai rien reçu.",),
    },
    "change_of_mind": {
        "en": (
            "I would like to return the {product} from {ref}, I don't need it anymore. "
            "Please refund me.",
            "changed my mind about the {product} ({ref}). want a refund pls",
        ),
        "de": ("Ich möchte {product} aus {ref} zurückgeben, ich brauche es nicht mehr. Bitte erstatten.",),
        "es": ("Quiero devolver {product} del {ref}, ya no lo necesito. Reembolso por favor.",),
        "fr": ("Je souhaite retourner {product} de la {ref}, je n'en ai plus besoin. Remboursez-moi svp.",),
    },
    "howto": {
        "en": (
            "How do I {task} on my {product}? Can't find it anywhere.",
            "quick question - what's the way to {task} for the {product}?",
        ),
        "de": ("Wie kann ich bei meinem {product} folgendes machen: {task}?",),
        "es": ("¿Cómo puedo hacer esto con mi {product}: {task}?",),
        "fr": ("Comment faire pour mon {product} : {task} ?",),
    },
    "legal_threat": {
        "en": (
            "This is my third email about {ref}. If this is not sorted by Friday my lawyer will "
            "file a claim against your company.",
            "I am done waiting. I have contacted an attorney and will take legal action over {ref}.",
        ),
        "de": ("Wenn {ref} nicht bis Freitag geklärt ist, schalte ich meinen Anwalt ein und klage.",),
        "es": ("Si no resuelven lo del {ref} antes del viernes, mi abogado presentará una demanda.",),
        "fr": ("Si la {ref} n'est pas réglée d'ici vendredi, mon avocat engagera une action en justice.",),
    },
    "security_report": {
        "en": (
            "Someone logged into my account and changed the delivery address. I got a password "
            "reset email I never asked for. Is my card data safe?",
        ),
        "de": (
            "Jemand hat sich in mein Konto eingeloggt und die Lieferadresse geändert. "
            "Sind meine Daten sicher?",
        ),
        "es": ("Alguien entró en mi cuenta y cambió la dirección de envío. ¿Están seguros mis datos?",),
        "fr": (
            "Quelqu'un s'est connecté à mon compte et a changé l'adresse de livraison. "
            "Mes données sont-elles en sécurité ?",
        ),
    },
    "billing_question": {
        "en": ("Could you send me an invoice for {ref}? I need it for my expenses.",),
        "de": ("Können Sie mir bitte eine Rechnung für {ref} schicken?",),
        "es": ("¿Me pueden enviar la factura del {ref}?",),
        "fr": ("Pouvez-vous m'envoyer la facture de la {ref} ?",),
    },
}

_GREETING = {
    "en": ("Hi,", "Hello,", "Hi there,", ""),
    "de": ("Hallo,", "Guten Tag,", ""),
    "es": ("Hola,", "Buenos días,", ""),
    "fr": ("Bonjour,", "Bonsoir,", ""),
}

_SUBJECTS: dict[str, dict[str, tuple[str, ...]]] = {
    "damaged_item": {
        "en": ("Damaged {product}", "Item arrived broken"),
        "de": ("Beschädigte Ware", "{product} kaputt"),
        "es": ("Producto dañado", "{product} roto"),
        "fr": ("Article endommagé", "{product} cassé"),
    },
    "wrong_item": {"en": ("Wrong item received",), "de": ("Falscher Artikel",), "es": ("Artículo equivocado",),
                   "fr": ("Mauvais article",)},
    "missing_item": {"en": ("Missing item",), "de": ("Artikel fehlt",), "es": ("Falta un artículo",),
                     "fr": ("Article manquant",)},
    "not_delivered": {"en": ("Package never arrived",), "de": ("Paket nicht angekommen",),
                      "es": ("Paquete no recibido",), "fr": ("Colis jamais reçu",)},
    "change_of_mind": {"en": ("Return request",), "de": ("Rücksendung",), "es": ("Devolución",),
                       "fr": ("Demande de retour",)},
    "howto": {"en": ("Question about my {product}",), "de": ("Frage zu {product}",),
              "es": ("Pregunta sobre {product}",), "fr": ("Question sur {product}",)},
    "legal_threat": {"en": ("FINAL WARNING",), "de": ("Letzte Warnung",), "es": ("Último aviso",),
                     "fr": ("Dernier avertissement",)},
    "security_report": {"en": ("Account hacked?",), "de": ("Konto gehackt?",), "es": ("¿Cuenta hackeada?",),
                        "fr": ("Compte piraté ?",)},
    "billing_question": {"en": ("Invoice",), "de": ("Rechnung",), "es": ("Factura",), "fr": ("Facture",)},
}
_VAGUE = {
    "en": ("Help", "Problem", "question", "???", "Re: Your order", "urgent", "(no subject)"),
    "de": ("Hilfe", "Problem", "Frage", "AW: Ihre Bestellung"),
    "es": ("Ayuda", "Problema", "RE: Su pedido"),
    "fr": ("Aide", "Problème", "RE : Votre commande"),
}
_SIGN_OFF = {
    "en": ("Thanks,", "Best regards,", "Cheers,"),
    "de": ("Viele Grüße,", "Mit freundlichen Grüßen,"),
    "es": ("Saludos,", "Gracias,"),
    "fr": ("Cordialement,", "Merci,"),
}
_MOBILE = {
    "en": "Sent from my iPhone",
    "de": "Von meinem iPhone gesendet",
    "es": "Enviado desde mi iPhone",
    "fr": "Envoyé de mon iPhone",
}
_WROTE = {
    "en": "On {when}, Support <help@shop.example> wrote:",
    "de": "Am {when} schrieb Support <help@shop.example>:",
    "es": "El {when}, Support <help@shop.example> escribió:",
    "fr": "Le {when}, Support <help@shop.example> a écrit :",
}
_QUOTED = (
    "Thanks for contacting us! We have received your request and will get back to you shortly.",
    "Your ticket has been received. Reference number will follow.",
)
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def ascii_slug(text: str) -> str:
    """Returns `text` folded to lowercase ASCII letters and digits (for e-mail local parts)."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "".join(ch for ch in folded.lower() if ch.isalnum())


def format_when(at: datetime) -> str:
    """Formats an instant like a mail client does, without reading any locale."""
    return f"{_DAYS[at.weekday()]}, {_MONTHS[at.month - 1]} {at.day}, {at.year} at {at:%H:%M}"


def order_ref(rng: random.Random, lang: Language, number: str | None) -> str:
    """Returns how a customer names an order: with its number, or vaguely without it."""
    if number is None:
        return _MY_ORDER[lang]
    return rng.choice(_ORDER_REF[lang]).format(n=number)


def complaint(
    rng: random.Random,
    lang: Language,
    issue: IssueKind,
    *,
    product: str,
    ref: str,
    qty: int = 1,
    task: str = "",
) -> str:
    """Returns the core text of a customer's first message about `issue`."""
    greeting = rng.choice(_GREETING[lang])
    body = rng.choice(_BODIES[issue][lang]).format(product=product, ref=ref, qty=qty, task=task)
    return f"{greeting}\n\n{body}" if greeting else body


def subject(rng: random.Random, lang: Language, issue: IssueKind, product: str, *, vague: bool) -> str:
    """Returns a ticket subject; a vague one says nothing about the problem."""
    if vague:
        return rng.choice(_VAGUE[lang])
    return rng.choice(_SUBJECTS[issue][lang]).format(product=product)


def signature(rng: random.Random, lang: Language, name: str, phone: str) -> str:
    """Returns an e-mail signature: a sign-off with name and phone, or a mobile footer."""
    sign_off = rng.choice(_SIGN_OFF[lang])
    if rng.random() < 0.3:
        return f"{sign_off}\n{name.split()[0]}\n\n{_MOBILE[lang]}"
    return f"{sign_off}\n{name}\n--\n{name} | {phone}"


def quoted_chain(rng: random.Random, lang: Language, when: datetime) -> str:
    """Returns a quoted earlier message, as a mail client appends it to a reply."""
    quoted = "\n".join(f"> {line}" for line in rng.choice(_QUOTED).split(". "))
    return f"{_WROTE[lang].format(when=format_when(when))}\n{quoted}"


def add_typos(rng: random.Random, text: str, rate: float) -> str:
    """Swaps adjacent letters in about `rate` of the longer words (never in numbers)."""
    words = text.split(" ")
    out: list[str] = []
    for word in words:
        if len(word) > 4 and word.isalpha() and rng.random() < rate:
            i = rng.randrange(1, len(word) - 2)
            word = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        out.append(word)
    return " ".join(out)


def to_html(text: str) -> str:
    """Wraps plain text in the HTML a web mailer produces."""
    paragraphs = [p for p in text.split("\n\n") if p.strip()]
    inner = "".join(
        "<p>" + "<br>".join(html.escape(line) for line in p.split("\n")) + "</p>" for p in paragraphs
    )
    return f'<div dir="ltr">{inner}<div><br></div></div>'
