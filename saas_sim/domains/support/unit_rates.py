"""Money stated per unit in a reply, read against the order's lines: rates, counted rates and line prices.

"12.50 per damaged bulb", "5.00 on each of your three lamps" and "the lamp at 89.00 each" state an amount
per unit, not a sum: the judge checks a rate times a count of units, a counted rate ("on each of your three
lamps") as the sum it makes, and a line's own price said beside a refund as a price, not a refund. A rate
names a unit by any noun the order's lines could be called by (the words of their names, singular or
plural) or by a generic unit word ("unit", "item", "pair"), so a new product in the catalog needs no list.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from saas_sim.core.text_facts import extract_amounts, numbers_as_digits
from saas_sim.domains.support.models import Order

__all__ = ["AMOUNT_TEXT", "GENERIC_UNITS", "LineTerms", "OrderTerms", "bound_counts", "order_terms", "per_unit_amounts",
           "products", "rate_lines", "rate_makes", "states_line_price", "unit_count_spans",
           "unit_counts"]

GENERIC_UNITS = frozenset({
    "unit", "units", "item", "items", "piece", "pieces", "seat", "seats", "licence", "licences", "license",
    "licenses", "one", "ones", "pair", "pairs", "set", "sets", "pack", "packs", "box", "boxes", "product",
    "products", "article", "articles", "stück", "einheit", "einheiten", "artikel", "platz", "unidad", "unidades",
    "artículo", "artículos", "articulo", "articulos", "puesto", "puestos", "unité", "unités", "pièce", "pièces",
    "siège", "sièges"})
"""Words that name a unit of any line ("17.00 per unit", "for each item")."""

AMOUNT_TEXT = (r"(?:[$€£]\s?)?\d{1,3}(?:[.,\u00a0 ]\d{3})*(?:[.,]\d{1,2})?(?!\d)"
               r"(?:\s?(?:usd|eur|gbp|chf|dollars?|euros?|[$€£]))?")
r"""An amount as written, for patterns around it (the amount readers decide what it is). Groups of exactly
three digits after a separator keep the match linear: a run of digits and spaces has one reading (a looser
`[\d., ]*\d` backtracked for seconds over a long list of numbers)."""
# Words that end the words allowed before a unit's noun: "12.91 per month for the bulb" is no rate per bulb.
_STOP = (r"for|on|of|in|to|at|by|with|from|and|or|but|the|a|an|your|our|per|each|every|is|are|was|were|"
         r"day|days|week|weeks|month|months|year|years|hour|hours|cent|percent|order|orders|refund")
# Up to four words (adjectives, a brand) between the rate word and the unit's noun: "per damaged bulb",
# "per Glow Smart Bulb 4-pack".
_MODIFIERS = rf"(?:(?!(?:{_STOP})\b)[^\W\d_][\w'-]*\s+){{0,4}}?"
_DETERMINER = (r"(?:(?:your|the|those|these|all|its|their|ihre[nrs]?|der|die|den|sus|los|las|vos|les|des)\s+)?")
_SMALL = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
          "ten": 10, "eleven": 11, "twelve": 12, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "dos": 2, "tres": 3,
          "cuatro": 4, "cinco": 5, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5}
_COUNT = rf"(\d{{1,4}}|{'|'.join(_SMALL)})"
_EACH = r"(?:for|on|für|je|por|pour)\s+(?:each|every|jede[nsmr]?|cada|chaque)(?:\s+(?:one|single))?(?:\s+of)?\s+"
# "2 x 17.00", "17.00 x 2", "3 times 5.00": a count of units times a rate.
_TIMES = re.compile(rf"\b(\d{{1,4}})\s*(?:x|\u00d7|\*|times)\s*({AMOUNT_TEXT})|"
                    rf"({AMOUNT_TEXT})\s*(?:x|\u00d7|\*)\s*(\d{{1,4}})\b(?![.,]\d)", re.IGNORECASE)
_HAS_TIMES = re.compile(r"(?:\bx\b|\u00d7|\*|\btimes\b)")
"""A multiplication sign or word: only then are number words read as digits ("two x 17.00" is "2 x 17.00")."""
# Rate forms that need no noun: "17.00 each", "jeweils 17,00 €", "17,00 € pièce", "a unit price of 17.00".
_FIXED_RATES = (
    rf"{AMOUNT_TEXT}\s*(?:each|apiece|cada un[oa]|chacune?|l'unité|la pièce|pièce)\b|"
    rf"\b(?:jeweils|je)\s+{AMOUNT_TEXT}|"
    rf"\b(?:unit price|price per (?:unit|item|seat)|per-unit price|stückpreis|einzelpreis|precio unitario|"
    rf"prix unitaire)\s+(?:of\s+|von\s+|de\s+|is\s+|was\s+|beträgt\s+|es\s+|est\s+)?{AMOUNT_TEXT}|"
    rf"\b\d{{1,4}}\s*(?:x|\u00d7|\*|times)\s*{AMOUNT_TEXT}|{AMOUNT_TEXT}\s*(?:x|\u00d7|\*)\s*\d{{1,4}}\b")
# A verb of state of its own ("the lamp at 89.00 each stays as it is", "the boards were fine") says what its
# subject is; a bare noun phrase after a refund ("... and the lamp at 89.00 each") is more of what was
# refunded, and so is an action done to it ("the boards are taken care of", "will follow next week").
_DONE = r"(?!\s+(?:(?!un)[^\W\d_]+ed|taken|done|paid|sent|given|made|being|been|handled)\b)"
_OWN_PREDICATE = re.compile(
    r"\b(?:stays?|stayed|staying|remains?|remained|keeps?|kept|belongs?|bleibt|bleiben|sigue|siguen|queda|"
    r"quedan|reste|restent)\b|"
    rf"\b(?:is|are|was|were|isn't|aren't|wasn't|weren't|ist|sind|war|waren|es|son|está|están|est|sont)\b{_DONE}|"
    rf"\w'(?:s|re)\b{_DONE}")

# A relative clause ("..., which stay with you") says nothing of its own: its verb is no predicate of the run.
_RELATIVE = re.compile(r"\s*(?:which|that|who|wo|que|qui|die|der|das)\b")
# The subject a line-price run opens with: up to five words before a figure or a preposition ("the boards",
# "while your bamboo cutting boards"), after a word that joins it to the refund.
_SUBJECT = re.compile(r"\s*(?:(?:while|whereas|although|though|yet|meanwhile|only|just)\s+)?((?:(?!(?:at|for|on|of|"
                      r"in|to|by|with|from)\b)[^\W\d_][\w'-]*\s*){0,6})")
_CENT = Decimal("0.01")
_BARE_AMOUNT = re.compile(rf"\s*{AMOUNT_TEXT}\s*$", re.IGNORECASE)
# A price said of a thing, besides the rates: "the bottle at 29.95".
_PRICE = re.compile(rf"\b(?:at|zu|à)\s+({AMOUNT_TEXT})", re.IGNORECASE)


@dataclass(frozen=True)
class LineTerms:
    """What a reply may call one order line by, and its prices.

    Attributes:
        nouns: The words of the line's name, each singular and plural ("bulb", "bulbs", "4-pack").
        unit_price: The price of one unit.
        total: The line's total.
        quantity: How many units the order has.
        refunded: Some refund covers the line (its own, or one of the whole order).
    """

    nouns: frozenset[str]
    unit_price: Decimal
    total: Decimal
    quantity: int
    refunded: bool


@dataclass(frozen=True)
class OrderTerms:
    """The order a reply is judged against, as the words and prices that read its money (hashable, so the
    readings are memoized per order).

    Attributes:
        lines: The order's lines.
        total: What the customer paid (None: no order).
    """

    lines: tuple[LineTerms, ...] = ()
    total: Decimal | None = None

    @functools.cached_property
    def nouns(self) -> frozenset[str]:
        """Every noun a rate may name a unit by: the generic unit words and the words of the lines' names."""
        return GENERIC_UNITS.union(*(ln.nouns for ln in self.lines))

    @functools.cached_property
    def refunded_nouns(self) -> frozenset[str]:
        """The nouns a count of refunded units may name: the generic unit words and the refunded lines' words
        ("your 3 boards are fine" counts no unit a refund covers)."""
        return GENERIC_UNITS.union(*(ln.nouns for ln in self.lines if ln.refunded))


