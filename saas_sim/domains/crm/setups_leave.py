"""Scenario setup for leave cover: a rep's open tasks due during their leave move to the first working day after.

The leave always ends on a Friday or a Saturday, so "the day after" is a weekend
day, and staged tasks sit on every edge: early on the first day, late on the last,
the evening before, the day after, one already completed, and a colleague's.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.models import Contact, Deal, Task
from saas_sim.domains.crm.pipeline import is_open
from saas_sim.domains.crm.setup_helpers import day_text, distractor_count, fresh_id, iso, pick, reachable, user_name
from saas_sim.domains.crm.state import CONTACTS, DEALS, TASKS, USERS

__all__ = ["leave_cover"]

_SUBJECTS = ("Send the revised proposal", "Call back about pricing", "Confirm the security review",
             "Check in after the demo", "Chase the signed order form", "Prepare the renewal call")


def _at(day: date, hour: int, minute: int, now: datetime) -> datetime:
    return datetime.combine(day, time(hour, minute), tzinfo=now.tzinfo)


def _first_working_day_after(day: date) -> date:
    out = day + timedelta(days=1)
    while out.weekday() >= 5:
        out += timedelta(days=1)
    return out


def _task(ctx: SetupContext, deal: Deal, due: datetime) -> Task:
    return Task(id=fresh_id(ctx, "tsk"), subject=ctx.rng.choice(_SUBJECTS), due_at=due, status="open",
                owner_id=deal.owner_id, contact_id=deal.primary_contact_id, deal_id=deal.id, notes=None,
                created_at=ctx.now - timedelta(days=ctx.rng.randint(1, 9)))


def _contact(ctx: SetupContext, deal: Deal) -> Contact | None:
    return ctx.state.get(CONTACTS, deal.primary_contact_id) if deal.primary_contact_id else None


def _offset(move: dict[str, Any], hours: int) -> dict[str, Any]:
    """The same instant written at another UTC offset (`+01:00`), an argument form agents may send."""
    at = datetime.fromisoformat(move["due_at"].replace("Z", "+00:00"))
    local = at.astimezone(timezone(timedelta(hours=hours)))
    return {**move, "due_at": local.isoformat()}


def _moves(tasks: list[Task], day: date, keep_time: bool, now: datetime) -> list[dict[str, Any]]:
    # The constant time of the one-time-for-all misreading is 09:00, or the first hour after it that no moved
    # task holds: a task that was due at 09:00 would be moved right by chance, and the misreading pass.
    held = {(t.due_at.hour, t.due_at.minute) for t in tasks}
    hour = next(h for h in range(9, 33) if (h % 24, 0) not in held) % 24
    return [{"task_id": t.id, "due_at": iso(_at(day, t.due_at.hour, t.due_at.minute, now) if keep_time
                                          else _at(day, hour, 0, now))} for t in tasks]


@kit.setup
def leave_cover(ctx: SetupContext) -> Setup:
    """A rep on leave from `start` to `end` (inclusive, ending on a Friday or Saturday), with tasks on every edge.

    Bindings: user, start, end, start_text, end_text, return_day, moves (task_id and new due_at), moved_ids,
    day_after_moves, nine_am_moves (every task at one time none of them holds: 09:00, else a later hour),
    edge_moves (the evening before and the day after), completed_id,
    colleague_task_id, contact (on one of the rep's deals), moves_cet and moves_utc_offset (the moves'
    instants at +01:00 and +00:00), dates (every true due date after the moves).

    Params:
        colleague_tasks: Distractors: more open tasks of other reps due inside the leave (default 0; one is
            always staged).
    """
    open_deals = [d for d in ctx.state.table(DEALS) if is_open(d.stage)]
    reps = [u for u in ctx.state.table(USERS) if u.active and u.role in ("ae", "sdr")
            and sum(d.owner_id == u.id for d in open_deals) >= 2
            and any(d.owner_id == u.id and (c := _contact(ctx, d)) is not None and reachable(c) for d in open_deals)]
    today = ctx.now.date()
    # Leaves in which none of the rep's own open tasks is due yet, so the staged ones are the whole task.
    options: list[tuple[str, date, date]] = []
    for u in reps:
        due = [t.due_at.date() for t in ctx.state.table(TASKS) if t.owner_id == u.id and t.status == "open"]
        for lead in range(2, 12):
            start = today + timedelta(days=lead)
            for k in range(2, 10):
                end = start + timedelta(days=k)
                if end.weekday() in (4, 5) and not any(start <= d <= end for d in due):
                    options.append((u.id, start, end))
    rep_id, start, end = pick(ctx.rng, options, "leave with no task of the rep due yet")
    rep = next(u for u in reps if u.id == rep_id)
    mine = [d for d in open_deals if d.owner_id == rep.id]
    theirs = pick(ctx.rng, [d for d in open_deals if d.owner_id != rep.id], "colleague's open deal")
    back = _first_working_day_after(end)
    span = (end - start).days

    def deal() -> Deal:
        return pick(ctx.rng, mine, "rep's deal")

    in_leave = [
        _task(ctx, deal(), _at(start, ctx.rng.randint(0, 6), ctx.rng.choice((0, 30)), ctx.now)),
        _task(ctx, deal(), _at(start + timedelta(days=ctx.rng.randint(1, span - 1)), ctx.rng.randint(8, 17),
                               ctx.rng.choice((0, 15, 30, 45)), ctx.now)),
        _task(ctx, deal(), _at(end, ctx.rng.randint(20, 23), ctx.rng.choice((0, 30)), ctx.now)),
    ]
    edges = [
        _task(ctx, deal(), _at(start - timedelta(days=1), ctx.rng.randint(18, 23), 0, ctx.now)),
        _task(ctx, deal(), _at(end + timedelta(days=1), ctx.rng.randint(8, 12), 0, ctx.now)),
    ]
    done = _task(ctx, deal(), _at(start + timedelta(days=1), 11, 0, ctx.now))
    colleague = _task(ctx, theirs, _at(start + timedelta(days=1), ctx.rng.randint(9, 16), 0, ctx.now))
    staged_tasks = [*in_leave, *edges, done, colleague]
    ctx.rng.shuffle(staged_tasks)
    staged: list[Event] = [ev.TaskCreated(task=t) for t in staged_tasks]
    staged.append(ev.TaskCompleted(task_id=done.id, completed_at=ctx.now - timedelta(hours=2)))
    world_open = [t for t in ctx.state.table(TASKS) if t.owner_id == rep.id and t.status == "open"]
    moving = sorted(in_leave, key=lambda t: (t.due_at, t.id))
    moves = _moves(moving, back, True, ctx.now)
    contacts = [c for d in mine if (c := _contact(ctx, d)) is not None and reachable(c)]
    contact = pick(ctx.rng, contacts, "contact on the rep's deals")
    kept = [t.due_at.date() for t in (*world_open, *edges)]
    return Setup(
        bindings={
            "user": {"id": rep.id, "name": user_name(ctx.state, rep.id)},
            "start": start.isoformat(), "end": end.isoformat(),
            "start_text": day_text(start), "end_text": day_text(end), "return_day": back.isoformat(),
            "moves": moves,
            "moved_ids": [m["task_id"] for m in moves],
            "day_after_moves": _moves(moving, end + timedelta(days=1), True, ctx.now),
            "nine_am_moves": _moves(moving, back, False, ctx.now),
            "edge_moves": _moves(edges, back, True, ctx.now),
            "moves_cet": [_offset(m, 1) for m in moves],
            "moves_utc_offset": [_offset(m, 0) for m in moves],
            "completed_id": done.id,
            "colleague_task_id": colleague.id,
            "contact": {"id": contact.id, "email": contact.email, "first_name": contact.first_name,
                        "owner_id": contact.owner_id},
            "dates": sorted({back.isoformat(), *(d.isoformat() for d in kept)}),
        },
        events=[*staged, *_colleague_tasks(ctx, rep.id, start, span, distractor_count(ctx, "colleague_tasks"))],
    )


def _colleague_tasks(ctx: SetupContext, rep_id: str, start: date, span: int, n: int) -> list[Event]:
    """Open tasks of other reps due inside the leave: only the owner keeps them out of the task."""
    deals = [d for d in ctx.state.table(DEALS) if is_open(d.stage) and d.owner_id != rep_id]
    return [ev.TaskCreated(task=_task(ctx, pick(ctx.rng, deals, "colleague's open deal"), _at(
        start + timedelta(days=ctx.rng.randint(0, span)), ctx.rng.randint(8, 17), 0, ctx.now))) for _ in range(n)]
