"""What an episode's replies on a ticket state, as facts read by parsers.

All public agent replies on a ticket (and on tickets merged with it) are read
together, so a shotgun of replies with different answers is judged as what it
is: several claims, every one of which must be true. Facts come from
`saas_sim.core.text_facts`: money amounts (locale-aware, number words
included), numbers, order numbers, dates and the language of each reply.

The small word lists below only *flag* sentences that claim or promise an
action (a refund, a replacement) or name a policy reason. A flag can make a
reply fail (a claim the state does not show); it is never the evidence that a
goal was met: goals are met by the state plus stated facts that are true.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from saas_sim.core.state import State
from saas_sim.core.text_facts import (
    detect_language,
    extract_amounts,
    extract_codes,
    extract_dates,
    extract_numbers,
    language_shares,
    negated,
    numbers_as_digits,
    sentences,
)
from saas_sim.domains.support.conditions import (
    BEFORE_CONDITION,
    CONDITION_OR_TIME,
    CONDITIONAL,
    QUESTION,
    governed,
    opens,
    split_governed,
)
from saas_sim.domains.support.done_anaphora import done_by_reference, pending, topic_of
from saas_sim.domains.support.idle_mentions import without_idle_mentions
from saas_sim.domains.support.loose_payouts import states_goods_sent_again, states_loose_payout, states_money_kept
from saas_sim.domains.support.models import Message, Ticket
from saas_sim.domains.support.refund_counts import (
    claims_all_units,
    claims_further,
    counts_claimed,
    opens_with_more,
    sums_claimed,
)
from saas_sim.domains.support.refund_shares import Share, order_refunded, refund_shares
from saas_sim.domains.support.side_amounts import without_side_amounts
from saas_sim.domains.support.threads import agent_replies, reply_text
from saas_sim.domains.support.unit_rates import (
    AMOUNT_TEXT,
    OrderTerms,
    bound_counts,
    per_unit_amounts,
    products,
    rate_lines,
    states_line_price,
    unit_counts,
)

__all__ = [
    "MONEY_DESTINATION",
    "ORDER_NUMBER",
    "ReplyFacts",
    "Sentence",
    "asks_for_order",
    "claims_goods_or_credit",
    "claims_money",
    "read_facts",
    "read_replies",
]

ORDER_NUMBER = r"(?<![\w.,])\d{4,9}(?![\w]|[.,]\d)"
"""How order numbers are written: a run of 4-9 digits (the shop's numbers are plain digits)."""

# Flags, by language-independent stems (a sentence is lowercased and accent-kept). They flag claims
# of an action so the state can refute them; they are never the evidence that a goal was met, so a
# broad list costs a correct reply nothing unless the claim it flags is false.
_REFUND = ("refund", "reimburs", "money back", "erstatt", "geld zurück", "reembols", "rembours",
           "devolvemos el dinero", "devolución del dinero", "devuelto", "devolvemos", "devolveremos", "devolvimos",
           "le devolví", "les devolví", "se lo devolví", "reintegr",
           "zurücküberwiesen", "zurückgebucht", "rückzahlung", "restitu", "credited back", "paid back",
           "pay you back", "returned to your", "back to your", "back on your", "back into your")
# Money moving to the customer in other words: a payout claimed is a refund claim whatever it is called.
# Claims only: "it does not qualify for compensation" speaks of another order, and denies no refund.
_PAYOUT = ("transfer the money", "transfer the amount", "transfer the full", "money to you", "money to your",
           "pay you", "paying you", "paid you", "wire you", "wiring you", "wired you", "credit your", "credit you",
           "credited to your", "credited on your", "reversed the charge", "reverse the charge",
           "reversing the charge", "reversed the payment", "reverse the payment", "compensate you",
           "compensated you", "compensating you", "payout", "gutgeschrieben", "gutschreiben",
           "überweisen wir", "wir überweisen", "überwiesen", "abonaremos", "abonamos", "le abonamos", "vous verser",
           "vous versons", "versement", "créditer votre", "crédité sur")
# A move of money the agent made onto the customer's means of payment or off their charge ("I have sent the
# purchase price to your card", "we voided the charge", "credited your PayPal"): a money object and a move.
_MONEY_OBJECT = (
    r"(?:(?:your|ihre?n?|su|sus|votre|vos)\s+(?:\S+\s+){0,3}?(?:card|credit card|debit card|visa|mastercard|amex|"
    r"paypal|bank|bank account|payment method|original payment|karte|kreditkarte|bankkonto|tarjeta|"
    r"cuenta bancaria|carte|compte bancaire)|"
    r"(?:the|this|that|die|den|el|la|le)\s+(?:\S+\s+){0,3}?(?:charge|payment|purchase price|full amount|money|"
    r"belastung|zahlung|kaufpreis|bestellsumme|cargo|importe|pago|montant|paiement))\b(?!-)")
_MONEY_VERB = (
    r"(?:sent|send|sending|credited|credit|crediting|compensated|voided|void|voiding|waived|waive|waiving|"
    r"cancell?ed|cancel|cancell?ing|issued|issue|issuing|transferred|transfer|transferring|reversed|reverse|"
    r"reversing|returned|return|returning|deposited|deposit|refunded|released|release|releasing|"
    r"storniert|erstattet|überwiesen|zurückgebucht|gutgeschrieben|erlassen|"
    r"anulado|anulamos|anulé|cancelado|cancelé|enviado|devuelto|devolví|devolvimos|abonado|abonamos|abon[éó]|"
    r"reembolsado|reembols[éó]|reembolsamos|transferí|transferimos|"
    r"annulé|annulée|envoyé|remboursé|crédité|versé|viré)")
# The verb must act on the money: "I voided the 24.99 USD charge", "the charge has been cancelled"; not "the
# second payment belongs to a duplicate we cancelled" (the order was cancelled, not the payment).
_MONEY_MOVED = re.compile(
    rf"\b{_MONEY_VERB}\b\s+(?:\S+\s+){{0,4}}?{_MONEY_OBJECT}|"
    rf"\b{_MONEY_OBJECT}\s+(?:\S+\s+){{0,3}}?(?:has been|have been|was|were|is|are|will be|got|wurde|wird|"
    rf"ha sido|fue|a été|sera)\s+(?:\S+\s+)?{_MONEY_VERB}\b")
# The customer's bank paying through a dispute, not the shop: "your bank will return the money to you
# through the chargeback" claims no payout of ours. "Your bank account" is a means of payment, not a payer.
_THIRD_PARTY_PAYS = re.compile(
    r"\b(?:your|the|ihre|die|su|el|votre|la) (?:bank|banco|banque)(?:'s)?\s+(?:will|would|should|can|may|is going to|"
    r"returns?|credits?|refunds?|handles?|pays?|reverses?|closes?|resolves?|settles?|decides?|processes|wird|va|"
    r"devolverá|remboursera)\b|\b(?:dispute|chargeback|rückbuchung|contracargo|litige)\b")
# A refund the bank makes: through the dispute, or the bank as the one who refunds ("reimbursement through your
# bank's dispute", "your bank will refund you"). "Your refund will show once the bank processes it" is ours.
# Only the bank or the dispute as the payer counts: "through your bank's dispute", "the chargeback will return your
# money"; a dispute merely named ("regardless of the dispute", "no chargeback is needed", "before the chargeback
# is decided") leaves the refund ours.
_BANK_REFUNDS = re.compile(
    r"\b(?:through|via|by|with|from|in|over)\s+(?:your|the|a|ihre[nm]?|die|den|su|el|la|votre|le)\s+"
    r"(?:\S+\s+){0,2}?(?:dispute|chargeback|rückbuchung|contracargo|litige)\b|"
    r"\b(?:the|your|this|that|ihre|die|su|el|la|votre|le)\s+(?:dispute|chargeback|rückbuchung|contracargo|litige)\s+"
    r"(?:will|would|should|can|may|is going to|wird)\s+(?:\S+\s+)?(?:refund|reimburs|return|credit|pay|rembours|"
    r"erstatt|devol|zurück)|"
    r"\b(?:your|the|ihre|die|su|el|votre|la) (?:bank|banco|banque|card issuer|issuer)(?:'s)?\s+(?:will\s+|would\s+|"
    r"should\s+|can\s+|may\s+|is going to\s+|wird\s+(?:ihnen\s+)?|va\s+)?(?:refund|reimburs|return|credit|pay|"
    r"rembours|erstatt|devol|zurück)")
# A part of the order other than the one refunded: "your original order is not refunded, only the duplicate
# charge" denies nothing beside a refund claim.
_OTHER_PART = re.compile(r"\b(?:original|other|remaining|first|second|ursprünglich\w*|restlich\w*|ander(?:e|en|er|es)|"
                         r"otr[oa]s?|autres?)\s+(?:\S+\s+)?(?:order|orders|item|items|unit|units|charge|charges|"
                         r"payment|purchase|line|product|products|bestellung|artikel|pedido|artículo|commande|"
                         r"article)\b|\bthe rest\b|\bthe remainder\b|\bder rest\b|\bel resto\b|\ble reste\b")
# Only a clause without the shop as its actor: "I will transfer 24.99 USD to your card; your bank may take 5 days"
# and "you will receive 24.99 USD from us, the dispute is closed" are still ours.
_FIRST_PERSON = re.compile(r"\b(?:i|we|us|our|i'll|we'll|i've|we've|ich|wir|uns|unser\w*|yo|nosotros|nos|nuestr\w*|"
                           r"je|nous|notre)\b")
# Words that are a payout only beside an amount: "I transferred your case to billing" claims no money,
# "I will transfer 24.99 USD to your card" does.
_PAYOUT_WITH_AMOUNT = ("transfer", "revers", "credit", "deposit", "compensat", "will pay", "covered", "cover the",
                       "release", "überweis", "storn", "entschädig", "abon", "virement", "verser",
                       "versé", "crédit")
# A denial negates the refund itself ("we could not refund anything", "no refund was made"); "the refund won't
# appear instantly" or "you don't need to return it to get your refund" deny nothing.
_DENIES_REFUND = re.compile(
    r"\b(?:not|n't|no|never|cannot|nothing|nichts|nicht|kein\w*|no se|ningún|ne|pas|aucun)\s+(?:\w+\s+){0,2}?"
    r"(?:refund|reimburs|money back|erstatt|geld zurück|reembols|rembours|devol|remboursement)|"
    r"\b(?:refund|erstattung|reembolso|remboursement)\w*\s+(?:was|were|has|have|is|wurde|fue|n'a)\s+(?:not|n't|"
    r"never|nicht|no|pas)\b")
# "... back" claims money or goods are coming back ("you will get your 24.99 back", "we will take it
# back"), unless the phrase is about a conversation ("get back to you", "write back").
_BACK = re.compile(r"(?<!get )(?<!got )(?<!getting )(?<!come )(?<!write )(?<!hear )(?<!call )(?<!reply )"
                   r"(?<!writing )(?<!coming )(?<!looking )(?<!go )(?<!be )\bback\b(?! to you)(?! with\b)(?! soon)"
                   r"(?! in touch)")
# The customer's wish or request ("your refund request", "you were hoping for a refund", "you'd like your money
# back"): naming it claims nothing, so it is read out before looking for claims. "(You can) expect a refund" is a
# promise, not the customer's expectation.
_WISH = re.compile(r"\b(?:refund|return|erstattungs?|reembolso|remboursement) ?(?:request|anfrage|antrag|solicitud|"
                   r"demande)\w*|\brequest(?:ed|s)? (?:for )?(?:a |your |the )?(?:full )?refund\w*|"
                   r"\b(?:hoping|hoped|asking|asked|wish(?:ed)?|want(?:ed)?|like|liked|expected|expecting|"
                   r"(?<!can )(?<!will )(?<!'ll )(?<!should )(?<!may )(?<!please )(?<!^)(?<!^ )expect) (?:for )?"
                   r"(?:a |your |the )?(?:full )?(?:refund|money back)\b|"
                   # The wish in the customer's language: "Sie haben eine Erstattung ... angefragt", "usted pidió un
                   # reembolso", "vous avez demandé un remboursement".
                   r"\bsie\s+(?:haben|hatten|möchten|wünschen|wollten|wollen|baten)\s+(?:sich\s+|um\s+)?(?:eine[nr]?\s+)?"
                   r"(?:volle\w*\s+)?(?:rück)?erstattung\b(?=(?:\s+[^\s.!?]+){0,6}?\s+(?:angefragt|beantragt|gewünscht|"
                   r"gebeten|verlangt|angefordert|erbeten|möchten|wünschen)\b|\s*$|\s*[,.])|"
                   r"\b(?:pidió|solicitó|ha pedido|ha solicitado|había pedido|quería|quiere|desea|deseaba|solicita)\s+"
                   r"(?:usted\s+)?(?:un|el|su)\s+reembolso\b|"
                   r"\b(?:avez demandé|aviez demandé|demandez|souhaitez|souhaitiez|voulez|vouliez|désirez)\s+"
                   r"(?:un|le|votre)\s+remboursement\b|"
                   # The customer's wish with its amount: "you mentioned you expected 179.97 back", "you asked for
                   # all 179.97 back".
                   r"\byou\s+(?:\w+\s+){0,3}?(?:hoped|hoping|asked|asking|wanted|expected|expecting|requested|wished|"
                   r"would like|['\u2019]d like|were hoping|were expecting)\s+"
                   r"(?:for\s+|to get\s+|to receive\s+|to have\s+)?(?:all\s+|the full\s+|the\s+|your\s+)?"
                   r"(?:[$€£]\s?)?\d[\d.,]*(?:\s?(?:usd|eur|gbp|chf|dollars?|euros?|[$€£]))?\s+back\b")
# The wish granted is the refund claimed: "your refund request has been approved".
# What the request was for may stand between: "your refund request of 179.97 has been approved".
_WISH_GRANTED = re.compile(r"(?:request|anfrage|antrag|solicitud|demande)\w*\s+(?:(?:of|for|von|über|de|por|pour)\s+"
                           r"(?:[^\s!?]+\s+){1,5}?)?(?:has been|have been|was|is|got|"
                           r"wurde|ist|ha sido|fue|a été|est)\s+(?:\w+\s+)?(?:approved|accepted|granted|processed|"
                           r"honou?red|completed|genehmigt|angenommen|bewilligt|aprobad[oa]|aceptad[oa]|"
                           r"approuvée?|acceptée?)\b")
# The customer receiving an amount ("you will receive 149.70 USD"): a payout claim when the clause states an
# amount (without one, "you will receive a confirmation" claims nothing about money).
_RECEIVE = re.compile(r"\byou(?:'ll|\s+will|\s+should|\s+are going to|\s+would|\s+now)?\s+(?:receive|get|see|have)\b|"
                      r"\b(?:sie erhalten|erhalten sie|bekommen sie|recibir[áa]|recibe usted|vous recevrez|"
                      r"vous allez recevoir|vous recevez)\b")
# What stands for an amount without stating it ("you will receive the full purchase price").
_AMOUNT_NOUN = re.compile(r"\b(?:full amount|the amount|purchase price|full price|the total|your money|the money|"
                          r"betrag|kaufpreis|bestellsumme|gesamtbetrag|ihr geld|importe|el dinero|precio|"
                          r"montant|le prix|votre argent)\b")
_CREDIT = ("store credit", "credit note", "voucher", "gift card", "coupon", "gutschein", "gutschrift",
           "guthaben", "crédito", "cupón", "bon d'achat", "un avoir", "goodwill")
_REPLACE = ("replac", "resend", "re-send", "reship", "re-ship", "new one", "new ones", "send you new",
            "new unit", "another unit", "fresh unit", "send you a new", "send you another", "ship you a new",
            "ship you another", "on its way to you", "on their way to you", "ersatz", "neu zu",
            "nachliefer", "reemplaz", "reenvi", "nueva unidad", "remplac", "renvo")
# Where money goes, not goods: the customer's card, account or bank ("to your card", "auf Ihr Konto", "a su tarjeta",
# "sur votre compte").
MONEY_DESTINATION = (r"(?:your|the|ihre[nmrs]?|su|sus|votre|vos|la|el|le)\s+(?:[\w-]+\s+){0,2}?(?:card|account|bank|"
                     r"paypal|statement|wallet|balance|payment method|original payment|karte|kreditkarte|konto|"
                     r"bankkonto|tarjeta|cuenta|carte|compte|relevé)\b")
"""The customer's means of payment as the place money goes ("your credit card", "Ihr Konto")."""
# Money travelling to it is no goods shipped: "your refund is on its way to your card" claims no replacement,
# though "a new one is on its way to you" does.
_MONEY_TRAVEL = re.compile(rf"\b(?:on (?:its|their|the) way|resen[dt]\w*|re-sen[dt]\w*|renvo\w*|reenvi\w*|"
                           rf"unterwegs|en camino|en route)(?:\s+[^\s,;:.!?]+){{0,3}}?\s+(?:back\s+)?(?:to|into|onto|"
                           rf"on|in|auf|zu|an|a|al|en|sur|vers)\s+{MONEY_DESTINATION}")
_FINAL_SALE = ("final sale", "final-sale", "clearance", "non-returnable", "non returnable",
               "not returnable", "cannot be returned", "can't be returned", "endverkauf",
               "vom umtausch ausgeschlossen", "venta final", "vente finale")
_CONTRAST = re.compile(r"\b(?:but|however|still|instead(?!\s+of\b)|nevertheless|as an exception|aber|jedoch|dennoch|"
                       r"trotzdem|stattdessen|pero|sin embargo|mais|cependant|toutefois|néanmoins)\b")
# "... will go back to your card so no chargeback is needed": a consequence is a clause of its own, its "no" not the
# refund's.
# A comma or colon between digits is part of a figure ("1,250.00", "25,00 €", "9:30"), never a clause break: split
# there, "ich habe Ihnen 25,00 € erstattet" claimed a refund of 0.
_CLAUSE = re.compile(r"[,:](?!\d)|(?<!\d)[,:]|[;()]|\s[-\u2013\u2014]\s|\b(?:and|but|however|so|because|therefore|"
                     r"und|aber|weil|y|pero|porque|et|mais|donc)\b|" + _CONTRAST.pattern)
# Claims are read in clauses split before a condition too ("we'll refund you | if it doesn't arrive"), so the
# condition governs what it follows and a precaution ("... in case it gets lost") leaves its head a claim.
_CLAIM_CLAUSE = re.compile(rf"{_CLAUSE.pattern}|{BEFORE_CONDITION.pattern}")
_AGE_WORDS = ("ago", "deliver", "window", "return", "since", "purchase", "bought", "order", "arriv", "received",
              "vor ", "geliefert", "zugestellt", "rückgabe", "bestell", "gekauft", "hace", "entreg", "devoluci",
              "compra", "pedido", "il y a", "livr", "retour", "achat", "commande")
_DAY_WORDS = ("day", "tag", "día", "dia", "jour")
# Refusal cues lingua-independent negation may miss ("unable", "impossible").
_EXTRA_NEGATION = ("unable", "impossible", "not eligible", "ineligible", "no longer", "leider nicht",
                   "nicht möglich", "no es posible", "pas possible", "ne pouvons")
# A clause that states another fact about money than what came back: what was paid, charged, owed or costs.
# ("... 149.70 USD in total" after a refund is the refund's total: only a total with a subject of its own counts.)
_OTHER_MONEY_FACT = re.compile(r"\b(?:paid|pay|charged|cost|costs|costing|owe|owed|owing|billed|invoiced|balance|"
                               r"(?:invoice|order|bill|new|monthly|annual|contract|subscription)\s+total|subtotal|"
                               r"total (?:is|was|comes|stands)|comes to|amounts to|gesamtbetrag|rechnungsbetrag|"
                               r"importe total|montant total|priced|bezahlt|gezahlt|berechnet|kostet|pagado|pagó|"
                               r"cobrado|cuesta|payé|facturé|coûte)\b")
# Words that join what follows to the refund before it ("the bottle at 29.95 is included", "..., too").
_JOINS_REFUND = re.compile(r"\bback\b|\b(?:includ\w*|inclus\w*|incluid\w*|enthalten|as well|too|auch|también|aussi)\b")
# A clause that goes on about the money of the clause before it: "..., which covers every unit", "..., i.e. ...".
_CONTINUES = re.compile(r"\s*(?:which|that is|that's|i\.e\.|ie|covering|meaning|das sind|das ist|was|lo que|es decir|"
                        r"ce qui|soit|c'est)\b")
# A clause that restates what came before: "..., that is 50% of what you paid".
_RESTATES = re.compile(r"\s*(?:that is|that's|which is|this is|i\.e\.|das sind|das ist|es decir|soit|c'est)\b")
# A refund claimed as one more on top of another ("another 34.00", "an additional refund of 34.00", "34.00 more"):
# true only when a refund after the order's first is of that amount. A modifier of the charge ("the extra charge
# of 34.00 was refunded") is no such claim, so the refund nouns between marker and amount are the only words allowed.
_EXTRA_REFUND = re.compile(
    rf"\b(?:another|an? additional|additional|a further|further|an extra|a second|one more|weitere[nr]?|"
    rf"zusätzliche[nr]?|nochmals|noch einmal|otr[oa]s?|encore|un autre|une autre)\s+"
    rf"(?:(?:refund|reimbursement|payment|credit|transfer|amount|sum|erstattung|rückerstattung|betrag|reembolso|"
    rf"importe|remboursement|montant)\s+(?:of\s+|von\s+|de\s+)?)?{AMOUNT_TEXT}|"
    rf"{AMOUNT_TEXT}\s+(?:more\b(?!\s+than)|on top\b|in addition\b|additionally\b|zusätzlich\b|mehr\b(?!\s+als)|"
    rf"adicional(?:es)?\b|más\b(?!\s+que)|de plus\b|en plus\b|supplémentaires?\b)",
    re.IGNORECASE)
# What a request for the order names, and how a reply asks (`asks_for_order`).
_ORDER_NOUN = re.compile(r"\b(?:orders?|purchases?|receipts?|invoices?|confirmation|bestell\w*|kauf\w*|rechnung\w*|"
                         r"beleg\w*|bestätigung\w*|pedidos?|compras?|facturas?|recibos?|confirmación|commandes?|"
                         r"achats?|factures?|reçus?)\b")
_REQUEST = re.compile(r"\?|\b(?:please|could you|can you|would you|let me know|send|share|provide|reply with|need|"
                      r"needs|require|requires|brauche|brauchen|benötige|benötigen|necesito|necesitamos|besoin|"
                      r"tell me|confirm|which|what|bitte|können sie|könnten sie|welche\w*|nennen|senden|schicken|"
                      r"podría|puede|envíe|envíenos|indíque\w*|cuál|pourriez|pouvez|merci de|envoyer|"
                      r"indiquer|quel(?:le)?s?)\b")
StatedRate = tuple[Decimal, tuple[int, ...], tuple[int, ...]]
"""A rate stated per unit, the counts of units stated with it and the indexes of the order's lines its unit names
(empty: a generic unit, any line)."""
_RETURN_WINDOW_DAYS = 30
_MIN_SHARE = 0.8
_MIN_SENTENCE_LETTERS = 20
# "30-day window", "30-Tage-Frist", "30 días": the number glued to a day word, which the number reader
# treats as a code.
_WINDOW = re.compile(r"(?<!\d)30\s*-?\s*(?:day|tag|día|dia|jour)", re.IGNORECASE)
# A count of days, but not a rate ("open 7 days a week", "7 Tage die Woche"): that says nothing of the order.
_DAY_COUNT = re.compile(r"(?<![\d.,])(\d{1,4})\s*-?\s*(?:day|tag|día|dia|jour)(?![a-zäéí]*\s+(?:a|per|each|every|the|"
                        r"die|pro|por|a la|par|la)\s+(?:week|woche|semana|semaine))", re.IGNORECASE)
# A reason named only to say it does not apply ("it is not a final-sale item"): no claim of that reason.
_NOT_A_REASON = re.compile(r"\b(?:not|isn't|wasn't|aren't|weren't|never|nicht|kein\w*|no es|no son|n'est pas|"
                           r"ne sont pas)\s+(?:(?:marked|sold|listed|labell?ed|flagged)(?: as)?\s+)?"
                           r"(?:(?:a|an|un|une|ein|eine|una|uno)\s+)?"
                           r"(?:final[- ]sale|clearance|non[- ]returnable|endverkauf|venta final|vente finale)")


@dataclass(frozen=True)
class Sentence:
    """One sentence of a reply, with its flags.

    Attributes:
        text: The sentence, plain and lowercased.
        negated: It contains a negation or refusal cue.
        conditional: It is a question or holds an "if" ("if you prefer ..."): it affirms nothing.
        governed: A condition governs it and it reports nothing done (`conditions`): "we'll look into a
            refund" after "if it hasn't arrived by Friday". Claims are read from clauses no condition governs.
    """

    text: str
    negated: bool
    conditional: bool
    lang: str | None = None
    governed: bool = False

    def mentions(self, stems: Iterable[str]) -> bool:
        """Returns whether the sentence contains one of `stems`."""
        return any(s in self.text for s in stems)

    @property
    def affirms(self) -> bool:
        """The sentence states something as done or promised (not negated, not conditional)."""
        return not self.negated and not self.conditional

    @property
    def claims(self) -> bool:
        """The clause claims what it says: not negated, no question, and no condition governs it. Unlike
        `affirms`, an "if" only where to look ("I refunded 25.00 if you want to check") leaves a claim standing."""
        return not self.negated and not self.governed and not QUESTION.search(self.text)

    @property
    def opens(self) -> str | None:
        """How the clause opens: "condition", "time" (a time to come) or None (`conditions.opens`)."""
        return opens(self.text)

    def without(self, pattern: re.Pattern[str], repl: str = " ") -> Sentence:
        """The sentence with `pattern` replaced by `repl`, its flags read again (for a phrase whose "no"
        negates nothing, such as "at no extra cost")."""
        return _sentence(pattern.sub(repl, self.text), self.lang)

    def parts(self, splitter: re.Pattern[str]) -> list[Sentence]:
        """Returns the sentence's clauses (split by `splitter`), each with its own flags."""
        parts = _parts(self.text, self.lang, splitter)
        return list(parts) if parts else [self]


@dataclass(frozen=True)
class ReplyFacts:
    """The facts all public agent replies on a ticket state, read together.

    Attributes:
        bodies: The text of each reply (HTML removed), in id order.
        languages: The detected language of each reply (None: not confident).
        language: The detected language of all replies together.
        amounts: Every money amount stated.
        per_unit: The amounts among `amounts` stated per unit ("17.00 per unit", "2 x 17.00"), each
            occurrence once.
        numbers: Every number stated (digits and number words).
        codes: Every order-number-shaped code stated, normalized.
        dates: Every explicit date stated, as ISO strings.
        sentences: Every sentence, with its flags.
        reply_starts: The index in `sentences` of each reply's first sentence (a sentence refers back only to
            one of its own reply).
    """

    bodies: tuple[str, ...]
    languages: tuple[str | None, ...]
    language: str | None
    amounts: tuple[Decimal, ...]
    numbers: tuple[Decimal, ...]
    codes: tuple[str, ...]
    dates: tuple[str, ...]
    sentences: tuple[Sentence, ...]
    per_unit: tuple[Decimal, ...] = ()
    reply_starts: tuple[int, ...] = ()

    @property
    def empty(self) -> bool:
        """There is no reply."""
        return not self.bodies

    @functools.cached_property
    def _claims(self) -> tuple[Sentence, ...]:
        # A negated sentence may hold an affirmed clause: a refusal followed by a turn ("we cannot refund
        # it, but as an exception we will"), or a "no" elsewhere ("at no cost, and I have refunded 25.00").
        # Each clause of a negated sentence is judged on its own. Cached on the (immutable) facts: a grade
        # asks for the claims a dozen times, and `replies_facts` hands every check the same facts.
        # Likewise a question or condition elsewhere in the sentence ("I have refunded 24.99 USD, is there
        # anything else?") leaves its other clauses' claims standing, and a condition governs its consequence:
        # "if it hasn't arrived by Friday, we'll look into a refund" claims no refund (`conditions`).
        return tuple(c for c in self.clauses(_CLAIM_CLAUSE) if c.claims)

    def clauses(self, splitter: re.Pattern[str]) -> list[Sentence]:
        """Every sentence, one that is negated or holds a condition split by `splitter` into its clauses, each
        flagged alone: a "no" or an "if" in one clause says nothing of the others, but a condition governs its
        consequence (`Sentence.governed`)."""
        return [c for s in self.sentences
                for c in (s.parts(splitter) if s.negated or s.conditional or CONDITION_OR_TIME.search(s.text)
                          else [s])]

    @functools.cached_property
    def affirmed_text(self) -> str:
        """What the replies affirm, as one lowercase text with number words as digits: every sentence that is
        neither negated nor conditional, and the affirmed clauses of those that are ("do not unplug it, hold
        the light button for 9 seconds" affirms the second clause only). Clauses are joined by line breaks.
        An instruction under a condition is still the answer given ("if it blinks, hold it for 9 seconds"), so
        a governed clause counts here: only claims of acts done or promised exclude it."""
        return "\n".join(numbers_as_digits(c.text, c.lang) for c in self.clauses(_CLAIM_CLAUSE) if c.affirms)

    @functools.cached_property
    def _refund_claims(self) -> tuple[Sentence, ...]:
        named = tuple(s for s in self._claims if claims_money(s))
        # "You won't lose the 89.00" is negated, yet promises the money: read from every clause not governed by a
        # condition or asked, where the bank or the dispute is not the payer.
        kept = tuple(c for s in self.sentences for c in s.parts(_CLAUSE)
                     if states_money_kept(c.text) and not c.governed and not QUESTION.search(c.text)
                     and not c.conditional and not _THIRD_PARTY_PAYS.search(s.text) and c not in named)
        named += kept
        return named + tuple(c for c, topic in self._done_by_reference if topic == "refund" and c not in named)

    @functools.cached_property
    def _done_by_reference(self) -> tuple[tuple[Sentence, str], ...]:
        """Clauses that claim a refund or replacement done by a pronoun or an ellipsis ("You asked for a refund.
        I processed one.", "Regarding your refund: it's done", "Das habe ich veranlasst", `done_anaphora`), each
        with what it refers to: the refund or replacement named earlier in its sentence or in the sentence before
        it, in the same reply. A clause that is negated, asked, governed by a condition or waiting for something
        ("it's done on our side once you confirm") claims nothing."""
        starts = set(self.reply_starts)
        out: list[tuple[Sentence, str]] = []
        for i, s in enumerate(self.sentences):
            parts = s.parts(_CLAIM_CLAUSE)
            for k, c in enumerate(parts):
                if not c.claims or pending(c.text) or not done_by_reference(c.text.strip(), c.lang):
                    continue
                before = self.sentences[i - 1].text if i > 0 and i not in starts else ""
                topic = topic_of(" ".join([before, *(p.text for p in parts[:k + 1])]))
                if topic is not None:
                    out.append((c, topic))
        return tuple(out)

    def refund_claims(self) -> list[Sentence]:
        """Sentences (or clauses after a contrast word) that claim or promise money or goods coming back."""
        return list(self._refund_claims)

    def refund_denials(self) -> list[Sentence]:
        """Clauses that say a refund was not or will not be made ("we could not refund anything").

        Judged per clause, so "at no cost, and I have refunded 25.00" denies nothing; beside a refund claim,
        neither does a clause about another part of the order ("your original order is not refunded").
        """
        found = [c for s in self.sentences if s.negated and not s.conditional
                 for c in s.parts(_CLAUSE) if c.negated and c.mentions(_REFUND) and _DENIES_REFUND.search(c.text)]
        if not self._refund_claims:
            return found
        # Beside a refund claimed, a clause about another part of the order ("the original charge was not
        # refunded") tells what the refund did not cover.
        return [c for c in found if not _OTHER_PART.search(c.text)]

    def credit_claims(self) -> list[Sentence]:
        """Sentences that claim or promise store credit, a voucher or another goodwill payment."""
        return [s for s in self._claims if _names(s, _CREDIT)]

    def day_counts(self) -> set[int]:
        """Numbers of days the replies state about the order's age or the return window ("57 days ago",
        "a 30-day window"); "we reply within 1-2 days" speaks of something else."""
        return {int(n) for s in self.sentences if s.mentions(_AGE_WORDS) for n in _DAY_COUNT.findall(s.text)}

    def replacement_claims(self) -> list[Sentence]:
        """Sentences (or clauses after a contrast word) that claim or promise a replacement, in its words or in
        loose ones ("we've shipped you another lamp"); money travelling to the customer's card or account ("your
        refund is on its way to your card") is no goods sent."""
        named = [s for s in self._claims if (_names(s, _REPLACE) and any(
            stem in without_idle_mentions(_MONEY_TRAVEL.sub(" ", s.text), s.lang) for stem in _REPLACE))
                 or states_goods_sent_again(s.text)]
        return named + [c for c, topic in self._done_by_reference if topic == "replacement" and c not in named]

    @functools.cached_property
    def _figures_memo(self) -> dict[OrderTerms, tuple[tuple[Decimal, ...], tuple[StatedRate, ...]]]:
        # The claimed sums and rates by order: several checks of a grade ask, and reading amounts costs a parse
        # per sentence. A pure function of the (immutable) facts and the (hashable) order terms.
        return {}

    def _claimed_figures(self, terms: OrderTerms | None) -> tuple[tuple[Decimal, ...], tuple[StatedRate, ...]]:
        key = terms or OrderTerms()
        if key not in self._figures_memo:
            out: list[Decimal] = []
            rates: list[StatedRate] = []
            for claim in self._refund_claims:
                sums, claim_rates = _claim_figures(claim, key)
                out += [a for a in sums if str(a) not in self.codes]
                rates += claim_rates
            self._figures_memo[key] = (tuple(out), tuple(rates))
        return self._figures_memo[key]

    def claimed_amounts(self, terms: OrderTerms | None = None) -> list[Decimal]:
        """Amounts stated in sentences that claim a refund (what the reply says was refunded), but for the
        rates (`claimed_rates`). `terms` (the order judged against) name the units a rate may be per ("12.50
        per damaged bulb") and the lines whose own price is no refund claim; without them, generic units."""
        return list(self._claimed_figures(terms)[0])

    def claimed_rates(self, terms: OrderTerms | None = None) -> list[Decimal]:
        """Amounts a refund claim states per unit ("I refunded 17.00 per unit", "34.00, that is 17.00 each",
        "12.50 per damaged bulb"); a rate on a stated count ("5.00 on each of your three lamps") is a sum."""
        return [rate for rate, _, _ in self._claimed_figures(terms)[1]]

    def claimed_rate_counts(self, terms: OrderTerms | None = None) -> list[StatedRate]:
        """The `claimed_rates`, each with the counts of refunded units its claim states ("12.91 per pack for your 3
        packs": 3), which the rate may apply to (`unit_rates.rate_makes`)."""
        return list(self._claimed_figures(terms)[1])

    def claimed_rate_bounds(self, terms: OrderTerms | None = None) -> list[tuple[Decimal, frozenset[int]]]:
        """The rates a refund claim states with the count of units they are for ("24.95 per lamp for your 3
        lamps"), each with those counts (`unit_rates.bound_counts`): the rate times the count is the claim."""
        key = terms or OrderTerms()
        said = list(self._refund_claims)
        # A sentence that restates the refund claim before it ("I refunded 49.90. That is 24.95 per lamp for your
        # 3 lamps.") tells the same refund's count.
        starts = set(self.reply_starts)
        said += [s for i, s in enumerate(self.sentences) if i > 0 and i not in starts and _RESTATES.match(s.text)
                 and any(c.text in self.sentences[i - 1].text for c in self._refund_claims)]
        return [(a, frozenset(ns)) for claim in said
                for a, ns in bound_counts(claim.text, claim.lang, key.nouns).items()]

    def claimed_shares(self, terms: OrderTerms | None = None) -> list[Share]:
        """Percentages a refund claim states as refunded ("I refunded 50% of your order", "a 100% refund"), for
        the judge to read as the amounts they imply; "20% off your next order" is none."""
        key = terms or OrderTerms()
        shares = [sh for claim in self._refund_claims for sh in _claim_shares(claim, key)]
        if shares or any(self._claimed_figures(key)):
            return shares
        # "I've refunded your order 100123", told with no amount or share anywhere in the refund claims, claims the
        # order refunded whole: 100% of it, or of the line it names ("I've refunded your order for the lamp"). Told
        # with what was refunded ("I've refunded your order: 25.00 for the lamp"), it claims a refund on it.
        return [Share(Decimal(100), 2, "", claim.text, whole=True) for claim in self._refund_claims
                if order_refunded(claim.text)]

    def rates_stated(self, terms: OrderTerms | None = None) -> list[Decimal]:
        """The amounts among `amounts` stated per unit of the order's lines (`per_unit` without `terms`)."""
        if terms is None:
            return list(self.per_unit)
        return [a for body, lang in zip(self.bodies, self.languages, strict=True)
                for a in per_unit_amounts(body, lang, terms.nouns)]

    def rate_counts_stated(self, terms: OrderTerms) -> list[StatedRate]:
        """The `rates_stated`, each with the counts of units its reply states, which it may apply to."""
        out: list[StatedRate] = []
        for body, lang in zip(self.bodies, self.languages, strict=True):
            rates = per_unit_amounts(body, lang, terms.nouns)
            counts = tuple(unit_counts(body, lang, terms.nouns)) if rates else ()
            named = rate_lines(body, lang, terms) if rates else {}
            out += [(a, counts, tuple(sorted(named.get(a, ())))) for a in rates]
        return out

    def claimed_extras(self) -> list[Decimal]:
        """Amounts a refund claim states as one more refund ("another 34.00", "an additional refund of 34.00")."""
        return [a for claim in self._refund_claims for a in _extra_figures(claim) if str(a) not in self.codes]

    @functools.cached_property
    def _money_clauses(self) -> tuple[Sentence, ...]:
        """The clauses of the refund claims that themselves claim money coming back (the whole claim when it is
        one clause, or when only together its clauses claim it: "I did that again" after the refund it names)."""
        out: list[Sentence] = []
        for claim in self._refund_claims:
            parts = claim.parts(_CLAUSE)
            money = [c for c in parts if claims_money(c)]
            # A clause that goes on about the money claimed ("..., which covers every unit", "..., i.e. the whole
            # line") tells more of the same claim.
            money += [c for prev, c in itertools.pairwise(parts) if prev in money and c not in money
                      and _CONTINUES.match(c.text)]
            out += money or [claim]
        return tuple(out)

    def further_claims(self) -> list[Sentence]:
        """Clauses that claim one more refund than some other, with or without an amount ("another 1 x 24.99",
        "I refunded it again", "the rest will be refunded next week", `refund_counts.claims_further`)."""
        return [c for c in self._money_clauses
                if claims_further(without_idle_mentions(_WISH.sub(" ", c.text), c.lang))] + [
            c for c in self._refund_claims if opens_with_more(c.text) and self._refund_claimed_before(c)]

    def _refund_claimed_before(self, claim: Sentence) -> bool:
        """Whether a sentence before the one holding `claim` claims a refund: "Plus, I refunded 25.00" is one more
        on top of a refund only after one ("I've replaced the bulbs. Additionally, I've refunded 25.00" is one)."""
        at = next((i for i, s in enumerate(self.sentences) if claim.text in s.text), 0)
        return any(c.text in s.text for s in self.sentences[:at] for c in self._refund_claims)

    def all_units_claims(self) -> list[Sentence]:
        """Clauses that claim every unit of the line refunded with no count ("which covers every unit", "the whole
        line", `refund_counts.claims_all_units`)."""
        return [c for c in self._money_clauses if claims_all_units(c.text)]

    def claimed_counts(self, terms: OrderTerms | None = None) -> list[int]:
        """Counts of refunded units the refund claims state with no rate ("I have refunded 3 items"); a whole
        ("1 of your 3 lamps") and other units ("the other 2") are none (`refund_counts.counts_claimed`)."""
        nouns = (terms or OrderTerms()).refunded_nouns
        return [n for c in self._money_clauses for n in counts_claimed(c.text, nouns)]

    def claimed_sums(self) -> list[Decimal]:
        """Sums the refund claims write out ("I refunded 24.99 + 24.99"): what was refunded is the sum."""
        return [a for c in self._money_clauses for a in sums_claimed(c.text, c.lang)]

    def reasons(self) -> set[str]:
        """Policy reasons the replies name: `final_sale` and/or `window` (a 30-day window)."""
        out: set[str] = set()
        for s in self.sentences:
            if any(stem in _NOT_A_REASON.sub(" ", s.text) for stem in _FINAL_SALE):
                out.add("final_sale")
            if _WINDOW.search(s.text) or (s.mentions(_DAY_WORDS)
                                          and Decimal(_RETURN_WINDOW_DAYS) in extract_numbers(s.text)):
                out.add("window")
        return out

    def off_language(self, lang: str) -> list[str]:
        """Returns the parts of the replies that are not in `lang` (empty: all of it is).

        Off: a sentence of 20+ letters that lingua reads as another language, or a reply of which less
        than 80% of the letters are in `lang`. So foreign stopwords appended to an English reply, or an
        English paragraph after a native one, are off, while a short native reply ("Erstattet: 25,00 €.")
        and a native reply quoting an English product name are not.
        """
        if lang not in self._off_memo:
            self._off_memo[lang] = self._off_language(lang)
        return list(self._off_memo[lang])

    @functools.cached_property
    def _off_memo(self) -> dict[str, tuple[str, ...]]:
        # `off_language` by language: a pure function of the (immutable) bodies, asked by several checks.
        return {}

    def _off_language(self, lang: str) -> tuple[str, ...]:
        off: list[str] = []
        for body in self.bodies:
            shares = language_shares(body)
            if shares and shares.get(lang, 0.0) < _MIN_SHARE:
                off.append(body[:60])
                continue
            off += [t[:60] for t in sentences(body, lang)
                    if sum(ch.isalpha() for ch in t) >= _MIN_SENTENCE_LETTERS and detect_language(t) != lang]
        return tuple(off)

    def states_code(self, code: str) -> bool:
        """Whether an order-number-shaped code equal to `code` is stated."""
        return _norm_code(code) in self.codes

    def states_amount(self, amount: Decimal) -> bool:
        """Whether `amount` is stated (any notation, to the cent)."""
        return amount in self.amounts

    def affirms_amount(self, amount: Decimal) -> bool:
        """Whether `amount` is stated in a clause that is not negated or conditional ("20.12 USD is not the fee
        that was due" states it only to deny it)."""
        if amount not in self.amounts:
            return False  # before reading clauses, which costs a parse each
        return any(amount in extract_amounts(c.text, c.lang) for s in self.sentences
                   for c in (s.parts(_CLAUSE) if s.negated or s.conditional else [s]) if c.affirms)

    def states_number(self, value: Decimal) -> bool:
        """Whether the number `value` is stated (digits or words)."""
        return value in self.numbers or value in self.amounts

    def states_words(self, words: Iterable[str]) -> bool:
        """Whether every word of `words` occurs as a whole word in some reply."""
        text = " ".join(self.bodies)
        return all(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text, re.IGNORECASE) for w in words)


