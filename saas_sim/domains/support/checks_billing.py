"""Checks for billing tasks: the desk keeps or hands off a dispute, claims answered, replies quoting prices.

`not_escalated` is the gate of policy rule 20: a chargeback threat is fixed by the desk, not handed to
a team. `handoff_states` judges the hand-off of rule 23 (a chargeback already filed) by the facts it
carries, the disputed order and amount, never by its wording; `told_after_handoff` pays for a later reply
that affirms the team has the case, and `handoff_not_denied` gates a reply that says the opposite.
`claims_answered` pays for telling the customer about each further order they claimed for (the money gates
judge that nothing was paid there).
`replies_truthful_with` is `replies_truthful` for tasks whose true amounts lie outside the order (a
price-change notice's new price and the difference per unit): those amounts may be stated too, but
never as money refunded unless the records show it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.core.figures import count_of, figure_of, follows_from, known_figures, spread, stated_amounts
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.check_helpers import (
    CLAUSE,
    clauses,
    episode_facts,
    episode_replies,
    money_value,
    order_by_number,
    refunds_on,
    replies_facts,
    ticket_since,
)
from saas_sim.domains.support.judge import true_amounts, truth_problems
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import Message
from saas_sim.domains.support.reply_facts import ReplyFacts
from saas_sim.domains.support.state import ESCALATIONS, MESSAGES, ORDERS
from saas_sim.domains.support.unit_rates import order_terms, rate_makes

__all__ = ["claims_answered", "handoff_not_denied", "handoff_states", "not_escalated", "replies_truthful_with",
           "told_after_handoff"]

_STRAY = "a reply states amounts that are no price, total or refund of the order"
"""How `truth_problems` opens its stray-amount verdict, the one extra true amounts can clear."""


@kit.check
def not_escalated(ctx: CheckContext, *, ticket_id: str) -> CheckOutcome:
    """Constraint: the episode escalated no ticket (the task is the desk's own to fix)."""
    made = sorted({e.ticket_id for e in ctx.created(ESCALATIONS)})
    if made:
        return CheckOutcome.failed(f"escalated {made}; {ticket_id} was the desk's to fix")
    return CheckOutcome.passed("nothing was escalated")


@kit.check
def handoff_states(ctx: CheckContext, *, ticket_id: str, team: str, order_number: str,
                   amounts: Sequence[Any] = ()) -> CheckOutcome:
    """The ticket was handed to `team`, and the hand-off states the order number and every amount needed.

    Judged over the escalation reasons and the internal notes the episode wrote on the ticket, read
    together; another order of the shop named there is a wrong lead for the team. Escalated to `team`
    without the facts earns a tenth; an escalation to another team as well earns nothing (a shotgun).
    """
    teams = {e.team for e in ctx.created(ESCALATIONS)}
    if team not in teams:
        return CheckOutcome.failed(f"{ticket_id} was not escalated to {team}")
    if teams - {team}:
        return CheckOutcome.failed(f"also escalated to {sorted(teams - {team})}")
    texts = [e.reason for e in ctx.created(ESCALATIONS) if e.ticket_id == ticket_id]
    texts += [m.body for m in ctx.created(MESSAGES) if m.ticket_id == ticket_id and not m.public]
    facts = replies_facts(texts)
    problems = [] if facts.states_code(str(order_number)) else [f"order {order_number}"]
    problems += [f"amount {a}" for a in amounts if not facts.states_amount(money_value(a))]
    others = sorted(c for c in set(facts.codes) if c != str(order_number) and order_by_number(ctx.final, c))
    if others:
        problems.append(f"no other order (named {others})")
    if problems:
        return CheckOutcome(0.1, f"escalated to {team}, but the hand-off does not state {problems}")
    return CheckOutcome.passed(f"the hand-off to {team} states order {order_number} and the amount")


# How a reply names the team a ticket went to, in the shop's languages (lowercased text). A bare "billing" is the
# team only after a preposition ("passed to billing") or as the subject that opens a sentence or clause
# ("Billing now has your case"): "the billing error" names no one. The team is named by what it handles too
# ("our chargeback team", "a billing specialist", "the team that handles chargebacks").
_TEAM_NAMES: dict[str, str] = {
    "billing": (r"\b(?:billing|disputes?|chargebacks?|payments?|finance|accounts)\s+(?:teams?|department|dept\b|"
                r"colleagues?|specialists?|experts?|staff|desk|unit|group|people|folks)|"
                r"\b(?:to|with|by|from)\s+(?:our\s+|the\s+)?billing\b|"
                r"(?:^|[,;:(]\s*|\b(?:and|so|now)\s+)(?:our\s+)?billing\s+(?=(?:now|already|currently|will|would|"
                r"has|have|is|are|takes?|took|handles?|owns?|reviews?|looks?|can|should)\b)|"
                r"\b(?:team|department|colleagues|specialists?|people|staff)\s+(?:that|who|which)\s+(?:handles?|"
                r"deals? with|manages?|process(?:es)?|looks? after|takes? care of|works? on)\s+(?:\S+\s+)?"
                r"(?:chargebacks?|disputes?|billing|payments?)\b|"
                r"\babrechnung|\bbuchhaltung|\bzahlungsabteilung|\brechnungsabteilung|\bfacturación|"
                r"\b(?:equipo|departamento) de (?:pagos|disputas|cobros)|\bfacturation|"
                r"\b(?:équipe|service) (?:des |de la |de )?(?:paiements?|litiges)"),
}
# What says the team has the case: it took it over, handles it, has it, or it was passed on to them.
_HAS_IT = re.compile(
    r"\b(?:tak\w* over|took over|hand\w*|pass\w*|forward\w*|escalat\w*|transferr?\w*|refer\w*|sent|assign\w*|"
    r"settl\w*|sort\w*|resolv\w*|work\w*|look\w*|review\w*|deal\w*|tak\w* care|taking care|contact\w*|follow\w* up|"
    r"in touch|investigat\w*|process\w*|manag\w*|responsible|in charge|"
    r"(?:is|are|now|currently|sits?)\s+(?:\S+\s+)?with|"
    r"ha(?:s|ve) (?:got )?(?:your|the|this|it)|übernommen|übernimmt|weitergeleitet|übergeben|kümmer\w*|"
    r"bearbeit\w*|klärt|zuständig|remitido|transferido|encarg\w*|gestion\w*|ocupa\w*|transmis\w*|transféré\w*|"
    r"s'occup\w*|occupera|trait\w*|prend en charge|pris en charge)")
# What a denial of the hand-off says, negated: it was not passed on, the team will not look at it. Said of the team
# or by "nobody"; "support cannot handle chargebacks itself, so billing has it" denies nothing.
_DENIED_VERB = re.compile(
    r"\b(?:pass\w*|forward\w*|hand\w*|escalat\w*|transferr?\w*|refer\w*|assign\w*|look\w* (?:at|into)|"
    r"tak\w* over|took over|deal\w* with|work\w* on|investigat\w*|in charge|responsible|weitergeleitet|übergeben|"
    r"übernommen|bearbeit\w*|kümmer\w*|remitido|transferido|encarg\w*|transmis\w*|transféré\w*|s'occup\w*|"
    r"pris en charge)")
# A hand-off on a condition ("if you withdraw the chargeback, billing will handle it", "billing will handle it
# unless you withdraw it") tells of none: a clause a condition governs claims nothing (`Sentence.claims`), while
# "our billing team has taken over and will reach out if they need anything" tells the hand-off.
_APPOSITION = re.compile(r",\s*(?:who|which|whose|die|der|das|welche[rs]?|que|quien|quienes|qui|lequel|laquelle)\b"
                         r"[^,;:.!?]*,")
_NOBODY = re.compile(r"\b(?:nobody|no one|no-one|niemand|nadie|personne)\b")


def _team_name(team: str) -> re.Pattern[str]:
    return re.compile(_TEAM_NAMES.get(team, rf"\b{re.escape(team)}\s+(?:team|department|colleagues)"))


def _handoff_told(facts: ReplyFacts, team: str) -> tuple[bool, bool]:
    """Whether the replies affirm that `team` has the case, and whether any clause denies the hand-off.

    Judged per clause, so "our billing team has taken over, so you are not paid twice" tells it, and "we have
    not passed anything to our billing team" or "nobody will look at your dispute" denies it.
    """
    name = _team_name(team)
    # A relative clause set off by commas ("our billing team, who will decide on the refund, now has your case")
    # splits the team from what it does: the sentence without it is read too.
    told = any(c.claims and name.search(c.text) and _HAS_IT.search(c.text)
               for s in facts.sentences for whole in (s, s.without(_APPOSITION)) for c in whole.parts(CLAUSE))
    denied = any(c.negated and not c.conditional and _DENIED_VERB.search(c.text)
                 and (name.search(c.text) or _NOBODY.search(c.text)) for c in clauses(facts))
    return told, denied


def _replies_after_handoff(ctx: CheckContext, ticket_id: str, team: str) -> list[Message] | None:
    """The public replies on the ticket posted after its hand-off to `team` (None: it was never handed off)."""
    at = next((i for i, e in enumerate(ctx.events) if isinstance(e, ev.TicketEscalated)
               and e.escalation.ticket_id == ticket_id and e.escalation.team == team), None)
    if at is None:
        return None
    later = {e.message.id for e in ctx.events[at:] if isinstance(e, ev.MessagePosted)}
    return [m for m in episode_replies(ctx, ticket_id) if m.id in later]


@kit.check
def told_after_handoff(ctx: CheckContext, *, ticket_id: str, team: str, order_number: str) -> CheckOutcome:
    """After the hand-off to `team`, a public reply tells the customer that `team` has their case, naming the order.

    A reply before the hand-off would tell of something not yet done, so only later replies count. Telling is
    an affirmed clause naming the team as having the case ("our billing team has taken over"); a reply that only
    names the order tells nothing, and one that denies the hand-off ("we have not passed anything to billing",
    "nobody will look at your dispute") is false, so either earns nothing. Told without naming the order earns
    a quarter. A hand-off to another team as well earns nothing.
    """
    if others := sorted({e.team for e in ctx.created(ESCALATIONS)} - {team}):
        return CheckOutcome.failed(f"also handed to {others}")
    replies = _replies_after_handoff(ctx, ticket_id, team)
    if replies is None:
        return CheckOutcome.failed(f"{ticket_id} was never handed to {team}")
    if not replies:
        return CheckOutcome.failed(f"no reply on {ticket_id} after the hand-off to {team}")
    facts = replies_facts(m.body for m in replies)
    told, denied = _handoff_told(facts, team)
    if denied:
        return CheckOutcome.failed(f"a reply after the hand-off denies that the {team} team has the case")
    if not told:
        return CheckOutcome.failed(f"no reply after the hand-off tells the customer that the {team} team has the case")
    if not facts.states_code(str(order_number)):
        return CheckOutcome(0.25, f"the reply after the hand-off names no order {order_number}")
    return CheckOutcome.passed(f"the customer was told the {team} team has the case, about order {order_number}")


@kit.check
def handoff_not_denied(ctx: CheckContext, *, ticket_id: str, team: str) -> CheckOutcome:
    """Constraint: no reply after the hand-off to `team` tells the customer it did not happen.

    "We have not passed anything to our billing team" or "nobody will look at your dispute", once the ticket is
    with the team, is a false claim that may make the customer act on it. Before the hand-off (or without one)
    such a sentence is no falsehood, so only later replies are read.
    """
    replies = _replies_after_handoff(ctx, ticket_id, team) or []
    if replies and _handoff_told(replies_facts(m.body for m in replies), team)[1]:
        return CheckOutcome.failed(f"a reply after the hand-off denies that the {team} team has the case")
    return CheckOutcome.passed(f"no reply denies the hand-off to {team}")


@kit.check
def claims_answered(ctx: CheckContext, *, ticket_id: str, order_numbers: Sequence[str] = ()) -> CheckOutcome:
    """The replies name each further order the customer claimed for (none claimed: any reply will do).

    Naming is the evidence that the claim was answered, not that it was answered right: a refund or a
    refund claim on such an order is judged by the money and truth gates. Partial credit: the share named.
    """
    facts = episode_facts(ctx, ticket_id)
    if facts.empty:
        return CheckOutcome.failed(f"no public reply on {ticket_id}")
    if not order_numbers:
        return CheckOutcome.passed("no further claim to answer")
    missing = [str(n) for n in order_numbers if not facts.states_code(str(n))]
    if missing:
        return CheckOutcome(1 - len(missing) / len(order_numbers), f"the replies never answer about orders {missing}")
    return CheckOutcome.passed("every further claim was answered")


@kit.check
def replies_truthful_with(ctx: CheckContext, *, ticket_id: str, order_id: str, may_name: Sequence[str] = (),
                          also_true: Sequence[Any] = (), counts: Sequence[Any] = ()) -> CheckOutcome:
    """Constraint: every fact the replies state is true, amounts in `also_true` counting as true amounts.

    As `replies_truthful`: a refund claimed but not made, an amount said to be refunded that was not, or
    another order's number (but those in `may_name`) violates it. An amount that is no price, total or
    refund of the order violates it too, unless it is one of `also_true`, or one of these divided or
    multiplied by one of the task's `counts` (seats, months: "90.00 USD per month over the 15 months").
    An item of `also_true` that is a list (the figures a setup read from the company's code: a fee's cap,
    a tier's seat price) counts each of its items; an amount said to be refunded is judged as a refund whatever
    `also_true` holds (a true cap stated as "I refunded 25.00" is false).
    """
    since = ticket_since(ctx, ticket_id)
    order = ctx.final.get(ORDERS, order_id)
    if since is None or order is None:
        return CheckOutcome.failed(f"ticket {ticket_id} or order {order_id} is missing")
    facts = episode_facts(ctx, ticket_id)
    if facts.empty:
        return CheckOutcome.passed("no reply, so no false claim")
    problems = [p for p in truth_problems(ctx.final, facts, order, since=since, may_name=[str(c) for c in may_name])
                if not p.startswith(_STRAY)]
    refunded = [r.amount for r in refunds_on(ctx.final, order.id) if r.created_at >= since.created_at]
    plain = true_amounts(ctx.final, order) | set(refunded) | {sum(refunded, Decimal("0"))}
    also_true = spread(also_true)
    plain |= {money_value(a) for a in also_true if not isinstance(a, Mapping)}
    allowed = known_figures(plain, [figure_of(a, money_value) for a in also_true if isinstance(a, Mapping)])
    numbers = [count_of(c) if isinstance(c, Mapping) else money_value(c) for c in counts]
    # A figure the reply says is per something ("per month", "/seat") must be that: see `core.figures`.
    typed = {a for m in episode_replies(ctx, ticket_id) for a, per in stated_amounts(m.body)
             if per is not None and not follows_from(a, allowed, numbers, per)}
    stray = sorted({a for a in facts.amounts if not follows_from(a, allowed, numbers) and str(a) not in facts.codes}
                   | typed)
    if stray:
        problems.append(f"{_STRAY}: {[str(a) for a in stray]}")
    # A refund said per unit ("That is 38.73 per bulb" when 38.73 was the whole refund of three bulbs) states the
    # count times it, though the figure alone is true; a rate that is itself a true figure (a price, `also_true`'s
    # difference per unit) or makes a true amount over its units (`unit_rates.rate_makes`) is fine.
    every = refunds_on(ctx.final, order.id)
    terms = order_terms(order, {r.line_id for r in every})
    as_rate = sorted({a for a, counts, named in facts.rate_counts_stated(terms)
                      if a in set(refunded) | {sum(refunded, Decimal("0"))} and a not in plain - set(refunded)
                      and not rate_makes(a, counts, plain, [terms.lines[i] for i in named] or terms.lines)})
    if as_rate:
        problems.append(f"a reply states the refund {[str(a) for a in as_rate]} per unit, which over the units it "
                        f"applies to is no true amount")
    if problems:
        return CheckOutcome.failed("; ".join(problems))
    return CheckOutcome.passed("every stated fact is true")
