"""Named checks: predicates over the final state and its diff from the start.

Every check judges the real outcome, never a status flag alone: the refund
exists for the right order, line and amount; the customer simulator's hidden
state says the problem is fixed and confirmed; the reply states facts that are
true in the final state. Collateral damage (money moved on another order, any
other ticket touched) fails the checks that guard against it.

Each check is `fn(ctx: CheckContext, **params) -> CheckOutcome`; parameters
come from the scenario file, rendered from the setup's bindings.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from saas_sim.core.domain import CheckContext, CheckFn, CheckOutcome
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.models import PRIORITY_RANK, Message
from saas_sim.domains.support.outcomes import (
    assess,
    declines,
    gives_reason,
    has_facts,
    is_dump,
    mentions_amount,
    plain,
)
from saas_sim.domains.support.state import (
    APPROVALS,
    ESCALATIONS,
    KB_FACTS,
    MESSAGES,
    ORDERS,
    PERSONAS,
    REFUNDS,
    REPLACEMENTS,
    STORE_CREDITS,
    TICKETS,
    TRUTHS,
)

__all__ = ["CHECKS"]

_STOPWORDS = {
    "en": {"the", "and", "you", "your", "we", "to", "is", "for", "of", "have", "this", "it"},
    "de": {"und", "der", "die", "das", "sie", "ihre", "wir", "ist", "nicht", "für", "mit", "ihr", "haben"},
    "es": {"el", "la", "que", "de", "y", "su", "por", "para", "con", "los", "hemos", "le", "usted"},
    "fr": {"le", "la", "les", "et", "vous", "votre", "nous", "est", "pour", "avec", "des", "de", "avons"},
}
_COURTESY = ("sorry", "apolog", "thank", "understand", "unfortunately", "leider", "danke", "entschuldig",
             "gracias", "lo siento", "lamentablemente", "merci", "désolé", "malheureusement")
_RUDE = ("stupid", "your fault", "calm down", "not our problem", "deal with it", "idiot", "whatever")


def language_of(text: str) -> str:
    """Returns the language whose common words are most frequent in `text` (ties: en, de, es, fr)."""
    words = plain(text).replace(",", " ").replace(".", " ").split()
    counts = {lang: sum(w in stop for w in words) for lang, stop in _STOPWORDS.items()}
    return max(counts, key=lambda lang: counts[lang])


def _replies(ctx: CheckContext, ticket_id: str) -> list[Message]:
    """Public agent messages posted on exactly `ticket_id` during the episode."""
    return [m for m in ctx.created(MESSAGES)
            if m.ticket_id == ticket_id and m.public and m.author_kind == "agent"]


def _money(value: Any) -> Decimal:
    return Decimal(str(value))


def _refunded_to(ctx: CheckContext, customer_id: str) -> Decimal:
    """Returns what the episode refunded on a customer's orders."""
    orders = ctx.final.table(ORDERS)
    return sum((r.amount for r in ctx.created(REFUNDS)
                if (o := orders.get(r.order_id)) is not None and o.customer_id == customer_id), Decimal("0"))


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

    With `refund_total`, the episode's refunds to the customer's orders must add up to exactly that:
    over-compensation is not a fix. Fixed but never confirmed in the thread earns half.
    """
    outcome = assess(ctx.final, ticket_id)
    persona = ctx.final.get(PERSONAS, ticket_id)
    truth = ctx.final.get(TRUTHS, ticket_id)
    if outcome is None or persona is None or truth is None:
        return CheckOutcome.failed(f"ticket {ticket_id} has no ground truth")
    if not outcome.fixed:
        return CheckOutcome.failed(f"the customer's problem ({truth.issue}) is not fixed in the state")
    if refund_total is not None and (given := _refunded_to(ctx, truth.customer_id)) != _money(refund_total):
        return CheckOutcome.failed(f"the customer got {given} in refunds, the fix is {refund_total}")
    if not persona.confirmed:
        return CheckOutcome(0.5, "fixed, but the customer never confirmed it (no reply after the fix)")
    return CheckOutcome.passed("fixed, and the customer confirmed it")


def reply_has_facts(ctx: CheckContext, *, ticket_id: str, facts: Sequence[str] = (),
                    amounts: Sequence[Any] = (), any_of: Sequence[str] = (), language: str | None = None,
                    truthful_order: str | None = None) -> CheckOutcome:
    """A public reply on the ticket states every fact and amount, in the right language.

    `any_of` needs one of its phrases. With `truthful_order`, the stated amounts must also be what
    was really refunded on that order during the episode (a reply must not claim a different sum).
    Partial credit: the best reply's share of requirements met.
    """
    replies = _replies(ctx, ticket_id)
    if not replies:
        return CheckOutcome.failed(f"no public reply on {ticket_id}")
    if truthful_order is not None:
        refunded = sum((r.amount for r in ctx.created(REFUNDS) if r.order_id == truthful_order), Decimal("0"))
        stated = sum((_money(a) for a in amounts), Decimal("0"))
        if refunded != stated:
            return CheckOutcome.failed(f"the reply states {stated} but {refunded} was refunded on {truthful_order}")
    best, best_missing = -1.0, ["everything"]
    for m in replies:
        missing = [f for f in facts if not has_facts(m.body, (str(f),))]
        missing += [f"amount {a}" for a in amounts if not mentions_amount(m.body, _money(a))]
        if any_of and not any(has_facts(m.body, (str(p),)) for p in any_of):
            missing.append(f"one of {list(any_of)}")
        if language is not None and language_of(m.body) != language:
            missing.append(f"language {language}")
        total = len(facts) + len(amounts) + bool(any_of) + (language is not None)
        score = 1.0 if total == 0 else 1 - len(missing) / total
        if score > best:
            best, best_missing = score, missing
    if best >= 1.0:
        return CheckOutcome.passed("a reply states every required fact")
    return CheckOutcome(max(best, 0.0), f"best reply misses {best_missing}")


def declined_with_reason(ctx: CheckContext, *, ticket_id: str, reason: str) -> CheckOutcome:
    """A public reply declines the request and names the policy reason (final sale, or 30 days)."""
    replies = _replies(ctx, ticket_id)
    if any(declines(m.body) and gives_reason(m.body, reason) for m in replies):
        return CheckOutcome.passed(f"declined, citing {reason}")
    if any(declines(m.body) for m in replies):
        return CheckOutcome(0.5, f"declined without naming the reason ({reason})")
    return CheckOutcome.failed("no reply declines the request")


def polite(ctx: CheckContext, *, ticket_id: str, refusal: bool = False) -> CheckOutcome:
    """The replies on the ticket are courteous and contain nothing rude (needs at least one reply).

    With `refusal`, it judges the tone of a refusal, so it needs a reply that declines.
    """
    replies = _replies(ctx, ticket_id)
    if not replies:
        return CheckOutcome.failed(f"no public reply on {ticket_id}")
    if refusal and not any(declines(m.body) for m in replies):
        return CheckOutcome.failed("no reply declines the request, so there is no refusal to judge")
    rude = [m.id for m in replies if any(r in plain(m.body) for r in _RUDE)]
    if rude:
        return CheckOutcome.failed(f"rude wording in {rude}")
    if not any(any(c in plain(m.body) for c in _COURTESY) for m in replies):
        return CheckOutcome.failed("no courtesy (thanks, apology or understanding) in any reply")
    return CheckOutcome.passed("courteous replies")


def no_money_moved(ctx: CheckContext) -> CheckOutcome:
    """No refund, replacement, store credit or approval was created."""
    made = [e.id for e in ctx.created(REFUNDS)] + [e.id for e in ctx.created(REPLACEMENTS)]
    made += [e.id for e in ctx.created(STORE_CREDITS)] + [e.id for e in ctx.created(APPROVALS)]
    if made:
        return CheckOutcome.failed(f"money or goods moved: {made}")
    return CheckOutcome.passed("no money or goods moved")


def no_collateral(ctx: CheckContext, *, tickets: Sequence[str] = (), orders: Sequence[str] = (),
                  customers: Sequence[str] = ()) -> CheckOutcome:
    """Only the listed tickets changed, and money moved only on the listed orders and customers."""
    touched = [tid for tid, _, _ in ctx.changed(TICKETS) if tid not in tickets]
    money = [r.id for r in ctx.created(REFUNDS) if r.order_id not in orders]
    money += [r.id for r in ctx.created(REPLACEMENTS) if r.order_id not in orders]
    money += [c.id for c in ctx.created(STORE_CREDITS) if c.customer_id not in customers]
    if touched or money:
        return CheckOutcome.failed(f"collateral: other tickets changed {touched[:10]}, money moved {money[:10]}")
    return CheckOutcome.passed("nothing outside the task was touched")


def escalated_only(ctx: CheckContext, *, ticket_id: str, team: str) -> CheckOutcome:
    """The ticket was escalated to `team`, and nothing else happened on it (notes and tags aside)."""
    escs = ctx.created(ESCALATIONS)
    if [(e.ticket_id, e.team) for e in escs] != [(ticket_id, team)]:
        return CheckOutcome.failed(f"escalations {[(e.ticket_id, e.team) for e in escs]}, expected "
                                   f"exactly one of {ticket_id} to {team}")
    if _replies(ctx, ticket_id):
        return CheckOutcome.failed("the agent also replied to the customer")
    if any((ctx.created(REFUNDS), ctx.created(REPLACEMENTS), ctx.created(STORE_CREDITS))):
        return CheckOutcome.failed("the agent also moved money or goods")
    final = ctx.final.get(TICKETS, ticket_id)
    if final is None or final.status != "on-hold":
        return CheckOutcome.failed(f"the ticket ended {final.status if final else 'missing'}, not on-hold")
    return CheckOutcome.passed(f"escalated to {team} and left alone")


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
    """The given tickets are assigned to `assignee_id` with `priority`; every other change costs a point.

    Score: (right - wrong) / len(ticket_ids), floored at 0.
    """
    tickets = ctx.final.table(TICKETS)
    right = sum(1 for t in ticket_ids if (x := tickets.get(t)) is not None
                and x.assignee_id == assignee_id and x.priority == priority and x.status not in ("solved", "closed"))
    wrong = 0
    for tid, before, after in ctx.changed(TICKETS):
        if before is None or after is None:
            continue
        if tid not in ticket_ids and (before.priority, before.assignee_id, before.group, before.status) != (
                after.priority, after.assignee_id, after.group, after.status):
            wrong += 1
    score = max(0.0, (right - wrong) / len(ticket_ids))
    return CheckOutcome(score, f"{right}/{len(ticket_ids)} tickets triaged, {wrong} other ticket(s) changed")


def routed(ctx: CheckContext, *, ticket_id: str, group: str, assignee_id: str, min_priority: str) -> CheckOutcome:
    """The ticket is in `group`, assigned to `assignee_id`, at `min_priority` or more urgent (a third each).

    Re-routing any other ticket scores 0.
    """
    others = [tid for tid, b, a in ctx.changed(TICKETS) if tid != ticket_id and b and a
              and (b.group, b.assignee_id, b.priority) != (a.group, a.assignee_id, a.priority)]
    if others:
        return CheckOutcome.failed(f"other tickets were re-routed: {others[:10]}")
    t = ctx.final.get(TICKETS, ticket_id)
    if t is None:
        return CheckOutcome.failed(f"ticket {ticket_id} is missing")
    parts = [t.group == group, t.assignee_id == assignee_id, PRIORITY_RANK[t.priority] <= PRIORITY_RANK[min_priority]]
    detail = f"group {t.group}, assignee {t.assignee_id}, priority {t.priority}"
    return CheckOutcome(sum(parts) / 3, detail)


def solved_after_confirmation(ctx: CheckContext, *, ticket_id: str, refund_total: Any = None) -> CheckOutcome:
    """The ticket ends solved, after the customer confirmed a real fix, and was never reopened meanwhile.

    With `refund_total`, the episode's refunds to the customer must add up to exactly that.
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
    if refund_total is not None and (given := _refunded_to(ctx, truth.customer_id)) != _money(refund_total):
        return CheckOutcome.failed(f"the customer got {given} in refunds, the fix is {refund_total}")
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