def asks_for_order(body: str) -> bool:
    """Whether a reply asks the customer which order it is about: a question or request that names the order
    ("Could you send me your order number?", "Which of your purchases is this about?", "Bitte nennen Sie mir
    Ihre Bestellnummer"). A customer answers what was asked; "." or "I refunded it" asks nothing."""
    text = reply_text(body)
    return any(_ORDER_NOUN.search(s) and _REQUEST.search(s) for s in sentences(text.lower()))


def claims_money(s: Sentence) -> bool:
    """Whether an affirmed clause claims or promises money (or goods) coming back to the customer. A mention
    that claims none ("our refund policy", "refunds are only available within 30 days", "a refund would pay you
    twice") is read out first (`idle_mentions`)."""
    if _WISH.search(s.text) and _WISH_GRANTED.search(s.text):
        return True
    text = without_idle_mentions(_WISH.sub(" ", s.text), s.lang)
    if not _THIRD_PARTY_PAYS.search(text) and not _BANK_REFUNDS.search(text):
        return _refund_words(text) or _payout(text, s.lang)
    # A bank or a dispute is named: only the clauses where the shop pays count ("our billing team handles the
    # dispute, and you'll receive 44.89 USD through the chargeback" is the bank's payout, not ours).
    pieces = [p for p in _CLAUSE.split(text) if p and p.strip()]
    return any(_shop_pays(p, s.lang) for p in pieces)


