"""Money tools: refunds, replacements, store credit and approvals, with their policy limits."""

from __future__ import annotations

from decimal import Decimal

from saas_sim.domains.support.models import Order, OrderLine
from saas_sim.domains.support.setup_helpers import untouched_orders
from saas_sim.domains.support.state import CUSTOMERS, ORDERS
from tests.domains.support.conftest import Desk


def _order(desk: Desk, *, min_line: str = "0", max_line: str = "200", qty: int = 1) -> tuple[Order, OrderLine]:
    for o in untouched_orders(desk.state):
        for ln in o.lines:
            if Decimal(min_line) < ln.total <= Decimal(max_line) and ln.quantity >= qty:
                return o, ln
    raise AssertionError("no fitting order")


class TestIssueRefund:
    def test_refund_a_line_updates_the_order(self, desk: Desk) -> None:
        order, line = _order(desk)
        refund = desk.call("support.issue_refund", order_id=order.number, line_id=line.id, amount=str(line.unit_price),
                           reason="damaged")
        assert refund.amount == line.unit_price and refund.order_id == order.id
        after = desk.state.get(ORDERS, order.id)
        assert after is not None and after.refunded_total == line.unit_price

    def test_default_amount_is_everything_still_refundable(self, desk: Desk) -> None:
        order, line = _order(desk)
        refund = desk.call("support.issue_refund", order_id=order.id, line_id=line.id, reason="damaged")
        assert refund.amount == line.total
        err = desk.error("support.issue_refund", order_id=order.id, line_id=line.id, reason="damaged")
        assert err.code == "invalid_argument"

    def test_more_than_paid_is_invalid(self, desk: Desk) -> None:
        order, line = _order(desk)
        err = desk.error("support.issue_refund", order_id=order.id, line_id=line.id, amount=str(line.total + 1),
                         reason="damaged")
        assert err.code == "invalid_argument" and err.details["fields"] == ["amount"]
        for amount in ("-5", "10.001", "abc"):
            err = desk.error("support.issue_refund", order_id=order.id, amount=amount, reason="damaged")
            assert err.code == "invalid_argument"

    def test_above_the_agent_limit_needs_an_approval(self, desk: Desk) -> None:
        order, line = _order(desk, min_line="200", max_line="1000")
        err = desk.error("support.issue_refund", order_id=order.id, line_id=line.id, reason="damaged")
        assert err.code == "permission_denied"
        approval = desk.call("support.request_approval", kind="refund", order_id=order.id, amount=str(line.total),
                             reason="Damaged on arrival, photos checked.")
        assert approval.status == "approved"
        refund = desk.call("support.issue_refund", order_id=order.id, line_id=line.id, reason="damaged",
                           approval_id=approval.id)
        assert refund.approval_id == approval.id
        err = desk.error("support.issue_refund", order_id=order.id, amount="1.00", reason="damaged",
                         approval_id=approval.id)
        assert err.code == "conflict"

    def test_an_approval_for_another_order_or_a_smaller_amount_is_denied(self, desk: Desk) -> None:
        order, line = _order(desk, min_line="200", max_line="1000")
        other, _ = next((o, ln) for o in untouched_orders(desk.state) if o.id != order.id
                        for ln in o.lines if o.total > Decimal("300"))
        approval = desk.call("support.request_approval", kind="refund", order_id=other.id, amount="250.00",
                             reason="Damaged item on the other order.")
        err = desk.error("support.issue_refund", order_id=order.id, line_id=line.id, reason="damaged",
                         approval_id=approval.id)
        assert err.code == "permission_denied"
        small = desk.call("support.request_approval", kind="refund", order_id=order.id, amount="200.01",
                          reason="Only part of the damage.")
        err = desk.error("support.issue_refund", order_id=order.id, line_id=line.id, reason="damaged",
                         approval_id=small.id)
        assert err.code == "permission_denied"

    def test_unknown_order_line_ticket_or_approval(self, desk: Desk) -> None:
        order, _ = _order(desk)
        cases = [
            {"order_id": "ord_999999"},
            {"order_id": order.id, "line_id": "ol_999999"},
            {"order_id": order.id, "ticket_id": "tkt_999999"},
            {"order_id": order.id, "approval_id": "apr_999999", "amount": "1.00"},
        ]
        for args in cases:
            err = desk.error("support.issue_refund", reason="damaged", **args)
            assert err.code == "not_found", args


