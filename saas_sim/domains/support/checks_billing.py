"""Checks for billing tasks: the desk keeps or hands off a dispute, claims answered, replies quoting prices.

`not_escalated` is the gate of policy rule 20: a chargeback threat is fixed by the desk, not handed to
a team. `handoff_states` judges the hand-off of rule 23 (a chargeback already filed) by the facts it
carries, the disputed order and amount, never by its wording. `claims_answered` pays for telling the
customer about each further order they claimed for (the money gates judge that nothing was paid there).
`replies_truthful_with` is `replies_truthful` for tasks whose true amounts lie outside the order (a
price-change notice's new price and the difference per unit): those amounts may be stated too, but
never as money refunded unless the records show it.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.core.figures import follows_from
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.check_helpers import (
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
from saas_sim.domains.support.state import ESCALATIONS, MESSAGES, ORDERS

__all__ = ["claims_answered", "handoff_states", "not_escalated", "replies_truthful_with", "told_after_handoff"]

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


@kit.check
def told_after_handoff(ctx: CheckContext, *, ticket_id: str, team: str, order_number: str) -> CheckOutcome:
    """After the hand-off to `team`, a public reply tells the customer, naming the order the dispute is about.

    A reply before the hand-off would tell of something not yet done, so only later replies count; a later
    reply that names no order earns a quarter. A hand-off to another team as well earns nothing.
    """
    if others := sorted({e.team for e in ctx.created(ESCALATIONS)} - {team}):
        return CheckOutcome.failed(f"also handed to {others}")
    at = next((i for i, e in enumerate(ctx.events) if isinstance(e, ev.TicketEscalated)
               and e.escalation.ticket_id == ticket_id and e.escalation.team == team), None)
    if at is None:
        return CheckOutcome.failed(f"{ticket_id} was never handed to {team}")
    later = {e.message.id for e in ctx.events[at:] if isinstance(e, ev.MessagePosted)}
    replies = [m for m in episode_replies(ctx, ticket_id) if m.id in later]
    if not replies:
        return CheckOutcome.failed(f"no reply on {ticket_id} after the hand-off to {team}")
    if not replies_facts(m.body for m in replies).states_code(str(order_number)):
        return CheckOutcome(0.25, f"the reply after the hand-off names no order {order_number}")
    return CheckOutcome.passed(f"the customer was told after the hand-off, about order {order_number}")


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
    numbers = [money_value(c) for c in counts]
    stray = sorted({a for a in facts.amounts if not follows_from(a, allowed, numbers) and str(a) not in facts.codes})
    if stray:
        problems.append(f"{_STRAY}: {[str(a) for a in stray]}")
    if problems:
        return CheckOutcome.failed("; ".join(problems))
    return CheckOutcome.passed("every stated fact is true")