def claims_goods_or_credit(s: Sentence) -> bool:
    """Whether a clause names a replacement (goods sent, money travelling to a card excepted) or store credit where
    it claims one (`replacement_claims`, `credit_claims`; its flags are not read here)."""
    return _names(s, _CREDIT) or (_names(s, _REPLACE) and any(
        stem in without_idle_mentions(_MONEY_TRAVEL.sub(" ", s.text), s.lang) for stem in _REPLACE))


def _names(s: Sentence, stems: Iterable[str]) -> bool:
    """Whether a clause names one of `stems` where it claims something (`idle_mentions`: "rather than as store
    credit", "decide on a refund or replacement" claim neither)."""
    return s.mentions(stems) and any(stem in without_idle_mentions(s.text, s.lang) for stem in stems)


def _refund_words(text: str) -> bool:
    return any(stem in text for stem in _REFUND) or bool(_BACK.search(text))


def _shop_pays(clause: str, lang: str | None) -> bool:
    """Whether a clause of a sentence naming a bank or a dispute claims money coming back from the shop."""
    shop = bool(_FIRST_PERSON.search(clause))
    if _refund_words(clause) and (shop or not _BANK_REFUNDS.search(clause)):
        return True
    # Loose words ("the 89.00 will land in your account") say nothing of who pays: beside a bank or a dispute,
    # they are the shop's payout only with the shop as the actor.
    return _payout(clause, lang, loose=shop) and (shop or not _THIRD_PARTY_PAYS.search(clause))


