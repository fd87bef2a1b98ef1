"""Cross-app tax setup at the support desk: sales tax on invoices, disputed by customers who say they are exempt.

`tax_charged_tickets` stages one invoice per customer (a services line and a sales-tax line) and a
ticket each asking for the tax back. One customer really is tax-exempt (the CRM records it: see
`crm.tax_exempt_accounts`) and was taxed by a bug; the others are not exempt and were rightly
taxed, however sure their tickets sound. The figures come from `ide.tax_exempt_bug`. Every customer
is a CRM contact of another account, so the CRM alone tells them apart.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import Customer, Order, OrderLine, Product
from saas_sim.domains.support.setup_helpers import (
    ago,
    customer_b,
    line_b,
    money,
    order_b,
    random_mess,
    skip_ids,
    stage,
    ticket_b,
)
from saas_sim.domains.support.setups_suite_billing import _linked_customers
from saas_sim.domains.support.state import CUSTOMER_LINKS, ORDERS
from saas_sim.domains.support.ticket_factory import TicketSpec
from saas_sim.errors import ScenarioError

__all__ = ["TAX_SKU", "tax_charged_tickets"]

TAX_SKU = "TAX-SALES"
_SERVICES_SKU = "SVC-PRO"


def _customers(ctx: SetupContext, n: int) -> list[Customer]:
    """`n` linked customers, each the contact of another CRM account (drawn in id order)."""
    links = ctx.state.table(CUSTOMER_LINKS)
    pool = sorted(_linked_customers(ctx), key=lambda c: c.id)
    ctx.rng.shuffle(pool)
    out: list[Customer] = []
    accounts: set[str] = set()
    for c in pool:
        account = links.get(c.id).crm_account_id  # type: ignore[union-attr]  # _linked_customers has a link
        if account not in accounts:
            accounts.add(str(account))
            out.append(c)
        if len(out) == n:
            return out
    raise ScenarioError(f"this world has fewer than {n} support customers who are contacts of distinct CRM accounts")


def _invoice(ctx: SetupContext, customer: Customer, products: tuple[Product, Product], subtotal: Decimal,
             tax: Decimal, rate: str, top: int) -> Order:
    services, sales_tax = products
    invoice = str(ctx.rng.randrange(20_000, 90_000))
    at = ctx.now - timedelta(days=ctx.rng.randint(2, 12), hours=ctx.rng.randrange(24))
    lines = (
        OrderLine(id=ctx.ids.next("ol"), product_id=services.id, sku=_SERVICES_SKU, quantity=1, unit_price=subtotal,
                  total=subtotal, name=f"Professional services, invoice {invoice}"),
        OrderLine(id=ctx.ids.next("ol"), product_id=sales_tax.id, sku=TAX_SKU, quantity=1, unit_price=tax, total=tax,
                  name=f"Sales tax ({rate}%), invoice {invoice}"),
    )
    return Order(id=ctx.ids.next("ord"), number=str(top), customer_id=customer.id, placed_at=at, currency="USD",
                 lines=lines, shipping=Decimal("0.00"), total=subtotal + tax, status="delivered", carrier="none",
                 delivered_at=at, shipped_at=at)


def _body(order: Order, tax: Decimal, exempt: bool, variant: int) -> str:
    if exempt:
        return (f"Hello,\n\nour organisation is tax-exempt and you have our exemption certificate on file, but "
                f"charge #{order.number} added {money(tax)} USD of sales tax. Please refund the tax.")
    claims = ("we are a non-profit, so I do not think we should pay sales tax",
              "we were told we would not be charged tax",
              "our accountant says this service should be tax-free")
    return (f"Hi,\n\ncharge #{order.number} includes {money(tax)} USD of sales tax, but {claims[variant % 3]}. "
            "Please refund the tax.")


@kit.setup
def tax_charged_tickets(ctx: SetupContext) -> Setup:
    """Tickets asking for the sales tax of an invoice back; only the first customer (params) is exempt.

    Params:
        subtotal, tax: The exempt customer's invoice (dollars), from `ide.tax_exempt_bug`.
        rate: The tax rate in percent.
        other_subtotals, other_taxes: One invoice per customer who is not exempt (dollars, lists).

    Bindings: ticket, customer (with crm_contact_id), order (the taxed invoice), line (its tax line),
    services_line, excess (the tax), charged, subtotal, refund_reply, refund_reply_alt; others (one per
    other customer: ticket_id, order_id, line_id, number, tax, crm_contact_id), other_ticket_ids,
    other_order_ids, other_contact_ids, all_ticket_ids and tickets_listed (every tax ticket, by id; the
    latter comma-separated; the exempt one's place among them is seed-drawn), other (the first of others,
    else the exempt customer's services line: a wrong target all the same).
    """
    subtotal, tax = Decimal(str(ctx.params["subtotal"])), Decimal(str(ctx.params["tax"]))
    rate = str(ctx.params["rate"])
    o_subs = [Decimal(str(s)) for s in ctx.params.get("other_subtotals", [])]
    o_taxes = [Decimal(str(t)) for t in ctx.params.get("other_taxes", [])]
    if len(o_subs) != len(o_taxes) or tax <= 0:
        raise ScenarioError("tax_charged_tickets needs a tax above zero and one tax per other subtotal")
    people = _customers(ctx, 1 + len(o_subs))
    skip_ids(ctx, "prd", "ord", "ol")
    products = (
        Product(id=ctx.ids.next("prd"), sku=_SERVICES_SKU, name="Professional services", category="services",
                price=Decimal("0.00"), returnable=False),
        Product(id=ctx.ids.next("prd"), sku=TAX_SKU, name="Sales tax", category="fees", price=Decimal("0.00"),
                returnable=False),
    )
    events: list[Any] = [ev.ProductCreated(product=p) for p in products]
    top = max(int(o.number) for o in ctx.state.table(ORDERS))
    orders: list[Order] = []
    tickets: list[dict[str, Any]] = []
    # Filed in a seed-drawn order: the exempt customer's invoice number, order id and ticket id (hence its
    # place in `tickets_listed`) are first about one time in len(people), never always.
    filing = list(range(len(people)))
    ctx.rng.shuffle(filing)
    staged_by: dict[int, tuple[Order, dict[str, Any]]] = {}
    for k in filing:
        person, sub, t = people[k], [subtotal, *o_subs][k], [tax, *o_taxes][k]
        top += ctx.rng.randrange(2, 60)
        order = _invoice(ctx, person, products, sub, t, rate, top)
        events.append(ev.OrderPlaced(order=order))
        ticket, staged = stage(ctx, TicketSpec(
            customer=person, requester=person, issue="billing_question", resolution="refund" if k == 0 else "deny",
            created_at=ago(ctx, 10, 240), priority="normal", group="billing", order=order, line=order.lines[1],
            amount=t if k == 0 else None, product_name=order.lines[1].name,
            body_core=_body(order, t, k == 0, ctx.rng.randrange(3)),
            mess=random_mess(ctx.rng, vague_subject=True)))
        events += staged
        staged_by[k] = (order, ticket_b(ticket))
    for k in range(len(people)):
        orders.append(staged_by[k][0])
        tickets.append(staged_by[k][1])
    exempt, order = people[0], orders[0]
    others = [{"ticket_id": tk["id"], "order_id": o.id, "line_id": o.lines[1].id, "number": o.number,
               "tax": money(o.lines[1].total), "crm_contact_id": p.crm_contact_id}
              for tk, o, p in zip(tickets[1:], orders[1:], people[1:], strict=True)]
    first = exempt.first_name
    return Setup(bindings={
        "ticket": tickets[0],
        "customer": {**customer_b(exempt), "crm_contact_id": exempt.crm_contact_id},
        "order": order_b(order),
        "line": line_b(order.lines[1]),
        "services_line": line_b(order.lines[0]),
        "excess": money(tax), "charged": money(subtotal + tax), "subtotal": money(subtotal),
        "others": others,
        "other": others[0] if others else {"ticket_id": tickets[0]["id"], "order_id": order.id,
                                           "line_id": order.lines[0].id, "number": order.number,
                                           "tax": money(tax), "crm_contact_id": exempt.crm_contact_id},
        "other_ticket_ids": [o["ticket_id"] for o in others],
        "other_order_ids": [o["order_id"] for o in others],
        "other_contact_ids": [o["crm_contact_id"] for o in others],
        "all_ticket_ids": sorted(t["id"] for t in tickets),
        "tickets_listed": ", ".join(sorted(t["id"] for t in tickets)),
        "refund_reply": (f"Hi {first},\n\nyou are right: your organisation is tax-exempt, and a bug in our billing "
                         f"added sales tax to charge #{order.number}. The bug is fixed, and I have refunded the "
                         f"{money(tax)} USD of tax to your card.\n\nBest regards"),
        "refund_reply_alt": (f"Hello {first},\n\nthank you for flagging this. The tax on #{order.number} was charged "
                             f"in error; USD {money(tax)} went back to your card today.\n\nKind regards"),
    }, events=events)

