"""Customer, order and knowledge-base tools (all READ)."""

from __future__ import annotations

import re

from pydantic import Field

from saas_sim.core.indexes import candidates, select_page
from saas_sim.core.paging import PageArgs
from saas_sim.core.tool_errors import bad_args, not_found, require
from saas_sim.core.tools import READ, ToolArgs, ToolContext
from saas_sim.domains.support.customer_text import ascii_slug
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import ACTIVE_STATUSES, Customer, KbArticle, Order
from saas_sim.domains.support.plain_text import plain
from saas_sim.domains.support.search_index import (
    CUSTOMER_BY_NAME,
    CUSTOMER_INDEX,
    CUSTOMER_NAME,
    CUSTOMER_PHONE,
    ORDER_INDEX,
    ORDER_NEWEST,
    TICKET_INDEX,
    phone_digits,
)
from saas_sim.domains.support.state import CUSTOMERS, KB_ARTICLES, ORDERS, TICKETS
from saas_sim.domains.support.views_customers import (
    CustomerPage,
    CustomerView,
    KbArticleView,
    KbHit,
    KbPage,
    OrderPage,
    OrderView,
)

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
            # The lowest id with that number, as a scan in id order finds it.
            found = ctx.table(ORDERS).matching(ORDER_INDEX, [("number", number)])
            order = ctx.table(ORDERS).get(min(found)) if found else None
    if order is None:
        raise not_found("order with id or number", ref, field)
    return order


def _customer_view(ctx: ToolContext, c: Customer) -> CustomerView:
    orders = len(ctx.table(ORDERS).matching(ORDER_INDEX, [("customer", c.id)]))
    tickets = ctx.table(TICKETS)
    open_tickets = sum(1 for i in tickets.matching(TICKET_INDEX, [("requester", c.id)])
                       if tickets.get(i).status in ACTIVE_STATUSES)
    return CustomerView.of(c, order_count=orders, open_ticket_count=open_tickets)


class GetCustomerArgs(ToolArgs):
    customer_id: str = Field(description="The customer's id, such as cus_000042 (a ticket's requester_id).")


@kit.tool(READ)
def get_customer(ctx: ToolContext, args: GetCustomerArgs) -> CustomerView:
    """Returns a customer's record: contact details, language, tier (standard or vip) and counts."""
    return _customer_view(ctx, require(ctx, CUSTOMERS, args.customer_id, "customer", "customer_id"))


class SearchCustomersArgs(PageArgs):
    email: str | None = Field(default=None, max_length=200, description="Exact e-mail address (any case).")
    name: str | None = Field(default=None, max_length=200, description=(
        "Words of the name; a customer matches when every word is part of its name (accents ignored)."))
    phone: str | None = Field(default=None, max_length=50, description="Phone number; only digits are compared.")


@kit.tool(READ)
def search_customers(ctx: ToolContext, args: SearchCustomersArgs) -> CustomerPage:
    """Finds customers by e-mail, name or phone (all given criteria must match), ordered by name; customers of
    one name come in an order drawn for the episode (not by id or age).

    A customer who writes from a second address has a separate record without orders; search by name or
    phone to find the account that placed the order.
    """
    if not (args.email or args.name or args.phone):
        raise bad_args("give an email, a name or a phone", ["email", "name", "phone"])
    words = [ascii_slug(w) for w in (args.name or "").split() if ascii_slug(w)]
    digits = re.sub(r"\D", "", args.phone or "")
    email = args.email.strip().lower() if args.email else None
    customers = ctx.table(CUSTOMERS)
    among = candidates(customers, [(CUSTOMER_INDEX, None if email is None else [("email", email)]),
                                   (CUSTOMER_NAME, words), (CUSTOMER_PHONE, [digits] if digits else None)])

    def where(c: Customer) -> bool:
        if email is not None and c.email.lower() != email:
            return False
        if words and not all(w in ascii_slug(c.name) for w in words):
            return False
        return not digits or digits in phone_digits(c.phone)

    return select_page(CustomerPage, customers, CUSTOMER_BY_NAME, args, where, among=among,
                       view=lambda c: _customer_view(ctx, c), ties=ctx.ties)


class ListOrdersArgs(PageArgs):
    customer_id: str = Field(description="The customer whose orders to list.")


@kit.tool(READ)
def list_customer_orders(ctx: ToolContext, args: ListOrdersArgs) -> OrderPage:
    """Lists a customer's orders with lines, shipment and refunds, newest first (ties by id)."""
    require(ctx, CUSTOMERS, args.customer_id, "customer", "customer_id")
    orders = ctx.table(ORDERS)
    return select_page(OrderPage, orders, ORDER_NEWEST, args, lambda o: o.customer_id == args.customer_id,
                       among=orders.matching(ORDER_INDEX, [("customer", args.customer_id)]), exact=True,
                       view=lambda o: OrderView.of(o, ctx.state), ties=ctx.ties)


class GetOrderArgs(ToolArgs):
    order_id: str = Field(description="The order's id (ord_000123) or the number customers see (100482 or #100482).")


@kit.tool(READ)
def get_order(ctx: ToolContext, args: GetOrderArgs) -> OrderView:
    """Returns one order, by id or by the order number customers quote, with lines and refunds."""
    return OrderView.of(find_order(ctx, args.order_id), ctx.state)


class SearchKbArgs(PageArgs):
    query: str = Field(min_length=2, max_length=200, description="Words describing the question.")


def _score(article: KbArticle, words: list[str]) -> int:
    title, body, tags = plain(article.title), plain(article.body), " ".join(article.tags)
    return sum(3 * (w in title) + (w in body) + 2 * (w in tags) for w in words)


@kit.tool(READ)
def search_kb_articles(ctx: ToolContext, args: SearchKbArgs) -> KbPage:
    """Searches help-centre articles. Best match first (more query words in title and tags), ties by id."""
    words = [w for w in plain(args.query).replace("-", " ").split(" ") if len(w) > 2]
    if not words:
        raise bad_args("query needs at least one word of three or more letters", ["query"])
    scored = [(a, _score(a, words)) for a in ctx.table(KB_ARTICLES)]
    hits = [(a, s) for a, s in scored if s > 0]
    # The cursor is bound to the words searched, so re-spelling the same words keeps the position.
    return KbPage.of(hits, lambda h: (-h[1], h[0].id), args, query={"q": words}, ties=ctx.ties,
                     view=lambda h: KbHit(id=h[0].id, title=h[0].title, category=h[0].category,
                                          tags=list(h[0].tags), snippet=h[0].body[:140]))


class GetKbArgs(ToolArgs):
    article_id: str = Field(description="The article's id, such as kb_000012.")


@kit.tool(READ)
def get_kb_article(ctx: ToolContext, args: GetKbArgs) -> KbArticleView:
    """Returns the full text of a help-centre article."""
    return KbArticleView.of(require(ctx, KB_ARTICLES, args.article_id, "article", "article_id"))
