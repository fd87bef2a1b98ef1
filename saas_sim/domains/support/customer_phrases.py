"""What the simulated customer says, in four languages.

Placeholders: `{number}` (order number), `{item}` (the affected item),
`{amount}` (refunded so far, with currency) and `{want}` (what the customer
needs). `phrase(lang, key, i)` returns variant `i` (modulo the variants).
"""

from __future__ import annotations

__all__ = ["phrase"]

_P: dict[str, dict[str, tuple[str, ...]]] = {
    "give_order": {
        "en": ("Sure, it's order #{number}. It's about the {item}.",
               "The order number is {number}, the problem is the {item}."),
        "de": ("Die Bestellnummer ist {number}. Es geht um {item}.",),
        "es": ("El número de pedido es {number}. Es por {item}.",),
        "fr": ("Le numéro de commande est {number}. Il s'agit de {item}.",),
    },
    "already_gave_order": {
        "en": ("I already told you, it's order #{number}.",),
        "de": ("Das habe ich doch schon geschrieben: Bestellung {number}.",),
        "es": ("Ya se lo dije, es el pedido {number}.",),
        "fr": ("Je vous l'ai déjà dit, c'est la commande {number}.",),
    },
    "no_order": {
        "en": ("This is not about a specific order.",),
        "de": ("Es geht nicht um eine bestimmte Bestellung.",),
        "es": ("No se trata de un pedido concreto.",),
        "fr": ("Ce n'est pas lié à une commande précise.",),
    },
    "confirm_refund": {
        "en": ("Thank you, I can see the refund of {amount}. That solves it for me.",
               "Got it, the {amount} refund is showing. Thanks, all good now."),
        "de": ("Danke, ich sehe die Erstattung von {amount}. Damit ist alles erledigt.",),
        "es": ("Gracias, ya veo el reembolso de {amount}. Con eso está resuelto.",),
        "fr": ("Merci, je vois le remboursement de {amount}. C'est réglé pour moi.",),
    },
    "confirm": {
        "en": ("Thank you, that solves it for me.", "Perfect, that worked. Thanks for the help!"),
        "de": ("Danke, damit ist mein Problem gelöst.",),
        "es": ("Gracias, con eso queda resuelto.",),
        "fr": ("Merci, cela règle mon problème.",),
    },
    "confirm_deny": {
        "en": ("OK, I understand. Thanks for explaining.", "Fair enough, thanks for the clear answer."),
        "de": ("Verstehe, danke für die Erklärung.",),
        "es": ("Entiendo, gracias por la explicación.",),
        "fr": ("D'accord, je comprends. Merci pour l'explication.",),
    },
    "not_fixed": {
        "en": ("That is not what I see on my side: {want} is still not done.",
               "Sorry, but nothing has changed. I still need {want}."),
        "de": ("Bei mir hat sich nichts geändert. Ich brauche immer noch {want}.",),
        "es": ("No veo ningún cambio. Sigo necesitando {want}.",),
        "fr": ("Rien n'a changé de mon côté. J'ai toujours besoin de {want}.",),
    },
    "restate": {
        "en": ("I just need {want}.", "Could you please sort this out? I need {want}."),
        "de": ("Ich brauche einfach {want}.",),
        "es": ("Solo necesito {want}.",),
        "fr": ("J'ai juste besoin de {want}.",),
    },
    "manager": {
        "en": ("This is taking far too long. I want to speak to a manager.",),
        "de": ("Das dauert viel zu lange. Ich möchte mit einem Vorgesetzten sprechen.",),
        "es": ("Esto tarda demasiado. Quiero hablar con un responsable.",),
        "fr": ("C'est beaucoup trop long. Je veux parler à un responsable.",),
    },
    "waited": {
        "en": ("I have been waiting a long time for an answer.",),
        "de": ("Ich warte schon sehr lange auf eine Antwort.",),
        "es": ("Llevo mucho tiempo esperando una respuesta.",),
        "fr": ("J'attends une réponse depuis longtemps.",),
    },
    "reopen": {
        "en": ("Why was this marked as solved? My problem is not fixed: I still need {want}.",
               "This is NOT solved. I still need {want}."),
        "de": ("Warum wurde das als gelöst markiert? Ich brauche immer noch {want}.",),
        "es": ("¿Por qué se marcó como resuelto? Sigo necesitando {want}.",),
        "fr": ("Pourquoi est-ce marqué comme résolu ? J'ai toujours besoin de {want}.",),
    },
    "rate_good": {
        "en": ("Quick and helpful, thank you.",),
        "de": ("Schnell und hilfreich, danke.",),
        "es": ("Rápido y útil, gracias.",),
        "fr": ("Rapide et efficace, merci.",),
    },
    "rate_bad": {
        "en": ("My problem was not solved.",),
        "de": ("Mein Problem wurde nicht gelöst.",),
        "es": ("Mi problema no se resolvió.",),
        "fr": ("Mon problème n'a pas été résolu.",),
    },
    "want_refund": {
        "en": ("my money back",), "de": ("mein Geld zurück",), "es": ("mi reembolso",),
        "fr": ("mon remboursement",),
    },
    "want_replacement": {
        "en": ("a replacement",), "de": ("einen Ersatz",), "es": ("un reemplazo",), "fr": ("un remplacement",),
    },
    "want_refund_and_replacement": {
        "en": ("the refund and the replacement",), "de": ("die Erstattung und den Ersatz",),
        "es": ("el reembolso y el reemplazo",), "fr": ("le remboursement et le remplacement",),
    },
    "want_deny": {
        "en": ("a clear answer about my return",), "de": ("eine klare Antwort zu meiner Rücksendung",),
        "es": ("una respuesta clara sobre mi devolución",), "fr": ("une réponse claire sur mon retour",),
    },
    "want_kb_answer": {
        "en": ("to know how to do this",), "de": ("eine Anleitung",), "es": ("saber cómo hacerlo",),
        "fr": ("savoir comment faire",),
    },
    "want_escalate": {
        "en": ("someone responsible to deal with this",), "de": ("einen Verantwortlichen",),
        "es": ("que un responsable se ocupe",), "fr": ("qu'un responsable s'en occupe",),
    },
    "want_tracking": {
        "en": ("to know where my parcel is",), "de": ("zu wissen, wo mein Paket ist",),
        "es": ("saber dónde está mi paquete",), "fr": ("savoir où est mon colis",),
    },
    "want_reply": {
        "en": ("my invoice",), "de": ("meine Rechnung",), "es": ("mi factura",), "fr": ("ma facture",),
    },
}


def phrase(lang: str, key: str, i: int) -> str:
    """Returns variant `i` of what the customer says for `key` in `lang` (English as fallback)."""
    table = _P[key]
    options = table.get(lang) or table["en"]
    return options[i % len(options)]
