"""Checks over deals, activities and tasks. Each judges outcomes in the final state and the diff."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.check_helpers import deal, money
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.models import Activity, Deal, Task
from saas_sim.domains.crm.pipeline import STAGES, is_open
from saas_sim.domains.crm.state import ACTIVITIES, CONTACTS, DEALS, ENROLLMENTS, TASKS
from saas_sim.domains.crm.text_substance import text_flaw

__all__ = [
    "call_logged",
    "call_outcomes_agree",
    "calls_dated_when_made",
    "deal_amount",
    "deal_close_date",
    "deal_closed_won",
    "deal_edits_within",
    "deal_in_stage",
    "deal_open_not_nurtured",
    "new_tasks_on",
    "next_step_changed",
    "no_other_deals_changed",
    "one_followup_time",
    "stage_never_past",
    "task_due",
    "task_within",
    "texts_say_something",
]


@kit.check
def deal_in_stage(ctx: CheckContext, deal_id: str, stage: str) -> CheckOutcome:
    """The deal ends in `stage`."""
    d = deal(ctx.final, deal_id)
    return CheckOutcome.of(d.stage == stage, f"deal {deal_id} is in {d.stage} (expected {stage})")


@kit.check
def deal_amount(ctx: CheckContext, deal_id: str, amount: str) -> CheckOutcome:
    """The deal's amount equals `amount` exactly (as a decimal)."""
    d = deal(ctx.final, deal_id)
    ok = d.amount is not None and d.amount == money(amount)
    return CheckOutcome.of(ok, f"deal {deal_id} amount is {d.amount} (expected {amount})")


@kit.check
def deal_close_date(ctx: CheckContext, deal_id: str, close_date: str) -> CheckOutcome:
    """The deal's close date equals `close_date`."""
    d = deal(ctx.final, deal_id)
    ok = d.close_date == date.fromisoformat(close_date)
    return CheckOutcome.of(ok, f"deal {deal_id} closes {d.close_date} (expected {close_date})")


@kit.check
def deal_closed_won(ctx: CheckContext, deal_id: str, amount: str, close_date: str) -> CheckOutcome:
    """The deal is closed won with the right amount and close date: all three or nothing."""
    d = deal(ctx.final, deal_id)
    problems = []
    if d.stage != "closed_won":
        problems.append(f"stage is {d.stage}")
    if d.amount is None or d.amount != money(amount):
        problems.append(f"amount is {d.amount}, expected {amount}")
    if d.close_date != date.fromisoformat(close_date):
        problems.append(f"close date is {d.close_date}, expected {close_date}")
    return CheckOutcome.of(not problems, "; ".join(problems) or f"deal {deal_id} closed won at {amount}")


@kit.check
def no_other_deals_changed(ctx: CheckContext, allowed: list[str]) -> CheckOutcome:
    """No deal other than `allowed` was created or changed (collateral damage)."""
    others = [i for i, _, _ in ctx.changed(DEALS) if i not in allowed]
    return CheckOutcome.of(not others, f"other deals changed: {others}" if others else "no other deal changed")


def _new(ctx: CheckContext) -> list[Activity]:
    return ctx.created(ACTIVITIES)


