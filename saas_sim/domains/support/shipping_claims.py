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
from saas_sim.domains.support.reply_facts import MONEY_DESTINATION, ReplyFacts, Sentence

__all__ = ["shipping_claim_problems"]

_ON_ITS_WAY = ("processing", "shipped")
"""Order statuses of a parcel not yet at the customer: neither arrived nor lost."""

# A "no" that negates nothing ("upgraded at no cost", "no worries, it arrived"): read out before negation.
_BENIGN_NO = re.compile(r"\b(?:at|for|with) no (?:extra |additional )?(?:cost|charge|fee)s?\b|\bno charge\b|"
                        r"\bno (?:worries|problem)\b|\bas promised\b|\bwie versprochen\b|\bcomo promet\w+\b|"
                        r"\bcomme promis\b|\brest assured\b")
# A comma or colon between digits belongs to a figure ("9:30", "1,250.00"), as in `reply_facts`.
_CLAUSE = re.compile(r"[,:](?!\d)|(?<!\d)[,:]|[;()]|\s[-\u2013\u2014]\s|\b(?:and|but|however|so|because|though|"
                     r"although|while|whereas|und|aber|doch|weil|pero|porque|y|et|mais|donc|car)\b")
# The customer's worry or words told back: "I know you're worried it got lost" claims nothing.
_RETOLD = re.compile(r"\b(?:worr\w*|afraid|fear\w*|concern\w*|wonder\w*|anxious|you\s+(?:\w+\s+){0,2}?(?:think|thought|"
                     r"suspect\w*|assum\w*|believ\w*|ask\w*|mention\w*|wrote|said|say|feel|felt)|sorge\w*|"
                     r"befürcht\w*|preocup\w*|teme\w*|inquiet\w*|craign\w*)\b")
# A time to come: such a clause is judged as a promise, never as a claim that the parcel already came.
_FUTURE = re.compile(r"\b(?:will|'ll|shall|going to|gonna|wird|werden|llegará|llegarán|recibirá|será|sera|seront|"
                     r"arrivera|arriveront|recevrez|recevra)\b")
# The reader shown a fact ("you'll see it was delivered", "you can see that it arrived"): the fact is claimed, and the
# frame's "will" or "can" is no time to come or hedge of it.
_SEE_FRAME = re.compile(r"\byou(?:['\u2019]ll|\s+will|\s+can|\s+should|\s+may|\s+might|\s+would)?\s+"
                        r"(?:see|notice|find|spot)\s+(?:that\s+)?")
# A hedge: an estimate or a possibility is no promise, and no claim that the parcel came.
_HEDGE = re.compile(r"\b(?:should|would|expect\w*|estimat\w*|usually|typically|normally|generally|likely|probably|"
                    r"hopefully|hope|may(?!\s+\d)|might|could|approximately|roughly|aim\w*|try|trying|"
                    r"voraussichtlich|normalerweise|wahrscheinlich|sollte\w*|estimad\w*|normalmente|probablemente|"
                    r"debería\w*|prévu\w*|normalement|probablement|devrait)\b")
_PARCEL = r"(?:it|them|(?:the|your)\s+(?:\w+\s+)?(?:parcel|package|order|shipment|delivery|item|items|goods|box))"

# Lost or never coming (flags): "your parcel is lost", "it went missing", "USPS misplaced it", "it will not reach
# you". A claim about a lost-parcel claim or form ("we can open a lost parcel claim") is no claim of loss.
_LOST = re.compile(r"\b(?:lost|went missing|gone missing|goes missing|is missing|are missing|disappeared|vanished|"
                   r"misplaced|mislaid|destroyed|"
                   r"verloren|verschollen|abhanden|perdid[oa]s?|extraviad[oa]s?|perdue?s?|égarée?s?)\b"
                   r"(?![- ](?:parcel |package |shipment )?(?:claim|investigation|report|process|procedure|form|"
                   r"request|case))")