def order_terms(order: Order | None, refunded_lines: Collection[str | None] = ()) -> OrderTerms:
    """The terms of `order`; `refunded_lines` are the line ids refunds were made for (None: the whole order)."""
    if order is None:
        return OrderTerms()
    whole = None in refunded_lines
    return OrderTerms(tuple(LineTerms(_name_nouns(ln.name), ln.unit_price, ln.total, ln.quantity,
                                      whole or ln.id in refunded_lines) for ln in order.lines), order.total)


def _name_nouns(name: str) -> frozenset[str]:
    """The words of a product's name and of its hyphenated parts ("4-pack", "pack"), singular and plural."""
    words: set[str] = set()
    for word in re.findall(r"[^\W_][\w'-]*", name.lower()):
        words |= {word, *(p for p in word.split("-") if len(p) > 2 and not p.isdigit())}
    out: set[str] = set()
    for w in (w for w in words if len(w) > 2 and not w.isdigit()):
        out |= {w, f"{w}s", f"{w}es"}
        if w.endswith("s"):
            out.add(w[:-1])
        if w.endswith("es"):
            out.add(w[:-2])
    return frozenset(out)


@functools.lru_cache(maxsize=256)
def _patterns(nouns: frozenset[str]) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The rate, counted-rate and unit-count patterns for a set of unit nouns (memoized: few orders, many reads)."""
    noun = "(?:" + "|".join(re.escape(n) for n in sorted(nouns, key=lambda n: (-len(n), n))) + r")(?![\w-])"
    counted = rf"({AMOUNT_TEXT})\s*{_EACH}{_DETERMINER}{_COUNT}\s+{_MODIFIERS}{noun}"
    rate = (rf"{counted}|{AMOUNT_TEXT}\s*{_EACH}{_DETERMINER}{_MODIFIERS}{noun}|"
            rf"{AMOUNT_TEXT}\s*(?:(?:per|pro|je|por|par|a)\b|/)\s*{_MODIFIERS}{noun}|{_FIXED_RATES}")
    # A count is a whole number before the noun, never a figure's tail ("12.50 bulbs" counts nothing).
    count = rf"(?<![\w.,]){_COUNT}(?![.,]\d)\s+{_MODIFIERS}{noun}"
    return re.compile(rate, re.IGNORECASE), re.compile(counted, re.IGNORECASE), re.compile(count, re.IGNORECASE)


@functools.lru_cache(maxsize=256)
def _bound_patterns(nouns: frozenset[str]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A rate with the count of units it is for: "24.95 per lamp for your 3 lamps" and "your 3 lamps at 24.95
    each" (memoized as `_patterns`)."""
    noun = "(?:" + "|".join(re.escape(n) for n in sorted(nouns, key=lambda n: (-len(n), n))) + r")(?![\w-])"
    per = r"(?:(?:per|pro|je|por|par|a)\b|/|each\b|apiece\b|jeweils\b|cada un[oa]\b|chacune?\b)"
    after = re.compile(rf"({AMOUNT_TEXT})\s*{per}\s*{_MODIFIERS}(?:{noun})?\s*(?:for|on|across|über|für|auf|por|"
                       rf"para|en|pour|sur|de)\s+(?:all\s+|alle\s+|todos\s+|tous\s+)?{_DETERMINER}{_COUNT}\s+{_MODIFIERS}{noun}",
                       re.IGNORECASE)
    before = re.compile(rf"(?<![\w.,]){_COUNT}(?![.,]\d)\s+{_MODIFIERS}{noun}\s*(?:at|@|zu|a|à|de)\s+({AMOUNT_TEXT})\s*"
                        rf"(?:each|apiece|per|pro|je|jeweils|cada|la unidad|chacune?|pièce|l'unité|/)\b", re.IGNORECASE)
    return after, before