@kit.check
def call_logged(ctx: CheckContext, contact_id: str, deal_id: str, outcome: str | None = None,
                recent_s: float | None = None) -> CheckOutcome:
    """A call was logged on the contact and the deal (half credit if linked to only one of them).

    When `outcome` is given, a call logged without it or with another one scores
    zero: the outcome is the point of the record, and any call at all is what a
    blind writer logs. Calls on the contact or the deal that state different
    outcomes score zero together: the right one among them is a shotgun. When
    `recent_s` is given, a call dated more than that many seconds before grading
    does not count: the call just happened, and a record dated years back misdates
    it (the tool refuses future dates, not past ones).
    """
    calls = [a for a in _new(ctx) if a.kind == "call" and (a.contact_id == contact_id or a.deal_id == deal_id)]
    # A call logged without an outcome states none, so it contradicts nothing.
    said = sorted({a.outcome for a in calls if a.outcome is not None})
    if outcome is not None and len(said) > 1:
        # One call has one outcome: logging every outcome is a shotgun, not a record.
        return CheckOutcome.failed(f"the calls logged contradict each other: outcomes {said}")
    best, misdated = 0.0, ""
    for a in _new(ctx):
        if a.kind != "call" or (outcome is not None and a.outcome != outcome):
            continue
        if recent_s is not None and a.occurred_at < ctx.now - timedelta(seconds=recent_s):
            misdated = f"call {a.id} is dated {a.occurred_at.isoformat()}, not when it happened"
            continue
        links = (a.contact_id == contact_id) + (a.deal_id == deal_id)
        best = max(best, links / 2)
    return CheckOutcome(best, f"best matching call scores {best:.2f}" if best else misdated or "no call was logged")


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _names(ctx: CheckContext, contact_id: str | None, d: Deal | None) -> list[str]:
    """The names of the people a text on the contact or deal may carry: not its words ("Ann Lee" says nothing)."""
    ids = (contact_id, d.primary_contact_id if d is not None else None)
    people = [c for c in (ctx.final.get(CONTACTS, i) for i in ids if i) if c is not None]
    return [n for c in people for n in (c.first_name, c.last_name)]


def _task_flaw(ctx: CheckContext, t: Task, owner_id: str | None) -> str | None:
    """Why a new task on the deal is not the deal's follow-up, or None.

    The follow-up is the work of the person the task names (`owner_id`, by
    default the deal's owner at the start: "create a task on the deal" is the
    owner's to-do), and its subject says what to do. A task handed to a colleague
    or called "." is what a blind writer files.
    """
    d = deal(ctx.initial, t.deal_id) if t.deal_id else None
    want = owner_id if owner_id is not None else (d.owner_id if d is not None else None)
    if want is not None and t.owner_id != want:
        return f"task {t.id} is owned by {t.owner_id}, not {want}"
    flaw = text_flaw(t.subject, names=_names(ctx, t.contact_id, d))
    return f"task {t.id}'s subject says nothing: {flaw}" if flaw else None


@kit.check
def task_due(ctx: CheckContext, deal_id: str, due_at: str, contact_id: str | None = None,
             owner_id: str | None = None) -> CheckOutcome:
    """An open task on the deal is due exactly at `due_at` (half credit: same day, other hour).

    New open tasks on the deal at several different times score zero (a shotgun).
    Only a task of `owner_id` (default: the deal's owner) whose subject says
    something counts (`_task_flaw`).
    """
    want = _instant(due_at)
    best, detail = 0.0, "no follow-up task on the deal"
    times = sorted({t.due_at for t in ctx.created(TASKS) if t.deal_id == deal_id and t.status == "open"})
    if len(times) > 1:
        # The call agreed on one time: tasks at several times name the right one among wrong ones.
        shown = ", ".join(x.isoformat() for x in times[:4])
        return CheckOutcome.failed(f"follow-up tasks at {len(times)} different times ({shown}): a shotgun")
    for t in ctx.created(TASKS):
        if t.deal_id != deal_id or t.status != "open":
            continue
        flaw = _task_flaw(ctx, t, owner_id)
        if flaw is not None:
            detail = flaw
            continue
        score = 1.0 if t.due_at == want else (0.5 if t.due_at.date() == want.date() else 0.0)
        if contact_id is not None and t.contact_id not in (None, contact_id):
            score /= 2
        detail = f"task {t.id} due {t.due_at.isoformat()} (expected {due_at})"
        best = max(best, score)
    return CheckOutcome(best, detail)


