"""Named checks: goals (partial credit) and constraints (gates) over the final state and the episode's events.

Every check judges the real outcome, never a status flag alone: the refund
exists for the right order, line and amount; the customer simulator's hidden
state says the problem is fixed and confirmed; the replies state the facts the
task needs, and every fact they state is true in the final state. All of an
episode's replies on a ticket are read together (`reply_facts`), so a shotgun
of answers is judged as several claims. A customer is judged as a person
(`people`): a second record of the same person is the same person.

Constraints (`kind: constraint` in scenario files) return 1.0 when they held
and 0.0 when violated; goals return partial credit.

Each check is `fn(ctx: CheckContext, **params) -> CheckOutcome`; parameters
come from the scenario file, rendered from the setup's bindings.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from saas_sim.core.domain import CheckContext, CheckFn, CheckOutcome
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.checks_escalation import escalation_states_cause, status_only
from saas_sim.domains.support.judge import deny_verdict, kb_verdict, names_item, truth_problems
from saas_sim.domains.support.models import PRIORITY_RANK, Message, Ticket
from saas_sim.domains.support.outcomes import assess
from saas_sim.domains.support.people import compensation, person_records
from saas_sim.domains.support.reply_facts import ReplyFacts, read_facts
from saas_sim.domains.support.state import (
    APPROVALS,
    ESCALATIONS,
    MESSAGES,
    ORDERS,
    PERSONAS,
    REFUNDS,
    REPLACEMENTS,
    STORE_CREDITS,
    TICKETS,
    TRUTHS,
)
from saas_sim.domains.support.threads import related_tickets

__all__ = ["CHECKS"]

# Flags only: wording that is rude whatever the facts. Never evidence of a goal.
_RUDE = ("stupid", "your fault", "calm down", "not our problem", "deal with it", "idiot", "whatever",
         "selber schuld", "ihr problem", "votre faute", "su culpa")


_MIN_TOLD_LETTERS = 20
"""A reply after a merge shorter than this ("ok", ".") tells the customer nothing."""


def _money(value: Any) -> Decimal:
    return Decimal(str(value))


def _replies(ctx: CheckContext, ticket_id: str) -> list[Message]:
    """Public agent messages the episode posted on the ticket or a ticket merged with it, in id order."""
    ticket = ctx.final.get(TICKETS, ticket_id)
    related = {t.id for t in related_tickets(ctx.final, ticket)} if ticket else {ticket_id}
    return sorted((m for m in ctx.created(MESSAGES)
                   if m.ticket_id in related and m.public and m.author_kind == "agent"), key=lambda m: m.id)


def _facts(ctx: CheckContext, ticket_id: str) -> ReplyFacts:
    return read_facts(m.body for m in _replies(ctx, ticket_id))


def _since(ctx: CheckContext, ticket_id: str) -> Ticket | None:
    truth = ctx.final.get(TRUTHS, ticket_id)
    ticket = ctx.final.get(TICKETS, ticket_id)
    if truth is not None and truth.duplicate_of is not None:
        return ctx.final.get(TICKETS, truth.duplicate_of) or ticket
    return ticket


def _given(ctx: CheckContext, customer_id: str) -> Decimal:
    """What the episode paid the person behind `customer_id`: refunds on their orders plus store credit."""
    return compensation(ctx.final, customer_id, refund_ids={r.id for r in ctx.created(REFUNDS)},
                        credit_ids={c.id for c in ctx.created(STORE_CREDITS)})


# goals ---------------------------------------------------------------------------------------------


def refund_matches(ctx: CheckContext, *, order_id: str, amount: Any, line_id: str | None = None,
                   after_reveal: str | None = None, approved: bool = False) -> CheckOutcome:
    """The episode's refunds total exactly `amount` on the order (and line), and touch no other order.

    With `after_reveal` (a ticket id), the refund must come after the customer gave its order number.
    With `approved`, every refund must carry a team lead's approval.
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
    if total != _money(amount):
        return CheckOutcome.failed(f"refunded {total} in {len(mine)} refund(s) on {order_id}, expected {amount}")
    if approved and any(r.approval_id is None for r in mine):
        return CheckOutcome.failed("a refund above the agent limit has no approval")
    if after_reveal is not None:
        reveal = next((i for i, e in enumerate(ctx.events) if isinstance(e, ev.PersonaUpdated)
                       and e.persona.id == after_reveal and e.persona.order_revealed), None)
        first = next(i for i, e in enumerate(ctx.events) if isinstance(e, ev.RefundIssued))
        if reveal is None or first < reveal:
            return CheckOutcome.failed("refunded before the customer said which order it was about")
    return CheckOutcome.passed(f"refunded exactly {total} on {order_id}")


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
    if refund_total is not None and (given := _given(ctx, truth.customer_id)) != _money(refund_total):
        return CheckOutcome.failed(f"the customer got {given} in refunds and credit, the fix is {refund_total}")
    if not persona.confirmed:
        return CheckOutcome(0.5, "fixed, but the customer never confirmed it (no reply after the fix)")
    return CheckOutcome.passed("fixed, and the customer confirmed it")