def bound_counts(text: str, lang: str | None, nouns: frozenset[str] = GENERIC_UNITS) -> dict[Decimal, set[int]]:
    """For each rate `text` states with the count of units it is for ("24.95 per lamp for your 3 lamps", "your 3
    lamps at 24.95 each"), those counts: a rate so told claims its rate times that count, no other."""
    after, before = _bound_patterns(nouns)
    out: dict[Decimal, set[int]] = {}
    for m in after.finditer(text):
        n = m.group(2).lower()
        for a in extract_amounts(m.group(1), lang)[:1]:
            out.setdefault(a, set()).add(int(n) if n.isdigit() else _SMALL[n])
    for m in before.finditer(text):
        n = m.group(1).lower()
        for a in extract_amounts(m.group(2), lang)[:1]:
            out.setdefault(a, set()).add(int(n) if n.isdigit() else _SMALL[n])
    return out


def per_unit_amounts(text: str, lang: str | None, nouns: frozenset[str] = GENERIC_UNITS) -> list[Decimal]:
    """The amounts `text` states per unit of one of `nouns` ("17.00 per unit", "12.50 per damaged bulb",
    "2 x 17.00", "5.00 on each of your three lamps", "a unit price of 17.00"), each occurrence once."""
    rate, _, _ = _patterns(nouns)
    if _HAS_TIMES.search(text):
        text = numbers_as_digits(text, lang)  # "two x 17.00" multiplies as "2 x 17.00" does
    if not rate.search(text):
        return []  # before reading amounts, which costs a parse
    masked = rate.sub(" ; ", text)
    return list((Counter(extract_amounts(text, lang)) - Counter(extract_amounts(masked, lang))).elements())


