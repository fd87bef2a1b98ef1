"""Cross-app billing checks at the support desk: the replies state the figures the company's code gives.

`reply_states` pays for a refunded amount only when it was refunded; a figure the code computes
(the fee that was due) is stated, not paid, so it is judged here: stated in the replies, any
notation. `replies_truthful_with` judges that every stated figure is true.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.support.check_helpers import episode_replies, money_value, replies_facts
from saas_sim.domains.support.kit import kit

__all__ = ["replies_state_figures"]


@kit.check
def replies_state_figures(ctx: CheckContext, *, ticket_id: str, amounts: Sequence[Any]) -> CheckOutcome:
    """The ticket's replies, read together, state each of `amounts` in a clause that is not negated or
    conditional (a goal; partial credit per figure)."""
    replies = episode_replies(ctx, ticket_id)
    if not replies:
        return CheckOutcome.failed(f"no public reply on {ticket_id}")
    facts = replies_facts(m.body for m in replies)
    missing = [str(a) for a in amounts if not facts.affirms_amount(money_value(a))]
    if not missing:
        return CheckOutcome.passed(f"the replies state {[str(a) for a in amounts]}")
    return CheckOutcome(1 - len(missing) / max(len(amounts), 1), f"the replies do not state {missing}")