@kit.check
def task_within(ctx: CheckContext, deal_id: str, start: str, within_s: float,
                owner_id: str | None = None) -> CheckOutcome:
    """A new open task on the deal is due after `start` (the task's start) and within `within_s` seconds of it.

    Only a task of `owner_id` (default: the deal's owner) whose subject says something counts (`_task_flaw`).
    """
    begin = _instant(start)
    tasks = [t for t in ctx.created(TASKS) if t.deal_id == deal_id and t.status == "open"]
    flaws = [f for t in tasks if (f := _task_flaw(ctx, t, owner_id)) is not None]
    tasks = [t for t in tasks if _task_flaw(ctx, t, owner_id) is None]
    if not tasks and flaws:
        return CheckOutcome.failed("; ".join(flaws[:3]))
    limit = begin + timedelta(seconds=within_s)
    ok = [t for t in tasks if begin <= t.due_at <= limit]
    if ok:
        return CheckOutcome.passed(f"task {ok[0].id} due {ok[0].due_at.isoformat()}")
    # No partial credit for a task at the wrong time: any task at all is what a blind writer makes.
    if tasks:
        return CheckOutcome.failed(f"task {tasks[0].id} is due {tasks[0].due_at.isoformat()}, not within the window")
    return CheckOutcome.failed("no follow-up task on the deal")


@kit.check
def next_step_changed(ctx: CheckContext, deal_id: str, min_words: int = 3, echo_of: str | None = None) -> CheckOutcome:
    """The deal has a new, concrete next step: at least `min_words` real words besides names, not the old one.

    Words of a language, not filler (`text_substance`): "Lorem ipsum dolor" has
    three words and says nothing. With `echo_of` (the task's instructions), a
    next step mostly copied from them ("record a concrete next step on the deal")
    restates the ask and plans nothing.
    """
    before, after = deal(ctx.initial, deal_id).next_step, deal(ctx.final, deal_id).next_step
    if fold(after or "") == fold(before or ""):
        return CheckOutcome.failed(f"next step unchanged ({after!r})")
    flaw = text_flaw(after, min_words=min_words, echo_of=echo_of)
    return CheckOutcome.of(flaw is None, flaw or f"next step {before!r} -> {after!r}")


@kit.check
def deal_open_not_nurtured(ctx: CheckContext, deal_id: str, contact_id: str) -> CheckOutcome:
    """The deal is still open and the contact was not put in a sequence (no hiding in nurture)."""
    d = deal(ctx.final, deal_id)
    enrolled = [e.id for e in ctx.created(ENROLLMENTS) if e.contact_id == contact_id]
    problems = []
    if not is_open(d.stage):
        problems.append(f"deal is {d.stage}")
    if enrolled:
        problems.append(f"contact enrolled in a sequence ({enrolled})")
    return CheckOutcome.of(not problems, "; ".join(problems) or "deal open, no sequence")


_DEAL_BOOKKEEPING = frozenset({"updated_at", "stage_changed_at", "last_activity_at"})
"""Deal fields the CRM sets itself when the deal is edited or an activity is logged on it."""


@kit.check
def deal_edits_within(ctx: CheckContext, deal_id: str, fields: list[str]) -> CheckOutcome:
    """On the task's deal, only `fields` changed (a constraint).

    The scope guard lets the agent edit the task's deal; this bounds *what* it may
    change there, so the right follow-up plus an amount of 1.00, or a renamed
    deal, is not free. Amounts compare as numbers (`25` is `25.00`).
    """
    before, after = deal(ctx.initial, deal_id), deal(ctx.final, deal_id)
    allowed = set(fields) | _DEAL_BOOKKEEPING
    bad = [f for f in sorted(Deal.model_fields) if f not in allowed and getattr(after, f) != getattr(before, f)]
    if bad:
        return CheckOutcome.failed(f"deal {deal_id} fields the task did not ask for changed: {bad}")
    return CheckOutcome.passed(f"only {sorted(fields)} may have changed on {deal_id}")


@kit.check
def call_outcomes_agree(ctx: CheckContext, contact_id: str, deal_id: str) -> CheckOutcome:
    """The calls logged on the contact or the deal state one outcome (a constraint).

    A record that says the buyer answered, did not answer and got a voicemail is
    false whichever goal it was meant to meet: the CRM now misstates the call.
    """
    calls = [a for a in _new(ctx) if a.kind == "call" and (a.contact_id == contact_id or a.deal_id == deal_id)]
    said = sorted({a.outcome for a in calls if a.outcome is not None})
    return CheckOutcome.of(len(said) <= 1, f"call outcomes logged: {said}")