def _payout(text: str, lang: str | None, *, loose: bool = True) -> bool:
    """Whether a text states money moving to the customer in other words than a refund (see `_PAYOUT`); with
    `loose`, in loose words too (`loose_payouts`)."""
    if any(stem in text for stem in _PAYOUT) or _MONEY_MOVED.search(text) or (loose and states_loose_payout(text)):
        return True
    if not (_RECEIVE.search(text) or any(stem in text for stem in _PAYOUT_WITH_AMOUNT)):
        return False  # before reading amounts, which costs a parse
    return bool(_AMOUNT_NOUN.search(text)) or bool(extract_amounts(text, lang))


@functools.lru_cache(maxsize=4096)
def _claim_figures(claim: Sentence, terms: OrderTerms) -> tuple[tuple[Decimal, ...], tuple[StatedRate, ...]]:
    """The sums and the rates a refund claim states, each rate with the counts of refunded units the claim states
    (memoized: the simulator reads a thread again at each reply).

    "I refunded 34.00, that is 17.00 per unit" claims a sum of 34.00 and a rate of 17.00; "I refunded 2 x
    17.00" and "17.00 on each of your 2 mugs" claim the sum 34.00 (the count is stated, so it is no open rate).
    Amounts beside the refund ("of the 149.70 you paid", "from 79.99 to 62.99") are no part of it (`side_amounts`).
    """
    claim = _beside_read_out(claim)
    s = claim
    kept = _claiming_clauses(claim, terms)
    if len(kept) < len(claim.parts(_CLAUSE)) and any(extract_amounts(c.text, c.lang) for c in kept):
        s = _sentence(" ; ".join(c.text for c in kept), claim.lang)
    stated = extract_amounts(s.text, s.lang)
    per_unit = per_unit_amounts(s.text, s.lang, terms.nouns)
    counted = products(s.text, s.lang, terms.nouns)
    rates = Counter(a for a in per_unit if a in stated) - Counter(rate for rate, _ in counted)
    sums = (Counter(stated) - Counter(per_unit)).elements()
    # The counts of refunded units the claim states are what its rates may apply to ("12.91 per pack for your 3
    # packs"): a rate is judged by the total it implies (`unit_rates.rate_makes`).
    counts = tuple(unit_counts(s.text, s.lang, terms.refunded_nouns)) if rates else ()
    named = rate_lines(s.text, s.lang, terms) if rates else {}
    return (*sums, *(rate * n for rate, n in counted)), tuple((r, counts, tuple(sorted(named.get(r, ()))))
                                                               for r in rates.elements())