def kb_answered(ctx: CheckContext, *, ticket_id: str, article_id: str) -> CheckOutcome:
    """A public reply gives the facts of the right article without pasting a wall of other articles."""
    facts = ctx.final.get(KB_FACTS, article_id)
    if facts is None:
        return CheckOutcome.failed(f"article {article_id} has no recorded facts")
    replies = _replies(ctx, ticket_id)
    good = [m for m in replies if has_facts(m.body, facts.facts)]
    if not good:
        return CheckOutcome.failed(f"no reply gives the facts of {article_id}: {list(facts.facts)}")
    if all(is_dump(ctx.final, m.body, article_id) for m in good):
        return CheckOutcome.failed("the answer pastes several unrelated articles")
    return CheckOutcome.passed(f"answered from {article_id}")


CHECKS: dict[str, CheckFn] = {
    "support.refund_matches": refund_matches,
    "support.replacement_matches": replacement_matches,
    "support.customer_confirmed": customer_confirmed,
    "support.reply_has_facts": reply_has_facts,
    "support.declined_with_reason": declined_with_reason,
    "support.polite": polite,
    "support.no_money_moved": no_money_moved,
    "support.no_collateral": no_collateral,
    "support.escalated_only": escalated_only,
    "support.merged": merged,
    "support.triaged": triaged,
    "support.routed": routed,
    "support.solved_after_confirmation": solved_after_confirmation,
    "support.kb_answered": kb_answered,
}
"""Every support check, by the name scenario files use."""
