"""The counts a free text states of a quote's products: "40 seats", "3 x ANL-ADD", "2 training days".

A quote records how many of each product the buyer takes, so a count the agent
states of a product is a fact the final quote can refute, unlike "20 minutes" or
"a team of 12", which the CRM does not record (`checks_email_facts`). This
module only *reads* such counts; `checks_quotes.quote_counts_true` judges them.

A number is read as a count when it is a whole number (not part of a decimal,
an amount or a percentage) and

* a multiplication sign follows it ("3 x", "3x", "3 \\u00d7");
* a unit word (`UNITS`) follows it within three words ("40 platform seats");
* a product's SKU or the head of its name (before " - " or "(") follows it
  within two words, plural or not ("2 training days", "3 ANL-ADD");
* it follows "quantity" ("quantity of 12", "quantity: 12").

"400 per seat" and "$400 a seat" state a price, not a count: a number right
after a currency mark, or joined to the unit by "per", "a", "an", "each" or
"every", is no count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["UNITS", "product_cues", "stated_counts"]

UNITS = ("unit", "units", "seat", "seats", "licence", "licences", "license", "licenses", "user", "users",
         "piece", "pieces", "pcs")
"""Words that make the number before them a count of a product."""

_NUMBER = r"(?<![\d.,])(\d{1,6})(?![\d]|[.,]\d)"
_PRICE_LINKS = frozenset({"per", "a", "an", "each", "every"})
_CURRENCY = re.compile(r"(?:[$€£¥]|\b(?:usd|eur|gbp|chf|jpy|cad|aud))\s*$")
_TIMES = re.compile(_NUMBER + r"\s*[x\u00d7](?=\s|$|[^\w])")
_QUANTITY = re.compile(r"\bquantit(?:y|ies)\b\W{0,3}(?:(?:of|to|at|is|from)\s+)?" + _NUMBER)


def product_cues(names: Iterable[str]) -> list[str]:
    """Returns the casefolded SKUs and name heads ("Core Platform - Seat" gives "core platform") to look for."""
    out: set[str] = set()
    for name in names:
        head = re.split(r"\s+-\s+|\(", name.casefold(), maxsplit=1)[0].strip()
        if head:
            out.add(head)
    return sorted(out, key=lambda c: (-len(c), c))


def _before_words(cues: Iterable[str], span: int) -> re.Pattern[str]:
    alts = "|".join(re.escape(c) for c in cues)
    return re.compile(_NUMBER + r"((?:\s+[^\W\d][\w-]*){0," + str(span) + r"}?)\s+(?:" + alts + r")s?\b")


def stated_counts(text: str, products: Iterable[str] = ()) -> list[int]:
    """Returns the counts `text` states (see the module docstring), in order of their position.

    Args:
        text: A note, a task or an email (subject and body).
        products: The SKUs and names of the products the text may count.
    """
    low = text.casefold()
    found: dict[int, int] = {}
    patterns = [_before_words(UNITS, 3)]
    cues = product_cues(products)
    if cues:
        patterns.append(_before_words(cues, 2))
    for pattern in patterns:
        for m in pattern.finditer(low):
            links = set(m.group(2).split())
            if not (links & _PRICE_LINKS) and not _CURRENCY.search(low[:m.start(1)]):
                found[m.start(1)] = int(m.group(1))
    for simple in (_TIMES, _QUANTITY):
        for m in simple.finditer(low):
            if not _CURRENCY.search(low[:m.start(1)]):
                found[m.start(1)] = int(m.group(1))
    return [found[k] for k in sorted(found)]