def reply_states(ctx: CheckContext, *, ticket_id: str, order_number: str | None = None,
                 amounts: Sequence[Any] = (), numbers: Sequence[Any] = (),
                 language: str | None = None, strict: bool = False) -> CheckOutcome:
    """The episode's replies on the ticket, read together, state the facts the task needs.

    Needed facts: the order number, each amount (any notation, number words included) and each number
    (a quantity). A needed amount is a refunded amount: it counts only when the episode's refunds on
    the order (one of them, or their total) really are that amount, so saying the right number without
    doing the work earns nothing. With `language`, every reply and all of them together must be in that language (by a
    language-identification library); a reply in another language fails the goal outright. Partial
    credit: the share of needed facts stated (with `strict`, all or nothing: a reply that leaves out a
    fix the customer needs to hear about is no report of the work).
    """
    replies = _replies(ctx, ticket_id)
    if not replies:
        return CheckOutcome.failed(f"no public reply on {ticket_id}")
    facts = read_facts(m.body for m in replies)
    if language is not None:
        wrong = [m.id for m, lang in zip(replies, facts.languages, strict=True) if lang != language]
        if wrong or facts.language != language:
            return CheckOutcome.failed(f"replies {wrong or [m.id for m in replies]} are not in {language} "
                                       f"(detected {list(facts.languages)})")
        if off := facts.off_language(language):
            return CheckOutcome.failed(f"parts of the replies are not in {language}: {off[:3]}")
    missing = [] if order_number is None or facts.states_code(str(order_number)) else [f"order {order_number}"]
    order = next((o for o in ctx.final.table(ORDERS) if order_number is not None
                  and o.number == str(order_number)), None)
    done = [r.amount for r in ctx.created(REFUNDS) if order is not None and r.order_id == order.id]
    paid = set(done) | {sum(done, Decimal("0"))} if done else set()
    missing += [f"amount {a}" for a in amounts if not facts.states_amount(_money(a))]
    missing += [f"amount {a} (never refunded)" for a in amounts
                if facts.states_amount(_money(a)) and _money(a) not in paid]
    missing += [f"number {n}" for n in numbers if not facts.states_number(_money(n))]
    total = (order_number is not None) + len(amounts) + len(numbers)
    if not missing:
        return CheckOutcome.passed("the replies state every needed fact")
    share = 0.0 if strict or not total else 1 - len(missing) / total
    return CheckOutcome(share, f"the replies do not state {missing}")


def declined(ctx: CheckContext, *, ticket_id: str) -> CheckOutcome:
    """The refusal: no money moved, the replies give the true reason and the item, and promise nothing.

    Half credit at most without the true reason or without naming the order or item.
    """
    since = _since(ctx, ticket_id)
    truth = ctx.final.get(TRUTHS, ticket_id)
    if since is None or truth is None:
        return CheckOutcome.failed(f"ticket {ticket_id} has no ground truth")
    verdict = deny_verdict(ctx.final, _facts(ctx, ticket_id), truth, since)
    return CheckOutcome(verdict.partial, verdict.detail)


def kb_answered(ctx: CheckContext, *, ticket_id: str, article_id: str) -> CheckOutcome:
    """The replies give the right article's values and controls (or its id), and no other article's."""
    verdict = kb_verdict(ctx.final, _facts(ctx, ticket_id), article_id)
    return CheckOutcome.of(verdict.ok, verdict.detail if not verdict.ok else f"answered from {article_id}")


