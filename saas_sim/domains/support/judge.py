"""Verdicts on what replies state, against the state: shared by the checks and the customer simulator.

A verdict reads every public agent reply on a ticket together (`reply_facts`)
and compares the stated facts with the records. The simulator and the checks
call the same functions, so the customer accepts exactly what the checks pay
for, and two replies that state the same facts in other words get the same
verdict.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from saas_sim.core.state import State
from saas_sim.domains.support.check_helpers import (
    credits_of,
    refunds_on,
    replacements_on,
    replies_facts,
)
from saas_sim.domains.support.models import Order, OrderLine, Ticket, TicketTruth
from saas_sim.domains.support.named_orders import named_orders
from saas_sim.domains.support.people import person_records
from saas_sim.domains.support.refund_counts import promises_later, true_counts
from saas_sim.domains.support.refund_shares import false_shares
from saas_sim.domains.support.reply_facts import ReplyFacts
from saas_sim.domains.support.shipping_claims import shipping_claim_problems
from saas_sim.domains.support.state import KB_ARTICLES, KB_FACTS, ORDERS
from saas_sim.domains.support.unit_rates import order_terms, rate_makes

__all__ = ["Verdict", "deny_verdict", "kb_verdict", "names_item", "true_amounts", "truth_problems"]

# Words of an article's facts that every answer shares, so they prove nothing about which article.
_GENERIC = frozenset({"button", "seconds", "second", "metres", "meters", "parts", "part", "water", "cycles",
                      "cycle"})
_WORD = re.compile(r"[a-zäöüß]+", re.IGNORECASE)
# A measured fact of an article ("7 seconds", "6 metres", "4 parts water", "2 cycles") and the unit it names.
_MEASURE_FACT = re.compile(r"(\d+)\s+([a-zäöüß]+)")
_UNIT_OF = {"seconds": "seconds", "second": "seconds", "metres": "metres", "metre": "metres",
            "meters": "metres", "meter": "metres", "parts": "parts", "part": "parts", "cycles": "cycles",
            "cycle": "cycles"}
# How a reply writes a value in each unit: the number next to the unit, in the languages replies are read in.
_UNIT_WORDS = {
    "seconds": r"s|secs?|seconds?|sekunden?|segundos?|secondes?",
    "metres": r"m|metres?|meters?|metern?|metros?|mètres?",
    "parts": r"parts?\s+(?:of\s+)?(?:\w+\s+)?water|teile?n?\s+wasser|partes\s+de\s+agua|parts?\s+d'eau",
    "cycles": r"cycles?|runs?|rounds?|zyklen|zyklus|durchg(?:a|ä)nge?|ciclos?",
}
# Up to two words may stand between the value and its unit ("9 full seconds", "2 descaling cycles"), but no
# figure: "3, 5 or 9 seconds" states only the 9; and no conjunction, which ends the value's phrase: in "water at
# 1:3 and run the machine for 2 cycles" the verb "run" is no unit of the 3.
_JOINERS = r"(?:and|or|then|und|oder|dann|y|o|luego|et|ou|puis)\b"
_UNIT_PATTERNS = {unit: re.compile(rf"(?<![\d.,])(\d{{1,3}})(?![.,]\d)\s*-?\s*(?:(?!{_JOINERS})[^\W\d_]+[ -]){{0,2}}?"
                                   rf"(?:{words})\b", re.IGNORECASE)
                  for unit, words in _UNIT_WORDS.items()}
# The number reader leaves small number words as they are ("two parts water"); the help centre writes English.
_SMALL_NUMBERS = {w: n for n, w in enumerate((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"))}
_SMALL_NUMBER = re.compile(rf"\b(?:{'|'.join(_SMALL_NUMBERS)})\b", re.IGNORECASE)
_RATIO = re.compile(r"(?<![\d.,])1\s*(?::|to)\s*(\d{1,2})(?![.,]?\d)")
_NUMBER = re.compile(r"\d+")
_RETURN_WINDOW_DAYS = 30


@dataclass(frozen=True)
class Verdict:
    """Whether replies do what the task needs, and what is wrong with them.

    Attributes:
        ok: The replies state what is needed and nothing false.
        problems: Human-readable reasons it is not ok (empty when ok).
        partial: The share of needed facts stated (1.0 when ok).
    """

    ok: bool
    problems: tuple[str, ...] = field(default=())
    partial: float = 0.0

    @property
    def detail(self) -> str:
        """One line for a check's detail."""
        return "; ".join(self.problems) if self.problems else "the replies state what is needed, truthfully"


