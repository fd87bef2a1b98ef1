"""Customer, order and knowledge-base tools: lookups, searches, pages and their errors."""

from __future__ import annotations

from saas_sim.domains.support.state import CUSTOMERS, KB_FACTS, ORDERS
from tests.domains.support.conftest import Desk


class TestCustomersAndOrders:
    def test_get_customer_and_search_by_email_name_and_phone(self, desk: Desk) -> None:
        c = next(iter(desk.state.table(CUSTOMERS)))
        assert desk.call("support.get_customer", customer_id=c.id).order_count >= 1
        assert [x.id for x in desk.call("support.search_customers", email=c.email.upper()).items] == [c.id]
        assert c.id in [x.id for x in desk.call("support.search_customers", name=c.name, limit=100).items]
        assert c.id in [x.id for x in desk.call("support.search_customers", phone=c.phone, limit=100).items]

    def test_customer_errors(self, desk: Desk) -> None:
        err = desk.error("support.get_customer", customer_id="cus_999999")
        assert err.code == "not_found"
        err = desk.error("support.search_customers")
        assert err.code == "invalid_argument"
        assert desk.call("support.search_customers", email="nobody@nowhere.example").items == []

    def test_orders_newest_first_and_by_number(self, desk: Desk) -> None:
        c = next(c for c in desk.state.table(CUSTOMERS)
                 if sum(o.customer_id == c.id for o in desk.state.table(ORDERS)) >= 3)
        first = desk.call("support.list_customer_orders", customer_id=c.id, limit=2)
        rest = desk.call("support.list_customer_orders", customer_id=c.id, limit=50, cursor=first.next_cursor)
        placed = [o.placed_at for o in [*first.items, *rest.items]]
        assert placed == sorted(placed, reverse=True)
        order = first.items[0]
        for ref in (order.id, order.number, f"#{order.number}"):
            assert desk.call("support.get_order", order_id=ref).id == order.id

    def test_order_errors(self, desk: Desk) -> None:
        err = desk.error("support.list_customer_orders", customer_id="cus_999999")
        assert err.code == "not_found"
        err = desk.error("support.get_order", order_id="999")
        assert err.code == "not_found"
        err = desk.error("support.list_customer_orders", customer_id="cus_000001", limit=500)
        assert err.code == "invalid_argument"


class TestKnowledgeBase:
    def test_search_ranks_the_article_for_a_product_and_topic_first(self, desk: Desk) -> None:
        facts = next(iter(desk.state.table(KB_FACTS)))
        article = desk.call("support.get_kb_article", article_id=facts.id)
        hits = desk.call("support.search_kb_articles", query=article.title).items
        assert hits[0].id == facts.id
        assert all(f in article.body for f in facts.facts)

    def test_kb_errors(self, desk: Desk) -> None:
        err = desk.error("support.get_kb_article", article_id="kb_999999")
        assert err.code == "not_found"
        err = desk.error("support.search_kb_articles", query="a b")
        assert err.code == "invalid_argument"
        assert desk.call("support.search_kb_articles", query="zzzzqqq").items == []
