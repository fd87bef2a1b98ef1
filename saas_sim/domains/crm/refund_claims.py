"""Which amounts a CRM note claims were refunded or credited ("Refunded 50.00 USD", "Refund of $50.00 issued").

A note on a billing incident may state several true figures (the charge, the correct price, the refund).
Each is true as a figure, but only one is true as the refund: "Refunded 500.00 USD" of a 500.00 charge of
which 50.00 was refunded is false. This module only *reads* the refund claims; `checks_suite_billing`
judges them against the refund the task's billing state requires.

How a refund claim is read:

* A **cue** is a word of a refund or a credit given ("refunded", "refund", "reimbursed", "credited",
  "credited back", "erstattet", "remboursé", "reembolsado"); a rule ("refundable") or a credit card is none.
* The cue claims nothing when a denial, a condition or someone's wish governs it in the words just before
  it ("no refund", "not refunded", "if we refund", "asked for a refund", "requested a refund of 500.00").
* It is told of the nearest amount in its sentence, after it within four words ("refunded 50.00",
  "Refund of $50.00", "Overcharge refunded: 50.00 USD") or before it within three ("50.00 USD refunded",
  "$50.00 of tax refunded"), the closer one at a tie the one after; across a semicolon, none. The other
  amounts of the sentence (the charge, the correct price, "of the 500.00 charge") are beside the refund.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from saas_sim.core.text_facts import AmountMention, located_amounts, sentences

__all__ = ["RefundClaim", "refund_claims"]

_CUE = re.compile(
    r"\b(?:refund(?:ed|s|ing)?|reimburs\w*|credited(?:\s+back)?|credit(?:\s+note)?(?!\s*cards?\b)(?!\w)|"
    r"paid\s+back|money\s+back|erstatt\w*|gutgeschrieben|r(?:e|\u00e9)mbours\w*|reembols\w*)(?![\w-]*able)",
    re.IGNORECASE)
_GOVERNED = re.compile(
    r"\b(?:no|not|never|without|nor|if|unless|whether|would|could|might|asked|asks|asking|requested|requests|"
    r"requesting|wants?|wanted|demand\w*|disput\w*|expects?|expected|hopes?|instead|rather|eligible|kein\w*|"
    r"nicht|pas|sin|ni)\b|n['\u2019]t\b", re.IGNORECASE)
"""A denial, a condition or a wish in the words right before a cue: then it claims no refund given."""
_WORD = re.compile(r"[^\W\d_]+")
_BREAK = re.compile(r"[;\n]")
_AFTER_WORDS = 4
_BEFORE_WORDS = 3
_GOVERNING_WORDS = 4


@dataclass(frozen=True, slots=True)
class RefundClaim:
    """An amount a text claims was refunded, where it stands in `text` (number words written as digits)."""

    text: str
    amount: AmountMention


def _gap_words(gap: str) -> int | None:
    """How many words a gap between a cue and an amount holds; None when a clause break cuts it."""
    return None if _BREAK.search(gap) else len(_WORD.findall(gap))


def _told(text: str, cue: re.Match[str], amounts: list[AmountMention]) -> AmountMention | None:
    after = next((a for a in amounts if a.start >= cue.end()), None)
    before = next((a for a in reversed(amounts) if a.end <= cue.start()), None)
    options: list[tuple[int, int, AmountMention]] = []
    if after is not None and (n := _gap_words(text[cue.end():after.start])) is not None and n <= _AFTER_WORDS:
        options.append((after.start - cue.end(), 0, after))
    if before is not None and (n := _gap_words(text[before.end:cue.start()])) is not None and n <= _BEFORE_WORDS:
        options.append((cue.start() - before.end, 1, before))
    return min(options, key=lambda o: (o[0], o[1]))[2] if options else None


def _lead(prefix: str) -> str:
    """The last words of `prefix` (as written, apostrophes kept) within its clause: what may govern a cue."""
    clause = _BREAK.split(prefix)[-1]
    words = list(_WORD.finditer(clause))
    return clause[words[-_GOVERNING_WORDS].start():] if len(words) >= _GOVERNING_WORDS else clause


def refund_claims(text: str, lang: str | None = None) -> list[RefundClaim]:
    """Returns the amounts `text` claims were refunded or credited, in text order (see the module rules)."""
    out: list[RefundClaim] = []
    for sentence in sentences(text, lang):
        located, amounts = located_amounts(sentence, lang)
        seen: set[int] = set()
        for cue in _CUE.finditer(located):
            if _GOVERNED.search(_lead(located[:cue.start()])):
                continue
            told = _told(located, cue, amounts)
            if told is not None and told.start not in seen:
                seen.add(told.start)
                out.append(RefundClaim(located, told))
    return out