@functools.lru_cache(maxsize=4096)
def _claim_shares(claim: Sentence, terms: OrderTerms) -> tuple[Share, ...]:
    """The percentages a refund claim's claiming clauses state as refunded (memoized as `_claim_figures`), and
    those of a clause that restates the refund as a share of another money fact ("I refunded 49.90, that is
    50% of what the bulbs cost": a share of a cost, not the cost itself)."""
    kept = _claiming_clauses(claim, terms)
    # A share the customer wished for or one rejected ("you asked for a full refund", "instead of a full refund")
    # is no share claimed.
    said = [without_idle_mentions(_WISH.sub(" ", c.text), c.lang) for c in claim.parts(_CLAUSE)
            if c in kept or _RESTATES.match(c.text)]
    return tuple(refund_shares(" ; ".join(said), claim.lang))


@functools.lru_cache(maxsize=4096)
def _extra_figures(claim: Sentence) -> tuple[Decimal, ...]:
    """The amounts a refund claim's claiming clauses state as a further refund (memoized as `_claim_figures`)."""
    text = " ; ".join(c.text for c in _claiming_clauses(claim, OrderTerms()))
    if not _EXTRA_REFUND.search(text):
        return ()  # before reading amounts, which costs a parse
    masked = _EXTRA_REFUND.sub(" ; ", text)
    return tuple((Counter(extract_amounts(text, claim.lang)) - Counter(extract_amounts(masked, claim.lang))).elements())