# In English a loss is claimed only of THIS parcel: "it" or "your/the parcel" as the subject ("your parcel is
# lost", "it got lost"), or as the object of a loss verb ("USPS has misplaced it"). Parcels in general ("parcels
# very rarely get lost") or a policy's definition ("we treat a parcel as lost after 10 days") claim nothing.
_THIS_PARCEL = (r"(?:it|yours|(?:the|this)\s+(?:[\w-]+\s+){0,2}?(?:parcel|package|order|shipment|delivery|item|"
                r"items|goods|box|consignment)|your\s+(?:[\w-]+\s+){0,2}?[\w-]+)")
_LOSS_EN = (r"(?:lost|went missing|gone missing|goes missing|missing|disappeared|vanished|misplaced|mislaid|"
            r"destroyed)")
_LOST_THIS = re.compile(
    rf"\b{_THIS_PARCEL}\s+(?:(?:is|are|was|were|has|have|had|been|be|got|gotten|get|gets|now|already|"
    rf"unfortunately|sadly|indeed|definitely|officially|completely|actually|apparently|really)\s+){{0,3}}"
    rf"{_LOSS_EN}\b|\b(?:lost|misplaced|mislaid|destroyed)\s+{_THIS_PARCEL}\b")
_LOST_EN_WORD = re.compile(rf"\b{_LOSS_EN}\b")
# A definition of when a parcel counts as lost ("we treat your parcel as lost only after 10 days") claims nothing.
_LOSS_RULE = re.compile(r"\b(?:treat\w*|consider\w*|deem\w*|declar\w*|regard\w*|count\w*|class\w*|mark\w*)\b"
                        r".*\bas lost\b.*\b(?:after|until|till|unless|if|once|when|only)\b")
_NEVER_COMES = re.compile(
    r"\b(?:(?:will|is going to|are going to|can)(?:\s+not|n['\u2019]t|\s+never|\s+no longer)|cannot|can['\u2019]t|"
    r"won['\u2019]t)\s+(?:be able to\s+)?(?:reach|arrive|get to|be delivered|make it|come|"
    rf"deliver\s+{_THIS_PARCEL})\b|"
    r"\bnever\s+(?:reach|arrive|get to|be delivered|make it|come)\b|"
    r"\b(?:nie|nicht mehr)\s+ankommen\b|\bno llegará\b|\bn'arrivera (?:pas|jamais)\b")
# A time bound makes "it will not arrive" a timing claim, not a loss ("it won't arrive before Friday").
_TIME_BOUND = re.compile(r"\b(?:before|until|till|by|today|tonight|tomorrow|in time|on time|this week|yet|bis|vor|"
                         r"antes|hasta|avant)\b")

# Already at the customer (flags): "it arrived on Monday", "it was delivered", "it is sitting at your door",
# "the tracking shows it as delivered", "you received it".
_ARRIVED = re.compile(
    r"\barrived\b|\b(?:was|were|has been|have been|had been|got|['\u2019]s been)\s+(?:already\s+|now\s+|just\s+|"
    r"successfully\s+)?(?:delivered|dropped off|handed over|signed for)\b|"
    r"\b(?:is|are|['\u2019]s)\s+(?:already\s+|now\s+)?delivered\b(?!\s+by\b)|"
    rf"\b(?:delivered|dropped off|handed over)\s+(?:{_PARCEL}|on|yesterday|last|this|at|to)\b|"
    r"\b(?:marked|shows?|showed|showing|shown|listed|says|said|status)\s+(?:\w+\s+){0,2}?[\"'\u2019]?(?:delivered|arrived)\b|"
    rf"\byou(?:['\u2019]ve|\s+have|\s+already|\s+have already)?\s+(?:received|got|collected|picked up)\s+{_PARCEL}\b|"
    r"\b(?:is|are|['\u2019]s|was|were|sitting|waiting|left|placed|dropped|lying|been)\s+(?:\w+\s+){0,3}?"
    r"(?:at|on|in|by|outside|with)\s+(?:your|the)\s+(?:front\s+|back\s+)?(?:door|doorstep|porch|mailbox|letterbox|"
    r"post ?box|parcel locker|neighbou?rs?|reception|concierge|garage|house|home)\b|"
    r"\b(?:zugestellt|ausgeliefert|angekommen|entregad[oa]s?|llegó|ha llegado|han llegado|est arrivée?|"
    r"sont arrivée?s|a été livrée?|ont été livrée?s|déjà livrée?)\b")
