"""Reference replies in the customer's language, bound by setups for oracle solutions.

They are what a good agent would write, and they are built to satisfy the
same detectors a real agent's reply faces (order-number questions, amounts,
language), so an oracle that scores 1.0 proves the checks are reachable.
"""

from __future__ import annotations

__all__ = ["ask_order_number", "refund_done", "refund_done_alt"]

_ASK = {
    "en": "Hi {first},\n\nthank you for contacting us, and sorry about the trouble. Could you please send me "
          "your order number so I can look into this?\n\nBest regards",
    "de": "Hallo {first},\n\ndanke für Ihre Nachricht. Können Sie mir bitte Ihre Bestellnummer schicken, damit "
          "ich das für Sie prüfen kann?\n\nViele Grüße",
    "es": "Hola {first},\n\ngracias por su mensaje. ¿Podría enviarme su número de pedido para que pueda "
          "revisarlo?\n\nSaludos",
    "fr": "Bonjour {first},\n\nmerci pour votre message. Pourriez-vous m'envoyer votre numéro de commande afin "
          "que je puisse vérifier ?\n\nCordialement",
}
_REFUND = {
    "en": "Hi {first},\n\nI'm sorry that the {item} arrived damaged. I have refunded {amount} {currency} for "
          "the damaged {item} on order #{number}. The money will be back on your payment method within "
          "5-10 business days.\n\nBest regards",
    "de": "Hallo {first},\n\nes tut mir leid, dass {item} beschädigt bei Ihnen angekommen ist. Ich habe Ihnen "
          "{amount} {currency} für die beschädigte Ware aus der Bestellung {number} erstattet. Das Geld ist "
          "in 5-10 Werktagen wieder auf Ihrem Konto, und wir sind für Sie da, wenn Sie noch Fragen haben."
          "\n\nViele Grüße",
    "es": "Hola {first},\n\nsiento mucho que {item} haya llegado dañado. Le hemos reembolsado {amount} "
          "{currency} por el artículo dañado del pedido {number}. El dinero estará en su cuenta en 5-10 días "
          "hábiles y quedamos a su disposición para lo que necesite.\n\nSaludos",
    "fr": "Bonjour {first},\n\nje suis désolé que {item} soit arrivé abîmé. Nous vous avons remboursé "
          "{amount} {currency} pour l'article abîmé de la commande {number}. Le montant sera sur votre "
          "compte sous 5 à 10 jours ouvrés et nous restons à votre disposition pour toute question."
          "\n\nCordialement",
}

# The same facts in other words (an alternative correct solution: checks judge facts, not phrasing).
_REFUND_ALT = {
    "en": "Hello {first},\n\nsorry about the broken {item}! Your money is on its way back: a refund of "
          "{currency} {amount} went out today for order {number}. Expect it on your card in a week or "
          "so.\n\nKind regards",
    "de": "Guten Tag {first},\n\nbitte entschuldigen Sie den Ärger mit dem beschädigten Artikel. Für Ihre "
          "Bestellung {number} haben wir heute {amount} {currency} zurücküberwiesen; der Betrag wird Ihrem "
          "Konto in den nächsten Tagen gutgeschrieben.\n\nFreundliche Grüße",
    "es": "Buenos días {first},\n\ndisculpe las molestias por el artículo dañado. Hoy le hemos devuelto "
          "{amount} {currency} correspondientes a su pedido {number}; verá el importe en su cuenta en unos "
          "días.\n\nUn saludo",
    "fr": "Bonjour {first},\n\ntoutes nos excuses pour l'article endommagé. Nous vous avons rendu "
          "aujourd'hui {amount} {currency} pour votre commande {number} ; la somme apparaîtra sur votre "
          "compte d'ici quelques jours.\n\nBien à vous",
}


def ask_order_number(lang: str, first: str) -> str:
    """Returns a polite request for the order number."""
    return _ASK.get(lang, _ASK["en"]).format(first=first)


def refund_done(lang: str, *, first: str, item: str, amount: str, currency: str, number: str) -> str:
    """Returns a reply that tells the customer what was refunded."""
    return _REFUND.get(lang, _REFUND["en"]).format(first=first, item=item, amount=amount, currency=currency,
                                                   number=number)


def refund_done_alt(lang: str, *, first: str, item: str, amount: str, currency: str, number: str) -> str:
    """Returns the refund reply in other words (same facts), for alternative solutions."""
    return _REFUND_ALT.get(lang, _REFUND_ALT["en"]).format(first=first, item=item, amount=amount,
                                                           currency=currency, number=number)