class TestReplacement:
    def test_replace_units_of_a_delivered_line(self, desk: Desk) -> None:
        order, line = _order(desk, qty=2)
        rpl = desk.call("support.create_replacement", order_id=order.id, line_id=line.id, quantity=2, reason="damaged")
        assert rpl.quantity == 2
        err = desk.error("support.create_replacement", order_id=order.id, line_id=line.id, quantity=line.quantity,
                         reason="damaged")
        assert err.code == "invalid_argument"

    def test_refunded_units_cannot_also_be_replaced(self, desk: Desk) -> None:
        order, line = _order(desk)
        desk.call("support.issue_refund", order_id=order.id, line_id=line.id, reason="damaged")
        err = desk.error("support.create_replacement", order_id=order.id, line_id=line.id, quantity=1, reason="damaged")
        assert err.code == "permission_denied"

    def test_undelivered_orders_conflict_and_unknowns_are_not_found(self, desk: Desk) -> None:
        shipped = next(o for o in desk.state.table(ORDERS) if o.status != "delivered")
        err = desk.error("support.create_replacement", order_id=shipped.id, line_id=shipped.lines[0].id, quantity=1,
                         reason="damaged")
        assert err.code == "conflict"
        order, _ = _order(desk)
        err = desk.error("support.create_replacement", order_id=order.id, line_id="ol_999999", quantity=1,
                         reason="damaged")
        assert err.code == "not_found"
        err = desk.error("support.create_replacement", order_id=order.id, line_id=order.lines[0].id, quantity=0,
                         reason="damaged")
        assert err.code == "invalid_argument"


class TestStoreCredit:
    def test_credit_within_the_limit_raises_the_balance(self, desk: Desk) -> None:
        c = next(iter(desk.state.table(CUSTOMERS)))
        credit = desk.call("support.issue_store_credit", customer_id=c.id, amount="25.00", reason="late delivery")
        after = desk.state.get(CUSTOMERS, c.id)
        assert credit.amount == Decimal("25.00") and after is not None and after.store_credit == Decimal("25.00")

    def test_credit_above_the_limit_needs_an_approval(self, desk: Desk) -> None:
        c = next(iter(desk.state.table(CUSTOMERS)))
        err = desk.error("support.issue_store_credit", customer_id=c.id, amount="80.00", reason="goodwill")
        assert err.code == "permission_denied"
        approval = desk.call("support.request_approval", kind="store_credit", customer_id=c.id, amount="80.00",
                             reason="Repeated delivery failures this month.")
        credit = desk.call("support.issue_store_credit", customer_id=c.id, amount="80.00", reason="goodwill",
                           approval_id=approval.id)
        assert credit.approval_id == approval.id

    def test_credit_errors(self, desk: Desk) -> None:
        err = desk.error("support.issue_store_credit", customer_id="cus_999999", amount="5", reason="goodwill")
        assert err.code == "not_found"
        for amount in ("0", "5000", "1.234"):
            err = desk.error("support.issue_store_credit", customer_id="cus_000001", amount=amount, reason="goodwill")
            assert err.code == "invalid_argument"


class TestApprovals:
    def test_leads_deny_above_their_maximum_and_beyond_what_is_refundable(self, desk: Desk) -> None:
        order = next(o for o in untouched_orders(desk.state) if o.total < Decimal("900"))
        over = desk.call("support.request_approval", kind="refund", order_id=order.id, amount="1500.00",
                         reason="Customer wants more than paid.")
        assert over.status == "denied"
        beyond = desk.call("support.request_approval", kind="refund", order_id=order.id,
                           amount=str(max(order.total + 1, Decimal("201"))), reason="More than paid for this.")
        assert beyond.status == "denied"
        err = desk.error("support.issue_refund", order_id=order.id, amount="201.00", reason="damaged",
                         approval_id=beyond.id)
        assert err.code in ("permission_denied", "invalid_argument")

    def test_approval_errors(self, desk: Desk) -> None:
        order = next(iter(untouched_orders(desk.state)))
        cases = [
            ({"kind": "refund", "order_id": order.id, "amount": "50.00"}, "invalid_argument"),
            ({"kind": "refund", "amount": "500.00"}, "invalid_argument"),
            ({"kind": "store_credit", "amount": "500.00"}, "invalid_argument"),
            ({"kind": "refund", "order_id": "ord_999999", "amount": "500.00"}, "not_found"),
        ]
        for args, code in cases:
            err = desk.error("support.request_approval", reason="Needs a lead's decision.", **args)
            assert err.code == code, args