# The customer or their address as a place: where a parcel that came is.
_AT_CUSTOMER = (r"(?:you\b|(?:your|the|a)\s+(?:[\w-]+\s+){0,2}?(?:address|door|doorstep|doorway|porch|mailbox|"
                r"letterbox|post ?box|parcel locker|neighbou?rs?|reception|concierge|front desk|mailroom|garage|house|"
                r"home|flat|apartment)\b)")
# Arrival told with another verb or a noun, at the customer ("it reached you on Monday", "it landed on your
# doorstep", "it was received at your address", "tracking confirms delivery to your address").
_CAME_TO_YOU = re.compile(
    rf"\breached\s+(?:(?:safely|already|just|finally)\s+)?{_AT_CUSTOMER}|"
    r"\b(?:landed|got|made it|came|turned up|showed up|ended up|received|left|dropped|delivered|handed over|"
    r"dropped off)\s+(?:(?:safely|already|just|finally|successfully|yesterday|today|earlier)\s+)?"
    rf"(?:to|at|on|in|into|outside|by|with)\s+{_AT_CUSTOMER}|"
    r"\b(?:confirm\w*|show\w*|record\w*|complet\w*|successful|log\w*|made|proof of)\s+(?:\w+\s+){0,2}?"
    rf"deliver(?:y|ed)\s+(?:\w+\s+){{0,2}}?(?:to|at)\s+{_AT_CUSTOMER}")
# Where an arrival verb took the parcel: to a carrier, or into a region, city or facility, it is on its way
# ("it was handed over to USPS", "it arrived in your region this morning").
_ARRIVAL_WORD = re.compile(r"\b(?:arrived|delivered|dropped off|handed over|signed for)\b")
_AT_CUSTOMER_AT = re.compile(_AT_CUSTOMER)
_TO_SOMEONE = re.compile(r"\s+(?:[\w'\u2019-]+\s+){0,3}?to\s+")
_INTO_PLACE = re.compile(
    r"\s+(?:[\w'\u2019-]+\s+){0,3}?(?:in|into|at|inside|within|near)\s+(?:the|a|an|their|its|our|your|his|her)?\s*"
    r"(?:[\w'\u2019-]+\s+){0,2}?(?:region|city|town|area|country|state|county|province|district|neighbou?rhood|"
    r"network|system|facility|depot|hub|cent(?:re|er)|warehouse|terminal|station|office|branch|airport|port|"
    r"location|site|sorting|distribution|customs)\b")
_TIME_WORDS = re.compile(r"(?:the\s+|this\s+|last\s+)?(?:\d|today|tonight|tomorrow|yesterday|monday|tuesday|wednesday|"
                         r"thursday|friday|saturday|sunday|weekend|morning|afternoon|evening|noon|midday|night|time|"
                         r"january|february|march|april|may|june|july|august|september|october|november|december)")
# Arrival at a stop on the way ("it arrived at the UPS depot") is transit, and a message arriving is no parcel.
_WAYPOINT = re.compile(r"\b(?:depot|hub|facility|sorting|cent(?:re|er)|warehouse|distribution|customs|terminal|"
                       r"station|post office|zentrum|lager|zoll|centro|almacén|aduana|entrepôt|douane|dépôt|"
                       r"message|e-?mail|request|ticket|note|reply|question|letter|inquiry|enquiry)\b")
