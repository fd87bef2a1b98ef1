"""Checks over a renewal: one new deal on the customer's company, with the true figures and the buyer.

The company is judged as a real company (any account sharing its normalized
name or domain, `people_identity.Companies`), and the buyer as a real person
(`People`): a renewal filed on a second record of either is still theirs, and
the duplicate constraints charge for filing it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from decimal import Decimal

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.core.state import State
from saas_sim.domains.crm.check_helpers import existing, money
from saas_sim.domains.crm.checks_claims import agent_texts
from saas_sim.domains.crm.gen_sales import line_total
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import fold
from saas_sim.domains.crm.models import Deal
from saas_sim.domains.crm.people_identity import Companies, People
from saas_sim.domains.crm.state import ACCOUNTS, DEALS, LINE_ITEMS
from saas_sim.domains.crm.text_claims import read_claims
from saas_sim.domains.crm.text_substance import text_flaw

__all__ = [
    "only_the_renewal_created",
    "renewal_buyer",
    "renewal_claims_hold",
    "renewal_figures",
    "renewal_figures_true",
    "renewal_owned_and_named",
]


_TOUCHED = frozenset({"updated_at", "last_activity_at"})
"""Deal fields an activity logged on the deal sets: a note on the contract does not change the contract."""


def _company(state: State, account_id: str) -> set[str]:
    account = existing(state, ACCOUNTS, account_id, "account")
    return {account_id, *Companies.of_state(state).matches(account)}


def _new_on_company(ctx: CheckContext, account_id: str) -> list[Deal]:
    company = _company(ctx.final, account_id)
    return [d for d in ctx.created(DEALS) if d.account_id in company]


def _the_renewal(ctx: CheckContext, account_id: str) -> tuple[Deal | None, str]:
    new = _new_on_company(ctx, account_id)
    if not new:
        return None, f"no new deal on account {account_id}'s company"
    if len(new) > 1:
        # One contract renews once: several new deals hold the right figures among wrong ones.
        return None, f"{len(new)} new deals on the company ({[d.id for d in new]}): one renewal, one deal"
    return new[0], f"renewal {new[0].id}"


def _figures_right(d: Deal, amount: str, close_date: str) -> list[str]:
    problems = []
    if d.amount is None or d.amount != money(amount):
        problems.append(f"amount is {d.amount}, expected {amount}")
    if d.close_date != date.fromisoformat(close_date):
        problems.append(f"close date is {d.close_date}, expected {close_date}")
    return problems


@kit.check
def renewal_figures(ctx: CheckContext, account_id: str, amount: str, close_date: str) -> CheckOutcome:
    """One new deal on the company, with the renewal's amount and close date (both, or nothing)."""
    d, detail = _the_renewal(ctx, account_id)
    if d is None:
        return CheckOutcome.failed(detail)
    problems = _figures_right(d, amount, close_date)
    return CheckOutcome.of(not problems, "; ".join(problems) or f"{detail} at {amount}, closing {close_date}")


@kit.check
def renewal_buyer(ctx: CheckContext, account_id: str, contact_id: str, amount: str, stage: str) -> CheckOutcome:
    """The renewal (the one new deal, at the right amount) has the buyer as primary contact and is in `stage`.

    Half for each. A deal without the renewal's amount earns nothing here: a
    deal at any figure with the buyer on it is what a blind writer files.
    """
    d, detail = _the_renewal(ctx, account_id)
    if d is None:
        return CheckOutcome.failed(detail)
    if d.amount is None or d.amount != money(amount):
        return CheckOutcome.failed(f"{detail} is not at the renewal's amount ({d.amount})")
    buyer = d.primary_contact_id is not None and People.of_episode(ctx.initial, ctx.final).same(
        contact_id, d.primary_contact_id)
    score = (0.5 if buyer else 0.0) + (0.5 if d.stage == stage else 0.0)
    return CheckOutcome(score, f"{detail}: primary contact {d.primary_contact_id}, stage {d.stage}")


def _line_problems(ctx: CheckContext, d: Deal, one_off_ids: Sequence[str]) -> list[str]:
    lines = [i for i in (ctx.final.get(LINE_ITEMS, x) for x in d.line_item_ids) if i is not None]
    if not lines:
        return []
    out = [f"{d.id} renews the one-off {i.product_name}" for i in lines if i.product_id in one_off_ids]
    total = sum((line_total(i.quantity, i.unit_price, i.discount_pct) for i in lines), Decimal(0))
    if d.amount is not None and total != d.amount:
        out.append(f"{d.id}'s lines total {total}, not its amount {d.amount}")
    return out


