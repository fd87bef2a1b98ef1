"""Measured mess in a support world: what `saas-sim data-report` shows for this domain.

Rates are measured from the data (text, records) where possible, and from the
generator's recorded mess flags (ground truth) for what text cannot reveal,
such as a ticket that omits an order number it is really about.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from saas_sim.core.state import State
from saas_sim.domains.support.state import CUSTOMER_LINKS, CUSTOMERS, MESSAGES, ORDERS, TICKETS, TRUTHS

__all__ = ["data_report"]


def _rate(n: int, total: int) -> float:
    return round(n / total, 4) if total else 0.0


def data_report(state: State) -> Mapping[str, Any]:
    """Returns counts and mess rates of a support-desk world."""
    tickets = state.table(TICKETS).values()
    truths = state.table(TRUTHS)
    messages = state.table(MESSAGES)
    customers = state.table(CUSTOMERS)
    first_bodies = [m.body for t in tickets if t.message_ids and (m := messages.get(t.message_ids[0]))]
    n = len(tickets)
    flags: Counter[str] = Counter()
    for t in tickets:
        truth = truths.get(t.id)
        if truth is not None:
            flags.update(truth.mess)
    order_owners = {o.customer_id for o in state.table(ORDERS)}
    alias_requesters = sum(1 for t in tickets if t.requester_id not in order_owners)
    links = state.table(CUSTOMER_LINKS).values()
    return {
        "customers": len(customers),
        "orders": len(state.table(ORDERS)),
        "tickets": n,
        "messages": len(messages),
        "languages": dict(sorted(Counter(t.language for t in tickets).items())),
        "statuses": dict(sorted(Counter(t.status for t in tickets).items())),
        "issues": dict(sorted(Counter(tr.issue for tr in truths).items())),
        "html_body_rate": _rate(sum("<p>" in b or "<div" in b for b in first_bodies), n),
        "quoted_chain_rate": _rate(sum("\n> " in b or "<br>&gt; " in b for b in first_bodies), n),
        "signature_rate": _rate(flags["signature"], n),
        "typo_rate": _rate(flags["typos"], n),
        "vague_subject_rate": _rate(flags["vague_subject"], n),
        "missing_order_number_rate": _rate(flags["missing_order"], n),
        "second_email_rate": _rate(alias_requesters, n),
        "duplicate_ticket_rate": _rate(sum(1 for tr in truths if tr.duplicate_of), n),
        "vip_customer_rate": _rate(sum(1 for c in customers if c.tier == "vip"), len(customers)),
        "crm_linked_customers": sum(1 for c in customers if c.crm_contact_id),
        # Cross-domain mess, from the generator's recorded links (a world without a CRM has none).
        "crm_email_differs_rate": _rate(sum(1 for lk in links if lk.email_differs), len(links)),
        "crm_former_company_name_rate": _rate(sum(1 for lk in links if lk.former_company_name), len(links)),
        "crm_vip_by_account_tier": sum(1 for lk in links if lk.crm_tier in ("enterprise", "strategic")),
    }
