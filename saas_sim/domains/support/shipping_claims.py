"""False claims about a parcel not yet delivered: that it is lost, that it already came, or a promise.

An order that is `processing` or `shipped` is on its way (policy rule 18: a parcel in transit is not lost).
A reply that affirms it is lost or will never come, that it already arrived (delivered, at the door, with a
neighbour), or that promises what the records hold nothing of (a delivery day or hour, a faster service, a
guarantee) states something false. Shared by `shipping_answer` (the verdict the simulated customer uses) and
`judge.truth_problems` (the truth constraint), so the customer believes exactly what the checks accept.

The patterns only flag clauses; they are never the evidence that a goal was met. A clause claims only when
it is affirmed ("it is not lost" is true), no condition or time to come ("once it has arrived, ..."), and
not the customer's worry told back ("I know you fear it got lost"). A hedged estimate ("it should arrive
in a few days", "the carrier estimates Friday") promises nothing, so it is left to the records: they hold
no estimate to contradict it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from saas_sim.core.text_facts import extract_dates
from saas_sim.domains.support.models import Order
from saas_sim.domains.support.reply_facts import ReplyFacts, Sentence

__all__ = ["shipping_claim_problems"]

_ON_ITS_WAY = ("processing", "shipped")
"""Order statuses of a parcel not yet at the customer: neither arrived nor lost."""

# A "no" that negates nothing ("upgraded at no cost", "no worries, it arrived"): read out before negation.
_BENIGN_NO = re.compile(r"\b(?:at|for|with) no (?:extra |additional )?(?:cost|charge|fee)s?\b|\bno charge\b|"
                        r"\bno (?:worries|problem)\b|\bas promised\b|\bwie versprochen\b|\bcomo promet\w+\b|"
                        r"\bcomme promis\b|\brest assured\b")
_CLAUSE = re.compile(r"[,;:()]|\s[-\u2013\u2014]\s|\b(?:and|but|however|so|because|though|although|while|whereas|"
                     r"und|aber|doch|weil|pero|porque|y|et|mais|donc|car)\b")
# A clause opening with a condition or a time to come makes itself and the next clause no claim ("once it has
# arrived, it will be at your door").
_OPENS_CONDITION = re.compile(r"^\s*(?:once|when|whenever|after|until|till|before|as soon as|by the time|unless|"
                              r"wenn|sobald|falls|nachdem|bis|cuando|una vez|hasta que|si|dès que|quand|lorsque|"
                              r"jusqu)\b")
_CONDITION_INSIDE = re.compile(r"\b(?:in case|unless|im falle|en caso|au cas)\b")
# The customer's worry or words told back: "I know you're worried it got lost" claims nothing.
_RETOLD = re.compile(r"\b(?:worr\w*|afraid|fear\w*|concern\w*|wonder\w*|anxious|you\s+(?:\w+\s+){0,2}?(?:think|thought|"
                     r"suspect\w*|assum\w*|believ\w*|ask\w*|mention\w*|wrote|said|say|feel|felt)|sorge\w*|"
                     r"befürcht\w*|preocup\w*|teme\w*|inquiet\w*|craign\w*)\b")
# A time to come: such a clause is judged as a promise, never as a claim that the parcel already came.
_FUTURE = re.compile(r"\b(?:will|'ll|shall|going to|gonna|wird|werden|llegará|llegarán|recibirá|será|sera|seront|"
                     r"arrivera|arriveront|recevrez|recevra)\b")
# A hedge: an estimate or a possibility is no promise, and no claim that the parcel came.
_HEDGE = re.compile(r"\b(?:should|would|expect\w*|estimat\w*|usually|typically|normally|generally|likely|probably|"
                    r"hopefully|hope|may(?!\s+\d)|might|could|approximately|roughly|aim\w*|try|trying|"
                    r"voraussichtlich|normalerweise|wahrscheinlich|sollte\w*|estimad\w*|normalmente|probablemente|"
                    r"debería\w*|prévu\w*|normalement|probablement|devrait)\b")
_PARCEL = r"(?:it|them|(?:the|your)\s+(?:\w+\s+)?(?:parcel|package|order|shipment|delivery|item|items|goods|box))"

# Lost or never coming (flags): "your parcel is lost", "it went missing", "it will not reach you". A claim
# about a lost-parcel claim or form ("we can open a lost parcel claim") is no claim of loss.
_LOST = re.compile(r"\b(?:lost|went missing|gone missing|goes missing|is missing|are missing|disappeared|vanished|"
                   r"verloren|verschollen|abhanden|perdid[oa]s?|extraviad[oa]s?|perdue?s?|égarée?s?)\b"
                   r"(?![- ](?:parcel |package |shipment )?(?:claim|investigation|report|process|procedure|form|"
                   r"request|case))")
_NEVER_COMES = re.compile(
    r"\b(?:will|is going to|are going to|can)(?:\s+not|n't|\s+never|\s+no longer)\s+(?:be able to\s+)?"
    r"(?:reach|arrive|get to|be delivered|make it|come)\b|\bwon't\s+(?:be able to\s+)?(?:reach|arrive|get to|"
    r"be delivered|make it|come)\b|\bnever\s+(?:reach|arrive|get to|be delivered|make it|come)\b|"
    r"\b(?:nie|nicht mehr)\s+ankommen\b|\bno llegará\b|\bn'arrivera (?:pas|jamais)\b")
# A time bound makes "it will not arrive" a timing claim, not a loss ("it won't arrive before Friday").
_TIME_BOUND = re.compile(r"\b(?:before|until|till|by|today|tonight|tomorrow|in time|on time|this week|yet|bis|vor|"
                         r"antes|hasta|avant)\b")

# Already at the customer (flags): "it arrived on Monday", "it was delivered", "it is sitting at your door",
# "the tracking shows it as delivered", "you received it".
_ARRIVED = re.compile(
    r"\barrived\b|\b(?:was|were|has been|have been|had been|got|'s been)\s+(?:already\s+|now\s+|just\s+|"
    r"successfully\s+)?(?:delivered|dropped off|handed over|signed for)\b|"
    r"\b(?:is|are|'s)\s+(?:already\s+|now\s+)?delivered\b(?!\s+by\b)|"
    rf"\b(?:delivered|dropped off|handed over)\s+(?:{_PARCEL}|on|yesterday|last|this|at|to)\b|"
    r"\b(?:marked|shows?|showing|shown|listed|says|status)\s+(?:\w+\s+){0,2}?[\"']?(?:delivered|arrived)\b|"
    rf"\byou(?:'ve|\s+have|\s+already|\s+have already)?\s+(?:received|got|collected|picked up)\s+{_PARCEL}\b|"
    r"\b(?:is|are|'s|was|were|sitting|waiting|left|placed|dropped|lying|been)\s+(?:\w+\s+){0,3}?"
    r"(?:at|on|in|by|outside|with)\s+(?:your|the)\s+(?:front\s+|back\s+)?(?:door|doorstep|porch|mailbox|letterbox|"
    r"post ?box|parcel locker|neighbou?rs?|reception|concierge|garage|house|home)\b|"
    r"\b(?:zugestellt|ausgeliefert|angekommen|entregad[oa]s?|llegó|ha llegado|han llegado|est arrivée?|"
    r"sont arrivée?s|a été livrée?|ont été livrée?s|déjà livrée?)\b")
# Arrival at a stop on the way ("it arrived at the UPS depot") is transit, and a message arriving is no parcel.
_WAYPOINT = re.compile(r"\b(?:depot|hub|facility|sorting|cent(?:re|er)|warehouse|distribution|customs|terminal|"
                       r"station|post office|zentrum|lager|zoll|centro|almacén|aduana|entrepôt|douane|dépôt|"
                       r"message|e-?mail|request|ticket|note|reply|question|letter|inquiry|enquiry)\b")
_NOT_YET = re.compile(r"\b(?:yet|still|to be delivered|to arrive|noch|todavía|aún|encore)\b")

# Promised (flags): a delivery day or hour stated as certain ("it will be at your door by 9am tomorrow").
_WILL_COME = re.compile(
    r"\b(?:will|'ll|shall|is going to|are going to|gonna|wird|werden)\s+(?:\w+\s+){0,2}?(?:arrive|be delivered|"
    r"deliver|be dropped|reach you|reach your|get to you|be (?:at|on|in|with|outside) your|be with you|be there|"
    r"land|show up|turn up|have it|receive it|receive your|ankommen|zugestellt|geliefert|bei ihnen)\b|"
    r"\b(?:llegará|llegarán|será entregad[oa]|recibirá|arrivera|arriveront|sera livrée?|recevrez|recevra)\b")
_WHEN = re.compile(
    r"\b(?:today|tonight|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|morning|"
    r"afternoon|evening|noon|midday|midnight|next week|this week|end of (?:the )?(?:day|week)|within \d+|in \d+|"
    r"\d+ (?:business |working )?(?:days?|hours?)|\d{1,2}\s?(?:am|pm|a\.m\.|p\.m\.|uhr|h)|\d{1,2}:\d{2}|"
    r"\d{1,2}(?:st|nd|rd|th)|january|february|march|april|may|june|july|august|september|october|november|"
    r"december|heute|morgen|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|hoy|mañana|lunes|martes|"
    r"miércoles|jueves|viernes|sábado|domingo|aujourd'hui|demain|lundi|mardi|mercredi|jeudi|vendredi|samedi|"
    r"dimanche)\b")
# A service the order never had: "I have upgraded it to express", "we will send it by overnight courier".
_UPGRADE = re.compile(
    r"\b(?:upgrad(?:ed|ing|e)|expedit(?:ed|ing|e)|rushed|fast[- ]tracked|prioriti[sz]ed)\b|"
    r"\b(?:sent|send|sending|ship|shipped|shipping|deliver\w*|travel\w*|go|goes|going|switched|moved|changed|put)\s+"
    r"(?:\w+\s+){0,3}?(?:by|via|with|as|to|on)\s+(?:an?\s+)?(?:express|overnight|priority|next[- ]day|same[- ]day|"
    r"premium)\b|\bexpress(?:versand|zustellung|lieferung)\b|\bbeschleunigt\b|\benvío (?:urgente|exprés|express)\b|"
    r"\b(?:livraison|envoi) express\b")
# The customer's own option, now or later ("you can choose express next time"): no upgrade claimed.
_THEIR_OPTION = re.compile(r"\byou\s+(?:can|could|may|might|are welcome to)\b|\bnext time\b|\bfuture\b|\bkünftig\b|"
                           r"\bpróxima\b|\bprochaine\b")
_GUARANTEE = re.compile(r"\b(?:guarantee\w*|promis\w*|assure you|garantier\w*|versprech\w*|zusicher\w*|garantiz\w*|"
                        r"prometo|prometemos|le aseguro|te aseguro|garantis\w*|je vous assure|promets|promettons)\b")
_ABOUT_DELIVERY = re.compile(r"arriv|deliver|reach|door|get to you|ankomm|zustell|liefer|lleg|entreg|livr")


def _clauses(facts: ReplyFacts) -> Iterator[tuple[Sentence, Sentence]]:
    """Yields (sentence, clause) for every clause that claims something: affirmed, not under a condition."""
    for sentence in facts.sentences:
        conditioned = False
        for clause in sentence.without(_BENIGN_NO).parts(_CLAUSE):
            opens = bool(_OPENS_CONDITION.search(clause.text))
            if clause.affirms and not conditioned and not opens and not _CONDITION_INSIDE.search(clause.text):
                yield sentence, clause
            conditioned = opens


def _never_comes(facts: ReplyFacts) -> bool:
    """Whether a clause says the parcel will not come (a negated clause, so read apart from `_clauses`)."""
    return any(_NEVER_COMES.search(c.text) and not _TIME_BOUND.search(c.text) and not c.conditional
               and not _RETOLD.search(c.text) and not _HEDGE.search(c.text)
               for s in facts.sentences for c in s.parts(_CLAUSE))


def _lost(clause: Sentence) -> bool:
    return bool(_LOST.search(clause.text)) and not _RETOLD.search(clause.text) and not _HEDGE.search(clause.text)


def _arrived(clause: Sentence) -> bool:
    text = clause.text
    return (bool(_ARRIVED.search(text)) and not _FUTURE.search(text) and not _HEDGE.search(text)
            and not _RETOLD.search(text) and not _WAYPOINT.search(text) and not _NOT_YET.search(text))


def _promised_when(clause: Sentence) -> bool:
    text = clause.text
    if not _WILL_COME.search(text) or _HEDGE.search(text) or _RETOLD.search(text):
        return False
    return bool(_WHEN.search(text)) or bool(extract_dates(text, clause.lang))


def _upgraded(clause: Sentence) -> bool:
    text = clause.text
    return bool(_UPGRADE.search(text)) and not _THEIR_OPTION.search(text) and not _HEDGE.search(text)


def _guaranteed(sentence: Sentence, clause: Sentence) -> bool:
    return bool(_GUARANTEE.search(clause.text)) and bool(
        _ABOUT_DELIVERY.search(sentence.text) or _WHEN.search(sentence.text))


def shipping_claim_problems(facts: ReplyFacts, order: Order) -> list[str]:
    """Returns the false claims the replies make about `order`'s parcel while it is on its way (empty: none).

    False for an order `processing` or `shipped`: that it is lost or will never come, that it already
    arrived, a delivery day or hour promised as certain, a faster service (an upgrade the records do not
    show), a guarantee of delivery. An order in another status is not judged here.
    """
    if order.status not in _ON_ITS_WAY:
        return []
    said = list(_clauses(facts))
    found = {
        "is lost or will not come": _never_comes(facts) or any(_lost(c) for _, c in said),
        "already arrived": any(_arrived(c) for _, c in said),
        "will come at a promised time": any(_promised_when(c) for _, c in said),
        "was upgraded to a faster service": any(_upgraded(c) for _, c in said),
        "is guaranteed to arrive": any(_guaranteed(s, c) for s, c in said),
    }
    return [f"a reply says the parcel of order {order.number} {claim}; the order is {order.status} and its records "
            f"show nothing of the kind" for claim, ok in found.items() if ok]
