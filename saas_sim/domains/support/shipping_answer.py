"""Verdicts on a where-is-my-parcel answer: the parcel's own tracking facts, and no one else's.

A parcel still in transit is not lost (policy rule 18): the answer is its carrier and tracking
number, read from the order record. Shared by the customer simulator (through `ticket_outcome`)
and the checks, so the customer accepts exactly what the checks pay for.

Tracking numbers are seed-drawn codes (two letters and a dozen digits), so no constant answer
states one. A reply that also states another order's tracking number is a shotgun of the
customer's orders, or another customer's data: it fails. So does a false claim about the parcel on its
way (lost, already arrived, a promised day or upgrade: `shipping_claims`), which the customer would act on.
"""

from __future__ import annotations

import re

from saas_sim.core.state import State
from saas_sim.domains.support.judge import Verdict
from saas_sim.domains.support.models import Order
from saas_sim.domains.support.reply_facts import ReplyFacts
from saas_sim.domains.support.shipping_claims import shipping_claim_problems
from saas_sim.domains.support.state import ORDERS

__all__ = ["stated_tracking_numbers", "tracking_verdict"]

# A tracking number as people write it: letters then digits, maybe with spaces or dashes between groups.
_TRACKING = re.compile(r"\b([A-Za-z]{2})[\s\-]?((?:\d[\s\-]?){10,16})")


def _norm(code: str) -> str:
    return re.sub(r"[^A-Z0-9]", "", code.upper())


def stated_tracking_numbers(facts: ReplyFacts) -> set[str]:
    """Returns the tracking-number-shaped codes the replies state, normalized (uppercase, no separators)."""
    return {_norm(m.group(1) + m.group(2)) for body in facts.bodies for m in _TRACKING.finditer(body)}


def _carrier_named(facts: ReplyFacts, carrier: str) -> bool:
    text = " ".join(facts.bodies)
    return re.search(rf"(?<!\w){re.escape(carrier)}(?!\w)", text, re.IGNORECASE) is not None


def tracking_verdict(state: State, facts: ReplyFacts, order: Order | None) -> Verdict:
    """The replies give the in-transit order's carrier and tracking number, and no other order's number.

    Half of the needed facts earn `partial` 0.5 (the carrier alone is a guess among three).
    """
    if order is None or order.tracking_number is None:
        return Verdict(False, ("the ticket's order has no tracking number to judge by",))
    if facts.empty:
        return Verdict(False, ("no public reply",))
    stated = stated_tracking_numbers(facts)
    mine = _norm(order.tracking_number)
    others = sorted(stated - {mine})
    problems: list[str] = []
    if others:
        known = {_norm(o.tracking_number) for o in state.table(ORDERS) if o.tracking_number}
        problems.append(f"a reply states other tracking numbers: {others[:5]}"
                        + (" (of other orders)" if set(others) & known else ""))
    problems += shipping_claim_problems(facts, order)
    needed = {"tracking number": mine in stated, "carrier": _carrier_named(facts, order.carrier)}
    problems += [f"no reply states the {k} of order {order.number}" for k, ok in needed.items() if not ok]
    if problems:
        share = 0.0 if len(problems) > sum(not ok for ok in needed.values()) else sum(needed.values()) / len(needed) / 2
        return Verdict(False, tuple(problems), share)
    return Verdict(True, partial=1.0)
