"""Checks about the queue: merges, triage, routing, escalation, and tickets the task must leave alone."""

from __future__ import annotations

from collections.abc import Sequence

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import PRIORITY_RANK
from saas_sim.domains.support.state import (
    ESCALATIONS,
    MESSAGES,
    REFUNDS,
    REPLACEMENTS,
    STORE_CREDITS,
    TICKETS,
)

__all__ = [
    "escalated",
    "merged",
    "no_collateral",
    "no_reply",
    "routed",
    "stays_open",
    "ticket_fields_kept",
    "triaged",
]


@kit.check
def merged(ctx: CheckContext, *, target_id: str, source_ids: Sequence[str],
           keep_separate: Sequence[str] = ()) -> CheckOutcome:
    """Every source is merged into the target, which survives; `keep_separate` tickets are not merged."""
    tickets = ctx.final.table(TICKETS)
    target = tickets.get(target_id)
    if target is None or target.merged_into is not None or target.status == "closed":
        return CheckOutcome.failed(f"the ticket to keep, {target_id}, was merged away or closed")
    wrong = [t for t in keep_separate if (x := tickets.get(t)) is not None
             and (x.merged_into is not None or x.merged_from != (ctx.initial.get(TICKETS, t) or x).merged_from)]
    if wrong:
        return CheckOutcome.failed(f"unrelated tickets were merged: {wrong}")
    done = [s for s in source_ids if (x := tickets.get(s)) is not None and x.merged_into == target_id]
    score = len(done) / len(source_ids) if source_ids else 1.0
    return CheckOutcome(score, f"{len(done)}/{len(source_ids)} duplicates merged into {target_id}")


@kit.check
def triaged(ctx: CheckContext, *, ticket_ids: Sequence[str], assignee_id: str, priority: str) -> CheckOutcome:
    """The given tickets are assigned to `assignee_id` with `priority`, still open (a share each)."""
    tickets = ctx.final.table(TICKETS)
    right = sum(1 for t in ticket_ids if (x := tickets.get(t)) is not None
                and x.assignee_id == assignee_id and x.priority == priority and x.status not in ("solved", "closed"))
    return CheckOutcome(right / len(ticket_ids), f"{right}/{len(ticket_ids)} tickets triaged")


@kit.check
def routed(ctx: CheckContext, *, ticket_id: str, group: str, assignee_id: str, min_priority: str) -> CheckOutcome:
    """The ticket is in `group`, assigned to `assignee_id`, at `min_priority` or more urgent (all three).

    All or nothing: each part alone is a guess among a few values, so paying for parts would let a
    blind search climb to the answer without reading who is least loaded.
    """
    t = ctx.final.get(TICKETS, ticket_id)
    if t is None:
        return CheckOutcome.failed(f"ticket {ticket_id} is missing")
    detail = f"group {t.group}, assignee {t.assignee_id}, priority {t.priority}"
    ok = t.assignee_id == assignee_id and t.group == group and PRIORITY_RANK[t.priority] <= PRIORITY_RANK[min_priority]
    return CheckOutcome.of(ok, detail)


@kit.check
def escalated(ctx: CheckContext, *, ticket_id: str, team: str) -> CheckOutcome:
    """The ticket was escalated to `team`, exactly once, and to no other team; it ends on hold."""
    escs = [(e.ticket_id, e.team) for e in ctx.created(ESCALATIONS)]
    if escs != [(ticket_id, team)]:
        return CheckOutcome.failed(f"escalations {escs}, expected exactly one of {ticket_id} to {team}")
    final = ctx.final.get(TICKETS, ticket_id)
    if final is None or final.status != "on-hold":
        return CheckOutcome(0.5, f"escalated, but the ticket ended {final.status if final else 'missing'}")
    return CheckOutcome.passed(f"escalated to {team}")