def products(text: str, lang: str | None, nouns: frozenset[str] = GENERIC_UNITS) -> list[tuple[Decimal, int]]:
    """The (rate, count) pairs a text multiplies out: "2 x 17.00", "two x 17.00", "3 times 5.00", and a rate on
    each of a stated count of units ("5.00 on each of your three lamps", "17.00 for each of the 2 units")."""
    out: list[tuple[Decimal, int]] = []
    for m in _TIMES.finditer(numbers_as_digits(text, lang) if _HAS_TIMES.search(text) else text):
        count, amount = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        out += [(a, int(count)) for a in extract_amounts(amount, lang)[:1]]
    _, counted, _ = _patterns(nouns)
    for m in counted.finditer(text):
        n = m.group(2).lower()
        out += [(a, int(n) if n.isdigit() else _SMALL[n]) for a in extract_amounts(m.group(1), lang)[:1]]
    return out


def rate_lines(text: str, lang: str | None, terms: OrderTerms) -> dict[Decimal, frozenset[int]]:
    """For each amount `text` states per unit, the indexes of the order's lines its unit names ("12.50 per damaged
    bulb": the bulbs' line); an amount per a generic unit ("17.00 each", "per unit") names none."""
    rate, _, _ = _patterns(terms.nouns)
    if _HAS_TIMES.search(text):
        text = numbers_as_digits(text, lang)
    out: dict[Decimal, frozenset[int]] = {}
    for m in rate.finditer(text):
        words = set(re.findall(r"[^\W_][\w'-]*", m.group(0).lower())) | _name_tail(text[m.end():], terms)
        named = _best_named(words, terms)
        for a in extract_amounts(m.group(0), lang)[:1]:
            out[a] = out.get(a, frozenset()) | named
    return out


_NEXT_WORD = re.compile(r"[\s-]*([^\W_][\w'-]*)")


def _name_tail(rest: str, terms: OrderTerms) -> set[str]:
    """The words of a product's name that go on after a rate's match, which ends at the name's first noun: in
    "56.04 per Glow Desk Lamp" the match ends at "Glow", a word the Glow Smart Bulb's line shares."""
    out: set[str] = set()
    pos = 0
    while len(out) < 4 and (m := _NEXT_WORD.match(rest, pos)) and m.group(1).lower() in terms.nouns:
        out.add(m.group(1).lower())
        pos = m.end()
    return out


