"""Cross-app billing checks in the CRM: a deal priced from the code, and an incident noted on the right account.

Figures are judged as amounts the texts state (`text_facts.extract_amounts`, so `$1,234.50`,
`1234.5 USD` and `USD 1,234.50` are one amount), never by keywords. Where a note went is judged by
the account record it is linked to: a same-named account of another company is another customer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any, Final

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.core.figures import Figure, count_of, figure_of, follows_from, known_figures, spread, unit_stated
from saas_sim.core.text_facts import extract_amounts, located_amounts, negated, sentences
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.check_helpers import deal, money
from saas_sim.domains.crm.checks_claims import AgentText, agent_texts
from saas_sim.domains.crm.checks_email_facts import bare_money_figures, true_amounts
from saas_sim.domains.crm.figure_marks import cents_figures, code_returns, past_amounts, told_as_past
from saas_sim.domains.crm.gen_sales import line_total
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.models import Activity
from saas_sim.domains.crm.refund_claims import refund_claims
from saas_sim.domains.crm.state import ACTIVITIES, DEALS, LINE_ITEMS
from saas_sim.domains.crm.text_claims import Claim, read_claims
from saas_sim.domains.crm.verb_governance import INTENT

__all__ = ["activities_only_on", "incident_noted", "next_step_quotes", "plan_texts_true"]

_SHOWN = 4

_ACCEPTED: Final = ("accepted", "agreed", "approved", "accepts", "agrees", "approves", "confirmed by",
                    "po received", "purchase order received", "angenommen", "akzeptiert", "accepte", "acceptee",
                    "aceptado", "aceptada")
"""Folded cues that the buyer took the offer: a deal outcome like a signature (a `won` claim)."""
_OFFER_SENT: Final = ("sent", "delivered", "shared", "issued", "gesendet", "geschickt", "envoye", "envoyee",
                      "enviado", "enviada")
_OFFERS: Final = ("quote", "quotation", "offer", "proposal", "contract", "price", "pricing", "angebot", "devis",
                  "presupuesto")
"""A quote or offer said to be sent is a mail to the buyer, whatever noun carries it (an `emailed` claim)."""
_CLAUSE = re.compile(r"[,;:()\u2013\u2014]|\s-\s")
_WORD = re.compile(r"[^\W\d_]+")


def _has(words: tuple[str, ...], cues: Sequence[str]) -> bool:
    text = f" {' '.join(words)} "
    return any(f" {c} " in text for c in cues)


@functools.lru_cache(maxsize=4096)
def _offer_claims(text: str) -> tuple[Claim, ...]:
    """The deal outcomes `read_claims` leaves out: an accepted offer, a quote said to be sent (memoized).

    Clauses that plan or condition ("send the quote once approved") claim nothing, as in `read_claims`.
    """
    out: list[Claim] = []
    for sentence in sentences(text):
        for clause in (c.strip() for c in _CLAUSE.split(sentence) if c.strip()):
            words = tuple(_WORD.findall(fold(clause).replace("-", " ")))
            if not words or negated(clause, None) or any(_has(words, (" ".join(c),)) for c in INTENT):
                continue
            if _has(words, _ACCEPTED):
                out.append(Claim("won", None, clause))
            if _has(words, _OFFER_SENT) and _has(words, _OFFERS):
                out.append(Claim("emailed", None, clause))
    return tuple(out)


def _amount(value: str) -> Decimal:
    parsed = money(value)
    if parsed is None:
        raise ValueError(f"not an amount: {value!r}")
    return parsed


def _logged(ctx: CheckContext) -> list[Activity]:
    """The activities the agent logged (not emails it sent: an email is to the customer, not a record)."""
    return [a for a in ctx.created(ACTIVITIES) if a.kind in ("note", "call", "meeting")]


@kit.check
def next_step_quotes(ctx: CheckContext, deal_id: str, amount: str) -> CheckOutcome:
    """The deal's next step is new and states `amount` (a goal; other figures are the claims checks' to judge)."""
    before, after = deal(ctx.initial, deal_id).next_step, deal(ctx.final, deal_id).next_step
    if not after or fold(after) == fold(before or ""):
        return CheckOutcome.failed(f"the next step of {deal_id} is unchanged ({after!r})")
    stated = extract_amounts(after)
    if _amount(amount) not in stated:
        return CheckOutcome.failed(f"the next step {after!r} states {[str(x) for x in stated]}, not {amount}")
    return CheckOutcome.passed(f"the next step quotes {amount}")


@kit.check
def incident_noted(ctx: CheckContext, account_id: str, amounts: Sequence[str], as_refund: bool = False) -> CheckOutcome:
    """A note, call or meeting logged on the account (directly or through its deal or contact) states every
    amount of `amounts` (a goal, all or nothing: a note without the figures records nothing checkable).

    With `as_refund`, each amount must be stated as refunded (`refund_claims`): the refund's figure named as
    the charge ("Customer was charged 50.00 USD"), in a denial ("No refund was issued; 50.00 USD is owed") or
    in a list of bare figures records no refund, though the figure is there.
    """
    want = {_amount(a) for a in amounts}
    on_account = [a for a in _logged(ctx) if a.account_id == account_id]
    for a in on_account:
        text = f"{a.subject}\n{a.body or ''}"
        stated = {c.amount.value for c in refund_claims(text)} if as_refund else set(extract_amounts(text))
        if want <= stated:
            return CheckOutcome.passed(f"{a.kind} {a.id} on {account_id} states {sorted(map(str, want))}")
    if on_account:
        role = " as refunded" if as_refund else ""
        return CheckOutcome.failed(f"notes on {account_id} do not state {sorted(map(str, want))}{role}")
    return CheckOutcome.failed(f"nothing was logged on account {account_id}")


@kit.check
def activities_only_on(ctx: CheckContext, account_ids: Sequence[str]) -> CheckOutcome:
    """Constraint: every activity the agent logged or sent is linked to one of `account_ids` (no note on
    a same-named account, no email to another company)."""
    allowed = set(account_ids)
    stray = [f"{a.id} on {a.account_id}" for a in ctx.created(ACTIVITIES) if a.account_id not in allowed]
    if stray:
        more = f" and {len(stray) - _SHOWN} more" if len(stray) > _SHOWN else ""
        return CheckOutcome.failed(f"activities on other accounts: {', '.join(stray[:_SHOWN])}{more}")
    return CheckOutcome.passed("every new activity is on the task's account")


def _line_totals(ctx: CheckContext, deal_id: str | None) -> set[Decimal]:
    """The totals of the deal's quote lines in the final state (none without a deal)."""
    d = ctx.final.get(DEALS, deal_id) if deal_id else None
    lines = [i for i in (ctx.final.get(LINE_ITEMS, x) for x in (d.line_item_ids if d else ())) if i is not None]
    return {line_total(i.quantity, i.unit_price, i.discount_pct) for i in lines}