_NOT_YET = re.compile(r"\b(?:yet|still|to be delivered|to arrive|noch|todavía|aún|encore)\b")
# A delivery planned, not done: "delivery to your address is scheduled for Friday".
_PLANNED = re.compile(r"\b(?:scheduled|planned|booked|pending|due|attempt\w*|out for delivery|on (?:its|the) way)\b")

# Promised (flags): a delivery day or hour stated as certain ("it will be at your door by 9am tomorrow").
_WILL_COME = re.compile(
    r"\b(?:will|['\u2019]ll|shall|is going to|are going to|gonna|wird|werden)\s+(?:\w+\s+){0,2}?(?:arrive|be delivered|"
    r"deliver|be dropped|reach you|reach your|get to you|be (?:at|on|in|with|outside) your|be with you|be there|"
    r"land|show up|turn up|have it|receive it|receive your|ankommen|zugestellt|geliefert|bei ihnen)\b|"
    r"\b(?:llegará|llegarán|será entregad[oa]|recibirá|arrivera|arriveront|sera livrée?|recevrez|recevra)\b")
# The present or progressive said of THIS parcel is a promise too, once a day or hour is named ("your parcel
# arrives tomorrow at 9am", "it's arriving Friday by 10am", "it's coming tomorrow morning for sure"); a rule
# about parcels in general ("standard shipping arrives in 3-5 days") has no such subject.
_COMES = re.compile(
    rf"\b{_THIS_PARCEL}(?:['\u2019]s|\s+is|\s+are)?\s+(?:(?:now|definitely|certainly|surely)\s+)?"
    r"(?:arrives|arriving|comes|coming|reaches you|reaching you|gets to you|getting to you|lands|landing|"
    r"shows up|showing up|turns up|turning up|gets delivered|getting delivered|being delivered|"
    r"due|set to (?:arrive|be delivered|reach you))\b")
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
    r"\b(?:upgrad(?:ed|ing|e)|expedit(?:ed|ing|e)|rushed|fast[- ]tracked|prioriti[sz]ed|bump(?:ed|ing)?(?:\s+\w+)?"
    r"\s+up)\b|"
    r"\b(?:sent|send|sending|sends|ship|ships|shipped|shipping|deliver\w*|travel\w*|go|goes|going|switched|moved|"
    r"changed|put|bump(?:ed|ing)?)\s+(?:\w+\s+){0,3}?(?:(?:by|via|with|as|to|on|using)\s+)?(?:an?\s+)?"
    r"(?:express|overnight|priority|next[- ]day|same[- ]day|premium)\b|"
    r"\bexpress(?:versand|zustellung|lieferung)\b|\bbeschleunigt\b|\benvío (?:urgente|exprés|express)\b|"
    r"\b(?:livraison|envoi) express\b")
# The customer's own option, now or later ("you can choose express next time"): no upgrade claimed.
_THEIR_OPTION = re.compile(r"\byou\s+(?:can|could|may|might|are welcome to)\b|\bnext time\b|\bfuture\b|\bkünftig\b|"
                           r"\bpróxima\b|\bprochaine\b")
_GUARANTEE = re.compile(r"\b(?:guarantee\w*|promis\w*|assure you|garantier\w*|versprech\w*|zusicher\w*|garantiz\w*|"
                        r"prometo|prometemos|le aseguro|te aseguro|garantis\w*|je vous assure|promets|promettons)\b")
_ABOUT_DELIVERY = re.compile(r"arriv|deliver|reach|door|get to you|ankomm|zustell|liefer|lleg|entreg|livr")
# What a guarantee promises ends where a condition begins: "I promise we'll keep you updated until it's
# delivered" promises updates, not a delivery.
_SUBORDINATE = re.compile(r"\b(?:until|till|once|when|whenever|if|unless|after|as soon as|by the time|in case|"
                          r"bis|sobald|wenn|falls|hasta|cuando|si|jusqu|dès que|quand)\b")
