"""Every support-desk tool, in one tuple (the order agents see them in).

The tools live in small modules by topic: `tools_tickets` (read and reply),
`tools_workflow` (status, routing, macros, merging, escalation),
`tools_customers` (customers, orders, knowledge base) and `tools_money`
(refunds, replacements, store credit, approvals).
"""

from __future__ import annotations

from saas_sim.core.tools import ToolSpec
from saas_sim.domains.support.tools_customers import (
    get_customer,
    get_kb_article,
    get_order,
    list_customer_orders,
    search_customers,
    search_kb_articles,
)
from saas_sim.domains.support.tools_money import (
    create_replacement,
    issue_refund,
    issue_store_credit,
    request_approval,
)
from saas_sim.domains.support.tools_tickets import (
    add_internal_note,
    get_ticket,
    list_tickets,
    search_tickets,
    send_reply,
)
from saas_sim.domains.support.tools_workflow import (
    apply_macro,
    assign_ticket,
    escalate_ticket,
    list_agents,
    list_macros,
    merge_tickets,
    set_ticket_priority,
    set_ticket_status,
    update_ticket_tags,
)

__all__ = ["TOOLS"]

TOOLS: tuple[ToolSpec, ...] = (
    list_tickets,
    search_tickets,
    get_ticket,
    send_reply,
    add_internal_note,
    set_ticket_status,
    set_ticket_priority,
    update_ticket_tags,
    assign_ticket,
    list_agents,
    list_macros,
    apply_macro,
    merge_tickets,
    escalate_ticket,
    get_customer,
    search_customers,
    list_customer_orders,
    get_order,
    search_kb_articles,
    get_kb_article,
    issue_refund,
    create_replacement,
    issue_store_credit,
    request_approval,
)
"""The 24 support-desk tools."""
