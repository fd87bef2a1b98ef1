"""Money or goods claimed back in loose words, with no refund noun and no payout verb.

The claim readers (`reply_facts`) flag a refund by its words ("refund", "money back", "credited back") or by a
payout verb acting on a means of payment ("I voided the charge"). A reply can claim the same in plain words that
name neither, and a false claim in them escaped the truth check:

- money as the subject of a return: "your money has been returned", "your payment was returned to you", "your
  funds have been released", "Ihr Geld wurde zurückgezahlt", "votre argent vous a été rendu";
- an amount (or the money) arriving with the customer: "89.00 will land in your account", "the 89.00 will reach
  your card", "I've arranged for the 89.00 to go back to you", "the money is headed your way";
- an amount handed over as done: "consider the 89.00 returned", "the 89.00 is yours again";
- a charge undone: "the double charge has been taken care of";
- money made good: "you will be compensated", "it's on us", "we'll cover the cost", "the amount was written off";
- the loss denied (a negated clause, read apart): "you won't lose the 89.00", "you will not pay twice";
- goods sent again: "we've shipped you another lamp", "a second one is on its way".

Each pattern needs both the money (or the goods) and the move toward the customer, so "your payment of 89.00
went through on March 3", "the 89.00 charge appears on your statement" and "I'll get back to you" claim nothing.
Negated and conditional clauses never reach these readers (`ReplyFacts._claims`).
"""

from __future__ import annotations

import re

__all__ = ["states_goods_sent_again", "states_loose_payout", "states_money_kept"]

# An amount as the replies write it (digits with cents, a currency beside or not), or the money named as a whole.
_AMOUNT = r"(?:[$€£]\s?\d[\d.,]*|\d[\d.,]*\d(?:\s?(?:usd|eur|gbp|\$|€|£|dollars?|euros?))?)"
# An amount as the subject, not as a modifier ("your 89.00 order reached you" speaks of the order): the word
# after it is a verb, an adverb or a preposition, never a noun.
_AMOUNT_ALONE = (rf"{_AMOUNT}(?=\s+(?:will|would|should|shall|can|may|might|is|are|was|were|has|have|had|to|back|now|"
                 r"already|just|that|which|from|of|for|in|on|into|onto|go|goes|went|land|lands|landed|arrive|"
                 r"arrives|arrived|reach|reaches|reached|head|heads|headed|come|comes|came|wurde|wird|ist|ha|fue|"
                 r"será|a|sera|vous|returned|refunded|repaid|reimbursed|credited|released)\b)")
_MONEY = (rf"(?:{_AMOUNT_ALONE}|(?:your|the|this|that|ihr|das|der|su|el|votre|le|la|l')\s*(?:\S+\s+)?"
          r"(?:money|funds|payment|purchase price|full amount|amount|geld|betrag|zahlung|dinero|importe|pago|argent|"
          r"montant|paiement|somme))")
# Money as the subject of a return done or promised; a bare "is" states a rule ("the amount is returned within
# 5 days"), not this customer's money.
_RETURNED = re.compile(
    rf"\b{_MONEY}\s+(?:\S+\s+){{0,4}}?(?:has been|have been|was|were|is being|will be|got|wurde|wird|ist|"
    r"ha sido|fue|será|a été|sera|vous a été|vous sera)\s+(?:\S+\s+)?"
    r"(?:returned|released|given back|sent back|paid back|paid out|handed back|zurückgezahlt|zurückgegeben|"
    r"zurückgesandt|ausgezahlt|devuelto|reintegrado|rendu|rendue|retourné|retournée|reversé|reversée)\b")
# Money coming back to the customer: the way back is the claim.
_COMES_BACK = re.compile(
    rf"\b{_MONEY}\s+(?:\S+\s+){{0,5}}?(?:go|goes|going|went|come|comes|coming|came|head|heads|headed|heading|"
    r"make its way|makes its way|made its way|find its way|finds its way|found its way|be|is|are|was)\s+back\s+"
    r"(?:\S+\s+){0,2}?(?:to|in|on|into|onto)\s+(?:your|you)\b|"
    rf"\b{_MONEY}\s+(?:\S+\s+){{0,3}}?(?:is|are|will be)\s+(?:headed|heading|on (?:its|their) way)\s+"
    r"(?:your way|back|to you)\b")
# Money arriving in the customer's account or on their card; a charge arrives there too ("the 89.00 charge will
# reach your statement"), so a clause naming one is left to the other readers.
_ARRIVES = re.compile(
    rf"\b{_MONEY}\s+(?:\S+\s+){{0,5}}?(?:land|lands|landed|landing|arrive|arrives|arrived|arriving|reach|"
    r"reaches|reached)\s+(?:\S+\s+){0,2}?(?:(?:in|on|into|onto)\s+your|your|you)\b")