# A guarantee said on its own ("..., guaranteed", "100% certain", "I promise"): it vouches for its neighbour.
_FILLER = re.compile(r"\b(?:i|we|can|do|you|that|it|this|is|s|am|are|be|fully|absolutely|percent|certain|sure|"
                     r"for|all)\b")
_LETTER = re.compile(r"[^\W\d_]")
# Money on its way is no parcel: a clause that sends money to the customer's card or account, or whose subject is
# money ("your refund will reach your card by Friday", "the refund for your order arrives tomorrow", "the 10.00 will
# be there Monday") claims nothing of the parcel. The subject is the first of money and parcel named.
_MONEY_PLACE = re.compile(rf"\b(?:to|into|onto|on|in|at|auf|zu|an|a|al|en|sur|vers|dans)\s+{MONEY_DESTINATION}")
_MONEY_THING = re.compile(r"\b(?:refund\w*|reimburs\w*|money|funds|amount|credit|payment|sum|(?:rück)?erstattung\w*|"
                          r"geld|betrag|gutschrift|reembolso\w*|dinero|importe|abono|remboursement\w*|argent|montant|"
                          r"virement)\b|[$€£]\s?\d|(?<![\d.,])\d+[.,]\d{2}(?!\d)")
_PARCEL_THING = re.compile(r"\b(?:it|they|parcel|package|shipment|delivery|item|items|goods|box|order|replacement|"
                           r"paket|sendung|lieferung|bestellung|ware|paquete|envío|pedido|artículo|colis|commande|"
                           r"livraison|article)\b")


def _about_money(text: str) -> bool:
    """Whether a clause is about money travelling, not the parcel (see `_MONEY_PLACE`)."""
    if _MONEY_PLACE.search(text):
        return True
    money = _MONEY_THING.search(text)
    parcel = _PARCEL_THING.search(text)
    return money is not None and (parcel is None or money.start() < parcel.start())


def _clauses(facts: ReplyFacts) -> Iterator[tuple[list[Sentence], int]]:
    """Yields (clauses of a sentence, index) for every clause that claims something: affirmed, no condition
    governing it (`Sentence.claims`: "once it has arrived, it will be at your door" claims nothing, "if you check
    the tracking, you'll see it was delivered" does), and not itself a condition or a time to come ("once it has
    arrived" tells no arrival). The sentence's other clauses come along: a bare "guaranteed" vouches for its
    neighbour."""
    for sentence in facts.sentences:
        parts = sentence.without(_BENIGN_NO).parts(_CLAUSE)
        for i, clause in enumerate(parts):
            if clause.claims and clause.opens is None and not _about_money(clause.text):
                yield parts, i


def _never_comes(facts: ReplyFacts) -> bool:
    """Whether a clause says the parcel will not come (a negated clause, so read apart from `_clauses`)."""
    return any(_NEVER_COMES.search(c.text) and not _TIME_BOUND.search(c.text) and not c.conditional and not c.governed
               and not _RETOLD.search(c.text) and not _HEDGE.search(c.text) and not _about_money(c.text)
               for s in facts.sentences for c in s.parts(_CLAUSE))


def _lost(clause: Sentence) -> bool:
    """Whether the clause says this parcel is lost: in English only of "it" or "your parcel" (not of parcels in
    general, nor in a rule for when one counts as lost); in other languages any affirmed loss word."""
    text = clause.text
    if _RETOLD.search(text) or _HEDGE.search(text) or _LOSS_RULE.search(text):
        return False
    return bool(_LOST_THIS.search(text)) or bool(_LOST.search(_LOST_EN_WORD.sub(" ", text)))