def _beside_read_out(claim: Sentence) -> Sentence:
    """The claim with the amounts it states beside the refund blanked (`side_amounts`), and the customer's wish
    ("you wanted 179.97 back, and I refunded 59.99") unless it is granted, its flags kept."""
    text = without_side_amounts(claim.text if _WISH_GRANTED.search(claim.text) else _WISH.sub(" ", claim.text))
    return claim if text == claim.text else Sentence(text, claim.negated, claim.conditional, claim.lang, claim.governed)


def _claiming_clauses(claim: Sentence, terms: OrderTerms) -> list[Sentence]:
    """The clauses of a refund claim that may hold its amount.

    A clause stating another fact about money is not the claim, nor are the clauses that continue it until
    one claims money again: "those months cost 1,767.00 USD at 142 seats and 1,000.00 USD at 133 seats, so
    I have refunded the difference, 767.00 USD" claims 767.00, and "I refunded 14.24 USD of tax, so you paid
    196.38 USD in the end" claims 14.24. So is the price of a line no refund covers, said of it ("I refunded
    34.00 for the mug; the lamp at 89.00 each stays as it is", `unit_rates.states_line_price`). The rest is
    read together ("24.99 USD and 10.00 USD").
    """
    kept: list[Sentence] = []
    other = False
    parts = claim.parts(_CLAUSE)
    for i, clause in enumerate(parts):
        moving = claims_money(clause)
        other = not moving and (other or bool(_OTHER_MONEY_FACT.search(clause.text))
                                or _line_price_run(parts[i:], terms))
        if not other:
            kept.append(clause)
    return kept