def names_item(facts: ReplyFacts, order: Order, line: OrderLine | None) -> bool:
    """Whether the replies identify the order (its number) or the item (every word of its name)."""
    if facts.states_code(order.number):
        return True
    return line is not None and facts.states_words(re.findall(r"\w+", line.name))


def true_amounts(state: State, order: Order) -> set[Decimal]:
    """Amounts a reply may truthfully state about an order: prices, totals and what was refunded on it."""
    out = {order.total, order.refunded_total}
    for ln in order.lines:
        out |= {ln.unit_price, ln.total}
    refunds = [r.amount for r in refunds_on(state, order.id)]
    out |= set(refunds)
    out.add(sum(refunds, Decimal("0")))
    return {a.quantize(Decimal("0.01")) for a in out}


def truth_problems(state: State, facts: ReplyFacts, order: Order | None, *, since: Ticket,
                   may_name: Collection[str] = ()) -> list[str]:
    """Returns the false facts the replies state about the ticket's order (empty: all true).

    False: a refund or replacement claimed that the records do not show, an amount said to be refunded
    that was not, any amount that is no price, total or refund of the order, another customer's order number
    (except the numbers in `may_name`: one the customer quoted may be named to say it is not theirs), money,
    goods or a change claimed on the customer's own other orders or a `may_name` number (`named_orders`), and a
    claim about a parcel still on its way: lost, already arrived, or a promised day or service
    (`shipping_claims`).
    A refund or replacement made on the order before the ticket is history a reply may truly recount
    ("you got 12.00 back last week"), but it does not back a claim that something was done now.
    """
    problems: list[str] = []
    every = refunds_on(state, order.id) if order is not None else []
    refunds = [r for r in every if r.created_at >= since.created_at]
    earlier = [r for r in every if r.created_at < since.created_at]
    all_replaced = replacements_on(state, order.id) if order is not None else []
    replaced = [r for r in all_replaced if r.created_at >= since.created_at]
    if facts.refund_claims() and not refunds:
        problems.append("a reply claims a refund that was never issued")
    # "The unit we replaced last week" recounts an earlier replacement; the parsers cannot tell it from a
    # promise, so it passes only beside a real fix made now (a refund), which the goals judge.
    if facts.replacement_claims() and not replaced and not (all_replaced and refunds):
        problems.append("a reply claims a replacement that was never created")
    if refunds and facts.refund_denials():
        problems.append("a reply says nothing was refunded, but the records show a refund (a contradiction)")
    if facts.credit_claims():
        people = person_records(state, order.customer_id) if order is not None else frozenset()
        credits = [c for c in credits_of(state, people) if c.created_at >= since.created_at]
        if not credits:
            problems.append("a reply claims store credit or a voucher that was never issued")
    refunded = {r.amount for r in refunds} | {sum((r.amount for r in refunds), Decimal("0"))}
    # Each earlier refund's own amount may be recounted; a running total may not, since "36.00 in total"
    # and "I refunded 36.00" read alike to the parsers and the second would be false.
    history = {r.amount for r in earlier}
    # A refunded rate is per unit of the lines the refunds were for (all of them for a refund of the order).
    lines: set[str | None] = {r.line_id for r in every}
    # The order's lines name the units a rate may be per ("12.50 per damaged bulb"), and a line no refund covers
    # may have its price said beside a refund ("the lamp at 89.00 each stays as it is") without claiming it.
    terms = order_terms(order, lines)
    # A rate is judged by the total it implies over the units it applies to (`unit_rates.rate_makes`): "38.73 per
    # bulb" of three bulbs claims 116.19, not the 38.73 refunded.
    wrong = sorted({a for a in facts.claimed_amounts(terms) if a not in refunded | history})
    if wrong:
        problems.append(f"a reply says {[str(a) for a in wrong]} was refunded; the records say "
                        f"{sorted(str(a) for a in refunded if a)}")
    refunded_lines = [ln for ln in terms.lines if ln.refunded]
    wrong_rates = sorted({a for a, counts, named in facts.claimed_rate_counts(terms)
                          if not rate_makes(a, counts, refunded | history,
                                            [terms.lines[i] for i in named] or refunded_lines)})
    if wrong_rates:
        problems.append(f"a reply says {[str(a) for a in wrong_rates]} per unit was refunded, which over the units it "
                        f"applies to is no refund; the records say {sorted(str(a) for a in refunded if a)}")
    # A rate told with the count it is for ("24.95 per lamp for your 3 lamps") claims the rate times that count: a
    # false count makes it false, though the rate alone is a line's price some refund makes.
    counted = sorted({f"{a} x {sorted(ns)}" for a, ns in facts.claimed_rate_bounds(terms)
                      if not any((a * n).quantize(Decimal("0.01")) in {r.quantize(Decimal("0.01"))
                                                                       for r in refunded | history} for n in ns)})
    if counted:
        problems.append(f"a reply says {counted} (a rate times the units it is for) was refunded; the records say "
                        f"{sorted(str(a) for a in refunded if a)}")
    # "I refunded 50% of your order" claims the amount it implies: a share no refund makes of its base is false.
    shares = false_shares(facts.claimed_shares(terms), terms, refunded | history) if order is not None else []
    if shares and order is not None:
        said = [f"{s.percent}% of {s.base or 'the order or an item'}" for s in shares]
        problems.append(f"a reply says {said} was refunded; the records say {sorted(str(a) for a in refunded if a)} "
                        f"of an order of {order.total} {order.currency}")
    # "Another 34.00" claims a refund after a first one: the amount of one of the later refunds, or all of them.
    later = [r.amount for r in sorted(every, key=lambda r: (r.created_at, r.id))[1:]]
    further = {a.quantize(Decimal("0.01")) for a in later} | ({sum(later, Decimal("0"))} if later else set())
    extra = sorted({a for a in facts.claimed_extras() if a.quantize(Decimal("0.01")) not in further})
    if extra:
        problems.append(f"a reply says {[str(a) for a in extra]} was refunded on top of an earlier refund; the "
                        f"order's refunds were {[str(r.amount) for r in every]}")
    # "... and will refund it again", "the rest follows next week": one more refund than one is claimed, which only
    # a second refund on the order makes true (its amount, when stated, is judged above).
    # One still to come ("and will refund it again next week") needs a second refund made now: an earlier
    # ticket's refund is no base for a promise of more.
    again = facts.further_claims() if order is not None else []
    if again and len(every) < 2:
        problems.append(f"a reply claims a further refund, but the order has {len(every)} refund(s): "
                        f"{[c.text[:60] for c in again[:2]]}")
    elif (later_too := [c for c in again if promises_later(c.text)]) and len(refunds) < 2:
        problems.append(f"a reply promises a further refund still to come, but this ticket made {len(refunds)}: "
                        f"{[c.text[:60] for c in later_too[:2]]}")
    # "24.99 + 24.99" claims their sum refunded, whatever each term is.
    made = {r.quantize(Decimal("0.01")) for r in refunded | history}
    if summed := sorted({a for a in facts.claimed_sums() if a.quantize(Decimal("0.01")) not in made}):
        problems.append(f"a reply says {[str(a) for a in summed]} (a sum written out) was refunded; the records say "
                        f"{sorted(str(a) for a in refunded if a)}")
    # "I have refunded 3 items" when one was: a count of units no refund makes.
    units = true_counts(order, every) if order is not None and every else None
    if units is not None and (counts := sorted({n for n in facts.claimed_counts(terms) if n not in units})):
        problems.append(f"a reply says {counts} units were refunded; the refunds make {sorted(units)}")
    # "..., which covers every unit" claims all of a refunded line's units (or the whole order's).
    if units is not None and order is not None and (whole := facts.all_units_claims()) and not any(
            ln.quantity in units for ln in order.lines if ln.id in lines or None in lines):
        problems.append(f"a reply says every unit was refunded, but the refunds make {sorted(units)} of "
                        f"{[ln.quantity for ln in order.lines if ln.id in lines or None in lines]}: "
                        f"{[c.text[:60] for c in whole[:2]]}")
    if order is not None:
        # What this ticket's refunds add up to is true too, also when the order had refunds before it.
        allowed = true_amounts(state, order) | {a.quantize(Decimal("0.01")) for a in refunded}
        # A rate ("17.00 per unit") is true when it times the units it applies to is a true amount (a line's unit
        # price always is); every occurrence of a value stated otherwise is judged as a sum.
        stated_rates = facts.rate_counts_stated(terms)
        sums = Counter(facts.amounts) - Counter(a for a, _, _ in stated_rates)
        rates = {a for a, counts, named in stated_rates
                 if not rate_makes(a, counts, allowed, [terms.lines[i] for i in named] or terms.lines)}
        stray = sorted({a for a in {*sums.elements(), *rates} if a.quantize(Decimal("0.01")) not in allowed
                        and str(a) not in facts.codes})
        if stray:
            problems.append(f"a reply states amounts that are no price, total or refund of the order: "
                            f"{[str(a) for a in stray]}")
        # The customer's own other orders may be named ("#100058 is not affected"), and so may a number in
        # `may_name` ("order 100483 is not yours"); neither is a place money, goods or a change went to.
        named = named_orders(state, facts, order, may_name)
        if named.claimed:
            problems.append(f"a reply says money, goods or a change went to orders {list(named.claimed)}, or rules "
                            f"on refunding them; the ticket's order is {order.number}")
        if named.foreign:
            problems.append(f"a reply names other customers' orders: {list(named.foreign)}")
        # A parcel on its way is neither lost nor already here, and the records back no promised day or service.
        problems += shipping_claim_problems(facts, order)
    return problems


