"""Cross-app churn checks in the CRM: the open deals of accounts with several open escalations.

Which accounts are at risk is computed here, from the support desk's open escalations per CRM contact
(passed in from the bindings) and the CRM's own contact-to-account links: an account's escalations are
those of all its people together. A deal's next step is judged by the facts it states: the ids of its
account's open escalated tickets (seed-drawn), so a generic "churn risk" note states nothing, and a
ticket of another account is a false fact.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.models import Deal
from saas_sim.domains.crm.setups_suite_churn import CLOSED_STAGES
from saas_sim.domains.crm.state import CONTACTS, DEALS

__all__ = ["only_risk_deals_changed", "risk_deals_flagged"]

_TICKET = re.compile(r"\btkt[_ -]?(\d{3,})\b", re.IGNORECASE)
# What a next-step edit may change besides the text itself (bookkeeping the tool sets).
_BOOKKEEPING = frozenset({"next_step", "updated_at", "last_activity_at"})


def _by_account(ctx: CheckContext, open_escalations: Mapping[str, Sequence[str]]) -> dict[str, set[str]]:
    """Open escalated ticket ids per account of the contacts that raised them (initial links)."""
    out: dict[str, set[str]] = {}
    for contact_id, tickets in open_escalations.items():
        c = ctx.initial.get(CONTACTS, contact_id)
        if c is not None and c.account_id:
            out.setdefault(c.account_id, set()).update(str(t) for t in tickets)
    return out


def _risk_deals(ctx: CheckContext, by_account: Mapping[str, set[str]], threshold: int) -> list[Deal]:
    risky = {a for a, t in by_account.items() if len(t) >= threshold}
    return [d for d in ctx.initial.table(DEALS) if d.account_id in risky and d.stage not in CLOSED_STAGES]


# A next step that denies the risk: no risk or concern. "Escalations tkt_1, tkt_2 are not yet resolved" and
# "before any non-urgent upsell" affirm it.
_NO_RISK = re.compile(
    r"\b(?:no|not an?|isn't an?|is not an?|without|zero|low|little|minimal|nothing)\s+(?:\S+\s+){0,2}?"
    r"(?:churn|risk|concern|danger|threat)\w*\b")
# An escalation said to be over. Told of the ticket named nearest to it: of an open one it denies the risk
# ("tkt_1, tkt_2 resolved"), of a solved one of the account it is true ("tkt_3 was resolved last month").
_SOLVED = re.compile(
    r"(?<!not )(?<!not yet )(?<!n't )(?<!never )(?<!un)\b(?:resolved|solved|closed|fixed|handled|settled)\b"
    r"(?!\s+(?:yet|soon|later|by|before|once|when))")
# A ticket told of as past ("an earlier escalation tkt_3"): context, not one of the open escalations to review.
_PAST = re.compile(r"\b(?:earlier|previous|previously|prior|past|former|old|older|last (?:month|quarter|year))\b")
# A condition states what has not happened: "risk until tkt_1 is resolved" denies nothing.
_CONDITION = re.compile(r"\b(?:until|till|once|when|after|before|unless|if)\b[^;:.]*")


def _tickets_named(text: str | None) -> set[str]:
    return {f"tkt_{int(n):06d}" for n in _TICKET.findall(text or "")}


_LIST_GAP = re.compile(r"\s*(?:,|&|/|\band\b|\bor\b)\s*(?:and\s+)?")


def _told_of(text: str, pattern: re.Pattern[str]) -> list[str | None]:
    """For each match of `pattern` in `text`, the tickets it is told of (None when the text names none).

    That is the ticket named nearest to it, with every ticket listed with that one ("tkt_1, tkt_2 and
    tkt_3 resolved" tells all three resolved).
    """
    mentions = [(m.start(), m.end(), f"tkt_{int(m.group(1)):06d}") for m in _TICKET.finditer(text)]
    runs: list[list[tuple[int, int, str]]] = []
    for t in mentions:
        if runs and _LIST_GAP.fullmatch(text[runs[-1][-1][1]:t[0]]):
            runs[-1].append(t)
        else:
            runs.append([t])
    out: list[str | None] = []
    for m in pattern.finditer(text):
        near = min(mentions, default=None,
                   key=lambda t: max(t[0] - m.end(), m.start() - t[1], 0) * 2 + (t[0] < m.start()))
        if near is None:
            out.append(None)
        else:
            out += [t[2] for run in runs if near in run for t in run]
    return out


def _denial_or_false(text: str, want: set[str], solved: set[str]) -> str | None:
    """Why a next step naming `want` (open) and maybe `solved` escalations of its account is wrong, or None.

    It denies the risk when it says there is none, or calls an open escalation (or escalations in general,
    naming no ticket) resolved. It states a falsehood when it names a ticket of no escalation of the account,
    or a solved one as if open: a solved escalation is named truly only as solved or past ("tkt_3 was
    resolved last month", "an earlier escalation, tkt_3").
    """
    folded = _CONDITION.sub(lambda m: " " * len(m.group()), fold(text))
    if _NO_RISK.search(folded):
        return "the next step denies the risk"
    said_solved = _told_of(folded, _SOLVED)
    if any(t is None or t in want for t in said_solved):
        return "the next step calls an open escalation resolved"
    named = _tickets_named(text)
    if named - want - solved:
        return f"names tickets of no escalation of its account {sorted(named - want - solved)}"
    as_open = (named & solved) - {t for t in said_solved if t} - {t for t in _told_of(folded, _PAST) if t}
    if as_open:
        return f"names solved escalations as open {sorted(as_open)}"
    return None


@kit.check
def risk_deals_flagged(ctx: CheckContext, *, open_escalations: Mapping[str, Sequence[str]], threshold: int,
                       solved_escalations: Mapping[str, Sequence[str]] | None = None) -> CheckOutcome:
    """Every open deal of an account with `threshold`+ open escalations got a next step naming them.

    Per deal: the share of its account's open escalated tickets the new next step names (a next step the
    episode did not change earns nothing); 0 when it denies the risk (no risk or concern, or an open
    escalation said to be resolved) or states a false fact (a ticket of no escalation of the account, or a
    solved one of `solved_escalations` named as open). A solved escalation of the account named as solved
    or past is a true mention and costs nothing. The score is the mean over the at-risk accounts' open deals.
    """
    by_account = _by_account(ctx, open_escalations)
    solved_by = _by_account(ctx, solved_escalations or {})
    deals = _risk_deals(ctx, by_account, int(threshold))
    if not deals:
        return CheckOutcome.failed("no account is at risk (a setup error)")
    scores: list[float] = []
    problems: list[str] = []
    for d in deals:
        final = ctx.final.get(DEALS, d.id)
        text = final.next_step if final is not None else None
        want = by_account[d.account_id]
        named = _tickets_named(text)
        if final is None or text is None or text == d.next_step:
            scores.append(0.0)
            problems.append(f"{d.id}: next step unchanged")
        elif (wrong := _denial_or_false(text, want, solved_by.get(d.account_id, set()))) is not None:
            # "No churn risk: tkt_1, tkt_2 resolved" names the tickets to deny the risk they are.
            scores.append(0.0)
            problems.append(f"{d.id}: {wrong} ({text!r})")
        else:
            scores.append(len(named & want) / len(want))
            if want - named:
                problems.append(f"{d.id}: does not name {sorted(want - named)}")
    score = sum(scores) / len(scores)
    if not problems:
        return CheckOutcome.passed(f"all {len(deals)} open deals of at-risk accounts name their open escalations")
    return CheckOutcome(score, "; ".join(problems))


@kit.check
def only_risk_deals_changed(ctx: CheckContext, *, open_escalations: Mapping[str, Sequence[str]], threshold: int,
                            ) -> CheckOutcome:
    """Constraint: only the at-risk accounts' open deals changed, and on them only the next step.

    An account under the threshold (one open escalation, solved ones, or escalations spread over other
    accounts), a closed deal, or any other field (stage, amount, close date, contact) is out of bounds.
    """
    allowed = {d.id for d in _risk_deals(ctx, _by_account(ctx, open_escalations), int(threshold))}
    bad: list[str] = []
    for deal_id, before, after in ctx.changed(DEALS):
        if deal_id not in allowed:
            bad.append(f"{deal_id} (not an open deal of an at-risk account)")
        elif before is not None and after is not None:
            fields = sorted(k for k in type(before).model_fields
                            if getattr(before, k) != getattr(after, k) and k not in _BOOKKEEPING)
            if fields:
                bad.append(f"{deal_id} changed {fields}")
    if bad:
        return CheckOutcome.failed(f"deals changed out of bounds: {bad[:10]}")
    return CheckOutcome.passed("only at-risk open deals' next steps changed")