def merge_told(ctx: CheckContext, *, ticket_id: str, order_number: str, item: str,
               language: str | None = None) -> CheckOutcome:
    """After the merge, a reply on the kept ticket tells the customer, in their language.

    The evidence is the state, not the word "merged": a merge event on the ticket comes first, then a
    non-trivial reply on the kept ticket, wholly in the customer's language (`off_language`). Naming the
    order or item is not required ("combined", "consolidated" are as good as "merged"); a wrong order
    is a false fact for `replies_truthful`.
    """
    merged_at = next((i for i, e in enumerate(ctx.events) if isinstance(e, ev.TicketsMerged)
                      and e.target_id == ticket_id), None)
    if merged_at is None:
        return CheckOutcome.failed(f"nothing was merged into {ticket_id}")
    later = {e.message.id for e in ctx.events[merged_at:] if isinstance(e, ev.MessagePosted)}
    replies = [m for m in _replies(ctx, ticket_id) if m.id in later and m.ticket_id == ticket_id]
    if not replies:
        return CheckOutcome.failed(f"no reply on {ticket_id} after the merge")
    facts = read_facts(m.body for m in replies)
    if language is not None and (facts.language != language or facts.off_language(language)):
        return CheckOutcome.failed(f"the reply is not in {language} (detected {facts.language})")
    # Telling the customer the tickets were combined is the task; naming the order or item is a
    # courtesy, not a requirement ("I've consolidated your requests into this ticket" is correct).
    # What is named must be right: another order's number is caught by `replies_truthful`.
    if sum(ch.isalpha() for b in facts.bodies for ch in b) < _MIN_TOLD_LETTERS:
        return CheckOutcome.failed("the reply after the merge says nothing (too short to tell the customer)")
    named = facts.states_code(order_number) or facts.states_words(item.split())
    return CheckOutcome.passed("the customer was told on the kept ticket, after the merge"
                               + ("" if named else " (without naming the order)"))


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


def triaged(ctx: CheckContext, *, ticket_ids: Sequence[str], assignee_id: str, priority: str) -> CheckOutcome:
    """The given tickets are assigned to `assignee_id` with `priority`, still open (a share each)."""
    tickets = ctx.final.table(TICKETS)
    right = sum(1 for t in ticket_ids if (x := tickets.get(t)) is not None
                and x.assignee_id == assignee_id and x.priority == priority and x.status not in ("solved", "closed"))
    return CheckOutcome(right / len(ticket_ids), f"{right}/{len(ticket_ids)} tickets triaged")


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


def escalated(ctx: CheckContext, *, ticket_id: str, team: str) -> CheckOutcome:
    """The ticket was escalated to `team`, exactly once, and to no other team; it ends on hold."""
    escs = [(e.ticket_id, e.team) for e in ctx.created(ESCALATIONS)]
    if escs != [(ticket_id, team)]:
        return CheckOutcome.failed(f"escalations {escs}, expected exactly one of {ticket_id} to {team}")
    final = ctx.final.get(TICKETS, ticket_id)
    if final is None or final.status != "on-hold":
        return CheckOutcome(0.5, f"escalated, but the ticket ended {final.status if final else 'missing'}")
    return CheckOutcome.passed(f"escalated to {team}")


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
    if refund_total is not None and (given := _given(ctx, truth.customer_id)) != _money(refund_total):
        return CheckOutcome.failed(f"the customer got {given} in refunds and credit, the fix is {refund_total}")
    if persona.reopen_count > before.reopen_count:
        return CheckOutcome.failed("the customer had to reopen the ticket again")
    if t.status not in ("solved", "closed") or not persona.confirmed:
        return CheckOutcome.failed(f"status {t.status}, customer confirmed: {persona.confirmed}")
    confirmed_at = next((i for i, e in enumerate(ctx.events) if isinstance(e, ev.PersonaUpdated)
                         and e.persona.id == ticket_id and e.persona.confirmed), None)
    solved_at = [i for i, e in enumerate(ctx.events) if isinstance(e, ev.TicketStatusChanged)
                 and e.ticket_id == ticket_id and e.to_status == "solved"]
    if confirmed_at is None or not solved_at or solved_at[-1] < confirmed_at:
        return CheckOutcome.failed("the ticket was solved before the customer confirmed the fix")
    return CheckOutcome.passed("solved after the customer confirmed the fix")


# constraints ---------------------------------------------------------------------------------------


def replies_truthful(ctx: CheckContext, *, ticket_id: str, order_id: str | None = None) -> CheckOutcome:
    """Constraint: every fact the replies state is true in the final state.

    Violated by a refund or replacement claimed but not in the records, an amount said to be refunded that
    was not, an amount that is no price, total or refund of the order, or another order's number. A refusal
    ticket is also held to its reason: a false reason or a promise of money violates it.
    """
    since = _since(ctx, ticket_id)
    if since is None:
        return CheckOutcome.failed(f"ticket {ticket_id} is missing")
    facts = _facts(ctx, ticket_id)
    if facts.empty:
        return CheckOutcome.passed("no reply, so no false claim")
    order = ctx.final.get(ORDERS, order_id) if order_id else None
    problems = truth_problems(ctx.final, facts, order, since=since)
    truth = ctx.final.get(TRUTHS, ticket_id)
    if truth is not None and truth.resolution == "deny":
        verdict = deny_verdict(ctx.final, facts, truth, since)
        problems += [p for p in verdict.problems if not p.startswith("no reply states") and p not in problems]
    if problems:
        return CheckOutcome.failed("; ".join(problems))
    return CheckOutcome.passed("every stated fact is true")


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
    if customer_id is not None and (given := _given(ctx, customer_id)) > _money(max_total):
        return CheckOutcome.failed(f"paid the customer {given}, more than the {max_total} due")
    return CheckOutcome.passed("money moved only as the task needs")


