"""Ticket tools (list, search, read, reply, note), the tool catalogue and the agent-facing convention."""

from __future__ import annotations

import re

import pytest

from saas_sim.core.tool_errors import ERROR_DETAIL_KEYS
from saas_sim.domains.support import DOMAIN
from saas_sim.domains.support.state import CUSTOMERS, KB_FACTS, ORDERS, PERSONAS, TICKETS, TRUTHS
from tests.domains.support.conftest import Desk, ticket_in


class TestToolCatalogue:
    def test_there_are_at_least_eighteen_support_tools_with_verb_noun_names(self) -> None:
        names = [t.name for t in DOMAIN.tools]
        assert len(names) >= 18
        assert len(set(names)) == len(names)
        assert all(re.fullmatch(r"support\.[a-z]+(_[a-z]+)+", n) for n in names)

    def test_every_tool_and_argument_is_described_for_the_agent(self) -> None:
        for spec in DOMAIN.tools:
            assert len(spec.description) > 20, spec.name
            for name, field in spec.args_model.model_fields.items():
                assert field.description, f"{spec.name}.{name} has no description"


class TestListTickets:
    def test_filters_and_pages_cover_every_match_once_in_a_stable_order(self, desk: Desk) -> None:
        seen: list[str] = []
        cursor = None
        while True:
            page = desk.call("support.list_tickets", status=["new", "open"], sort="sla_due", limit=7,
                             cursor=cursor)
            seen += [t.id for t in page.items]
            assert all(t.status in ("new", "open") for t in page.items)
            cursor = page.next_cursor
            if cursor is None:
                break
        assert len(seen) == len(set(seen)) == page.total
        dues = [t.next_sla_due for t in desk.call("support.list_tickets", status=["new", "open"],
                                                   sort="sla_due", limit=100).items]
        assert dues == sorted(dues)

    def test_sla_state_filter_only_returns_tickets_in_that_state(self, desk: Desk) -> None:
        page = desk.call("support.list_tickets", sla_state="breached", limit=100)
        assert page.total > 0
        assert {t.sla_state for t in page.items} == {"breached"}

    def test_unknown_requester_gives_an_empty_page(self, desk: Desk) -> None:
        page = desk.call("support.list_tickets", requester_id="cus_999999")
        assert page.total == 0 and page.items == [] and page.next_cursor is None

    def test_a_cursor_reused_with_other_filters_is_invalid(self, desk: Desk) -> None:
        page = desk.call("support.list_tickets", status=["new"], limit=2)
        err = desk.error("support.list_tickets", status=["open"], limit=2, cursor=page.next_cursor)
        assert err.code == "invalid_argument"
        assert err.details["fields"] == ["cursor"]

    def test_a_forged_cursor_with_other_key_types_is_invalid_not_a_crash(self, desk: Desk) -> None:
        import base64
        import json

        page = desk.call("support.list_tickets", status=["new"], limit=2)
        assert page.next_cursor is not None
        # Keep the cursor's query fingerprint, so only the key parts' types are wrong.
        decoded = json.loads(base64.urlsafe_b64decode(page.next_cursor + "=" * (-len(page.next_cursor) % 4)))
        decoded["k"] = [7 if isinstance(part, str) else "x" for part in decoded["k"]]
        forged = base64.urlsafe_b64encode(json.dumps(decoded).encode()).decode().rstrip("=")
        err = desk.error("support.list_tickets", status=["new"], limit=2, cursor=forged)
        assert err.code == "invalid_argument"
        assert err.details["fields"] == ["cursor"]

    def test_bad_limit_and_unknown_status_are_invalid(self, desk: Desk) -> None:
        for args in ({"limit": 0}, {"status": ["archived"]}, {"cursor": "%%%"}):
            err = desk.error("support.list_tickets", **args)
            assert err.code == "invalid_argument"


