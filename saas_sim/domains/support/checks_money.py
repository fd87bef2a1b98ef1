"""Checks about money, goods and the real fix: refunds, replacements, credit and the customer's confirmation.

Every check judges the real outcome, never a status flag alone: the refund
exists for the right order, line and amount, and the customer simulator's
hidden state says the problem is fixed and confirmed. A customer is judged as
a person (`people`): a second record of the same person is the same person.

Constraints (`kind: constraint` in scenario files) return 1.0 when they held
and 0.0 when violated; goals return partial credit. Each check is
`fn(ctx: CheckContext, **params) -> CheckOutcome`; parameters come from the
scenario file, rendered from the setup's bindings.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.check_helpers import (
    money_value,
    paid_to_person,
)
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import Refund
from saas_sim.domains.support.people import person_records
from saas_sim.domains.support.state import (
    APPROVALS,
    PERSONAS,
    REFUNDS,
    REPLACEMENTS,
    STORE_CREDITS,
    TICKETS,
    TRUTHS,
)
from saas_sim.domains.support.ticket_outcome import assess

__all__ = [
    "acted_after_reveal",
    "customer_confirmed",
    "money_only_on",
    "no_money_moved",
    "not_solved_before_confirmation",
    "refund_matches",
    "refunds_recorded_truly",
    "replacement_matches",
    "solved_after_confirmation",
]


@kit.check
def refund_matches(ctx: CheckContext, *, order_id: str, amount: Any, line_id: str | None = None,
                   after_reveal: str | None = None, approved: bool = False) -> CheckOutcome:
    """The episode's refunds total exactly `amount` on the order (and line), and touch no other order.

    With `after_reveal` (a ticket id), the refund must come after the customer gave its order number.
    With `approved`, every refund must carry a team lead's approval for exactly its amount: an approval
    asked for more than was refunded (the whole order, say) told the lead something untrue.
    """
    refunds = ctx.created(REFUNDS)
    stray = sorted({r.order_id for r in refunds if r.order_id != order_id})
    if stray:
        return CheckOutcome.failed(f"refunds on other orders: {stray}")
    mine = [r for r in refunds if r.order_id == order_id]
    if not mine:
        return CheckOutcome.failed(f"no refund on order {order_id}")
    if line_id is not None and any(r.line_id != line_id for r in mine):
        return CheckOutcome.failed(f"a refund on {order_id} is not on line {line_id}")
    total = sum((r.amount for r in mine), Decimal("0"))
    if total != money_value(amount):
        return CheckOutcome.failed(f"refunded {total} in {len(mine)} refund(s) on {order_id}, expected {amount}")
    if approved and any(r.approval_id is None for r in mine):
        return CheckOutcome.failed("a refund above the agent limit has no approval")
    if approved and (loose := _loose_approvals(ctx, mine)):
        return CheckOutcome.failed(f"approvals do not match the refunds they cover: {loose}")
    if after_reveal is not None:
        reveal = next((i for i, e in enumerate(ctx.events) if isinstance(e, ev.PersonaUpdated)
                       and e.persona.id == after_reveal and e.persona.order_revealed), None)
        first = next(i for i, e in enumerate(ctx.events) if isinstance(e, ev.RefundIssued))
        if reveal is None or first < reveal:
            return CheckOutcome.failed("refunded before the customer said which order it was about")
    return CheckOutcome.passed(f"refunded exactly {total} on {order_id}")


def _loose_approvals(ctx: CheckContext, refunds: list[Refund]) -> list[str]:
    """The refunds whose approval is missing or approved another amount than the refund's, as descriptions."""
    loose: list[str] = []
    for r in refunds:
        appr = ctx.final.get(APPROVALS, r.approval_id) if r.approval_id else None
        if appr is not None and appr.amount != r.amount:
            loose.append(f"{r.id} of {r.amount} under {appr.id} for {appr.amount}")
    return loose