@kit.check
def renewal_figures_true(ctx: CheckContext, account_id: str, contact_id: str, amount: str,
                         close_date: str, one_off_ids: Sequence[str] = ()) -> CheckOutcome:
    """Every new deal on the company states only true figures (a constraint).

    An amount, close date or primary contact set on a new deal there must be the
    renewal's: a renewal at the contract's cap, with the one-off service in it or
    closing on the wrong day misstates the forecast, whatever else is right. Its
    line items, when it has any, hold no one-off product (`one_off_ids`) and
    total its amount: the right amount over lines that renew the onboarding is
    a quote the customer would be sent.
    """
    false: list[str] = []
    people = People.of_episode(ctx.initial, ctx.final)
    for d in _new_on_company(ctx, account_id):
        false += _line_problems(ctx, d, one_off_ids)
        if d.amount is not None and d.amount != money(amount):
            false.append(f"{d.id} amount {d.amount} (true: {amount})")
        if d.close_date is not None and d.close_date != date.fromisoformat(close_date):
            false.append(f"{d.id} close date {d.close_date} (true: {close_date})")
        if d.primary_contact_id is not None and not people.same(contact_id, d.primary_contact_id):
            false.append(f"{d.id} primary contact {d.primary_contact_id} is not the buyer")
    return CheckOutcome.of(not false, "; ".join(false) or "every new deal on the company states true figures")


@kit.check
def only_the_renewal_created(ctx: CheckContext, account_id: str) -> CheckOutcome:
    """No existing deal changed (a note on one is fine); at most one deal created, on the company (a constraint)."""
    company = _company(ctx.final, account_id)
    changed = [i for i, before, after in ctx.changed(DEALS) if before is not None and after is not None
               and any(getattr(before, f) != getattr(after, f) for f in Deal.model_fields if f not in _TOUCHED)]
    new = ctx.created(DEALS)
    elsewhere = [d.id for d in new if d.account_id not in company]
    problems = []
    if changed:
        problems.append(f"existing deals changed: {changed}")
    if elsewhere:
        problems.append(f"deals created on other companies: {elsewhere}")
    if len(new) > 1:
        problems.append(f"{len(new)} deals created")
    return CheckOutcome.of(not problems, "; ".join(problems) or "only the renewal was created")


_RENEWAL_STEMS = ("renew", "renouvel", "verlanger", "renova")
"""Folded word stems that make a clause about the renewal (English, French, German, Spanish)."""


def _about_renewal(clause: str) -> bool:
    return any(w.startswith(_RENEWAL_STEMS) for w in re.findall(r"[^\W\d_]+", fold(clause)))


@kit.check
def renewal_claims_hold(ctx: CheckContext, account_id: str) -> CheckOutcome:
    """Every stage or signature a text claims of the renewal is so on the renewal deal (a constraint).

    A note filed on the signed contract saying "Renewal signed" is true of the
    contract and false of the renewal: `claims_hold` asks the deal a text is
    linked to, so a clause naming the renewal is asked of the new deals on the
    company instead. With no such deal, no claim about it can be true.
    """
    new = _new_on_company(ctx, account_id)
    false: list[str] = []
    for t in agent_texts(ctx):
        for c in read_claims(t.text):
            if c.kind not in ("won", "stage") or not _about_renewal(c.clause):
                continue
            ok = any(d.stage == "closed_won" if c.kind == "won" else d.stage == c.value for d in new)
            if not ok:
                false.append(f"{t.where} claims {c.kind}{'=' + c.value if c.value else ''} of the renewal "
                             f"({c.clause!r})")
    return CheckOutcome.of(not false, "; ".join(false[:4]) or "no text claims a stage the renewal is not in")


def _name_flaw(name: str, account_name: str) -> str | None:
    """Why a renewal's name does not say what it is, or None: it says something and names the account or the renewal."""
    flaw = text_flaw(name)
    if flaw is not None:
        return flaw
    words = set(re.findall(r"[^\W\d_]{3,}", fold(name)))
    if words & set(re.findall(r"[^\W\d_]{3,}", fold(account_name))) or _about_renewal(name):
        return None
    return f"{name!r} names neither the account ({account_name}) nor a renewal"


@kit.check
def renewal_owned_and_named(ctx: CheckContext, account_id: str, owner_ids: Sequence[str] = ()) -> CheckOutcome:
    """Every new deal on the company is its owners' and named for what it is (a constraint).

    A renewal is the account's forecast: owned by the account's owner (the
    tool's default) or by one of `owner_ids` (the contract's owner, whom the buyer
    wrote to). Filed under another rep, the pipeline credits the wrong person. Its
    name says something and names the account or the renewal: a deal called "."
    is a record nobody can find.
    """
    account = existing(ctx.initial, ACCOUNTS, account_id, "account")
    owners = {account.owner_id, *owner_ids}
    wrong: list[str] = []
    for d in _new_on_company(ctx, account_id):
        if d.owner_id not in owners:
            wrong.append(f"{d.id} is owned by {d.owner_id}, not by the account's or the contract's owner "
                         f"({', '.join(sorted(owners))})")
        flaw = _name_flaw(d.name, account.name)
        if flaw is not None:
            wrong.append(f"{d.id}'s name: {flaw}")
    return CheckOutcome.of(not wrong, "; ".join(wrong) or "every new deal is the owner's and named for what it is")
