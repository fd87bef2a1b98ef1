"""The support desk domain: tickets, customers, orders, refunds and a simulated customer.

Modules (each small, one reason to change):

* `models` and `events`: the frozen records and the past-tense facts about them;
* `state`: tables (public `support.*`, ground truth `hidden.support.*`), reducers, schema;
* `generate`, `tickets_gen`, `compose`, `catalog`, `text`: the seeded, messy world;
* `outcomes`, `simulator`, `phrases`: the real outcome of a ticket and the customer persona;
* `tools*`, `views`, `views_money`, `toolkit`: the 24 agent tools;
* `setups`, `setups_queue`, `setup_helpers`, `replies`: scenario setups and reference replies;
* `checks`: scenario checks; `data_report`: mess rates;
* `policy.md` (loaded by `policy`): the numbered rules agents see. The runtime does not show a
  domain's policy by itself, so setups bind it as `{policy}` for the instructions.
"""

from __future__ import annotations

from saas_sim.core.domain import Domain
from saas_sim.domains.support.checks import CHECKS
from saas_sim.domains.support.data_report import data_report
from saas_sim.domains.support.generate import generate
from saas_sim.domains.support.policy import POLICY
from saas_sim.domains.support.setups import deny_refund, refund_and_replace, refund_damaged
from saas_sim.domains.support.setups_queue import duplicates, howto_question, threat, triage_queue, vip_ticket
from saas_sim.domains.support.state import PROJECTION, SCHEMA
from saas_sim.domains.support.tools import TOOLS

__all__ = ["DOMAIN"]

DOMAIN = Domain(
    name="support",
    projection=PROJECTION,
    schema=SCHEMA,
    tools=TOOLS,
    generate=generate,
    setups={
        "support.refund_damaged": refund_damaged,
        "support.deny_refund": deny_refund,
        "support.refund_and_replace": refund_and_replace,
        "support.triage_queue": triage_queue,
        "support.duplicates": duplicates,
        "support.howto_question": howto_question,
        "support.threat": threat,
        "support.vip_ticket": vip_ticket,
    },
    checks=CHECKS,
    policy=POLICY,
    data_report=data_report,
    id_kinds={
        "agt": "agent", "apr": "approval", "cus": "customer", "esc": "escalation", "kb": "kb_article",
        "mac": "macro", "msg": "message", "ol": "order_line", "ord": "order", "prd": "product", "rf": "refund",
        "rpl": "replacement", "sc": "store_credit", "tkt": "ticket",
    },
    # No hard requirement: customers take over CRM contacts when the world holds a CRM (generate.py).
    requires=(),
)
"""The support desk, as the runtime sees it."""
