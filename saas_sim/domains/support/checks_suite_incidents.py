"""Cross-app incident checks in the support desk: answers whose true figure comes from the company's code.

The figure is passed in from the bindings (the IDE's setup computes it from the code); the stale
figure a help-centre article states is a false answer. Figures are read by the number parsers, clause
by clause, so "within 864 minutes" and "864 min" both state it, and a negated clause ("not 720
minutes") claims nothing.
"""

from __future__ import annotations

import re
from decimal import Decimal

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.core.text_facts import extract_numbers
from saas_sim.domains.support.check_helpers import episode_facts
from saas_sim.domains.support.kit import kit

__all__ = ["reply_states_figure"]

_CLAUSE = re.compile(r"[,;:()]|\s[-\u2013\u2014]\s|\b(?:and|but|und|aber|pero|mais)\b")
_DURATION = re.compile(r"(\d+(?:[.,]\d+)?)\s*(?:minutes?|mins?|hours?|hrs?|h|days?|minuten|stunden?|tage?|heures?|"
                       r"jours?|minutos?|horas?|dias?)\b", re.IGNORECASE)
"""A figure with a time unit: a target the reply gives, whatever its source."""


@kit.check
def reply_states_figure(ctx: CheckContext, *, ticket_id: str, figure: int | str, also: str | None = None,
                        stale: int | str | None = None) -> CheckOutcome:
    """The replies state the code's figure and never affirm the stale one.

    Passes when an affirmed clause of a reply states `figure` (or `also`, the same figure in another unit,
    such as hours for minutes), no affirmed clause states `stale`, and no affirmed clause gives another
    duration (a hedge such as "or 120 minutes at busy times", or the standard target beside the VIP one).
    All replies are read together, so a second reply with the other figure is a contradiction, not a
    second chance.
    """
    facts = episode_facts(ctx, ticket_id)
    if facts.empty:
        return CheckOutcome.failed(f"no public reply on {ticket_id}")
    right = {Decimal(str(figure))} | ({Decimal(also)} if also else set())
    numbers: set[Decimal] = set()
    durations: set[Decimal] = set()
    for s in facts.sentences:
        for clause in s.parts(_CLAUSE):
            if clause.affirms:
                numbers.update(extract_numbers(clause.text))
                durations.update(Decimal(m.replace(",", ".")) for m in _DURATION.findall(clause.text))
    if stale is not None and Decimal(str(stale)) in numbers:
        return CheckOutcome.failed(f"a reply affirms the stale figure {stale}")
    # A second target beside the code's ("60 minutes, or 120 at busy times") hedges: one of the two is right.
    others = sorted(d for d in durations if d not in right)
    if others:
        return CheckOutcome.failed(f"a reply affirms other targets {[str(d) for d in others]} beside {figure}")
    if not numbers & right:
        return CheckOutcome.failed(f"no reply states {figure}")
    return CheckOutcome.passed(f"the replies state {figure} and not the stale figure")
