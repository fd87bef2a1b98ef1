"""Refunds claimed as a percentage ("I refunded 50% of your order", "a 100% refund"), read as the amount implied.

A percentage in a refund claim is a claim of an amount: the share of a base (the order, a line named, or,
when no base is named, any price or total of the order) that was refunded. It is true when some refund of
the order, as a share of that base, rounds to the stated percentage at the precision it was written with
("33%" of three equal units is one unit). A percentage that is no refund share ("20% off your next order",
"we are 100% sure") is no claim: only a share of something ("50% of your order"), a share refund ("a 50%
refund", "50% back") or an amount refunded ("refunded 50%", "a refund of 50%") counts.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from saas_sim.core.text_facts import numbers_as_digits
from saas_sim.domains.support.unit_rates import GENERIC_UNITS, OrderTerms

__all__ = ["Share", "false_shares", "order_refunded", "refund_shares"]

# A percentage; one of a tax, fee or discount ("the 8% tax", "20% off") is a rate of something else, never a share
# of the order refunded.
_PERCENT = (r"(?<![\w.,])(\d{1,3}(?:[.,]\d{1,2})?)\s?(?:%|percent\b|per cent\b|prozent\b|por ciento\b|pour ?cent\b)"
            r"(?![\s-]*(?:sales\s+)?(?:tax|vat|mwst|ust|iva|tva|fee|interest|discount|off|coupon|sure|certain)\b)")
_MARK = re.compile(r"%|percent|per cent|prozent|por ciento|pour ?cent", re.IGNORECASE)
# "50% of your order", "50 % de votre commande": the words after "of" name the base (up to five, to a stop).
_OF_BASE = re.compile(_PERCENT + r"\s+(?:of|von|vom|de|du|des|del)\s+((?:[^\W\d_][\w'-]*\s*){1,5})", re.IGNORECASE)
# What a share refund is of, when said after it: "a 100% refund of your order", "50% back on the lamp".
_TAIL = r"(?:\s+(?:of|on|for|von|für|de|du|del|pour)\s+((?:[^\W\d_][\w'-]*\s*){1,5}))?"
# "a 50% refund", "50 percent back", "eine 50%-Erstattung".
_SHARE_REFUND = re.compile(_PERCENT + r"[\s-]*(?:full\s+|partial\s+)?(?:refund|reimbursement|erstattung|"
                                      r"rückerstattung|reembolso|remboursement|back\b|zurück)\w*" + _TAIL,
                           re.IGNORECASE)
# "refunded 50%", "a refund of 50%", "reimbursed you 50 percent".
_REFUNDED_SHARE = re.compile(r"\b(?:refund(?:ed)?|reimbursed?|credited|returned|erstattet|reembolsado|remboursé)"
                             r"\s+(?:of\s+|you\s+|back\s+|von\s+|de\s+)*" + _PERCENT + _TAIL, re.IGNORECASE)
# A refund said to be whole ("a full refund for your order", "refunded in full", "everything you paid", "eine volle
# Erstattung", "reembolso completo", "remboursement intégral") claims 100% of its base, to the cent: only a refund
# of the whole base makes it ("a full refund for the damaged lamp" of the lamp refunded is true, of the order not).
# The whole said as what the refund is part of ("49.90 of the full price") is no such claim: only the refund noun
# with a word of wholeness, a refund verb with one, or a whole amount as the refund verb's object.
_WHOLE_NOUN = (r"\b(?:full|complete|entire|whole|total)\s+(?:refund|reimbursement|money back)|"
               r"\b(?:volle|vollen|voller|vollständige[nr]?|komplette[nr]?|gesamte[nr]?)\s+(?:rück)?erstattung|"
               r"\breembolso\s+(?:completo|total|íntegro|integral)|"
               r"\bremboursement\s+(?:intégral|complet|total)")
_WHOLE_VERB = (r"\b(?:refund(?:ed)?|reimbursed?|credited|returned|paid back|erstattet|zurückerstattet|reembolsad[oa]s?|"
               r"devuelt[oa]s?|rembours[ée]e?s?)\b(?:\s+[^\s,;:.!?]+){0,5}?\s+(?:in full|fully|completely|entirely|"
               r"in voller höhe|vollständig|komplett|voll|por completo|en su totalidad|íntegramente|completamente|"
               r"totalmente|intégralement|en totalité|entièrement|complètement|totalement)\b|"
               r"\b(?:fully|completely|entirely|vollständig|komplett|voll|in voller höhe|íntegramente|totalmente|"
               r"intégralement|entièrement)\s+(?:\S+\s+)?(?:refunded|reimbursed|credited|zurückerstattet|erstattet|"
               r"reembolsad[oa]s?|rembours[ée]e?s?)\b")
_WHOLE_OBJECT = (r"\b(?:refund(?:ed|ing)?|reimburs\w*|return(?:ed|ing)?|credit(?:ed|ing)?|send(?:ing)?|sent|get|"
                 r"receive|erstatte\w*|reembols\w*|devolv\w*|rembours\w*)\s+(?:you\s+|ihnen\s+|le\s+|vous\s+)?"
                 r"(?:back\s+)?(?:(?:the|your|den|die|el|la|le|votre)\s+(?:full|entire|whole|complete|total|vollen|"
                 r"gesamten|kompletten|completo|total|íntegro|intégral|totalité|entier)\s+(?:amount|sum|purchase price|"
                 r"price|cost|payment|order|order total|betrag|kaufpreis|preis|bestellung|importe|precio|pedido|"
                 r"montant|prix|commande)|everything you paid|all (?:of )?(?:the money|your money|you paid)|"
                 r"la totalidad|la totalité)")
_WHOLE = re.compile(rf"(?:{_WHOLE_NOUN}|{_WHOLE_VERB}|{_WHOLE_OBJECT})" + r"\w*", re.IGNORECASE)
# What a whole refund is of, said after it: "for your order", "of the lamp", "for order 100123".
_WHOLE_TAIL = re.compile(r"\s+(?:of|on|for|von|für|de|du|del|pour|por|para)\s+((?:[^\W_][\w'-]*\s*){1,5})",
                         re.IGNORECASE)
# The words of a base that mean the whole order.
_ORDER_WORDS = frozenset({"order", "orders", "purchase", "purchases", "total", "payment", "everything", "bill",
                          "bestellung", "einkauf", "pedido", "compra", "commande", "achat"})
# Words of a part of the order other than its lines and itself: a whole refund of one is no claim about them.
_PART_WORDS = frozenset({"difference", "differences", "drop", "shipping", "delivery", "postage", "fee", "fees", "tax",
                         "taxes", "vat", "duplicate", "charge", "charges", "versand", "versandkosten", "gebühr",
                         "differenz", "preisdifferenz", "steuer", "envío", "gastos", "diferencia", "cargo", "impuesto",
                         "livraison", "frais", "différence", "taxe", "doublon", "duplicado", "doppelte", "doppelt"})
# A base's words that end it: "50% of your order, as promised" names the order, not the promise, and "a 100%
# refund of your order went out" the order, not its going.
_BASE_END = re.compile(r"(?:[;,:]|\b(?:as|so|and|but|which|that|because|since|back|went|goes|go|is|are|was|were|has|"
                       r"have|had|will|should|would|can|may)\b).*", re.IGNORECASE)


# The order itself as what was refunded, with no amount, share or part said: "I've refunded your order 100123",
# "your order has been refunded", "ich habe Ihre Bestellung erstattet", "su pedido fue reembolsado", "j'ai remboursé
# votre commande". The customer reads the order refunded, so it claims the whole order (`order_refunded`).
_ORDER_NP = (r"(?:(?:your|the|this|that|ihre|die|diese|su|el|este|votre|la|cette)\s+(?:[^\W\d_]+\s+)?)?"
             r"(?:order|purchase|bestellung|pedido|compra|commande)(?:\s+(?:no\.?|nr\.?|number|nummer|n\.?º|n°|"
             r"número|numéro))?(?:\s*#?\s?\d{4,9})?")
_ORDER_REFUNDED = re.compile(
    rf"\b(?:refunded|reimbursed)\s+(?:you\s+(?:for\s+)?)?{_ORDER_NP}\b|"
    rf"\b{_ORDER_NP}\s+(?:has|have|had|was|is|got|wurde|ist|ha|fue|se|a|est)\s+(?:(?:been|now|already|just|"
    r"fully|sido|été|bereits|schon|jetzt|ya)\s+)*(?:refunded|reimbursed|(?:zurück|rück)?erstattet|"
    r"reembols\w+|remboursée?)\b|"
    rf"\b(?:ich|wir)\s+(?:habe|haben)\s+(?:(?:ihnen|bereits|schon|jetzt|heute)\s+)*{_ORDER_NP}\s+"
    r"(?:(?:bereits|schon|jetzt|heute|vollständig)\s+)*(?:zurück|rück)?erstattet\b|"
    rf"\b(?:reembols\w+|rembours\w+)\s+{_ORDER_NP}\b",
    re.IGNORECASE)


def order_refunded(text: str) -> bool:
    """Whether a refund claim's text says the order itself was refunded ("I've refunded your order 100123")."""
    return bool(_ORDER_REFUNDED.search(text))


