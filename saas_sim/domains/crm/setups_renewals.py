"""Scenario setup for a renewal: the buyer of a closed-won subscription asks to renew at an agreed uplift.

The contract (a closed-won deal) holds subscription lines and one one-off
service, which does not renew. A note on it states the term and the contract's
cap on price increases; the buyer's email agrees to a smaller uplift, which is
the one that counts. The account also holds deals that are not the contract:
an open expansion, a closed-won one-off services deal and (from the third
distractor) the previous term's contract.

Prices are whole tens and discounts whole tens of percent, so the renewal's
amount is exact to the cent however it is computed: the contract's subscription
total times the uplift, or line by line at uplifted unit prices.
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.gen_sales import line_total
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.models import Activity, Contact, Deal, LineItem, Product
from saas_sim.domains.crm.reference_data import TERRITORIES
from saas_sim.domains.crm.setup_helpers import (
    account_name,
    day_text,
    fresh_id,
    full_name,
    inbound_email,
    pick,
    reachable,
    user_name,
)
from saas_sim.domains.crm.state import ACCOUNTS, CONTACTS, DEALS, PRICE_BOOK, PRODUCTS
from saas_sim.errors import ScenarioError

__all__ = ["ONE_OFF_SKUS", "renewal_due"]

ONE_OFF_SKUS = ("MIG-SVC", "ONB-PKG", "TRN-DAY")
"""Services delivered once: they are on a contract but never on its renewal."""

_DISTRACTORS = ("expansion", "services", "old_contract")
"""Kinds of the account's other deals, in the order a task takes them (`distractors` of them)."""

_TEN = Decimal(10)


def _tens(value: Decimal) -> Decimal:
    return ((value / _TEN).quantize(Decimal(1), rounding=ROUND_HALF_UP) * _TEN).quantize(Decimal("0.01"))


def _months_later(day: date, months: int) -> date:
    y, m = divmod(day.month - 1 + months, 12)
    return date(day.year + y, m + 1, min(day.day, 28))


def _line(ctx: SetupContext, deal_id: str, p: Product, list_price: Decimal, *, discounts: bool = True) -> LineItem:
    qty = ctx.rng.randint(10, 120) if p.sku == "PLT-SEAT" else ctx.rng.randint(1, 4)
    price = _tens(list_price * Decimal(100 - ctx.rng.randint(0, 15)) / 100)
    disc = Decimal(ctx.rng.choice((0, 0, 10, 20))) if discounts else Decimal(0)
    return LineItem(id=fresh_id(ctx, "li"), deal_id=deal_id, product_id=p.id, product_name=p.name,
                    quantity=qty, unit_price=price, discount_pct=disc)


def _total(lines: list[LineItem]) -> Decimal:
    return sum((line_total(i.quantity, i.unit_price, i.discount_pct) for i in lines), Decimal(0))


def _money(value: Decimal) -> str:
    return f"{value.quantize(Decimal('0.01')):.2f}"


def _note(ctx: SetupContext, deal: Deal, subject: str, body: str, days_ago: int) -> Activity:
    return Activity(id=ctx.ids.next("act"), kind="note", subject=subject, body=body, direction=None, outcome=None,
                    contact_id=None, deal_id=deal.id, account_id=deal.account_id, owner_id=deal.owner_id,
                    occurred_at=ctx.now - timedelta(days=days_ago))


def _extra_deal(ctx: SetupContext, contract: Deal, name: str, stage: Any, lines: list[LineItem], close: date,
                deal_id: str) -> tuple[Deal, list[LineItem]]:
    lines = [i.model_copy(update={"deal_id": deal_id}) for i in lines]
    at = ctx.now - timedelta(days=ctx.rng.randint(20, 200))
    d = contract.model_copy(update={
        "id": deal_id, "name": name, "stage": stage, "amount": _total(lines), "close_date": close,
        "next_step": "Proposal review" if stage == "proposal" else None, "line_item_ids": tuple(i.id for i in lines),
        "created_at": at, "updated_at": at, "stage_changed_at": at, "last_activity_at": None,
    })
    return d, lines