def _line_price_run(parts: list[Sentence], terms: OrderTerms) -> bool:
    """Whether `parts` (from a clause that claims no money) open with a line's price said of the line, up to
    the next clause that claims money (`unit_rates.states_line_price`)."""
    if all(ln.refunded for ln in terms.lines):
        return False  # before reading the clauses, which costs a parse each
    run = [c.text for c in itertools.takewhile(lambda c: not claims_money(c), parts)]
    return not _speaks_of_payout(" ; ".join(run)) and states_line_price(run, parts[0].lang, terms)


def _speaks_of_payout(text: str) -> bool:
    """Whether clauses have any word of money or goods coming back, claimed or not, or of joining the refund:
    a line's price is said beside a refund only in clauses without one ("the boards at 24.99 each are on their
    way back to you" or "the bottle at 29.95 is included" is more of the refund, though neither is a claim)."""
    return (any(stem in text for stem in (*_REFUND, *_PAYOUT, *_PAYOUT_WITH_AMOUNT, *_CREDIT, *_REPLACE))
            or bool(_JOINS_REFUND.search(text)))


def _norm_code(code: str) -> str:
    found = extract_codes(code, ORDER_NUMBER)
    return found[0] if found else code.strip().lower()


@functools.lru_cache(maxsize=4096)
def _parts(text: str, lang: str | None, splitter: re.Pattern[str]) -> tuple[Sentence, ...]:
    """The clauses of a sentence, flagged; empty when it is one clause. Memoized (bounded): it is a pure
    function of its arguments, and the same sentences are read by several checks and every regrade."""
    pieces = split_governed(text, splitter, lang)
    return tuple(_sentence(p, lang, g) for p, g in pieces) if len(pieces) > 1 else ()