@dataclass(frozen=True)
class Share:
    """A percentage a refund claim states.

    Attributes:
        percent: The percentage as written (50 for "50%").
        places: The decimal places it was written with (its precision).
        base: The words naming what it is a share of ("your order", "the lamp"); empty when none.
        context: The claim it was said in, whose words name the base when `base` is empty ("your order was
            refunded 100%" is a share of the order).
        whole: It was said in words ("a full refund", "refunded in full"): judged only of a base named as the
            order or a line, never of a part named otherwise ("the shipping fee in full", "the full difference").
    """

    percent: Decimal
    places: int
    base: str
    context: str = ""
    whole: bool = False


def refund_shares(text: str, lang: str | None) -> list[Share]:
    """The percentages `text` (a refund claim's claiming clauses) states as refunded, number words read too, and
    a refund said to be whole ("a full refund for your order") as 100% of its base, to the cent."""
    wholes = [_whole(m, text) for m in _WHOLE.finditer(text)]
    if not _MARK.search(text):
        return wholes  # before reading number words, which costs a parse
    text = numbers_as_digits(text, lang)
    found: dict[int, Share] = {}
    for m in _OF_BASE.finditer(text):
        found[m.start(1)] = _share(m.group(1), _BASE_END.sub("", m.group(2)).strip(), text)
    for pattern in (_SHARE_REFUND, _REFUNDED_SHARE):
        for m in pattern.finditer(text):
            found.setdefault(m.start(1), _share(m.group(1), _BASE_END.sub("", m.group(2) or "").strip(), text))
    return [found[k] for k in sorted(found)] + wholes