def _best_named(words: set[str], terms: OrderTerms) -> frozenset[int]:
    """The lines whose names share the most of `words` (all that share the most, when several tie)."""
    shared = [len(words & (ln.nouns - GENERIC_UNITS)) for ln in terms.lines]
    most = max(shared, default=0)
    return frozenset(i for i, n in enumerate(shared) if n and n == most)


def unit_counts(text: str, lang: str | None, nouns: frozenset[str] = GENERIC_UNITS) -> list[int]:
    """The counts of units of one of `nouns` that `text` states ("your 3 units", "the one damaged lamp", "2 Glow
    Smart Bulb 4-packs"), in order."""
    return [n for n, _ in unit_count_spans(text, nouns)]


def unit_count_spans(text: str, nouns: frozenset[str] = GENERIC_UNITS) -> list[tuple[int, int]]:
    """The `unit_counts` of `text`, each with where its count starts (to read the words before it)."""
    _, _, count = _patterns(nouns)
    return [(int(n) if n.isdigit() else _SMALL[n], m.start(1))
            for m in count.finditer(text) for n in (m.group(1).lower(),)]


def rate_makes(rate: Decimal, counts: Collection[int], sums: Collection[Decimal], lines: Iterable[LineTerms]) -> bool:
    """Whether a rate stated per unit is true: times the units it applies to, it makes one of `sums` (to the cent).

    The units are a count stated with the rate (`counts`: "12.91 per pack for your 3 packs"), or every unit of one
    of `lines` (a price cut on each unit: "12.91 per pack" of three packs is 38.73), or, when the rate is a line's own
    unit price, some of its units (whole units refunded: "24.95 per lamp" for two lamps of three). So the whole
    refund of a line of several units said per unit ("38.73 per bulb" of three bulbs) is false: it implies three
    times the refund.
    """
    cents = {a.quantize(_CENT) for a in sums}

    def makes(n: int) -> bool:
        return (rate * n).quantize(_CENT) in cents

    if any(makes(n) for n in counts if n > 0):
        return True
    return any(makes(ln.quantity) or (rate == ln.unit_price and any(makes(k) for k in range(1, ln.quantity + 1)))
               for ln in lines)


def states_line_price(run: Sequence[str], lang: str | None, terms: OrderTerms) -> bool:
    """Whether clauses that follow a refund claim state the price of a line no refund covers, as a sentence
    of their own about it.

    `run` is a clause of a refund claim and the clauses after it up to the next that claims money: "the
    cutting boards at 24.99 each stay as they are" or "the boards, at 24.99 each, were fine" beside a refund
    of the bulbs tells what a board costs; it claims no refund of 24.99. The run must open with the line as
    its subject, state its unit price as a rate or a price ("at 29.95", "(29.95)"; not "29.95 for the bottle", which is
    how a refund is told) and have a verb of its own outside a relative clause: "... and the boards at 24.99
    each" (no verb), "... and 24.99 each for the boards" (no subject) and "... and the boards at 24.99 each,
    which stay with you" are more of what was refunded. A rate that is no line's price is judged as claimed.
    """
    left = [ln for ln in terms.lines if not ln.refunded]
    if not left or not run:
        return False
    said = [c for c in run if not _RELATIVE.match(c)]
    text = " ; ".join(said)
    if not said or not _OWN_PREDICATE.search(text):
        return False  # before reading amounts, which costs a parse
    subject = _SUBJECT.match(run[0])
    opening = set(re.findall(r"[^\W_][\w'-]*", subject.group(1).lower())) if subject else set()
    subjects = [ln for ln in left if opening & (ln.nouns - GENERIC_UNITS)]
    if not subjects:
        return False
    priced = set(per_unit_amounts(text, lang, terms.nouns))
    for m in _PRICE.finditer(text):
        priced |= set(extract_amounts(m.group(1), lang))
    # An amount set off alone after the subject is its price: "the bottle (29.95 USD) stays as it is".
    for clause in said[1:]:
        if _BARE_AMOUNT.match(clause):
            priced |= set(extract_amounts(clause, lang))
    return any(ln.unit_price in priced for ln in subjects)
