"""Scenario setup for quote revisions: a buyer asks for changes to a deal's line items.

The staged quote carries a negotiated unit price (below the price book's) on a
line the buyer does not mention, so a revision that rebuilds the list from the
price book silently raises the customer's agreed price.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.gen_sales import line_total
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.models import Contact, Deal, LineItem, Product
from saas_sim.domains.crm.setup_helpers import (
    account_name,
    distractor_count,
    fresh_id,
    full_name,
    inbound_email,
    lookalike_deals,
    pick,
    reachable,
    user_name,
)
from saas_sim.domains.crm.state import CONTACTS, DEALS, PRICE_BOOK, PRODUCTS

__all__ = ["quote_revision"]

_EDITABLE = ("discovery", "proposal", "negotiation")


def _money(value: Decimal) -> str:
    return f"{value:.2f}"


def _number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def _quantity(ctx: SetupContext, product: Product) -> int:
    return ctx.rng.randint(10, 120) if product.sku == "PLT-SEAT" else ctx.rng.randint(1, 4)


def _negotiated(ctx: SetupContext, list_price: Decimal) -> Decimal:
    """A unit price 8-22% under list, in whole units, never equal to the list price."""
    off = Decimal(ctx.rng.randint(8, 22)) / Decimal(100)
    price = (list_price * (1 - off)).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return price if price < list_price else list_price - 1


def _ref(ctx: SetupContext, product: Product) -> str:
    """How the buyer names a product: its SKU or its catalogue name in lower case (never the id)."""
    return product.sku if ctx.rng.random() < 0.5 else product.name.lower()


def _line(ctx: SetupContext, deal: Deal, product: Product, qty: int, price: Decimal, disc: int) -> LineItem:
    return LineItem(id=fresh_id(ctx, "li"), deal_id=deal.id, product_id=product.id, product_name=product.name,
                    quantity=qty, unit_price=price, discount_pct=Decimal(disc))


def _view(item: LineItem) -> dict[str, Any]:
    return {"product_id": item.product_id, "quantity": item.quantity, "unit_price": _money(item.unit_price),
            "discount_pct": _money(item.discount_pct)}


@kit.setup
def quote_revision(ctx: SetupContext) -> Setup:
    """An open deal's quote of three lines (one at a negotiated price); the buyer asks for three changes.

    The buyer changes one line's quantity, removes another and adds a product at an agreed
    discount; the negotiated line is not mentioned and must keep its price.

    Bindings: deal, contact, total, total_number, stale_total, items (the oracle's set_line_items list),
    items_listed (every price spelled out, reordered), list_priced_items, added_only_items,
    with_removed_items, expected_lines, kept_lines, allowed_products, requested, removed, added_discount,
    other_deal,
    other_close_date.

    Params:
        lookalikes: Distractors: other open deals at the account, in the deal's stage, with its buyer and a
            name that starts like its name (default 0).
    """
    pool: list[tuple[Deal, Contact]] = []
    for d in ctx.state.table(DEALS):
        c = ctx.state.get(CONTACTS, d.primary_contact_id) if d.primary_contact_id else None
        if d.stage in _EDITABLE and c is not None and reachable(c) and c.account_id == d.account_id:
            pool.append((d, c))
    deal, contact = pick(ctx.rng, pool, "open deal with a reachable primary contact")
    prices = {(e.product_id, e.currency): e.unit_price for e in ctx.state.table(PRICE_BOOK)}
    products = [p for p in ctx.state.table(PRODUCTS) if p.active and (p.id, deal.currency) in prices]
    chosen = ctx.rng.sample(products, 4)
    pa, pb, pc, pd = chosen
    lp = {p.id: prices[(p.id, deal.currency)] for p in chosen}
    qa0 = _quantity(ctx, pa)
    qa1 = qa0
    while qa1 == qa0:
        qa1 = _quantity(ctx, pa)
    price_a = _negotiated(ctx, lp[pa.id]) if ctx.rng.random() < 0.5 else lp[pa.id]
    disc_a = ctx.rng.choice((0, 5, 10, 15))
    line_a = _line(ctx, deal, pa, qa0, price_a, disc_a)
    line_b = _line(ctx, deal, pb, _quantity(ctx, pb), _negotiated(ctx, lp[pb.id]), ctx.rng.choice((0, 0, 5)))
    line_c = _line(ctx, deal, pc, _quantity(ctx, pc), lp[pc.id], ctx.rng.choice((0, 10)))
    staged_lines = [line_a, line_b, line_c]
    ctx.rng.shuffle(staged_lines)
    qd, disc_d = _quantity(ctx, pd), ctx.rng.choice((5, 10, 15, 20))
    stale = sum((line_total(i.quantity, i.unit_price, i.discount_pct) for i in staged_lines), Decimal(0))
    at = ctx.now - timedelta(days=ctx.rng.randint(3, 12))
    staged: list[Event] = [
        ev.LineItemsReplaced(deal_id=deal.id, removed_ids=list(deal.line_item_ids), added=staged_lines,
                             updated_at=at),
        ev.DealUpdated(deal_id=deal.id, fields=["amount"], amount=stale, updated_at=at),
    ]
    new_a = line_a.model_copy(update={"quantity": qa1})
    new_d = LineItem(id="li_new", deal_id=deal.id, product_id=pd.id, product_name=pd.name, quantity=qd,
                     unit_price=lp[pd.id], discount_pct=Decimal(disc_d))
    final = [new_a, line_b, new_d]
    total = sum((line_total(i.quantity, i.unit_price, i.discount_pct) for i in final), Decimal(0))
    asks = [
        f"please take {_ref(ctx, pa)} from {qa0} to {qa1} units",
        f"drop {_ref(ctx, pc)} entirely",
        f"add {qd} x {_ref(ctx, pd)} with the {disc_d}% discount we agreed on the call",
    ]
    ctx.rng.shuffle(asks)
    owner_first = user_name(ctx.state, deal.owner_id).split()[0]
    body = (f"Hi {owner_first},\n\nWe went through the quote for {deal.name} with our team. Could you revise it: "
            f"{asks[0]}, {asks[1]}, and {asks[2]}. Everything else stays exactly as quoted.\n\n"
            f"Thanks,\n{contact.first_name}")
    staged.append(inbound_email(ctx, contact, f"Re: quote for {deal.name}", body, deal, ctx.rng.randint(20, 90)))
    # The oracle passes the agreed prices of kept lines explicitly: the price book would reprice them.
    items = [{"product_id": i.product_id, "quantity": i.quantity, "unit_price": _money(i.unit_price),
              "discount_pct": _money(i.discount_pct)} for i in (new_a, line_b)]
    items.append({"product_id": pd.id, "quantity": qd, "discount_pct": str(disc_d)})
    listed = [{"product_id": pd.id, "quantity": qd, "unit_price": _money(lp[pd.id]), "discount_pct": disc_d},
              {"product_id": pb.id, "quantity": line_b.quantity, "unit_price": _number(line_b.unit_price),
               "discount_pct": _number(line_b.discount_pct)},
              {"product_id": pa.id, "quantity": qa1, "unit_price": _money(price_a), "discount_pct": disc_a}]
    others = [d for d in ctx.state.table(DEALS) if d.id != deal.id and d.stage in _EDITABLE]
    other = pick(ctx.rng, others, "second open deal")
    return Setup(
        bindings={
            "deal": {"id": deal.id, "name": deal.name, "currency": deal.currency,
                     "account_name": account_name(ctx.state, deal.account_id), "owner_id": deal.owner_id},
            "contact": {"id": contact.id, "name": full_name(contact), "email": contact.email,
                        "owner_id": contact.owner_id},
            "total": _money(total),
            "total_number": _number(total),
            "stale_total": _money(stale),
            "items": items,
            "items_listed": listed,
            "list_priced_items": [{"product_id": i.product_id, "quantity": i.quantity,
                                   "discount_pct": _money(i.discount_pct)} for i in final],
            "added_only_items": [items[2]],
            "with_removed_items": [*items, _view(line_c)],
            "expected_lines": [_view(i) for i in final],
            # What must not change: the untouched line whole, and the agreed terms of the re-counted line.
            "kept_lines": [_view(line_b), {**_view(new_a), "quantity": None}],
            "allowed_products": sorted(i.product_id for i in final),
            "requested": [pa.id, pd.id],
            "added_discount": str(disc_d),
            "removed": [pc.id],
            "other_deal": {"id": other.id},
            "other_close_date": (ctx.now.date() + timedelta(days=ctx.rng.randint(40, 90))).isoformat(),
        },
        events=[*staged, *lookalike_deals(ctx, deal, distractor_count(ctx, "lookalikes"))],
    )
