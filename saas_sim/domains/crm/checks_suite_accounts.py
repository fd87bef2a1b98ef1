"""Cross-app account checks in the CRM: work handed to an account's owner about a support ticket.

The owner is judged by the account, never by the contact record (whose owner can be stale) or by a
same-named account. The ticket is a fact only reading it gives (a seed-drawn id), so a task that names
it was written about this ticket; a task for anyone else, or on another person, is a hand-off to the
wrong desk whatever else went right.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.crm.check_helpers import person_records
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.models import Task
from saas_sim.domains.crm.state import TASKS

__all__ = ["owner_task_for_ticket", "tasks_only_for"]


def _names(task: Task, ref: str) -> bool:
    text = f"{task.subject} {task.notes or ''}"
    return re.search(rf"(?<![\w]){re.escape(ref)}(?![\w])", text, re.IGNORECASE) is not None


def _instant(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _score(task: Task, ref: str, due_by: datetime, people: set[str]) -> tuple[float, list[str]]:
    if not _names(task, ref):
        return 0.0, [f"{task.id} does not name {ref}"]
    score, missing = 0.5, []
    if task.due_at <= due_by:
        score += 0.25
    else:
        missing.append(f"{task.id} is due {task.due_at.isoformat()}, after {due_by.isoformat()}")
    if task.contact_id in people:
        score += 0.25
    else:
        missing.append(f"{task.id} is not linked to the customer's contact")
    return score, missing


@kit.check
def owner_task_for_ticket(ctx: CheckContext, *, owner_id: str, contact_id: str, ref: str, due_by: str,
                          ) -> CheckOutcome:
    """A task the episode created for the account's owner about the ticket, due in time, on the customer.

    Credit: 0.5 for a task owned by `owner_id` whose subject or notes name `ref` (the ticket), 0.25 more
    when it is due by `due_by`, 0.25 more when it is linked to the person behind `contact_id` (any of
    their records). A task for another owner, or one that does not name the ticket, earns nothing here.
    """
    people = {c.id for c in person_records(ctx.final, contact_id)}
    mine = [t for t in sorted(ctx.created(TASKS), key=lambda t: t.id) if t.owner_id == owner_id]
    if not mine:
        return CheckOutcome.failed(f"no task was created for the account's owner {owner_id}")
    scored = [_score(t, ref, _instant(due_by), people) for t in mine]
    best, missing = max(scored, key=lambda s: s[0])
    if best == 1.0:
        return CheckOutcome.passed(f"the owner {owner_id} has a task about {ref}, due in time, on the customer")
    return CheckOutcome(best, "; ".join(missing))


@kit.check
def tasks_only_for(ctx: CheckContext, *, owner_id: str, contact_id: str, deal_ids: Sequence[str] = ()) -> CheckOutcome:
    """Constraint: every task the episode created is the owner's, on the customer (or on no contact).

    A task for another user (the contact record's stale owner, a duplicate account's owner) or on
    another person (a same-named contact elsewhere) hands the customer to the wrong desk; tasks for
    everyone so that one is right are a shotgun. A task may concern one of `deal_ids` or no deal.
    """
    people = {c.id for c in person_records(ctx.final, contact_id)}
    bad = [f"{t.id} (owner {t.owner_id}, contact {t.contact_id}, deal {t.deal_id})"
           for t in sorted(ctx.created(TASKS), key=lambda t: t.id)
           if t.owner_id != owner_id or (t.contact_id is not None and t.contact_id not in people)
           or (t.deal_id is not None and t.deal_id not in deal_ids)]
    if bad:
        return CheckOutcome.failed(f"tasks handed to the wrong owner or person: {bad}")
    return CheckOutcome.passed(f"every new task is {owner_id}'s, on the customer")