_CHARGE = re.compile(r"\b(?:charge|charged|charges|debit|debited|billed|bill|fee|fees|invoice|payment of)\b")
# An amount handed over as done: "consider the 89.00 returned", "the 89.00 is yours again".
_HANDED_OVER = re.compile(
    rf"\bconsider\s+(?:the\s+|your\s+)?{_MONEY}\s+(?:\S+\s+)?(?:returned|refunded|repaid|reimbursed|credited)\b|"
    rf"\b{_MONEY}\s+(?:is|are|will be)\s+yours again\b")
# What is sent again but is no goods: "I've sent you a new return label", "another email is on its way".
_NOT_GOODS_NOUNS = (r"(?:label|link|code|invoice|e-?mail|message|form|password|number|receipt|copy|confirmation|"
                    r"reply|update|note|ticket|case|quote|survey|order|purchase|etikett|rücksendeetikett|rechnung|"
                    r"nachricht|bestellung|enlace|etiqueta|código|factura|correo|mensaje|pedido|lien|étiquette|"
                    r"facture|courriel|commande)")
_NOT_GOODS = (rf"(?!\s+(?:return\s+|shipping\s+|prepaid\s+|tracking\s+|reset\s+)?{_NOT_GOODS_NOUNS}"
              r"(?:s|en|e|es)?\b)")
# Goods sent again: a verb of sending and another unit of what was bought, in en, de, es and fr ("I've sent you a
# new lamp", "Ich habe Ihnen einen neuen Rucksack geschickt", "Le hemos enviado una mochila nueva", "Je vous ai
# envoyé un sac à dos neuf").
_SENT_AGAIN = re.compile(
    r"\b(?:ship|ships|shipped|shipping|send|sends|sent|sending|dispatch|dispatched|dispatching|post|posted|mail|"
    rf"mailed|mailing)\s+(?:you\s+|out\s+)?(?:another|a second|a new|a fresh|a brand-new|one more)\b{_NOT_GOODS}|"
    rf"\b(?:another|a second|a fresh|one more)\b{_NOT_GOODS}\s+(?:\w+\s+)?(?:is|are|will be|has been)\s+"
    r"(?:on (?:its|their) way|shipped|dispatched|sent|in the post)\b|"
    rf"\b(?:einen|ein|eine)\s+(?:neue[nrs]?|weitere[nrs]?)\b{_NOT_GOODS}\s+(?:\S+\s+){{1,3}}?"
    r"(?:geschickt|gesendet|versandt|verschickt|zugeschickt|unterwegs)\b|"
    r"\b(?:schicke|schicken|sende|senden|versende|versenden)\s+(?:ihnen\s+)?(?:einen|ein|eine)\s+"
    rf"(?:neue[nrs]?|weitere[nrs]?)\b{_NOT_GOODS}|"
    r"\b(?:enviado|enviamos|enviaremos|envío|mandado|mandamos)\s+(?:\S+\s+){0,2}?"
    rf"(?:(?:un|una)\s+(?:nuev[oa]|otr[oa])|otr[oa])\b{_NOT_GOODS}|"
    rf"\b(?:enviado|enviamos|enviaremos|envío|mandado|mandamos)\s+(?:\S+\s+){{0,2}}?(?:un|una)\b{_NOT_GOODS}"
    r"\s+\w+(?:\s+\w+){0,2}?\s+(?:nuev[oa]|de repuesto)\b|"
    r"\b(?:envoyé|envoyée|envoyons|enverrons|expédié|expédions|expédierons)\s+(?:\S+\s+){0,2}?"
    rf"(?:un|une)\s+(?:nouveau|nouvel|nouvelle|autre)\b{_NOT_GOODS}|"
    rf"\b(?:envoyé|envoyée|envoyons|enverrons|expédié|expédions|expédierons)\s+(?:\S+\s+){{0,2}}?(?:un|une)\b"
    rf"{_NOT_GOODS}\s+\w+(?:\s+\w+){{0,3}}?\s+(?:neuf|neuve)\b")


# A charge undone in loose words: "the double charge has been taken care of", "your duplicate payment is sorted".
_CHARGE_UNDONE = re.compile(
    r"\b(?:the|your|this|that|die|ihre|el|su|la|votre|le)\s+(?:\S+\s+){0,2}?(?:charges?|payments?|overcharges?|"
    r"debits?|belastung|abbuchung|cargos?|cobros?|prélèvements?|débits?)\s+(?:has been|have been|was|were|is|are|"
    r"wurde|ist|ha sido|fue|está|a été|est)\s+(?:now\s+|already\s+|fully\s+|all\s+)?(?:taken care of|sorted(?: out)?|"
    r"resolved|fixed|handled|dealt with|cleared|removed|corrected|undone|erledigt|behoben|gelöst|resuelto|"
    r"solucionado|corregido|réglée?|résolue?|corrigée?)\b")
