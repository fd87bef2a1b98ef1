"""The orders a reply names besides the ticket's: the requester's own may be named, another customer's may not.

A reply that tells the customer about their own other orders discloses nothing and, said plainly, claims
nothing: "P.S. your order #100058 is not affected", "I haven't refunded order #102702: that was a separate
purchase on another day" (policy 20). What stays false is a claim that money, goods or a change went to such
an order: "I refunded 25.00 on #100058", "I cancelled order #100058", and, in replies that never name the
ticket's order, a refusal aimed at it ("the items on order #100058 cannot be refunded: final sale"). Naming
another customer's order is a disclosure, unless the scenario lets that number be named (`may_name`: a number
the customer quoted by mistake, named to say it is not theirs); such a number may no more be named as where
money went.

A claim is bound to the order it is about by the clauses of its sentence, never by how near a number stands
(`_claimed_in`): in "I refunded 25.00 on #100057, and #100058 stays as it is" the clause naming the other order
says it is untouched, so it claims nothing of it, while in "I refunded 25.00 on #100057 and #100058" it does, and
so does "Order #100058, which you asked me about last week and which I checked closely, has also been refunded".
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from saas_sim.core.state import State
from saas_sim.core.text_facts import extract_codes
from saas_sim.domains.support.check_helpers import CLAUSE, order_ids_by_number
from saas_sim.domains.support.models import Order
from saas_sim.domains.support.people import person_records
from saas_sim.domains.support.reply_facts import (
    ORDER_NUMBER,
    ReplyFacts,
    Sentence,
    claims_goods_or_credit,
    claims_money,
)
from saas_sim.domains.support.state import ORDERS

__all__ = ["NamedOrders", "named_orders"]

# A clause that says an order was left as it was (lowercased text): unaffected, untouched, separate, another one.
_LEFT_AS_IS = re.compile(
    r"\b(?:unaffected|unchanged|untouched|unrelated|as (?:it|they) (?:is|was|are|were)|as before|"
    r"separate (?:purchase|order|charge|payment|transaction|invoice)s?|"
    r"(?:stays?|remains?|is still|are still) (?:as|unchanged|untouched|open|active|valid|in place|the same|"
    r"on (?:its|their) way)|"
    r"unverändert|unberührt|bleibt (?:bestehen|unverändert|gültig|offen)|separate[rn]? (?:kauf|bestellung)|"
    r"sin cambios|intact[oa]s?|compra (?:separada|distinta)|pedido (?:separado|distinto)|"
    r"inchangée?s?|intacte?s?|(?:achat|commande) (?:séparée?|distincte?))")
# A claimed change to an order (an act the desk would have done on it): a verb of change in an affirmed clause about
# the order ("I cancelled your order #100058", "#100058 has been updated"; `_claimed_in` binds the clause to its
# order). "Bought before the price change" claims no change.
_CHANGE_VERB = (r"(?:cancell?ed|changed|updated|modified|adjusted|amended|voided|merged|reissued|storniert|geändert|"
                r"aktualisiert|angepasst|anulad[oa]|cancelad[oa]|modificad[oa]|actualizad[oa]|ajustad[oa]|annulée?|"
                r"modifiée?|ajustée?)\b")
# The change is one done to something: passive ("#100058 has been cancelled", "wurde storniert", "a été annulée"),
# done by us ("I cancelled your order", "we'll update it", "wir haben Ihre Bestellung ... storniert", the German
# participle far at the clause's end), or a clause that opens with it ("... and cancelled it"). "The price changed
# after you placed #100058" and "the price has changed" (no passive, no agent of ours) are no change done to it.
_CHANGED = re.compile(
    r"\b(?:was|were|is|are|been|be|being|got|gets|ha sido|han sido|fue|fueron|a été|ont été|est|sont)\s+"
    rf"(?:\S+\s+){{0,2}}?{_CHANGE_VERB}|"
    rf"\b(?:i|we|i've|we've|i'd|we'd|i have|we have|hemos|he|nous avons|j'ai)\b(?:\s+\S+){{0,3}}?\s+{_CHANGE_VERB}|"
    rf"\b(?:ich habe|wir haben|wurden?|ist|sind|worden)\b(?:\s+\S+){{0,10}}?\s+{_CHANGE_VERB}|"
    r"\b(?:i|we|ich|wir)(?:'ll|\s+will|\s+are going to|\s+am going to|\s+werden|\s+werde)\s+(?:now\s+)?(?:\S+\s+){0,3}?"
    r"(?:cancel|change|update|modify|adjust|amend|void|merge|stornieren|ändern)\b|"
    rf"^\s*(?:(?:also|then|now|already|just)\s+)*{_CHANGE_VERB}|"
    # The Spanish preterite needs no "he"/"hemos": "anulé su pedido", "se canceló", "cancelamos el pedido".
    # ("El precio cambió" or "el seguimiento se actualizó" tells of no act on the order: only cancelling and
    # modifying are read.)
    r"\b(?:(?:anul|cancel)(?:é|ó|amos|aron)|modifiqué|modific(?:ó|amos|aron))\b")
# A ruling that an order cannot be refunded, in a clause naming it ("the items on order #100058 cannot be refunded:
# final sale"). In replies that never name the ticket's order it aims the refusal at another order. "I haven't
# refunded #100058" tells what was done, and rules on nothing.
_RULING = re.compile(
    r"\b(?:cannot|can't|can ?not|unable to|not eligible|ineligible|not possible|impossible|non-?refundable|"
    r"not refundable|no refund is possible|kann nicht|können nicht|nicht erstattungsfähig|no (?:se )?puede|"
    r"no es posible|ne peut pas|ne pouvons pas|impossible de)")
_REFUND_WORD = re.compile(r"\b(?:refund\w*|reimburs\w*|money back|erstatt\w*|reembols\w*|rembours\w*)")
# A clause without a subject of its own, which continues its sentence's subject ("Order #100058, which you asked
# about, has also been refunded"): it opens with an auxiliary or a verb, after adverbs.
_NO_SUBJECT = re.compile(
    r"^\s*(?:(?:also|then|now|already|just|meanwhile|too|since|auch|bereits|schon|ya|también|déjà|aussi)\s+)*"
    r"(?:has|have|had|was|were|is|are|will|would|shall|been|being|got|gets|hat|haben|wurde|wurden|ist|sind|wird|"
    r"werden|ha|han|fue|fueron|será|serán|a été|ont été|est|sont|sera|seront|[^\W\d_]+ed)\b|"
    # A participle or a Spanish preterite opens it: "... geprüft und storniert", "... y reembolsé 40,00", "... et
    # remboursée". German puts the participle last: "... und Ihnen 40,00 € erstattet" has no subject of its own.
    r"^\s*(?:(?:auch|bereits|schon|también|ya|además|luego|aussi|déjà)\s+)*(?:(?:le|les|se|lo|la|los|las)\s+)*"
    r"(?:ge[^\W\d_]+t|[^\W\d_]+iert|(?:zurück|rück)?erstattet|überwiesen|[^\W\d_]+(?:ado|ada|ido|ida)s?|"
    r"[^\W\d_]+(?:é|ó|ió|aron|ieron)|[^\W\d_]+(?:ée?s?))(?![\w'])|"
    r"^(?!.*\b(?:ich|wir|er|es|man|sie)\b).*\b(?:ge[^\W\d_]+t|[^\W\d_]+iert|(?:zurück|rück)?erstattet|"
    r"überwiesen)\W*$")
# A relative clause describes the noun before it and leaves the sentence's subject open ("which I checked").
_RELATIVE = re.compile(r"^\s*(?:which|who|that|whose|where|die|der|das|welche[rs]?|que|qui|cual|lequel|laquelle)\b")
# A pronoun for the order the sentence is about: "... and we cancelled it".
_PRONOUN = re.compile(r"\b(?:it|them|this one|that one|this order|that order|the order)\b")
# The words a bare mention of an order is made of ("and #100058", "and your other order #100058 too"): such a
# clause has no verb, so it shares the claim of the clause beside it.
_BARE_WORDS = frozenset({
    "your", "the", "other", "another", "second", "first", "order", "orders", "number", "no", "nr", "also", "too",
    "as", "well", "both", "on", "for", "of", "to", "with", "from", "#", "ihre", "ihrer", "die", "der", "bestellung",
    "bestellnummer", "auch", "für", "von", "auf", "su", "sus", "el", "la", "del", "pedido", "también", "para", "por",
    "en", "de", "votre", "vos", "le", "du", "commande", "aussi", "pour", "sur", "usd", "eur", "gbp"})
_WORD = re.compile(r"[^\W\d_][\w'-]*|#")
# A sentence that says an order is fine hands on no subject to the next: "#100058 arrived fine. I refunded 25.00."
_FINE = re.compile(r"\b(?:fine|ok|okay|in order|as expected|safely|without (?:any )?(?:problems?|issues?)|all good|"
                   r"in ordnung|problemlos|einwandfrei|sin problemas|correctamente|en orden|bien|sans problème|"
                   r"correctement)\b")

@dataclass(frozen=True)
class NamedOrders:
    """The other orders a reply names, by what is wrong with naming them.

    Attributes:
        foreign: Numbers of another customer's orders, named (a disclosure), but those in `may_name`.
        claimed: Numbers of the requester's own other orders, or of `may_name`, that a clause names as where
            money or goods went, or as changed; and the customer's own orders a refusal is aimed at in replies
            that never name the ticket's order.
    """

    foreign: tuple[str, ...]
    claimed: tuple[str, ...]


def _codes(s: Sentence) -> set[str]:
    return set(extract_codes(s.text, ORDER_NUMBER))


def _left_as_is(clause: Sentence) -> bool:
    """Whether a clause says nothing was done (negated, conditional) or that the order was left as it was."""
    return clause.negated or clause.conditional or bool(_LEFT_AS_IS.search(clause.text))


def _rules_on(facts: ReplyFacts, code: str) -> bool:
    """Whether a clause naming order `code` rules that it cannot be refunded."""
    parts = [p for s in facts.sentences for p in s.parts(CLAUSE) if code in _codes(p)]
    return any(_RULING.search(p.text) and _REFUND_WORD.search(p.text) for p in parts if not p.conditional)


def _claims(clause: Sentence) -> bool:
    """Whether a clause claims money, goods, credit or a change done (whatever it is about)."""
    return claims_money(clause) or claims_goods_or_credit(clause) or bool(_CHANGED.search(clause.text))


def _bare(clause: Sentence) -> bool:
    """Whether a clause only names orders, without a verb ("#100058", "your other order #100058 too")."""
    return all(w in _BARE_WORDS for w in _WORD.findall(clause.text))


def _claimed_in(sentence: Sentence) -> set[str]:
    """The orders a sentence claims money, goods or a change of, each claim bound to its order by the clauses.

    A claim is about the orders its clause names; a clause naming none is about the sentence's subject when it
    has no subject of its own ("Order #B, which you asked about, has also been refunded") and about the order the
    sentence opens with when it refers back by a pronoun ("Order #A was a duplicate of #B, and we cancelled it":
    #A); one with a subject of its own and no pronoun ("so I have refunded 25.00") is about none named. A bare
    mention of orders shares the claim of the clause before it ("I refunded #A and #B"), or else after it ("For #B:
    I issued a refund"). A clause that leaves its order alone (negated, conditional, "unaffected") claims nothing.
    """
    parts = sentence.parts(CLAUSE)
    codes = [_codes(p) for p in parts]
    claims = [_claims(p) and not _left_as_is(p) and not p.governed for p in parts]
    named = [i for i, c in enumerate(codes) if c]
    if not named or not any(claims):
        return set()  # before reading the clauses' shapes
    out: set[str] = set()
    for i, p in enumerate(parts):
        if claims[i] and codes[i]:
            out |= codes[i]
        elif claims[i] and _NO_SUBJECT.match(p.text):
            subject = [j for j in named if j < i and not _RELATIVE.match(parts[j].text)]
            out |= {_first_code(parts[subject[-1]])} if subject else set()
        elif claims[i] and _PRONOUN.search(p.text):
            out.add(_first_code(parts[named[0]]))
        elif codes[i] and _bare(p) and not _left_as_is(p):
            beside = [j for j in (i - 1, i + 1) if 0 <= j < len(parts) and claims[j] and not codes[j]]
            out |= codes[i] if beside or (i > 0 and claims[i - 1]) else set()
    return out


def _first_code(clause: Sentence) -> str:
    """The order a clause names first: its subject ("order #A was a duplicate of #B" is about #A)."""
    return extract_codes(clause.text, ORDER_NUMBER)[0]


def _claimed(facts: ReplyFacts, code: str, own_words: frozenset[str] = frozenset()) -> bool:
    """Whether the replies claim money or goods went to order `code`, or that it was changed."""
    return any(code in _claimed_in(s) for s in facts.sentences if code in _codes(s)) or \
        _claimed_after(facts, code, own_words)


def _claimed_after(facts: ReplyFacts, code: str, own_words: frozenset[str]) -> bool:
    """Whether a sentence that names no order claims money, goods or a change right after a sentence of the same
    reply about order `code` alone: "Your order #100058 was damaged too. I refunded 40.00." binds the refund to
    #100058 as surely as one sentence would. A sentence that leaves the order as it was ("#100058 is not affected",
    "... arrived fine") hands on no subject, and neither does a claim that names an item only the ticket's order
    has (`own_words`: "I refunded 25.00 for the damaged lamp")."""
    starts = {0, *facts.reply_starts}
    for i, s in enumerate(facts.sentences):
        if i in starts or _codes(s):
            continue
        before = facts.sentences[i - 1]
        if _codes(before) != {code} or _left_as_is(before) or _FINE.search(before.text):
            continue
        if own_words & set(_WORD.findall(s.text)):
            continue
        if any(_claims(p) and not _left_as_is(p) and not p.governed for p in s.parts(CLAUSE)):
            return True
    return False


def _owned_by(state: State, number: str, people: frozenset[str]) -> bool:
    """Whether every order numbered `number` is one of the person's (records `people`)."""
    ids = order_ids_by_number(state, number)
    orders = [o for i in ids if (o := state.get(ORDERS, i)) is not None]
    return bool(orders) and all(o.customer_id in people for o in orders)


def _own_words(state: State, order: Order, code: str) -> frozenset[str]:
    """The words of the ticket's order's items that no order numbered `code` has ("lamp" when only it has one)."""
    def words(o: Order) -> set[str]:
        return {w.lower() for ln in o.lines for w in _WORD.findall(ln.name) if len(w) > 2}
    others = set().union(*(words(o) for i in order_ids_by_number(state, code) if (o := state.get(ORDERS, i))))
    return frozenset(words(order) - others)


def named_orders(state: State, facts: ReplyFacts, order: Order, may_name: Collection[str] = ()) -> NamedOrders:
    """Returns the orders besides `order` the replies name wrongly (see the module docstring).

    The requester is the person behind `order`'s customer record (every record of theirs, by
    `person_records`): an order under another of their records is still their own.
    """
    others = {c for c in facts.codes if order_ids_by_number(state, c) - {order.id}}
    people = person_records(state, order.customer_id)
    own = {c for c in others if _owned_by(state, c, people)}
    allowed = set(may_name)
    foreign = sorted(others - own - allowed)
    claimed = {c for c in own | (allowed & set(facts.codes)) if _claimed(facts, c, _own_words(state, order, c))}
    # A refusal aimed at another of the customer's orders, the ticket's own never named, is a wrong target; beside
    # the ticket's order, "I can't refund #100058, which shipped" explains the case.
    if order.number not in facts.codes:
        claimed |= {c for c in own if _rules_on(facts, c)}
    return NamedOrders(foreign=tuple(foreign), claimed=tuple(sorted(claimed)))