def _elsewhere(text: str, end: int) -> bool:
    """Whether the arrival verb ending at `end` took the parcel somewhere on the way, not to the customer:
    handed over to a carrier, arrived in a region, city or facility."""
    tail = text[end:]
    if to := _TO_SOMEONE.match(tail):
        target = tail[to.end():]
        if _AT_CUSTOMER_AT.match(target):
            return False
        if not _TIME_WORDS.match(target):
            return True
    return bool(_INTO_PLACE.match(tail))


def _arrived(clause: Sentence) -> bool:
    """Whether the clause says the parcel already came: to the customer, their address or door (an arrival
    verb that took it to a carrier or into a region or facility tells of transit). What follows a condition
    or a time to come ("I'll keep an eye on it until it has arrived") claims nothing."""
    text = _SUBORDINATE.split(_SEE_FRAME.sub("", clause.text), maxsplit=1)[0]
    if (_FUTURE.search(text) or _HEDGE.search(text) or _RETOLD.search(text) or _WAYPOINT.search(text)
            or _NOT_YET.search(text) or _PLANNED.search(text)):
        return False
    if _CAME_TO_YOU.search(text):
        return True
    for m in _ARRIVED.finditer(text):
        verbs = list(_ARRIVAL_WORD.finditer(m.group(0)))
        if not _elsewhere(text, m.start() + verbs[-1].end() if verbs else m.end()):
            return True
    return False


def _promised_when(clause: Sentence) -> bool:
    text = clause.text
    if not (_WILL_COME.search(text) or _COMES.search(text)) or _HEDGE.search(text) or _RETOLD.search(text):
        return False
    return bool(_WHEN.search(text)) or bool(extract_dates(text, clause.lang))


def _upgraded(clause: Sentence) -> bool:
    text = clause.text
    return bool(_UPGRADE.search(text)) and not _THEIR_OPTION.search(text) and not _HEDGE.search(text)


def _guaranteed(clauses: list[Sentence], at: int) -> bool:
    """Whether clause `at` of a sentence guarantees a delivery at a time: the promised clause itself (up to a
    condition: "until it's delivered") names a delivery and a day or hour. A guarantee said on its own
    ("..., guaranteed") vouches for the clause before it (or, first in its sentence, the one after)."""
    found = _GUARANTEE.search(clauses[at].text)
    if not found:
        return False
    promised = clauses[at].text
    if not _LETTER.search(_FILLER.sub(" ", _GUARANTEE.sub(" ", promised))):
        near = [clauses[i] for i in (at - 1, at + 1) if 0 <= i < len(clauses)]
        if not near:
            return False
        promised = near[0].text
    promised = _SUBORDINATE.split(promised, maxsplit=1)[0]
    if _HEDGE.search(promised) or _about_money(promised):
        return False
    return bool(_ABOUT_DELIVERY.search(promised)) and bool(
        _WHEN.search(promised) or extract_dates(promised, clauses[at].lang))


def shipping_claim_problems(facts: ReplyFacts, order: Order) -> list[str]:
    """Returns the false claims the replies make about `order`'s parcel while it is on its way (empty: none).

    False for an order `processing` or `shipped`: that it is lost or will never come, that it already
    arrived, a delivery day or hour promised as certain, a faster service (an upgrade the records do not
    show), a guarantee of delivery. An order in another status is not judged here.
    """
    if order.status not in _ON_ITS_WAY:
        return []
    said = [parts[i] for parts, i in _clauses(facts)]
    found = {
        "is lost or will not come": _never_comes(facts) or any(_lost(c) for c in said),
        "already arrived": any(_arrived(c) for c in said),
        "will come at a promised time": any(_promised_when(c) for c in said),
        "was upgraded to a faster service": any(_upgraded(c) for c in said),
        "is guaranteed to arrive": any(_guaranteed(parts, i) for parts, i in _clauses(facts)),
    }
    return [f"a reply says the parcel of order {order.number} {claim}; the order is {order.status} and its records "
            f"show nothing of the kind" for claim, ok in found.items() if ok]