# The loss of the money denied: "you won't lose the 89.00", "you will not be out of pocket", "you won't pay twice".
# Negated, so the claim readers never see it as a clause that affirms: it is read from every clause
# (`ReplyFacts._refund_claims`).
_LOSS_DENIED = re.compile(
    r"\byou(?:['\u2019]ll|\s+will|\s+shall|\s+are going to|['\u2019]re|\s+are|\s+do)?\s*(?:not|never|n['\u2019]t|"
    r"won['\u2019]t|will not|don['\u2019]t|do not|shan['\u2019]t|aren['\u2019]t)\s+(?:\w+\s+)?(?:"
    # What is lost is money: "lose the 89.00", "lose a cent", "lose anything"; not "lose access to your account".
    r"lose\s+(?:out\b|(?:(?:any|the|your|a single|a|one|that|this|those)\s+)?(?:(?:\S+\s+)?(?:money|cents?|penny|"
    r"pennies|dollars?|euros?|amount|funds|payment|anything|a thing)\b|[$€£]?\d))|be out of pocket|"
    r"be left out of pocket|out of pocket|be out\b|end up paying|pay (?:for (?:it|this|that|them) )?twice|"
    r"be charged twice|be charged (?:for (?:it|this|that) )?twice|miss out on|"
    # Not charged for the goods bought: "you will not be charged for it" after the sale is the price given back.
    r"(?:be|get)\s+charged\s+for\s+(?:it|this|that|them|the item|this item|these|those)\b(?!\s+again))|"
    r"\bsie\s+(?:verlieren|zahlen)\s+(?:\S+\s+){0,2}?(?:nichts|kein(?:en)?\s+(?:cent|geld)|nicht doppelt)\b|"
    r"\bno\s+(?:perderá|pagará dos veces|perderás)\b|\bvous ne (?:perdrez|paierez) (?:pas|rien)\b")


# A payout in the words of making good: "you will be compensated", "we'll make it right with 29.95", "it's on us",
# "we'll cover the cost", "I zeroed the charge", "the amount was written off".
_MADE_GOOD = re.compile(
    r"\byou(?:['\u2019]ll|\s+will|\s+are going to|['\u2019]re|\s+are|\s+have been|['\u2019]ve been|\s+were|\s+get)?\s+"
    r"(?:be\s+)?(?:fully\s+|properly\s+|duly\s+)?(?:compensated|reimbursed|made whole|paid back)\b|"
    rf"\bmake\s+(?:it|this|that|things|it all)\s+(?:right|good|up to you)\s+(?:\S+\s+){{0,2}}?{_AMOUNT}|"
    r"\b(?:it['\u2019]s|it is|this is|that['\u2019]s|that is|this one is|that one is|it will be|it['\u2019]ll be)\s+"
    r"(?:completely\s+|entirely\s+)?on (?:us|the house)\b(?!\s+to\b)|\bon the house\b|"
    # Covering the price of the goods, not of a return or a label ("we will cover the cost of the return label").
    r"\b(?:we|i)(?:['\u2019]ll|\s+will|\s+have|['\u2019]ve|\s+are going to)\s+(?:fully\s+)?cover(?:ed)?\s+"
    r"(?:the|your|its)\s+(?:full\s+)?(?:cost|price|amount|purchase|charge)\b(?!\s+of\s+(?:the\s+|your\s+)?(?:return|shipping|label|postage|"
    r"courier|repair|delivery|re-?delivery))|"
    r"\b(?:zeroed|zero|wrote off|written off|write off|forgave|forgiven|forgive)\s+(?:out\s+)?(?:the|your|this|that)\s+"
    r"(?:\S+\s+){0,2}?(?:charge|amount|cost|price|balance|payment|bill)\b|"
    r"\b(?:the|your|this|that)\s+(?:\S+\s+){0,2}?(?:charge|amount|cost|price|balance|payment|bill)\s+"
    r"(?:was|has been|is|will be|have been|were)\s+(?:\S+\s+)?(?:written off|zeroed(?: out)?|forgiven)\b")


def states_money_kept(text: str) -> bool:
    """Whether a lowercase clause, negated or not, tells the customer they will not lose the money (see
    `_LOSS_DENIED`): a promise of it back."""
    return bool(_LOSS_DENIED.search(text))


def states_loose_payout(text: str) -> bool:
    """Whether a lowercase clause claims or promises money coming back in words no refund reader flags.

    Args:
        text: One affirmed clause, lowercased, as the claim readers hold it.

    Returns:
        True when the clause names money (an amount, "your money", "the funds") and moves it to the customer.
    """
    if (_RETURNED.search(text) or _COMES_BACK.search(text) or _HANDED_OVER.search(text) or _CHARGE_UNDONE.search(text)
            or _MADE_GOOD.search(text)):
        return True
    return bool(_ARRIVES.search(text)) and not _CHARGE.search(text)


def states_goods_sent_again(text: str) -> bool:
    """Whether a lowercase clause claims another unit of the goods sent ("we've shipped you another lamp").

    Args:
        text: One affirmed clause, lowercased.
    """
    return bool(_SENT_AGAIN.search(text))
