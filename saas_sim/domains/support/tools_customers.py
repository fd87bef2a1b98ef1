"""Customer, order and knowledge-base tools (all READ)."""

from __future__ import annotations

import re

from pydantic import Field

from saas_sim.core.tools import READ, ToolArgs, ToolContext, tool
from saas_sim.domains.support.models import ACTIVE_STATUSES, Customer, KbArticle, Order
from saas_sim.domains.support.outcomes import plain
from saas_sim.domains.support.state import CUSTOMERS, KB_ARTICLES, ORDERS, TICKETS
from saas_sim.domains.support.text import ascii_slug
from saas_sim.domains.support.toolkit import bad_arg, need, page
from saas_sim.domains.support.views import (
    CustomerList,
    CustomerView,
    KbArticleView,
    KbHit,
    KbPage,
    OrderPage,
    OrderView,
)
from saas_sim.errors import ToolError

__all__ = [
    "find_order",
    "get_customer",
    "get_kb_article",
    "get_order",
    "list_customer_orders",
    "search_customers",
    "search_kb_articles",
]

_NUMBER = re.compile(r"^#?\s*(\d{4,10})$")


def find_order(ctx: ToolContext, ref: str, field: str = "order_id") -> Order:
    """Returns the order with id `ref` (`ord_...`) or order number `ref` (`100482` or `#100482`)."""
    order: Order | None = ctx.table(ORDERS).get(ref)
    if order is None:
        match = _NUMBER.match(ref.strip())
        if match:
            number = match.group(1)
            order = next((o for o in ctx.table(ORDERS) if o.number == number), None)
    if order is None:
        raise ToolError("not_found", f"no order has id or number {ref!r}", details={"fields": [field]})
    return order


def _customer_view(ctx: ToolContext, c: Customer) -> CustomerView:
    orders = sum(1 for o in ctx.table(ORDERS) if o.customer_id == c.id)
    open_tickets = sum(1 for t in ctx.table(TICKETS) if t.requester_id == c.id and t.status in ACTIVE_STATUSES)
    return CustomerView.of(c, order_count=orders, open_ticket_count=open_tickets)


class GetCustomerArgs(ToolArgs):
    customer_id: str = Field(description="The customer's id, such as cus_000042 (a ticket's requester_id).")


@tool("support.get_customer", READ)
def get_customer(ctx: ToolContext, args: GetCustomerArgs) -> CustomerView:
    """Returns a customer's record: contact details, language, tier (standard or vip) and counts."""
    return _customer_view(ctx, need(ctx, CUSTOMERS, args.customer_id, "customer", "customer_id"))


class SearchCustomersArgs(ToolArgs):
    email: str | None = Field(default=None, max_length=200, description="Exact e-mail address (any case).")
    name: str | None = Field(default=None, max_length=200, description=(
        "Words of the name; a customer matches when every word is part of its name (accents ignored)."))
    phone: str | None = Field(default=None, max_length=50, description="Phone number; only digits are compared.")
    limit: int = Field(default=20, ge=1, le=100, description="At most this many results, by id.")


@tool("support.search_customers", READ)
def search_customers(ctx: ToolContext, args: SearchCustomersArgs) -> CustomerList:
    """Finds customers by e-mail, name or phone (all given criteria must match), ordered by id.

    A customer who writes from a second address has a separate record without orders; search by name or
    phone to find the account that placed the order.
    """
    if not (args.email or args.name or args.phone):
        raise ToolError("invalid_argument", "give an email, a name or a phone",
                        details={"fields": ["email", "name", "phone"]})
    words = [ascii_slug(w) for w in (args.name or "").split() if ascii_slug(w)]
    digits = re.sub(r"\D", "", args.phone or "")
    hits: list[Customer] = []
    for c in ctx.table(CUSTOMERS):
        if args.email and c.email.lower() != args.email.strip().lower():
            continue
        if words and not all(w in ascii_slug(c.name) for w in words):
            continue
        if digits and digits not in re.sub(r"\D", "", c.phone):
            continue
        hits.append(c)
        if len(hits) >= args.limit:
            break
    return CustomerList(customers=[_customer_view(ctx, c) for c in hits])


class ListOrdersArgs(ToolArgs):
    customer_id: str = Field(description="The customer whose orders to list.")
    limit: int = Field(default=10, ge=1, le=50, description="Page size, 1-50.")
    cursor: str | None = Field(default=None, description="The next_cursor of the previous page, or null.")


@tool("support.list_customer_orders", READ)
def list_customer_orders(ctx: ToolContext, args: ListOrdersArgs) -> OrderPage:
    """Lists a customer's orders with lines, shipment and refunds, newest first (ties by id)."""
    need(ctx, CUSTOMERS, args.customer_id, "customer", "customer_id")
    orders = [o for o in ctx.table(ORDERS) if o.customer_id == args.customer_id]
    chunk, nxt = page(orders, lambda o: (-int(o.placed_at.timestamp()), o.id),
                      query={"customer_id": args.customer_id}, cursor=args.cursor, limit=args.limit)
    return OrderPage(orders=[OrderView.of(o, ctx.state) for o in chunk], next_cursor=nxt)


class GetOrderArgs(ToolArgs):
    order_id: str = Field(description="The order's id (ord_000123) or the number customers see (100482 or #100482).")


@tool("support.get_order", READ)
def get_order(ctx: ToolContext, args: GetOrderArgs) -> OrderView:
    """Returns one order, by id or by the order number customers quote, with lines and refunds."""
    return OrderView.of(find_order(ctx, args.order_id), ctx.state)


class SearchKbArgs(ToolArgs):
    query: str = Field(min_length=2, max_length=200, description="Words describing the question.")
    limit: int = Field(default=5, ge=1, le=20, description="Page size, 1-20.")
    cursor: str | None = Field(default=None, description="The next_cursor of the previous page, or null.")


def _score(article: KbArticle, words: list[str]) -> int:
    title, body, tags = plain(article.title), plain(article.body), " ".join(article.tags)
    return sum(3 * (w in title) + (w in body) + 2 * (w in tags) for w in words)


@tool("support.search_kb_articles", READ)
def search_kb_articles(ctx: ToolContext, args: SearchKbArgs) -> KbPage:
    """Searches help-centre articles. Best match first (more query words in title and tags), ties by id."""
    words = [w for w in plain(args.query).replace("-", " ").split(" ") if len(w) > 2]
    if not words:
        raise bad_arg("query", "query needs at least one word of three or more letters")
    scored = [(a, _score(a, words)) for a in ctx.table(KB_ARTICLES)]
    hits = [(a, s) for a, s in scored if s > 0]
    chunk, nxt = page(hits, lambda h: (-h[1], h[0].id), query={"q": words}, cursor=args.cursor,
                      limit=args.limit)
    return KbPage(
        articles=[KbHit(id=a.id, title=a.title, category=a.category, tags=list(a.tags),
                        snippet=a.body[:140]) for a, _ in chunk],
        next_cursor=nxt,
    )


class GetKbArgs(ToolArgs):
    article_id: str = Field(description="The article's id, such as kb_000012.")


@tool("support.get_kb_article", READ)
def get_kb_article(ctx: ToolContext, args: GetKbArgs) -> KbArticleView:
    """Returns the full text of a help-centre article."""
    return KbArticleView.of(need(ctx, KB_ARTICLES, args.article_id, "article", "article_id"))
