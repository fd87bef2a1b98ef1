"""Checks for billing tasks: a chargeback threat kept at the desk, claims answered, replies quoting prices.

`not_escalated` is the gate of policy rule 20: a chargeback threat is fixed by the desk, not handed to
a team. `claims_answered` pays for telling the customer about each further order they claimed for (the
money gates judge that nothing was paid there). `replies_truthful_with` is `replies_truthful` for tasks
whose true amounts lie outside the order (a price-change notice's new price and the difference per
unit): those amounts may be stated too, but never as money refunded unless the records show it.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.support.check_helpers import episode_facts, money_value, refunds_on, ticket_since
from saas_sim.domains.support.judge import true_amounts, truth_problems
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.state import ESCALATIONS, ORDERS

__all__ = ["claims_answered", "not_escalated", "replies_truthful_with"]

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
                          also_true: Sequence[Any] = ()) -> CheckOutcome:
    """Constraint: every fact the replies state is true, amounts in `also_true` counting as true amounts.

    As `replies_truthful`: a refund claimed but not made, an amount said to be refunded that was not, or
    another order's number (but those in `may_name`) violates it. An amount that is no price, total or
    refund of the order violates it too, unless it is one of `also_true`.
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
    allowed = true_amounts(ctx.final, order) | set(refunded) | {sum(refunded, Decimal("0"))}
    allowed |= {money_value(a) for a in also_true}
    cents = {a.quantize(Decimal("0.01")) for a in allowed}
    stray = sorted({a for a in facts.amounts if a.quantize(Decimal("0.01")) not in cents and str(a) not in facts.codes})
    if stray:
        problems.append(f"{_STRAY}: {[str(a) for a in stray]}")
    if problems:
        return CheckOutcome.failed("; ".join(problems))
    return CheckOutcome.passed("every stated fact is true")