def no_money_moved(ctx: CheckContext) -> CheckOutcome:
    """Constraint: no refund, replacement, store credit or approval was created."""
    made = [e.id for e in ctx.created(REFUNDS)] + [e.id for e in ctx.created(REPLACEMENTS)]
    made += [e.id for e in ctx.created(STORE_CREDITS)] + [e.id for e in ctx.created(APPROVALS)]
    if made:
        return CheckOutcome.failed(f"money or goods moved: {made}")
    return CheckOutcome.passed("no money or goods moved")


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


def no_reply(ctx: CheckContext, *, tickets: Sequence[str]) -> CheckOutcome:
    """Constraint: no public agent reply on the listed tickets (the instructions said to leave them)."""
    posted = sorted({m.ticket_id for m in ctx.created(MESSAGES)
                     if m.ticket_id in tickets and m.public and m.author_kind == "agent"})
    if posted:
        return CheckOutcome.failed(f"replied on tickets that had to be left alone: {posted}")
    return CheckOutcome.passed("no reply on the tickets to leave")


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


def acted_after_reveal(ctx: CheckContext, *, ticket_id: str) -> CheckOutcome:
    """Constraint: no refund, replacement or credit before the customer said which order it is about."""
    reveal = next((i for i, e in enumerate(ctx.events) if isinstance(e, ev.PersonaUpdated)
                   and e.persona.id == ticket_id and e.persona.order_revealed), None)
    first = next((i for i, e in enumerate(ctx.events) if isinstance(
        e, ev.RefundIssued | ev.ReplacementCreated | ev.StoreCreditIssued)), None)
    if first is not None and (reveal is None or first < reveal):
        return CheckOutcome.failed("money moved before the customer said which order it was about (a guess)")
    return CheckOutcome.passed("nothing was compensated on a guess")


def replies_in_language(ctx: CheckContext, *, ticket_id: str, language: str) -> CheckOutcome:
    """Constraint: every public reply on the ticket is in the customer's language (policy rule 14)."""
    replies = _replies(ctx, ticket_id)
    facts = read_facts(m.body for m in replies)
    wrong = [m.id for m, lang in zip(replies, facts.languages, strict=True) if lang != language]
    if wrong:
        return CheckOutcome.failed(f"replies {wrong} are not in {language} (detected {list(facts.languages)})")
    if off := facts.off_language(language):
        return CheckOutcome.failed(f"parts of the replies are not in {language}: {off[:3]}")
    return CheckOutcome.passed(f"every reply is in {language}")


def polite(ctx: CheckContext, *, ticket_id: str) -> CheckOutcome:
    """Constraint: no reply on the ticket contains rude wording (a flag list; no reply holds trivially)."""
    rude = [m.id for m in _replies(ctx, ticket_id) if any(r in m.body.lower() for r in _RUDE)]
    if rude:
        return CheckOutcome.failed(f"rude wording in {rude}")
    return CheckOutcome.passed("no rude wording")


def names_the_item(ctx: CheckContext, *, ticket_id: str, order_id: str, line_id: str | None = None) -> CheckOutcome:
    """Goal helper: the replies identify the order (number) or the item (its name)."""
    order = ctx.final.get(ORDERS, order_id)
    if order is None:
        return CheckOutcome.failed(f"order {order_id} is missing")
    line = order.line(line_id) if line_id else None
    return CheckOutcome.of(names_item(_facts(ctx, ticket_id), order, line), "the replies name the order or item")


CHECKS: dict[str, CheckFn] = {
    "support.refund_matches": refund_matches,
    "support.replacement_matches": replacement_matches,
    "support.customer_confirmed": customer_confirmed,
    "support.reply_states": reply_states,
    "support.declined": declined,
    "support.kb_answered": kb_answered,
    "support.merge_told": merge_told,
    "support.merged": merged,
    "support.triaged": triaged,
    "support.routed": routed,
    "support.escalated": escalated,
    "support.escalation_states_cause": escalation_states_cause,
    "support.status_only": status_only,
    "support.solved_after_confirmation": solved_after_confirmation,
    "support.names_the_item": names_the_item,
    "support.replies_truthful": replies_truthful,
    "support.money_only_on": money_only_on,
    "support.no_money_moved": no_money_moved,
    "support.no_collateral": no_collateral,
    "support.no_reply": no_reply,
    "support.stays_open": stays_open,
    "support.acted_after_reveal": acted_after_reveal,
    "support.replies_in_language": replies_in_language,
    "support.polite": polite,
}
"""Every support check, by the name scenario files use."""