def _claim_holds(ctx: CheckContext, claim: Claim, t: AgentText, deal_id: str | None) -> bool:
    """Whether a claim about the text's deal (or the episode's own acts) is true in the final state."""
    which = t.deal_id or deal_id
    d = ctx.final.get(DEALS, which) if which else None
    if claim.kind == "won":
        return d is not None and d.stage == "closed_won"
    if claim.kind == "stage":
        return d is not None and d.stage == claim.value
    if claim.kind == "emailed":
        return t.is_email or bool(ctx.events_of(ev.EmailSent))
    if claim.kind == "field":
        return bool(ctx.events_of(ev.ContactUpdated))
    if claim.kind == "unsubscribed":
        return bool(ctx.events_of(ev.ContactConsentChanged) or ctx.events_of(ev.EnrollmentRemoved))
    if claim.kind == "merged":
        return bool(ctx.events_of(ev.ContactsMerged))
    return False  # attachments and deletions: the CRM has neither


@kit.check
def plan_texts_true(ctx: CheckContext, deal_id: str | None = None, counts: Sequence[Any] = (),
                    also_true: Sequence[Any] = (), deal_per: Sequence[str] | None = None,
                    refunded: Sequence[Any] = (), code_unit: str | None = None) -> CheckOutcome:
    """Constraint: every figure and claim in the agent's texts (next steps, notes, tasks, emails) is true.

    True figures: the task's deal's final amount (with `deal_id`), a text's own deal's, and `also_true`
    (the code's figures: a per-seat price, the fee that was due), and any of these divided or multiplied
    by one of `counts` ("1,350.00 over 15 months is 90.00 a month"); `counts` (seats, months, days, an
    invoice number) are counts, not money, however large. A figure is true only as what the text says it
    is per (`core.figures`): `counts` may give their unit (`{count: 15, unit: month}`), `also_true` what
    each is per (`{amount: "49.00", per: [seat, month]}`) and `deal_per` the deal amount's (`[]`: a total),
    so a total divided by the seats is no price "per month". An item of `also_true` that is a list (the
    figures a setup read from the code) counts each of its items. A claimed signature or stage must hold on
    the deal, a claimed act must have happened in the episode.

    With `refunded` (the refund the task's billing state comes to, typed like `also_true`), an amount a text
    claims was refunded or credited (`refund_claims`: "Refunded 500.00 USD") must be that refund: the charge
    or the correct price, true as figures, are no refund (a refund stated per a unit is a rate, judged as a
    figure only). Support's reply reader cannot be imported here (domains are independent, and ports are read
    at world-build time only), so the scenario binds the refund its support checks require. With
    `code_unit` (`cents`), a whole number reported as what code returns is read in that unit
    (`figure_marks.code_returns`).
    """
    also_true = spread(also_true)
    typed = [figure_of(a, _amount) for a in also_true if isinstance(a, Mapping)]
    if deal_id is not None and deal_per is not None and (amount := deal(ctx.final, deal_id).amount) is not None:
        typed.append(Figure(amount, frozenset(deal_per)))
    # A quote line's total is a total: a share of it per seat may be stated, but times the seats it is no figure
    # (a 2,160.00 connector line times 166 seats made last year's 358,560.00 price "true").
    typed += [Figure(t, frozenset()) for t in _line_totals(ctx, deal_id)]
    known = known_figures(true_amounts(ctx, deal_id, [a for a in also_true if not isinstance(a, Mapping)]), typed)
    plain = [count_of(c) for c in counts]
    numbers = {c.n for c in plain}
    refunds = {figure_of(a, _amount) for a in spread(refunded)}
    false: list[str] = []
    for t in agent_texts(ctx):
        for c in refund_claims(t.text) if refunds else ():
            # A refund stated per something ("49.00 per seat a month") is a rate of it: the figure check judges it.
            per = unit_stated(c.text[:c.amount.start], c.text[c.amount.end:])
            if not per and not follows_from(c.amount.value, refunds, plain, per):
                false.append(f"{t.where} claims {c.amount.value} refunded")
        # A text on another deal may state that deal's own figures (the activity check judges where it went).
        known_here = known | true_amounts(ctx, t.deal_id) if t.deal_id not in (None, deal_id) else known
        values = {k.value if isinstance(k, Figure) else k for k in known_here}
        text, found = located_amounts(t.text)
        # A number reported as what code returns is in the code's unit ("quote() returns 3118500": cents).
        cents = cents_figures(text) | (code_returns(text, code_unit) if code_unit else {})
        stated: list[Decimal] = []
        for i, m in enumerate(found):
            per = unit_stated(text[:m.start], text[m.end:])
            if follows_from(m.value, known_here, plain, per):
                continue
            bounds = (found[i - 1].end if i else 0, found[i + 1].start if i + 1 < len(found) else len(text))
            # A figure told as past ("it was $34,650.00 before the change") is true if the records held it.
            deals = {i for i in (deal_id, t.deal_id) if i}
            if not (told_as_past(text, m.start, m.end, *bounds)
                    and follows_from(m.value, known_here | past_amounts(ctx, deals), plain)):
                stated.append(m.value)
        stated += [c for c in cents.values()
                   if c not in {m.value for m in found} and not follows_from(c, known_here, plain)]
        # Bare figures ("quote 31185 for the plan") are judged too: not an amount judged above, in its unit, nor a
        # figure in cents ("3118500 cents" is 31,185.00).
        stated += [x for x in bare_money_figures(t.text)
                   if x not in numbers and x not in cents and x not in {m.value for m in found}
                   and all(abs(x - k) >= 1 for k in values) and not follows_from(x, known_here, plain)]
        false += [f"{t.where} states {x}" for x in stated]
        claims = read_claims(t.text) + ([] if t.is_email else list(_offer_claims(t.text)))
        false += [f"{t.where} claims {c.kind} ({c.clause!r})" for c in claims
                  if not _claim_holds(ctx, c, t, deal_id)]
    if false:
        more = f" and {len(false) - _SHOWN} more" if len(false) > _SHOWN else ""
        return CheckOutcome.failed(f"false: {'; '.join(false[:_SHOWN])}{more}")
    return CheckOutcome.passed("every figure and claim in the agent's texts is true")