class TestSearchAndGetTicket:
    def test_search_finds_a_ticket_by_its_requester_email(self, desk: Desk) -> None:
        t = ticket_in(desk)
        page = desk.call("support.search_tickets", query=t.requester_email)
        assert t.id in [x.id for x in page.items]

    def test_search_needs_a_real_word(self, desk: Desk) -> None:
        for query in ("x", "  ..  "):
            err = desk.error("support.search_tickets", query=query)
            assert err.code == "invalid_argument"

    def test_get_ticket_returns_the_thread_without_ground_truth(self, desk: Desk) -> None:
        t = ticket_in(desk, "open")
        detail = desk.call("support.get_ticket", ticket_id=t.id)
        assert [m.id for m in detail.messages] == list(t.message_ids)
        persona = desk.state.get(PERSONAS, t.id)
        assert persona is not None and persona.seed not in detail.model_dump_json()

    def test_get_ticket_unknown_and_extra_fields(self, desk: Desk) -> None:
        err = desk.error("support.get_ticket", ticket_id="tkt_999999")
        assert err.code == "not_found"
        err = desk.error("support.get_ticket", ticket_id="tkt_000001", verbose=True)
        assert err.code == "invalid_argument"


class TestReplyAndNote:
    def test_reply_opens_a_new_ticket_records_first_response_and_the_customer_answers(self, desk: Desk) -> None:
        t = ticket_in(desk, "new", "refund")
        out = desk.call("support.send_reply", ticket_id=t.id, body="Hello, we are looking into it.")
        after = desk.state.get(TICKETS, t.id)
        assert after is not None and after.status == "open" and after.first_responded_at == desk.now
        assert out.customer_response is not None and out.customer_response.author_kind == "customer"

    def test_asking_for_the_order_number_gets_it(self, desk: Desk) -> None:
        for t in desk.state.table(TICKETS):
            truth = desk.state.get(TRUTHS, t.id)
            if t.status == "new" and truth and truth.order_id and "missing_order" in truth.mess:
                break
        out = desk.call("support.send_reply", ticket_id=t.id, body="Could you send me your order number?")
        assert truth is not None and truth.order_id is not None
        order = desk.state.get(ORDERS, truth.order_id)
        assert order is not None and order.number in out.customer_response.body

    def test_reply_errors(self, desk: Desk) -> None:
        err = desk.error("support.send_reply", ticket_id="tkt_999999", body="hi")
        assert err.code == "not_found"
        err = desk.error("support.send_reply", ticket_id="tkt_000001", body="")
        assert err.code == "invalid_argument"
        closed = ticket_in(desk, "closed")
        err = desk.error("support.send_reply", ticket_id=closed.id, body="hi")
        assert err.code == "conflict"

    def test_internal_note_is_private_and_silent(self, desk: Desk) -> None:
        t = ticket_in(desk, "new")
        note = desk.call("support.add_internal_note", ticket_id=t.id, body="check the carrier")
        after = desk.state.get(TICKETS, t.id)
        assert note.public is False and after is not None and after.status == "new"
        assert after.message_ids[-1] == note.id and after.first_responded_at is None

    def test_note_errors(self, desk: Desk) -> None:
        err = desk.error("support.add_internal_note", ticket_id="tkt_999999", body="x")
        assert err.code == "not_found"
        err = desk.error("support.add_internal_note", ticket_id=ticket_in(desk, "closed").id, body="x")
        assert err.code == "conflict"
        err = desk.error("support.add_internal_note", ticket_id="tkt_000001")
        assert err.code == "invalid_argument"


class TestGroundTruthIsHidden:
    def test_tools_cannot_read_hidden_tables_but_the_simulator_path_sees_the_state(self, desk: Desk) -> None:
        import random

        from saas_sim.core.tools import READ, ToolContext
        from saas_sim.domains.support.state import PROJECTION
        from saas_sim.errors import HarnessError

        ctx = ToolContext(desk.state, desk.now, PROJECTION, random.Random(0), READ)
        with pytest.raises(HarnessError):
            ctx.table(TRUTHS)
        with pytest.raises(HarnessError):
            ctx.table(PERSONAS)
        with pytest.raises(HarnessError):
            ctx.table(KB_FACTS)
        assert len(ctx.state.table(TRUTHS)) == len(ctx.state.table(PERSONAS)) > 0


