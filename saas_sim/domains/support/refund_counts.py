"""How many refunds, and how many units, a refund claim says there were.

Two claims a reply can make without any false amount:

- a further refund: "... and will refund another 1 x 24.99", "I refunded it again", "a further refund follows",
  "twice that amount", "the rest will be refunded next week", "I refunded the other lamps too". Each says there
  is (or will be) a refund beyond one: true only when the order has more than one refund in the records.
- a count of refunded units with no rate: "I have refunded 3 items" when one unit was. A count is true when some
  refunds on a line (one, or all of them) make that many of its units at its price, or when the refunds cannot
  be read as whole units (a price cut on each unit, a shipping fee), any count up to the line's quantity.

Both are read only in clauses that themselves claim money coming back (`reply_facts.claims_money`), so "sorry
again" or "the other two speakers are fine" beside a refund claim nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal

from saas_sim.core.text_facts import extract_amounts
from saas_sim.domains.support.models import Order, Refund
from saas_sim.domains.support.unit_rates import AMOUNT_TEXT, unit_count_spans

__all__ = ["claims_all_units", "claims_further", "counts_claimed", "opens_with_more", "promises_later", "sums_claimed",
           "true_counts"]

# Nouns a further refund is told with ("another refund", "an additional payment of ...", "a second transfer").
# Not "charge" or "payment" after "second": "I refunded the second charge" is the duplicate, one refund.
_FURTHER_NOUN = (r"(?:refunds?|reimbursements?|payouts?|payments?|transfers?|credits?|amounts?|sums?|one|erstattung"
                 r"|rückerstattung|zahlung|betrag|reembolsos?|pagos?|importes?|remboursements?|versements?|montants?)")
_FURTHER = re.compile(
    # "another refund", "a further 1 x 24.99", "an additional 24.99": one more than some refund.
    rf"\b(?:another|an? additional|additional|a further|further|an extra|one more|weitere[nrs]?|zusätzliche[nrs]?|"
    rf"otr[oa]s?|un autre|une autre|un nouveau|une nouvelle|nuevo)\s+(?:[^\W\d_][\w'-]*\s+){{0,2}}?"
    rf"(?:{_FURTHER_NOUN}\b|\d{{1,4}}\s*(?:x|\u00d7|\*|times)\s|{AMOUNT_TEXT})|"
    rf"\b(?:a second|second|zweite[nrs]?|segundo|second|seconde)\s+(?:refund|reimbursement|payout|transfer|erstattung|"
    rf"rückerstattung|überweisung|reembolso|transferencia|remboursement|virement)\b|"
    # "refunded it again", "24.99 once more", "a second time", "twice": the same refund again. "You were charged
    # twice" is the duplicate charge, not the refund.
    r"(?<!charged )(?<!billed )(?<!paid )(?<!debited )(?<!taken )\b(?:again|once more|a second time|twice|two times|"
    r"noch einmal|nochmals|erneut|zweimal|de nuevo|otra vez|dos veces|de nouveau|encore une fois|deux fois)\b|"
    # "twice that amount", "double the refund", "the same again".
    r"\b(?:double|triple|doppelte[nr]?|el doble|le double)\b|\bthe same (?:\w+\s+)?again\b",
    re.IGNORECASE)
# The other units or the rest of the money. Told of the units this refund is for ("I refunded 25.00 for the
# remaining damaged mugs" after an earlier fix), it is the refund told; it is one more refund only as a promise
# ("the rest will be refunded next week") or beside "too" ("I refunded the other lamps too").
_REST = re.compile(
    r"\b(?:the rest|the remainder|the remaining|remaining|the other|den rest|der rest|restliche[nrs]?|el resto|"
    r"los demás|las demás|le reste|les autres)\b(?!\s+(?:[^\W\d_][\w'-]*\s+)?(?:charges?|payments?|transactions?|"
    r"orders?|purchases?|cards?|accounts?|methods?|banks?|tickets?|requests?|messages?|day\b))",
    re.IGNORECASE)
_ALSO = re.compile(r"\b(?:too|as well|also|auch|ebenfalls|también|aussi|également)\b", re.IGNORECASE)
# A count that tells the whole the refunded units are part of ("1 of your 3 lamps", "one out of three"), or the
# units no refund is for ("the other 2"): not a count of refunded units.
_WHOLE_BEFORE = re.compile(r"(?:\b(?:of|out of|from|von|de|sur|among)\s+(?:all\s+)?(?:(?:your|the|those|these|its|"
                           r"ihre[nrs]?|der|den|sus|los|las|vos|les|des)\s+)?|\b(?:other|remaining|rest|übrigen|"
                           r"anderen|demás|otros|otras|autres)\s+)$", re.IGNORECASE)
_CENT = Decimal("0.01")
# "all 3 of your lamps" counts as "3 lamps" does; "1 of your 3 lamps" keeps its whole ("3 lamps" after "of your").
_COUNT_OF = re.compile(r"(?<![\w.,])(\d{1,4}|one|two|three|four|five|six|seven|eight|nine|ten)\s+of\s+(?:all\s+)?"
                       r"(?:your|the|these|those|ihre[nrs]?|sus|vos)\s+(?!\d|(?:one|two|three|four|five|six|seven|"
                       r"eight|nine|ten)\b)", re.IGNORECASE)
# "Both items", "beide Artikel", "ambos artículos", "les deux articles": a count of two.
_BOTH = re.compile(r"\b(?:both|beide[n]?|ambos|ambas|les deux)\s+(?:of\s+(?:your|the|these|those)\s+)?(?!\d)",
                   re.IGNORECASE)
# A sum written out ("24.99 + 5.00", "24.99 plus 24.99"), not a sum shown with its result ("17.00 + 17.00 = 34.00",
# which states the result as the claim).
_PLUS = re.compile(rf"{AMOUNT_TEXT}(?:\s*(?:\+|\bplus\b)\s*{AMOUNT_TEXT})+(?!\s*(?:=|\d))", re.IGNORECASE)


# A refund still to come: every refund in the records is made, so a further one promised for later ("and will
# refund it again next week", "another refund follows") needs a second refund made on this ticket.
_TO_COME = re.compile(r"\b(?:will|shall|going to|follows?|following|next|later|soon|tomorrow|upcoming|wird|werden|"
                      r"folgt|folgen|nächste\w*|später|demnächst|va|vamos|seguirá|próxim\w*|más tarde|suivra|"
                      r"prochain\w*|plus tard|sera|allons)\b|['\u2019]ll\b|"
                      r"\b(?:reembolsar|devolver|abonar|transferir|rembourser|verser|créditer)(?:á|án|é|emos|a|ai|ons)\b",
                      re.IGNORECASE)


# A claim opening with one more ("Plus, I credited 24.99 to your card", "In addition, ..."): a further payout.
_OPENS_WITH_MORE = re.compile(r"^\s*(?:plus|in addition|additionally|on top of (?:that|this|it)|what's more|besides|"
                              r"außerdem|zusätzlich|darüber hinaus|además|adicionalmente|en plus|de plus|en outre)\b",
                              re.IGNORECASE)
# Every unit of the line claimed refunded with no count ("which covers every unit", "the whole line", "all of
# your items"): true when some refund covers all of a line's units. "All of them" is left out: it is as often the
# damaged ones the reply just named ("both damaged mugs, all of them at 12.00").
_ALL_UNITS = re.compile(
    r"\b(?:(?:the\s+)?(?:whole|full|entire|complete)\s+(?:line|quantity|lot|set)|every\s+(?:single\s+)?(?:unit|item|"
    r"piece|one)|all\s+(?:of\s+)?(?:the\s+|your\s+|these\s+|those\s+)?(?:units|items|pieces)|"
    r"each\s+(?:and every\s+)?(?:unit|item|one)\s+(?:on|of)\s+the\s+line|die ganze position|alle (?:artikel|einheiten)|"
    r"toda la línea|todas las unidades|toute la ligne|toutes les unités)\b"
    # Narrowed down after it, they are some units: "every one of the 2 damaged mugs", "all the items you returned".
    r"(?!\s+(?:of|that|which|who|you|we|i|damaged|broken|affected|missing|faulty|defective)\b)", re.IGNORECASE)


def opens_with_more(claim: str) -> bool:
    """Whether a refund claim opens as one more on top of something ("Plus, I credited ...", `_OPENS_WITH_MORE`)."""
    return bool(_OPENS_WITH_MORE.match(claim))


def claims_all_units(clause: str) -> bool:
    """Whether a money-claiming clause says every unit of the line was refunded, with no count (`_ALL_UNITS`)."""
    return bool(_ALL_UNITS.search(clause))


def promises_later(clause: str) -> bool:
    """Whether a clause tells of something still to come (`_TO_COME`)."""
    return bool(_TO_COME.search(clause))


def claims_further(clause: str) -> bool:
    """Whether a clause that claims money coming back says it is one more refund than some other (`_FURTHER`,
    or `_REST` promised or told with "too")."""
    if _FURTHER.search(clause):
        return True
    return bool(_REST.search(clause)) and (bool(_ALSO.search(clause)) or promises_later(clause))


def counts_claimed(clause: str, nouns: frozenset[str]) -> list[int]:
    """The counts of refunded units a money-claiming clause states ("I have refunded 3 items", "your two lamps
    were refunded"), but for a whole ("1 of your 3 lamps") and other units ("the other 2")."""
    out: list[int] = []
    clause = _BOTH.sub("2 ", _COUNT_OF.sub(r"\1 ", clause))
    for n, start in unit_count_spans(clause, nouns):
        if not _WHOLE_BEFORE.search(clause[:start]):
            out.append(n)
    return out


def sums_claimed(clause: str, lang: str | None) -> list[Decimal]:
    """The sums a money-claiming clause writes out ("24.99 + 24.99", "24.99 plus 5.00"): the refund is their sum.
    A sum shown with its result ("17.00 + 17.00 = 34.00") claims the result, read as any amount."""
    out: list[Decimal] = []
    for m in _PLUS.finditer(clause):
        terms = extract_amounts(m.group(0), lang)
        if len(terms) >= 2:
            out.append(sum(terms, Decimal("0")))
    return out


def true_counts(order: Order, refunds: Iterable[Refund]) -> set[int] | None:
    """The counts of units a reply may truly say were refunded (None: any count, the refunds being no whole units).

    A refund on a line that is a whole number of its unit price is that many units; a refund of the whole order is
    each line's quantity and all of them; several refunds on a line add up. A refund that is no whole number of
    units (a price cut per unit, a fee) leaves the count open up to the line's quantity.
    """
    per_line: dict[str, list[int]] = {}
    out: set[int] = set()
    for r in refunds:
        line = order.line(r.line_id) if r.line_id else None
        if r.line_id is None and r.amount.quantize(_CENT) == order.total.quantize(_CENT):
            out |= {ln.quantity for ln in order.lines} | {sum(ln.quantity for ln in order.lines)}
            continue
        lines = [line] if line is not None else list(order.lines)
        whole = [(ln, r.amount / ln.unit_price) for ln in lines if ln.unit_price > 0
                 and (r.amount / ln.unit_price) == (r.amount / ln.unit_price).to_integral_value()]
        if not whole:
            if line is None:
                return None
            out |= set(range(1, line.quantity + 1))
            continue
        for ln, k in whole:
            per_line.setdefault(ln.id, []).append(int(k))
    for ks in per_line.values():
        out |= set(ks) | {sum(ks)}
    if len(per_line) > 1:
        out.add(sum(sum(ks) for ks in per_line.values()))
    return out
