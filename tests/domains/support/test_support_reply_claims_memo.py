"""Memoized claim parsing (clauses per sentence, claims per facts) gives what parsing afresh gives.

Replies are built from sentences that refuse, turn, promise, ask and deny, in several languages; for
each, the claims, refund claims, denials and claimed amounts must equal a fresh, unmemoized reading,
asked twice (the second answer comes from the caches).
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from saas_sim.core.text_facts import extract_amounts
from saas_sim.domains.support.conditions import CONDITION_OR_TIME, governed
from saas_sim.domains.support.reply_facts import (
    _CLAIM_CLAUSE,
    _CLAUSE,
    _CREDIT,
    _DENIES_REFUND,
    _REFUND,
    _REPLACE,
    ReplyFacts,
    Sentence,
    _sentence,
    claims_money,
    read_facts,
)

_SENTENCES = (
    "Unfortunately we cannot refund the kettle, but as an exception we will send you a new one.",
    "I have refunded 25.00 USD on order 100234 at no cost, and a voucher is on its way.",
    "We could not refund anything; the item was a final sale.",
    "If you prefer, we can replace it.",
    "Would you like a refund?",
    "Leider können wir den Betrag nicht erstatten, aber wir senden Ersatz.",
    "No hemos podido reembolsar el pedido; sin embargo, le enviamos un cupón.",
    "Nous ne pouvons pas rembourser, mais nous renvoyons un article.",
    "Your order was delivered 57 days ago, outside our 30-day window.",
    "Thanks for writing, we will get back to you soon.",
    "You will get your 12,50 € back within five days.",
    "If it hasn't arrived by Friday, let me know and we'll send a replacement.",
    "If you check your statement, you'll see I refunded 25.00 USD.",
    "Wir schicken Ihnen Ersatz, falls es nicht ankommt.",
)


def _fresh_parts(s: Sentence, splitter: re.Pattern[str] = _CLAUSE) -> list[Sentence]:
    bits = re.split(f"({splitter.pattern})", s.text)  # clauses at even places, separators at odd ones
    pieces: list[str] = []
    seps: list[str] = []
    sep = ""
    for i, bit in enumerate(bits):
        if i % 2 or not bit.strip():
            sep += bit
        else:
            pieces, seps, sep = [*pieces, bit], [*seps, sep], ""
    if len(pieces) < 2:
        return [s]
    flags = governed([p.strip() for p in pieces], seps, s.lang)
    return [_sentence(p, s.lang, g) for p, g in zip(pieces, flags, strict=True)]


def _fresh_claims(facts: ReplyFacts) -> list[Sentence]:
    return [c for s in facts.sentences
            for c in (_fresh_parts(s, _CLAIM_CLAUSE) if s.negated or s.conditional or CONDITION_OR_TIME.search(s.text)
                      else [s]) if c.claims]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_SENTENCES), min_size=1, max_size=4).map(" ".join), max_size=3))
def test_memoized_claims_equal_a_fresh_reading(bodies: list[str]) -> None:
    facts = read_facts(bodies)
    claims = _fresh_claims(facts)
    denials = [c for s in facts.sentences if s.negated and not s.conditional
               for c in _fresh_parts(s) if c.negated and c.mentions(_REFUND) and _DENIES_REFUND.search(c.text)]
    for _ in range(2):
        assert list(facts._claims) == claims
        assert facts.refund_claims() == [s for s in claims if claims_money(s)]
        assert facts.replacement_claims() == [s for s in claims if s.mentions(_REPLACE)]
        assert facts.credit_claims() == [s for s in claims if s.mentions(_CREDIT)]
        assert facts.refund_denials() == denials
        assert facts.claimed_amounts() == [a for c in facts.refund_claims() for a in extract_amounts(c.text)
                                           if str(a) not in facts.codes]
        assert [s.parts(_CLAUSE) for s in facts.sentences] == [_fresh_parts(s) for s in facts.sentences]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_SENTENCES), min_size=1, max_size=3).map(" ".join), max_size=2),
       st.sampled_from(["en", "de", "es", "fr"]))
def test_memoized_off_language_equals_a_fresh_reading(bodies: list[str], lang: str) -> None:
    facts = read_facts(bodies)
    fresh = list(read_facts(bodies)._off_language(lang))
    assert facts.off_language(lang) == fresh
    assert facts.off_language(lang) == fresh


def test_a_returned_claims_list_is_the_callers_to_change() -> None:
    facts = read_facts(["I have refunded 25.00 USD on order 100234."])
    first = facts.refund_claims()
    first.clear()
    assert facts.refund_claims()