@kit.setup
def renewal_due(ctx: SetupContext) -> Setup:
    """A closed-won subscription contract whose term ends soon; its buyer agreed to renew at an uplift.

    Params: `contract_lines` (subscription lines on the contract, default 3) and `distractors` (the account's
    other deals that are not the contract, 0-3, default 2).

    Bindings: account, contact (the buyer), contract, amount, amount_number, term_end, uplift, cap,
    renewal_items (the subscription lines at uplifted prices, for crm.set_line_items), one_off_ids,
    one_off_items (renewal_items plus the one-off service), cap_amount (at the
    contract's cap), flat_amount (no uplift), with_one_off_amount (the one-off service renewed too),
    expansion_amount (the open expansion's total at the uplift), wrong_end (the start of the term),
    expansion (the open deal, or the contract when there is none), other_account.
    """
    n_lines = int(ctx.params.get("contract_lines", 3))
    n_other = int(ctx.params.get("distractors", 2))
    if not 1 <= n_lines <= 5 or not 0 <= n_other <= len(_DISTRACTORS):
        raise ScenarioError("renewal_due takes contract_lines 1-5 and distractors 0-3")
    currency_of = {t.name: t.currency for t in TERRITORIES}
    pool: list[tuple[Deal, Contact]] = []
    for d in ctx.state.table(DEALS):
        c = ctx.state.get(CONTACTS, d.primary_contact_id) if d.primary_contact_id else None
        a = ctx.state.get(ACCOUNTS, d.account_id)
        if d.stage == "closed_won" and c is not None and reachable(c) and c.account_id == d.account_id \
                and a is not None and currency_of.get(a.territory) == d.currency:
            pool.append((d, c))
    contract, buyer = pick(ctx.rng, pool, "closed-won deal with a reachable buyer")
    acct = account_name(ctx.state, contract.account_id)
    prices = {(e.product_id, e.currency): e.unit_price for e in ctx.state.table(PRICE_BOOK)}
    products = [p for p in ctx.state.table(PRODUCTS) if p.active and (p.id, contract.currency) in prices]
    recurring = [p for p in products if p.sku not in ONE_OFF_SKUS]
    one_off = [p for p in products if p.sku in ONE_OFF_SKUS]
    subs = [_line(ctx, contract.id, p, prices[(p.id, contract.currency)])
            for p in ctx.rng.sample(recurring, n_lines)]
    once = ctx.rng.choice(one_off)
    service = _line(ctx, contract.id, once, prices[(once.id, contract.currency)], discounts=False)
    lines = [*subs, service]
    ctx.rng.shuffle(lines)
    months = ctx.rng.choice((12, 12, 24, 36))
    term_end = ctx.now.date() + timedelta(days=ctx.rng.randint(30, 80))
    start = _months_later(term_end, -months) + timedelta(days=1)
    signed = start - timedelta(days=ctx.rng.randint(3, 14))
    uplift = ctx.rng.randint(2, 6)
    cap = uplift + ctx.rng.randint(1, 4)
    sub_total = _total(subs)

    def at(pct: int, base: Decimal = sub_total) -> Decimal:
        return (base * Decimal(100 + pct) / 100).quantize(Decimal("0.01"))

    amount = at(uplift)
    when = ctx.now - timedelta(days=max((ctx.now.date() - signed).days, 1))
    staged: list[Event] = [
        ev.LineItemsReplaced(deal_id=contract.id, removed_ids=list(contract.line_item_ids), added=lines,
                             updated_at=when),
        ev.DealUpdated(deal_id=contract.id, fields=["amount", "close_date", "name"], amount=_total(lines),
                       close_date=signed, name=f"{acct} - Platform subscription", updated_at=when),
    ]
    notes = [_note(ctx, contract, "Order form signed",
                   f"Subscription term: {months} months, {day_text(start)} through {day_text(term_end)}. "
                   f"Renewal price increases are capped at {cap}% of the current prices.",
                   (ctx.now.date() - signed).days)]
    others: list[Deal] = []
    other_lines: list[LineItem] = []
    expansion_amount = amount
    for kind in _DISTRACTORS[:n_other]:
        deal_id = fresh_id(ctx, "dl")
        if kind == "expansion":
            extra = [_line(ctx, deal_id, p, prices[(p.id, contract.currency)])
                     for p in ctx.rng.sample([p for p in recurring if p.id not in {i.product_id for i in subs}], 2)]
            d, extra = _extra_deal(ctx, contract, f"{acct} - Expansion", "proposal", extra,
                                   ctx.now.date() + timedelta(days=ctx.rng.randint(20, 60)), deal_id)
            expansion_amount = at(uplift, _total(extra))
        elif kind == "services":
            extra = [_line(ctx, deal_id, p, prices[(p.id, contract.currency)], discounts=False)
                     for p in ctx.rng.sample(one_off, 2)]
            d, extra = _extra_deal(ctx, contract, f"{acct} - Services", "closed_won", extra,
                                   signed + timedelta(days=ctx.rng.randint(20, 90)), deal_id)
        else:
            old_end = start - timedelta(days=1)
            old_start = _months_later(old_end, -12) + timedelta(days=1)
            extra = [i.model_copy(update={"id": fresh_id(ctx, "li"),
                                          "unit_price": _tens(i.unit_price * Decimal("0.9"))}) for i in subs]
            d, extra = _extra_deal(ctx, contract, f"{acct} - New business", "closed_won", extra,
                                   old_start - timedelta(days=7), deal_id)
            for line, copy in zip(subs, extra, strict=True):
                ctx.declare_lookalikes(line.id, copy.id)
            notes.append(_note(ctx, d, "Order form signed",
                               f"Subscription term: 12 months, {day_text(old_start)} through {day_text(old_end)}. "
                               f"Renewal price increases are capped at {cap + 2}% of the current prices.",
                               (ctx.now.date() - old_start).days + 7))
        others.append(d)
        other_lines += extra
    if others:
        staged += [ev.DealsImported(deals=others), ev.LineItemsImported(line_items=other_lines)]
    # The account's other deals and the earlier order form: only their content tells the contract apart.
    ctx.declare_lookalikes(contract.id, *(d.id for d in others))
    ctx.declare_lookalikes(notes[0].id, *(n.id for n in notes[1:]))
    staged.append(ev.ActivitiesImported(activities=notes))
    owner_first = user_name(ctx.state, contract.owner_id).split()[0]
    body = (f"Hi {owner_first},\n\nWe would like to renew our platform subscription for another term when the "
            f"current one ends. The contract allows up to {cap}%, but as we discussed on the phone we agreed on "
            f"a {uplift}% increase on the current prices. Please get the renewal ready.\n\n"
            f"Best regards,\n{buyer.first_name}")
    staged.append(inbound_email(ctx, buyer, f"Renewal of {acct}", body, contract, ctx.rng.randint(30, 600)))
    renewal_items = [{"product_id": i.product_id, "quantity": i.quantity,
                      "unit_price": _money(i.unit_price * Decimal(100 + uplift) / 100),
                      "discount_pct": _money(i.discount_pct)} for i in subs]
    other_accounts = [a for a in ctx.state.table(ACCOUNTS) if a.id != contract.account_id]
    expansion = next((d for d in others if d.stage == "proposal"), contract)
    return Setup(
        bindings={
            "account": {"id": contract.account_id, "name": acct, "owner_id": contract.owner_id},
            "contact": {"id": buyer.id, "name": full_name(buyer), "email": buyer.email, "owner_id": buyer.owner_id},
            "contract": {"id": contract.id, "name": f"{acct} - Platform subscription", "currency": contract.currency},
            "amount": _money(amount),
            "amount_number": float(amount) if amount != amount.to_integral_value() else int(amount),
            "term_end": term_end.isoformat(),
            "wrong_end": start.isoformat(),
            "uplift": uplift,
            "cap": cap,
            "renewal_items": renewal_items,
            "one_off_ids": sorted(p.id for p in one_off),
            "one_off_items": [*renewal_items, {"product_id": service.product_id, "quantity": service.quantity,
                                               "unit_price": _money(service.unit_price)}],
            "cap_amount": _money(at(cap)),
            "flat_amount": _money(sub_total),
            "with_one_off_amount": _money(at(uplift, _total(lines))),
            "expansion_amount": _money(expansion_amount),
            "expansion": {"id": expansion.id},
            "other_account": {"id": pick(ctx.rng, other_accounts, "second account").id},
        },
        events=staged,
    )
