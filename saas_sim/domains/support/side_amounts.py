"""Amounts a refund claim states beside the refund: facts of another kind, not what it says was refunded.

In a refund claim, an amount is claimed as refunded only where the refund takes it ("refunded 49.90", "a refund
of 49.90", "49.90 is on its way back"). A claim often names other money on the way, in en, de, es and fr:

- the whole the refund is a part of: "I refunded 49.90 USD of the 149.70 USD you paid", "5.03 out of the 25.15
  we charged", "25,00 € von den 75,00 €";
- what was left alone: "the rest of your 254.62 USD order is unaffected";
- a price comparison: "the lamp dropped from 79.99 to 62.99", "the difference between 79.99 and 62.99", "von
  79,99 auf 62,99", "de 79,99 a 62,99", "de 79,99 à 62,99";
- the arithmetic that derives the refund: "17.00 x 2 = 34.00" claims 34.00, "79.99 - 62.99 = 17.00" claims 17.00.

These are blanked before a claim's amounts are read. They are still stated facts: the reply's other truth checks
judge every amount it states (a price, total or refund of the order), so "of the 999.00 you paid" still fails.
"""

from __future__ import annotations

import functools
import re

__all__ = ["without_side_amounts"]

# Money as written: with cents or a currency, so a count ("2 of the 3 units") is never one.
# Digits unseparated are one amount too ("1242.99"), which the shared `AMOUNT_TEXT` reads from its groups only.
_M = (r"(?=[$€£]|\d{1,3}(?:[.,\u00a0 ]\d{3})+[.,]\d{2}(?!\d)|\d+[.,]\d{2}(?!\d)|\d+\s?(?:usd|eur|gbp|chf|dollars?|"
      r"euros?)\b)(?:[$€£]\s?)?(?:\d{1,3}(?:[.,\u00a0 ]\d{3})+|\d+)(?:[.,]\d{1,2})?(?!\d)"
      r"(?:\s?(?:usd|eur|gbp|chf|dollars?|euros?|[$€£]))?")
_WORDS = r"(?:\s+[^\s,;:.!?\d]+)"
# "49.90 USD of the 149.70 USD", "5.03 out of the 25.15": the whole after a part.
_PART_OF = re.compile(
    rf"{_M}{_WORDS}{{0,4}}?\s+(?:out of|of|von|vom|von den|von ihren|de|de los|de las|del|sur|sur les|des)\s+"
    rf"(?:(?:the|your|a|an|that|this|those|its|ihre[nm]?|den|su|sus|el|la|los|las|votre|vos|le|la|les)\s+)?"
    rf"(?:(?:total|original|full|entire|whole|gesamten?|original(?:es)?|total(?:es)?)\s+(?:of\s+)?)?(?P<side>{_M})")
# "the rest of your 254.62 USD order".
_REST_OF = re.compile(
    rf"\b(?:rest|remainder|balance|der rest|el resto|le reste)\s+(?:of|von|del|de)\s+(?:(?:the|your|ihrer|su|"
    rf"votre|la|le)\s+)?(?:[^\s,;:.!?\d]+\s+){{0,2}}?(?P<side>{_M})")
# A price comparison: "dropped from 79.99 to 62.99", "the price went from 79.99 to 62.99", "von 79,99 auf 62,99",
# "went down to 62.99", "the difference between 79.99 and 62.99". Only with a word of a price or its change: "your
# refund went from 45.00 to 149.70" compares no prices.
_CHANGE = (r"price\w*|cost\w*|dropped|fell|went down|decreased|reduced|lowered|went up|rose|increased|changed|"
           r"preis\w*|gesunken|gefallen|precio\w*|bajó|bajado|prix|baissé")
_FROM_TO = re.compile(
    rf"\b(?:{_CHANGE})\b{_WORDS}{{0,4}}?\s+(?:from|von|de)\s+(?P<side>{_M})\s+(?:(?:down|up)\s+)?(?:to|auf|a|à)\s+"
    rf"(?P<side2>{_M})|"
    r"\b(?:dropped|fell|went down|decreased|was reduced|was lowered|went up|rose|increased|gesunken|gefallen|"
    rf"bajó|ha bajado|baissé|a baissé)\s+(?:to|auf|a|à)\s+(?P<side3>{_M})|"
    rf"\b(?:difference|unterschied|diferencia|différence)\s+(?:between|zwischen|entre)\s+(?:(?:the|your)\s+)?"
    rf"(?P<side4>{_M}){_WORDS}{{0,6}}?\s+(?:and|und|y|et)\s+(?:[^\s,;:.!?\d]+\s+){{0,4}}?(?P<side5>{_M})")
# "17.00 x 2 = 34.00", "(79.99 - 62.99) x 2 = 34.00": everything before the "=" derives what follows it.
_OPERAND = rf"[(\s]*(?:{_M}|\d+)[)\s]*"
_ARITHMETIC = re.compile(rf"(?P<side>{_OPERAND}(?:(?:[-\u2212\u2013+x\u00d7*/]|\btimes\b|\bminus\b){_OPERAND})+)"
                         rf"=\s*(?={_M})")


@functools.lru_cache(maxsize=4096)
def without_side_amounts(text: str) -> str:
    """`text` (a lowercased refund claim) with the amounts it states beside the refund blanked (see the module's
    rule). Memoized: the same claims are read at every regrade."""
    spans: list[tuple[int, int]] = []
    for pattern in (_PART_OF, _REST_OF, _FROM_TO, _ARITHMETIC):
        for m in pattern.finditer(text):
            spans += [m.span(k) for k, v in m.groupdict().items() if v is not None]
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + " " * (end - start) + text[end:]
    return text