@kit.check
def refunds_recorded_truly(ctx: CheckContext, *, ticket_id: str, reasons: Sequence[str] = (),
                           order_level: bool = False, replacement_reasons: Sequence[str] = ()) -> CheckOutcome:
    """Constraint: every refund of the episode records what happened, not just the right amount.

    No refund names another ticket than the task's (`ticket_id`; an unlinked refund is tolerated, since
    the link is optional in the tool and many correct plays leave it out), each gives one of `reasons`
    (when given: a damage refund says `damaged`, not `not_delivered`), sits at order level when
    `order_level` (a shipping fee belongs to no product line: booked on a line, it shows that product
    as partly refunded), and an approval it carries approved exactly its amount. Replacements name no
    other ticket either, with one of `replacement_reasons` when given.
    """
    wrong: list[str] = []
    for r in ctx.created(REFUNDS):
        if r.ticket_id not in (None, ticket_id):
            wrong.append(f"{r.id} is linked to ticket {r.ticket_id}, not {ticket_id}")
        if reasons and r.reason not in reasons:
            wrong.append(f"{r.id} gives the reason {r.reason!r}, not one of {sorted(reasons)}")
        if order_level and r.line_id is not None:
            wrong.append(f"{r.id} is booked on product line {r.line_id}, not at order level")
    for rpl in ctx.created(REPLACEMENTS):
        if rpl.ticket_id not in (None, ticket_id):
            wrong.append(f"{rpl.id} is linked to ticket {rpl.ticket_id}, not {ticket_id}")
        if replacement_reasons and rpl.reason not in replacement_reasons:
            wrong.append(f"{rpl.id} gives the reason {rpl.reason!r}, not one of {sorted(replacement_reasons)}")
    wrong += _loose_approvals(ctx, ctx.created(REFUNDS))
    if wrong:
        return CheckOutcome.failed("refund records state what did not happen: " + "; ".join(wrong[:5]))
    return CheckOutcome.passed("every refund records its ticket, reason, level and approval truly")


@kit.check
def replacement_matches(ctx: CheckContext, *, order_id: str, line_id: str, quantity: int) -> CheckOutcome:
    """The episode's replacements are exactly `quantity` units of one line, and nothing else."""
    made = ctx.created(REPLACEMENTS)
    stray = [r.id for r in made if (r.order_id, r.line_id) != (order_id, line_id)]
    if stray:
        return CheckOutcome.failed(f"replacements of other lines: {stray}")
    units = sum(r.quantity for r in made)
    if units != int(quantity):
        return CheckOutcome.failed(f"{units} unit(s) of {line_id} replaced, expected {quantity}")
    return CheckOutcome.passed(f"{units} unit(s) of {line_id} replaced")


@kit.check
def customer_confirmed(ctx: CheckContext, *, ticket_id: str, refund_total: Any = None) -> CheckOutcome:
    """The state really fixes the ticket's problem, and the simulated customer confirmed it.

    With `refund_total`, what the episode paid the person (refunds on any of their orders plus store
    credit to any of their records) must be exactly that: over-compensation is not a fix. Fixed but never
    confirmed in the thread earns half.
    """
    outcome = assess(ctx.final, ticket_id)
    persona = ctx.final.get(PERSONAS, ticket_id)
    truth = ctx.final.get(TRUTHS, ticket_id)
    if outcome is None or persona is None or truth is None:
        return CheckOutcome.failed(f"ticket {ticket_id} has no ground truth")
    if not outcome.fixed:
        return CheckOutcome.failed(f"the customer's problem ({truth.issue}) is not fixed in the state")
    if refund_total is not None and (given := paid_to_person(ctx, truth.customer_id)) != money_value(refund_total):
        return CheckOutcome.failed(f"the customer got {given} in refunds and credit, the fix is {refund_total}")
    if not persona.confirmed:
        return CheckOutcome(0.5, "fixed, but the customer never confirmed it (no reply after the fix)")
    return CheckOutcome.passed("fixed, and the customer confirmed it")


def _confirmed_at(ctx: CheckContext, ticket_id: str) -> int | None:
    """The index of the episode event where the customer first confirmed the fix; -1 if it had before."""
    before = ctx.initial.get(PERSONAS, ticket_id)
    if before is not None and before.confirmed:
        return -1
    return next((i for i, e in enumerate(ctx.events) if isinstance(e, ev.PersonaUpdated)
                 and e.persona.id == ticket_id and e.persona.confirmed), None)


def _solved_at(ctx: CheckContext, ticket_id: str) -> list[int]:
    """The indexes of the episode events that set the ticket to solved."""
    return [i for i, e in enumerate(ctx.events) if isinstance(e, ev.TicketStatusChanged)
            and e.ticket_id == ticket_id and e.to_status == "solved"]