def _sentence(text: str, lang: str | None, under: bool | None = None) -> Sentence:
    """A sentence or clause with its flags; `under` is whether a condition governs it (None: read from the text
    alone, as a sentence of one clause)."""
    t = text.strip().lower()
    return Sentence(
        text=t,
        negated=negated(t, lang) or any(c in t for c in _EXTRA_NEGATION),
        conditional=bool(CONDITIONAL.search(t)),
        lang=lang,
        governed=governed([t], [""], lang)[0] if under is None else under,
    )


def read_facts(bodies: Iterable[str]) -> ReplyFacts:
    """Returns the facts stated by `bodies` (raw reply bodies, HTML allowed), read together."""
    texts = tuple(reply_text(b) for b in bodies)
    languages = tuple(detect_language(t) for t in texts)
    whole = "\n\n".join(texts)
    language = detect_language(whole) if whole else None
    amounts: list[Decimal] = []
    numbers: list[Decimal] = []
    codes: list[str] = []
    dates: list[str] = []
    sents: list[Sentence] = []
    per_unit: list[Decimal] = []
    starts: list[int] = []
    for t, lang in zip(texts, languages, strict=True):
        starts.append(len(sents))
        amounts += extract_amounts(t, lang)
        per_unit += per_unit_amounts(t, lang)
        numbers += extract_numbers(t, lang)
        codes += extract_codes(t, ORDER_NUMBER)
        dates += [d.isoformat() for d in extract_dates(t, lang)]
        sents += [_sentence(s, lang) for s in sentences(t, lang)]
    return ReplyFacts(bodies=texts, languages=languages, language=language, amounts=tuple(amounts),
                      numbers=tuple(numbers), codes=tuple(codes), dates=tuple(dates), sentences=tuple(sents),
                      per_unit=tuple(per_unit), reply_starts=tuple(starts))


def read_replies(state: State, ticket: Ticket, extra: Message | None = None) -> ReplyFacts:
    """Returns the facts of every public agent reply on `ticket` and the tickets merged with it.

    Args:
        state: The state to read the thread from.
        ticket: The ticket.
        extra: A reply not yet in the state (the one the simulator is reacting to).
    """
    replies = agent_replies(state, ticket)
    if extra is not None and all(m.id != extra.id for m in replies):
        replies = [*replies, extra]
    return read_facts(m.body for m in replies)
