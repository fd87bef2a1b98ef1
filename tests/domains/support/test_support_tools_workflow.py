"""Workflow tools: status, priority, tags, routing, macros, merging and escalation."""

from __future__ import annotations

from saas_sim.domains.support.models import Ticket
from saas_sim.domains.support.state import PERSONAS, TICKETS, TRUTHS
from tests.domains.support.conftest import Desk, ticket_in


class TestStatusPriorityTags:
    def test_solving_without_a_fix_is_reopened_by_the_customer(self, desk: Desk) -> None:
        t = ticket_in(desk, "open", "refund")
        out = desk.call("support.set_ticket_status", ticket_id=t.id, status="solved")
        assert out.ticket.status == "open" and out.customer_response is not None
        after = desk.state.get(TICKETS, t.id)
        persona = desk.state.get(PERSONAS, t.id)
        assert after is not None and after.satisfaction == "bad"
        assert persona is not None and persona.reopen_count == 1 and not persona.confirmed

    def test_only_allowed_transitions(self, desk: Desk) -> None:
        t = ticket_in(desk, "new")
        err = desk.error("support.set_ticket_status", ticket_id=t.id, status="closed")
        assert err.code == "conflict" and err.details["from"] == "new"
        assert desk.call("support.set_ticket_status", ticket_id=t.id, status="pending").ticket.status == "pending"
        same = desk.call("support.set_ticket_status", ticket_id=t.id, status="pending")
        assert same.ticket.status == "pending"

    def test_status_errors(self, desk: Desk) -> None:
        err = desk.error("support.set_ticket_status", ticket_id="tkt_000001", status="new")
        assert err.code == "invalid_argument"
        err = desk.error("support.set_ticket_status", ticket_id="tkt_999999", status="open")
        assert err.code == "not_found"

    def test_priority(self, desk: Desk) -> None:
        t = ticket_in(desk, "new")
        assert desk.call("support.set_ticket_priority", ticket_id=t.id, priority="urgent").ticket.priority == "urgent"
        err = desk.error("support.set_ticket_priority", ticket_id=t.id, priority="critical")
        assert err.code == "invalid_argument"
        err = desk.error("support.set_ticket_priority", ticket_id="tkt_999999", priority="low")
        assert err.code == "not_found"

    def test_tags(self, desk: Desk) -> None:
        t = ticket_in(desk, "new")
        out = desk.call("support.update_ticket_tags", ticket_id=t.id, add=["sla_breach"], remove=list(t.tags))
        assert out.ticket.tags == ["sla_breach"]
        for args in ({"add": ["Bad Tag"]}, {}):
            err = desk.error("support.update_ticket_tags", ticket_id=t.id, **args)
            assert err.code == "invalid_argument"
        err = desk.error("support.update_ticket_tags", ticket_id="tkt_999999", add=["x"])
        assert err.code == "not_found"


class TestRouting:
    def test_assign_to_a_group_member(self, desk: Desk) -> None:
        t = ticket_in(desk, "new")
        out = desk.call("support.assign_ticket", ticket_id=t.id, group="vip", assignee_id="agt_000010")
        assert (out.ticket.group, out.ticket.assignee_id) == ("vip", "agt_000010")

    def test_assign_errors(self, desk: Desk) -> None:
        t = ticket_in(desk, "new")
        err = desk.error("support.assign_ticket", ticket_id=t.id, assignee_id="agt_999999")
        assert err.code == "not_found"
        err = desk.error("support.assign_ticket", ticket_id=t.id, group="vip", assignee_id="agt_000002")
        assert err.code == "invalid_argument" and err.details["fields"] == ["assignee_id"]
        err = desk.error("support.assign_ticket", ticket_id=t.id)
        assert err.code == "invalid_argument"

    def test_list_agents_shows_groups_and_load(self, desk: Desk) -> None:
        agents = desk.call("support.list_agents", group="vip").items
        assert agents and all("vip" in a.groups for a in agents)
        assert sum(a.active_tickets for a in desk.call("support.list_agents").items) > 0
        err = desk.error("support.list_agents", group="sales")
        assert err.code == "invalid_argument"


class TestMacros:
    def test_list_and_apply(self, desk: Desk) -> None:
        macros = desk.call("support.list_macros").items
        ask = next(m for m in macros if m.title == "Ask for the order number")
        t = ticket_in(desk, "new", "refund")
        out = desk.call("support.apply_macro", ticket_id=t.id, macro_id=ask.id)
        assert "{{" not in out.message.body and "needs_info" in out.ticket.tags
        assert out.customer_response is not None

    def test_apply_errors(self, desk: Desk) -> None:
        t = ticket_in(desk, "new")
        err = desk.error("support.apply_macro", ticket_id=t.id, macro_id="mac_999999")
        assert err.code == "not_found"
        err = desk.error("support.apply_macro", ticket_id=ticket_in(desk, "closed").id, macro_id="mac_000001")
        assert err.code == "conflict"
        err = desk.error("support.list_macros", query="x")
        assert err.code == "invalid_argument"


class TestMerge:
    def _pair(self, desk: Desk) -> tuple[Ticket, Ticket]:
        for t in desk.state.table(TICKETS):
            truth = desk.state.get(TRUTHS, t.id)
            if truth and truth.duplicate_of:
                original = desk.state.get(TICKETS, truth.duplicate_of)
                assert original is not None
                return original, t
        raise AssertionError("no duplicates generated")

    def test_merge_closes_the_sources(self, desk: Desk) -> None:
        original, dup = self._pair(desk)
        out = desk.call("support.merge_tickets", target_id=original.id, source_ids=[dup.id])
        after = desk.state.get(TICKETS, dup.id)
        assert out.merged == [dup.id] and after is not None
        assert (after.status, after.merged_into) == ("closed", original.id)
        err = desk.error("support.send_reply", ticket_id=dup.id, body="hi")
        assert err.code == "conflict"

    def test_merge_errors(self, desk: Desk) -> None:
        original, _ = self._pair(desk)
        err = desk.error("support.merge_tickets", target_id=original.id, source_ids=[original.id])
        assert err.code == "invalid_argument"
        err = desk.error("support.merge_tickets", target_id=original.id, source_ids=["tkt_999999"])
        assert err.code == "not_found"
        stranger = next(t for t in desk.state.table(TICKETS)
                        if t.requester_id != original.requester_id and t.status == "new")
        err = desk.error("support.merge_tickets", target_id=original.id, source_ids=[stranger.id])
        assert err.code == "permission_denied"


class TestEscalate:
    def test_escalation_puts_the_ticket_on_hold_and_tags_it(self, desk: Desk) -> None:
        t = ticket_in(desk, "new", "escalate")
        out = desk.call("support.escalate_ticket", ticket_id=t.id, team="legal", reason="Customer threatens to sue.")
        assert out.ticket.status == "on-hold" and "escalated_legal" in out.ticket.tags

    def test_escalate_errors(self, desk: Desk) -> None:
        t = ticket_in(desk, "new")
        desk.call("support.escalate_ticket", ticket_id=t.id, team="security", reason="Account takeover report.")
        err = desk.error("support.escalate_ticket", ticket_id=t.id, team="security", reason="Account takeover again.")
        assert err.code == "conflict"
        err = desk.error("support.escalate_ticket", ticket_id=t.id, team="legal", reason="short")
        assert err.code == "invalid_argument"
        err = desk.error("support.escalate_ticket", ticket_id="tkt_999999", team="legal", reason="Lawyer mentioned.")
        assert err.code == "not_found"