@kit.check
def one_followup_time(ctx: CheckContext, deal_id: str) -> CheckOutcome:
    """The new open tasks on the deal are all due at one time (a constraint): one agreed callback, one time.

    Follow-ups at several times are a shotgun, and leave the rep a calendar of wrong appointments.
    """
    times = sorted({t.due_at for t in ctx.created(TASKS) if t.deal_id == deal_id and t.status == "open"})
    return CheckOutcome.of(len(times) <= 1, f"new follow-ups on {deal_id} at {[x.isoformat() for x in times[:4]]}")


@kit.check
def new_tasks_on(ctx: CheckContext, record_ids: list[str]) -> CheckOutcome:
    """Every new task concerns one of `record_ids` (the task's deal or contact; a constraint).

    The scope guard names a task's owner among its subjects, so the deal owner's
    follow-up is in scope; a to-do about no record handed to that same owner ("Clean
    up your pipeline") would be too. A task about nothing the task named is work
    the task did not ask for.
    """
    wanted = set(record_ids)
    stray = [f"{t.id} ({t.subject!r})" for t in ctx.created(TASKS) if not {t.deal_id, t.contact_id} & wanted]
    return CheckOutcome.of(not stray, f"tasks about no record of the task: {stray[:4]}" if stray
                           else "every new task is about the task's records")


@kit.check
def stage_never_past(ctx: CheckContext, deal_id: str, stage: str) -> CheckOutcome:
    """The agent never moved the deal past `stage` in the pipeline (a constraint).

    The final stage alone hides an excursion: a deal pushed into negotiation and
    back ends in proposal, but its stage history, which forecasts and win-rate
    reports read, now says it was negotiated.
    """
    order: dict[str, int] = {s: i for i, s in enumerate(STAGES)}
    past = [e.to_stage for e in ctx.events_of(ev.DealStageChanged)
            if isinstance(e, ev.DealStageChanged) and e.deal_id == deal_id and order[e.to_stage] > order[stage]]
    return CheckOutcome.of(not past, f"deal {deal_id} was moved past {stage}: {past}" if past
                           else f"deal {deal_id} never went past {stage}")


@kit.check
def calls_dated_when_made(ctx: CheckContext, recent_s: float) -> CheckOutcome:
    """Every call the agent logged is dated within `recent_s` seconds before grading (a constraint).

    The task's call has just ended: a record dating it years back misstates when
    the buyer was reached, and activity reports read that date.
    """
    since = ctx.now - timedelta(seconds=recent_s)
    old = [f"{a.id} ({a.occurred_at.isoformat()})" for a in _new(ctx) if a.kind == "call" and a.occurred_at < since]
    return CheckOutcome.of(not old, f"calls misdated: {old[:4]}" if old else "every call is dated when it was made")


@kit.check
def texts_say_something(ctx: CheckContext, echo_of: str | None = None) -> CheckOutcome:
    """Every task subject the agent wrote and every next step it set says something (a constraint).

    Like an email of filler, a follow-up called "." or a next step of lorem ipsum
    is junk written into the CRM, whatever else the episode got right
    (`text_substance`: real words, not filler). With `echo_of` (the task's
    instructions), a next step mostly copied from them ("record a concrete next
    step on the deal") is junk too: it restates the ask, like an email that pastes it.
    """
    empty: list[str] = []
    for t in ctx.created(TASKS):
        on = ctx.final.get(DEALS, t.deal_id) if t.deal_id else None
        if (flaw := text_flaw(t.subject, names=_names(ctx, t.contact_id, on))) is not None:
            empty.append(f"task {t.id}: {flaw}")
    for i, before, after in ctx.changed(DEALS):
        if after is None or after.next_step is None or (before is not None and before.next_step == after.next_step):
            continue
        if (flaw := text_flaw(after.next_step, names=_names(ctx, None, after), echo_of=echo_of)) is not None:
            empty.append(f"next step of {i}: {flaw}")
    return CheckOutcome.of(not empty, "; ".join(empty[:4]) or "every task subject and next step says something")