@kit.check
def solved_after_confirmation(ctx: CheckContext, *, ticket_id: str, refund_total: Any = None) -> CheckOutcome:
    """The ticket ends solved, after the customer confirmed a real fix, and was never reopened meanwhile.

    With `refund_total`, what the episode paid the person must add up to exactly that.
    """
    t = ctx.final.get(TICKETS, ticket_id)
    persona = ctx.final.get(PERSONAS, ticket_id)
    before = ctx.initial.get(PERSONAS, ticket_id)
    truth = ctx.final.get(TRUTHS, ticket_id)
    outcome = assess(ctx.final, ticket_id)
    if t is None or persona is None or before is None or truth is None or outcome is None:
        return CheckOutcome.failed(f"ticket {ticket_id} has no persona")
    if not outcome.fixed:
        return CheckOutcome.failed("the problem is not fixed in the state")
    if refund_total is not None and (given := paid_to_person(ctx, truth.customer_id)) != money_value(refund_total):
        return CheckOutcome.failed(f"the customer got {given} in refunds and credit, the fix is {refund_total}")
    if persona.reopen_count > before.reopen_count:
        return CheckOutcome.failed("the customer had to reopen the ticket again")
    if t.status not in ("solved", "closed") or not persona.confirmed:
        return CheckOutcome.failed(f"status {t.status}, customer confirmed: {persona.confirmed}")
    confirmed_at = _confirmed_at(ctx, ticket_id)
    solved_at = _solved_at(ctx, ticket_id)
    if confirmed_at is None or not solved_at or solved_at[-1] < confirmed_at:
        return CheckOutcome.failed("the ticket was solved before the customer confirmed the fix")
    return CheckOutcome.passed("solved after the customer confirmed the fix")


@kit.check
def not_solved_before_confirmation(ctx: CheckContext, *, ticket_id: str) -> CheckOutcome:
    """Constraint (policy rule 1): the episode never set the ticket to solved before the customer confirmed the fix.

    Judged by the events, not the final status: solving first and fixing later, or solving right after
    the fix but before the customer could confirm it, breaches the rule even if the ticket ends solved
    (or the customer reopened it).
    """
    confirmed_at = _confirmed_at(ctx, ticket_id)
    early = [i for i in _solved_at(ctx, ticket_id) if confirmed_at is None or i < confirmed_at]
    if early:
        when = "never confirmed" if confirmed_at is None else "had not confirmed yet"
        return CheckOutcome.failed(f"{ticket_id} was set to solved while the customer {when} the fix")
    return CheckOutcome.passed("not solved before the customer confirmed the fix")


@kit.check
def money_only_on(ctx: CheckContext, *, order_id: str | None = None, customer_id: str | None = None,
                  max_total: Any = 0) -> CheckOutcome:
    """Constraint: money and goods moved only on the task's order, and at most `max_total` to the person.

    Any refund or replacement on another order (another customer's, or another of this customer's),
    any store credit to a record that is not the person's, or more paid to the person (refunds plus
    store credit, across all their records) than is due violates it.
    """
    stray = [r.id for r in ctx.created(REFUNDS) if r.order_id != order_id]
    stray += [r.id for r in ctx.created(REPLACEMENTS) if r.order_id != order_id]
    mine = person_records(ctx.final, customer_id) if customer_id else frozenset()
    stray += [c.id for c in ctx.created(STORE_CREDITS) if c.customer_id not in mine]
    if stray:
        return CheckOutcome.failed(f"money or goods moved outside the task's order: {stray[:10]}")
    if customer_id is not None and (given := paid_to_person(ctx, customer_id)) > money_value(max_total):
        return CheckOutcome.failed(f"paid the customer {given}, more than the {max_total} due")
    return CheckOutcome.passed("money moved only as the task needs")


@kit.check
def no_money_moved(ctx: CheckContext) -> CheckOutcome:
    """Constraint: no refund, replacement, store credit or approval was created."""
    made = [e.id for e in ctx.created(REFUNDS)] + [e.id for e in ctx.created(REPLACEMENTS)]
    made += [e.id for e in ctx.created(STORE_CREDITS)] + [e.id for e in ctx.created(APPROVALS)]
    if made:
        return CheckOutcome.failed(f"money or goods moved: {made}")
    return CheckOutcome.passed("no money or goods moved")


@kit.check
def acted_after_reveal(ctx: CheckContext, *, ticket_id: str) -> CheckOutcome:
    """Constraint: no refund, replacement or credit before the customer said which order it is about."""
    reveal = next((i for i, e in enumerate(ctx.events) if isinstance(e, ev.PersonaUpdated)
                   and e.persona.id == ticket_id and e.persona.order_revealed), None)
    first = next((i for i, e in enumerate(ctx.events) if isinstance(
        e, ev.RefundIssued | ev.ReplacementCreated | ev.StoreCreditIssued)), None)
    if first is not None and (reveal is None or first < reveal):
        return CheckOutcome.failed("money moved before the customer said which order it was about (a guess)")
    return CheckOutcome.passed("nothing was compensated on a guess")
