"""Checks over the emails an episode sent: what happened (`EmailSent`), to whom, and what they state.

An email counts only as a `crm.EmailSent` event from `crm.send_email`: a logged
"email" activity records something done elsewhere and proves nothing. All of
an episode's emails are judged together, so one true email among several
contradictory ones does not pass.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.check_helpers import deal
from saas_sim.domains.crm.email_substance import message_flaw
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.models import Activity
from saas_sim.domains.crm.people_identity import People
from saas_sim.domains.crm.search_index import ACTIVITY_INDEX
from saas_sim.domains.crm.state import ACCOUNTS, ACTIVITIES, CONTACTS

__all__ = ["MIN_WORDS", "emails_are_messages", "personal_email_sent", "received_texts", "rep_emails"]

_WORD = re.compile(r"[^\W\d_]{2,}")
# A sentence of substance: a greeting and a signature alone are about five words.
MIN_WORDS = 8


@functools.lru_cache(maxsize=1024)
def _flaw(body: str, names: tuple[str, ...], echo_of: str | None, quoted: tuple[str, ...] = ()) -> str | None:
    # `message_flaw` is a pure function of its text and names, and its language identification costs
    # milliseconds per email: a regrade, replay or audit of the same emails reads the memo.
    return message_flaw(body, names, echo_of, quoted)


def received_texts(ctx: CheckContext, a: Activity) -> tuple[str, ...]:
    """Returns the bodies of the inbound emails at the start that an email `a` could forward, in id order.

    Those of its recipient's account and of its deal: the mail an agent reads before writing
    to these people (an auto-reply, a request). Found by the activity index, so O(those emails).
    """
    acts = ctx.initial.table(ACTIVITIES)
    ids: set[str] = set()
    for key, value in (("account", a.account_id), ("deal", a.deal_id)):
        if value is not None:
            ids |= set(acts.matching(ACTIVITY_INDEX, [(key, value), ("direction", "inbound")]))
    return tuple(b for i in sorted(ids) if (x := acts.get(i)) is not None and (b := x.body))


def rep_emails(ctx: CheckContext) -> list[Activity]:
    """Returns the one-off emails the agent sent (sequence steps excluded), in order."""
    return [e.activity for e in ctx.events if isinstance(e, ev.EmailSent) and e.activity.sequence_id is None]


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _mentions(text: str, names: Sequence[str]) -> bool:
    folded = f" {' '.join(_words(fold(text)))} "
    return any(f" {' '.join(_words(fold(n)))} " in folded for n in names if _words(fold(n)))


@kit.check
def personal_email_sent(
    ctx: CheckContext, contact_id: str, deal_id: str, min_words: int = MIN_WORDS, echo_of: str | None = None,
) -> CheckOutcome:
    """A one-off email with a real message went to the person about the deal.

    The recipient is judged as the person (any of their records). The body must
    have at least `min_words` words, name the person or the deal (its name or
    its account's), and be a real message (`email_substance.message_flaw`: a
    language, words beyond names, not `echo_of` pasted back). Half credit when
    such an email is not linked to the deal.

    Args:
        ctx: The check context.
        contact_id: The person's record at the start.
        deal_id: The deal the email must concern.
        min_words: Fewest words of the body.
        echo_of: The task's instructions (a YAML alias of them), which the body must not copy.
    """
    people = People.of_episode(ctx.initial, ctx.final)
    d = deal(ctx.initial, deal_id)
    person = ctx.initial.get(CONTACTS, contact_id)
    names = [d.name, *([person.first_name, f"{person.first_name} {person.last_name}"] if person else [])]
    account = ctx.initial.get(ACCOUNTS, d.account_id)
    known = [*names, *([account.name] if account else [])]
    best, why = 0.0, "no email was sent to the contact"
    for a in rep_emails(ctx):
        if a.contact_id is None or not people.same(contact_id, a.contact_id):
            continue
        text = f"{a.subject}\n{a.body or ''}"
        if len(_words(a.body or "")) < min_words:
            why = f"email {a.id} has no real message (under {min_words} words)"
            continue
        if not _mentions(text, names):
            why = f"email {a.id} names neither the person nor the deal"
            continue
        flaw = _flaw(a.body or "", tuple(known), echo_of, received_texts(ctx, a))
        if flaw is not None:
            why = f"email {a.id} is no real message: {flaw}"
            continue
        best = max(best, 1.0 if a.deal_id == deal_id else 0.5)
        why = "personal email sent" if best == 1 else f"email {a.id} is not linked to the deal"
    return CheckOutcome(best, why)


def _names_of(ctx: CheckContext, a: Activity) -> list[str]:
    """Returns the names an email may carry: its recipient's, their company's and its deal's."""
    out: list[str] = []
    person = ctx.final.get(CONTACTS, a.contact_id) if a.contact_id else None
    if person is not None:
        out += [person.first_name, person.last_name]
    account = ctx.final.get(ACCOUNTS, a.account_id) if a.account_id else None
    if account is not None:
        out.append(account.name)
    if a.deal_id is not None:
        out.append(deal(ctx.final, a.deal_id).name)
    return out


@kit.check
def emails_are_messages(ctx: CheckContext, echo_of: str | None = None) -> CheckOutcome:
    """Every one-off email the agent sent is a real message (a constraint): no filler sent to a customer.

    An email of ".", lorem ipsum, names repeated, the task's instructions pasted
    back (`echo_of`), or a received email sent on (`received_texts`) reaches a real
    person and is harm, whatever else the episode did; see `email_substance.message_flaw`.
    An episode without emails holds.
    """
    bad = [f"{a.id}: {flaw}" for a in rep_emails(ctx)
           if (flaw := _flaw(a.body or "", tuple(_names_of(ctx, a)), echo_of, received_texts(ctx, a))) is not None]
    if bad:
        return CheckOutcome.failed(f"emails without a real message: {'; '.join(bad[:3])}")
    return CheckOutcome.passed("every email sent is a real message")