@kit.check
def no_collateral(ctx: CheckContext, *, tickets: Sequence[str] = (), orders: Sequence[str] = (),
                  customers: Sequence[str] = ()) -> CheckOutcome:
    """Constraint: only the listed tickets changed, and money moved only on the listed orders and customers."""
    touched = [tid for tid, _, _ in ctx.changed(TICKETS) if tid not in tickets]
    touched += sorted({m.ticket_id for m in ctx.created(MESSAGES) if m.ticket_id not in tickets} - set(touched))
    money = [r.id for r in ctx.created(REFUNDS) if r.order_id not in orders]
    money += [r.id for r in ctx.created(REPLACEMENTS) if r.order_id not in orders]
    money += [c.id for c in ctx.created(STORE_CREDITS) if c.customer_id not in customers]
    if touched or money:
        return CheckOutcome.failed(f"collateral: other tickets changed {touched[:10]}, money moved {money[:10]}")
    return CheckOutcome.passed("nothing outside the task was touched")


@kit.check
def no_reply(ctx: CheckContext, *, tickets: Sequence[str]) -> CheckOutcome:
    """Constraint: no public agent reply on the listed tickets (the instructions said to leave them)."""
    posted = sorted({m.ticket_id for m in ctx.created(MESSAGES)
                     if m.ticket_id in tickets and m.public and m.author_kind == "agent"})
    if posted:
        return CheckOutcome.failed(f"replied on tickets that had to be left alone: {posted}")
    return CheckOutcome.passed("no reply on the tickets to leave")


@kit.check
def stays_open(ctx: CheckContext, *, tickets: Sequence[str]) -> CheckOutcome:
    """Constraint: the episode never set the listed tickets to solved or closed (merging aside).

    Judged by the events, not the final status: a customer who reopens a wrongly solved ticket does
    not undo the breach.
    """
    done = sorted({e.ticket_id for e in ctx.events if isinstance(e, ev.TicketStatusChanged)
                   and e.ticket_id in tickets and e.to_status in ("solved", "closed")})
    if done:
        return CheckOutcome.failed(f"solved or closed tickets that must stay open: {done}")
    return CheckOutcome.passed("the tickets stay open")


TICKET_FIELDS_KEPT = ("priority", "group", "assignee_id")
"""The routing fields of a ticket that a task which does not route it leaves as they were."""


@kit.check
def ticket_fields_kept(ctx: CheckContext, *, tickets: Sequence[str], fields: Sequence[str] = TICKET_FIELDS_KEPT,
                       may_take: str | None = None, tags_kept: bool = True) -> CheckOutcome:
    """Constraint: the task's own tickets end with the listed fields as they were at the start.

    `no_collateral` guards the other tickets; this guards the ones the task works on, whose fields it
    did not ask to change (a kept ticket set to low priority, or handed to a colleague, after a merge).
    With `may_take` (the acting agent's id), a ticket may end assigned to that agent: taking one's
    own ticket is part of working it. With `tags_kept` (the default), every tag a ticket had at the start
    is still on it: a tag tells the desk what the ticket is (its issue, a VIP, a threat), and stripping one
    hides that. Adding tags is bookkeeping the desk does all the time (a macro adds its tags; a task may ask
    for one), so added tags are allowed.
    """
    changed: list[str] = []
    for tid in tickets:
        before, after = ctx.initial.get(TICKETS, tid), ctx.final.get(TICKETS, tid)
        if before is None or after is None:
            continue
        if tags_kept and (lost := sorted(set(before.tags) - set(after.tags))):
            changed.append(f"{tid}.tags: removed {lost}")
        for field in fields:
            was, now = getattr(before, field), getattr(after, field)
            if was != now and not (field == "assignee_id" and may_take is not None and now == may_take):
                changed.append(f"{tid}.{field}: {was} -> {now}")
    if changed:
        return CheckOutcome.failed(f"fields the task did not ask to change were changed: {changed[:10]}")
    return CheckOutcome.passed(f"{', '.join(fields)} kept on {len(tickets)} ticket(s)")