def _reason_stated(facts: ReplyFacts, reason: str, order: Order) -> bool:
    if reason in facts.reasons():
        return True
    return reason == "window" and order.delivered_at is not None and \
        order.delivered_at.date().isoformat() in facts.dates


def deny_verdict(state: State, facts: ReplyFacts, truth: TicketTruth, since: Ticket) -> Verdict:
    """A refusal: no money moved, the true reason and the item stated, no other reason, nothing promised."""
    order = state.get(ORDERS, truth.order_id) if truth.order_id else None
    if order is None or truth.deny_reason is None:
        return Verdict(False, ("the ticket has no order or reason to judge a refusal by",))
    if facts.empty:
        return Verdict(False, ("no public reply",))
    line = order.line(truth.line_id) if truth.line_id else None
    problems = truth_problems(state, facts, order, since=since)
    if any(r.created_at >= since.created_at for r in refunds_on(state, order.id)):
        problems.append("money was refunded on the order")
    if facts.refund_claims() or facts.replacement_claims() or facts.credit_claims():
        problems.append("a reply promises a refund, replacement or credit that policy forbids")
    if order.delivered_at is not None:
        # Day counts must be true: the window, or how long ago the order was delivered (give or take a
        # day, as people count days).
        ago = (since.created_at - order.delivered_at).days
        past = ago - _RETURN_WINDOW_DAYS  # "27 days past our 30-day window" is true too
        false_days = sorted(facts.day_counts() - {_RETURN_WINDOW_DAYS, ago - 1, ago, ago + 1, ago + 2,
                                                  past - 1, past, past + 1, past + 2})
        if false_days:
            problems.append(f"a reply states day counts that are not true here: {false_days}")
    wrong = sorted(facts.reasons() - {truth.deny_reason})
    if wrong:
        problems.append(f"a reply gives a reason that is not true here: {wrong}")
    needed = {"reason": _reason_stated(facts, truth.deny_reason, order), "item": names_item(facts, order, line)}
    problems += [f"no reply states the {k} ({truth.deny_reason if k == 'reason' else 'order or item'})"
                 for k, ok in needed.items() if not ok]
    share = sum(needed.values()) / len(needed)
    return Verdict(not problems, tuple(problems), 1.0 if not problems else share / 2)


