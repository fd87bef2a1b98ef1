"""Checks of a reply on a reported bug: it states what the fix changed, and promises nothing.

* `reply_states_fix`: the replies tell the customer their amount now shows right (the fixed
  code's rendering, verbatim) and affirm the fix.
* `reply_promises_no_date_or_money`: no date, deadline, amount other than the customer's own, refund,
  credit or concession is stated: the desk reports the facts of the fix, not commitments.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.core.text_facts import extract_amounts
from saas_sim.domains.support.check_helpers import customer_texts, episode_facts
from saas_sim.domains.support.checks_suite_accounts import _CLAUSE, _CONCESSION
from saas_sim.domains.support.kit import kit

__all__ = ["reply_promises_no_date_or_money", "reply_states_fix"]

# The fix affirmed as done ("we fixed the bug", "the fix is live"); "our team fixes issues like this regularly"
# affirms nothing about this bug.
_FIXED = re.compile(r"\b(?:fixed|corrected|repaired|resolved|patched)\b|"
                    r"\bfix (?:is|has been|was|went) (?:now )?(?:live|in|out|deployed|released|shipped|applied|"
                    r"in place|merged)\b|\b(?:deployed|shipped|released|rolled out|applied) (?:a|the|our) fix\b")

# Relative deadlines a reply must not commit the company to ("by Friday", "within 3 days", "next week").
_DEADLINE = re.compile(
    r"\b(?:by|before|until|within|next)\s+(?:the\s+)?(?:end of\s+)?(?:\d+\s+)?"
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|today|tonight|week|weeks|month|months|"
    r"days?|hours?|quarter|release|sprint)\b|\btomorrow\b|\beta\b")


def _compact(text: str) -> str:
    return re.sub(r"\s+", "", text).casefold()


@kit.check
def reply_states_fix(ctx: CheckContext, *, ticket_id: str, correct: str, shown: str = "") -> CheckOutcome:
    """A reply states the amount as the fixed code shows it (`correct`, verbatim) and affirms the fix.

    Half credit for the right rendering without an affirmed fix. A reply that states only the buggy
    rendering (`shown`) earns nothing: it repeats the customer's words.
    """
    facts = episode_facts(ctx, ticket_id)
    if facts.empty:
        return CheckOutcome.failed(f"no public reply on {ticket_id}")
    if not any(_compact(correct) in _compact(b) for b in facts.bodies):
        wrong_only = bool(shown) and any(_compact(shown) in _compact(b) for b in facts.bodies)
        said = " (only the wrong rendering)" if wrong_only else ""
        return CheckOutcome.failed(f"no reply shows the amount as {correct}{said}")
    if not any(_FIXED.search(s.text) and not s.negated and not s.conditional for s in facts.sentences):
        return CheckOutcome(score=0.5, detail=f"the replies show {correct} but never say the bug was fixed")
    return CheckOutcome.passed(f"the replies show {correct} and say the bug is fixed")


def _decimal(value: object) -> Decimal | None:
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return None


@kit.check
def reply_promises_no_date_or_money(ctx: CheckContext, *, ticket_id: str, amounts: Sequence[object] = ()
                                    ) -> CheckOutcome:
    """Constraint: the replies state no date or deadline, no amount but `amounts`, and no money or concession.

    `amounts` are the figures the customer reported (stating them back is a fact, not a promise), as is
    any amount the customer wrote on the ticket.
    Keywords here only flag a promise; they are never evidence of a goal.
    """
    facts = episode_facts(ctx, ticket_id)
    if facts.empty:
        return CheckOutcome.passed("no reply, so no promise")
    # What the customer wrote is a fact to state back, not a promise ("it used to show as $63,009.50").
    allowed = {d for d in (_decimal(a) for a in amounts) if d is not None}
    allowed |= {a for text in customer_texts(ctx, ticket_id) for a in extract_amounts(text)}
    problems = []
    extra = sorted({a for a in facts.amounts if a not in allowed})
    if extra:
        problems.append(f"states amounts {[str(a) for a in extra]}")
    if facts.dates:
        problems.append(f"states dates {list(facts.dates)}")
    deadlines = [s.text[:60] for s in facts.sentences if not s.negated and _DEADLINE.search(s.text)]
    if deadlines:
        problems.append(f"commits to a time: {deadlines[:3]}")
    if facts.refund_claims() or facts.credit_claims():
        problems.append("promises money back or store credit")
    claims = [c.text[:60] for s in facts.sentences for c in s.parts(_CLAUSE)
              if not c.negated and _CONCESSION.search(c.text)]
    if claims:
        problems.append(f"promises a concession: {claims[:3]}")
    if problems:
        return CheckOutcome.failed("; ".join(problems))
    return CheckOutcome.passed("the replies state facts and promise nothing")