class TestAgentFacingConvention:
    """Support pages and errors read like every domain's (core paging and tool_errors)."""

    @pytest.mark.parametrize(("tool", "args", "field", "missing"), [
        ("support.get_ticket", {}, "ticket_id", "tkt_999999"),
        ("support.send_reply", {"body": "Hello"}, "ticket_id", "tkt_999999"),
        ("support.get_customer", {}, "customer_id", "cus_999999"),
        ("support.list_customer_orders", {}, "customer_id", "cus_999999"),
        ("support.get_order", {}, "order_id", "#424242424"),
        ("support.get_kb_article", {}, "article_id", "kb_999999"),
        ("support.issue_store_credit", {"amount": "5", "reason": "sorry"}, "customer_id", "cus_999999"),
    ])
    def test_not_found_names_the_missing_id_and_the_argument_that_held_it(
            self, desk: Desk, tool: str, args: dict[str, object], field: str, missing: str) -> None:
        err = desk.error(tool, **{field: missing}, **args)
        assert err.code == "not_found"
        assert err.details["id"] == missing and err.details["fields"] == [field]
        assert set(err.details) >= ERROR_DETAIL_KEYS["not_found"]

    def test_a_missing_order_line_is_not_found_with_its_id_and_order(self, desk: Desk) -> None:
        order = next(o for o in desk.state.table(ORDERS) if o.status == "delivered")
        err = desk.error("support.create_replacement", order_id=order.id, line_id="ol_999999", quantity=1,
                         reason="damaged")
        assert err.code == "not_found"
        assert err.details == {"id": "ol_999999", "fields": ["line_id"], "order_id": order.id}

    def test_conflicts_and_refusals_name_the_arguments_at_fault(self, desk: Desk) -> None:
        t = ticket_in(desk, "new")
        err = desk.error("support.set_ticket_status", ticket_id=t.id, status="closed")
        assert err.code == "conflict" and err.details["fields"] == ["status"]
        order = next(o for o in desk.state.table(ORDERS) if o.total - o.refunded_total > 250)
        err = desk.error("support.issue_refund", order_id=order.id, amount="250.00", reason="damaged")
        assert err.code == "permission_denied" and err.details["fields"] == ["amount"]

    @pytest.mark.parametrize(("tool", "args"), [
        ("support.list_tickets", {}),
        ("support.search_tickets", {"query": "order"}),
        ("support.search_customers", {"name": "a"}),
        ("support.search_kb_articles", {"query": "how to use the product"}),
        ("support.list_customer_orders", {"customer_id": "cus_000001"}),
        ("support.list_agents", {}),
        ("support.list_macros", {}),
    ])
    def test_list_and_search_tools_page_twenty_items_by_default_and_cover_every_match_once(
            self, desk: Desk, tool: str, args: dict[str, object]) -> None:
        page = desk.call(tool, **args)
        assert set(type(page).model_fields) == {"items", "next_cursor", "total"}
        assert len(page.items) == min(20, page.total)
        seen = [x.id for x in page.items]
        while page.next_cursor is not None:
            page = desk.call(tool, **args, limit=100, cursor=page.next_cursor)
            seen += [x.id for x in page.items]
        assert len(seen) == len(set(seen)) == page.total

    def test_a_customers_orders_page_counts_all_of_them(self, desk: Desk) -> None:
        c = next(c for c in desk.state.table(CUSTOMERS)
                 if sum(o.customer_id == c.id for o in desk.state.table(ORDERS)) >= 3)
        page = desk.call("support.list_customer_orders", customer_id=c.id, limit=1)
        assert page.total == sum(o.customer_id == c.id for o in desk.state.table(ORDERS))
        assert len(page.items) == 1 and page.next_cursor is not None