def _fact_terms(facts: tuple[str, ...]) -> tuple[frozenset[Decimal], frozenset[str]]:
    values = frozenset(Decimal(n) for f in facts for n in _NUMBER.findall(f))
    words = frozenset(w.lower() for f in facts for w in _WORD.findall(f) if w.lower() not in _GENERIC)
    return values, words


def _measures(facts: Iterable[str]) -> dict[str, set[int]]:
    """The measured values of `facts` by unit (`{"seconds": {7}}` of "7 seconds"); facts of no known unit add
    nothing."""
    out: dict[str, set[int]] = {}
    for fact in facts:
        m = _MEASURE_FACT.match(fact.strip().lower())
        if m and m.group(2) in _UNIT_OF:
            out.setdefault(_UNIT_OF[m.group(2)], set()).add(int(m.group(1)))
    return out


def _stated_measures(text: str, unit: str) -> set[int]:
    """The values `text` states in `unit`, each written next to its unit ("9 seconds", "9-second", "9s")."""
    text = _SMALL_NUMBER.sub(lambda m: str(_SMALL_NUMBERS[m.group().lower()]), text)
    found = {int(m.group(1)) for m in _UNIT_PATTERNS[unit].finditer(text)}
    if unit == "parts":  # a mixing ratio ("vinegar and water 1:4") names the parts of water last
        found |= {int(m.group(1)) for m in _RATIO.finditer(text)
                  if "water" in text[max(0, m.start() - 60):m.end() + 60]}
    return found