def _whole(m: re.Match[str], text: str) -> Share:
    """A whole refund: 100% at two places (a cent's rounding of the base), of the base said after it or, else,
    of what the claim names ("your order has been refunded in full", "everything you paid for the lamp")."""
    tail = _WHOLE_TAIL.match(text, m.end())
    base = _BASE_END.sub("", tail.group(1)).strip() if tail else ""
    return Share(Decimal(100), 2, base.lower(), "" if base else text.lower(), whole=True)


def _share(number: str, base: str, text: str) -> Share:
    digits = number.replace(",", ".")
    return Share(Decimal(digits), len(digits.split(".")[1]) if "." in digits else 0, base.lower(),
                 "" if base else text.lower())


def _bases(share: Share, terms: OrderTerms) -> set[Decimal]:
    """What `share` may be a share of: the line its base names, else the order when its base names the order,
    else any price or total of the order."""
    words = set(re.findall(r"[^\W_][\w'-]*", share.base or share.context))
    named = [ln for ln in terms.lines if words & (ln.nouns - GENERIC_UNITS)]
    if share.whole and (words & _PART_WORDS or not (named or words & _ORDER_WORDS)):
        return set()  # a whole of a part no record prices ("the shipping fee in full"), or of nothing named
    lines = named or terms.lines
    # A line's share is of one unit ("100% of the lamp") or of the whole line ("33% of the bulb packs"); a whole
    # refund may be of any number of its units ("a full refund for the two damaged lamps" of three).
    out = {ln.unit_price for ln in lines} | {ln.total for ln in lines}
    if share.whole:
        out |= {ln.unit_price * k for ln in lines for k in range(1, ln.quantity + 1)}
    order = {terms.total, sum((ln.total for ln in terms.lines), Decimal("0"))} if terms.total is not None else set()
    if named:
        return out
    if words & _ORDER_WORDS:
        return order
    return out | order


def false_shares(shares: Collection[Share], terms: OrderTerms, refunded: Collection[Decimal]) -> list[Share]:
    """The shares no refund of `refunded` makes of any base they may be of (rounded as written)."""
    bad: list[Share] = []
    for share in shares:
        step = Decimal(1).scaleb(-share.places)
        bases = _bases(share, terms)
        if share.whole and not bases:
            continue  # no base to judge it by
        if not any(_rounds_to(r, b, share.percent, step) for b in bases for r in refunded):
            bad.append(share)
    return bad


def _rounds_to(refund: Decimal, base: Decimal, percent: Decimal, step: Decimal) -> bool:
    if base <= 0 or refund <= 0:
        return False
    try:
        return (refund * 100 / base).quantize(step, rounding=ROUND_HALF_UP) == percent.quantize(step)
    except InvalidOperation:  # an absurd precision; the parsers allow two places, so this is defensive
        return False