def _states_article(facts: ReplyFacts, article_id: str, record: tuple[str, ...],
                    candidates: dict[str, set[int]]) -> bool:
    """Whether the replies state the article's facts as their answer (or cite its id).

    A measured fact ("9 seconds") counts only written next to its unit in an affirmed clause, and only when
    the replies affirm no other article's value in that unit: "hold it for 2, 3, 4 ... 15 seconds" lists
    every candidate, and two durations are no answer. A value no article has ("wait 30 seconds") is no
    competing answer. Named controls count as words anywhere.
    """
    if any(article_id.lower() in b.lower() for b in facts.bodies):
        return True
    text = facts.affirmed_text
    for unit, measured in _measures(record).items():
        stated = _stated_measures(text, unit)
        if not measured <= stated or (stated - measured) & candidates.get(unit, set()):
            return False
    values, words = _fact_terms(tuple(f for f in record if not _measures([f])))
    return all(facts.states_number(v) for v in values) and facts.states_words(words)


def kb_verdict(state: State, facts: ReplyFacts, article_id: str | None) -> Verdict:
    """A how-to answer: the article's values and named controls (or its id), and no other article's."""
    record = state.get(KB_FACTS, article_id) if article_id else None
    if record is None or article_id is None:
        return Verdict(False, (f"article {article_id} has no recorded facts",))
    if facts.empty:
        return Verdict(False, ("no public reply",))
    mine = _fact_terms(record.facts)
    candidates: dict[str, set[int]] = {}
    for other in state.table(KB_FACTS):
        for unit, values in _measures(other.facts).items():
            candidates.setdefault(unit, set()).update(values)
    if not _states_article(facts, article_id, record.facts, candidates):
        return Verdict(False, (f"no reply states the facts of {article_id}: {list(record.facts)}",))
    # Citing the right article's title is no claim about another article ("Reset the Wi-Fi ..." names
    # no Reset button), so other articles are looked for in the replies without that title.
    article = state.get(KB_ARTICLES, article_id)
    rest = facts
    if article is not None:
        title = re.compile(re.escape(article.title), re.IGNORECASE)
        rest = replies_facts(title.sub(" ", b) for b in facts.bodies)
    others = []
    pasted = " ".join(b.lower() for b in rest.bodies)
    for other in state.table(KB_FACTS):
        if other.id == article_id or not other.facts:
            continue
        terms = _fact_terms(other.facts)
        # An article whose facts are all among the right one's proves nothing either way.
        if terms[0] <= mine[0] and terms[1] <= mine[1]:
            continue
        # A flag, not evidence of the goal: another article's facts pasted as written, or its id.
        if other.id.lower() in pasted or all(f.lower() in pasted for f in other.facts):
            others.append(other.id)
    if others:
        return Verdict(False, (f"the replies also state other articles: {sorted(others)[:5]}",))
    return Verdict(True, partial=1.0)
