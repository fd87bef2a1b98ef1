"""The support desk domain: tickets, customers, orders, refunds and a simulated customer.

Modules (each small, one reason to change):

* `kit`: the domain kit every tool, check and setup registers with (`@kit.tool`, `@kit.check`,
  `@kit.setup`; names are `support.<function name>`);
* `models` and `events`: the frozen records and the past-tense facts about them;
* `state`: tables (public `support.*`, ground truth `hidden.support.*`), reducers, `PROJECTION`, `SCHEMA`;
* `generate` (+ `gen_tickets`), `ticket_factory`, `reference_data`, `customer_text`: the seeded,
  messy world: the generator, one composed ticket, the fixed catalogue/articles/macros/agents and
  customer-written text;
* `ticket_outcome`, `simulator`, `customer_phrases`: the real outcome of a ticket and the customer
  persona; `threads`, `reply_facts`, `judge`, `people`: reading threads, what replies state, verdicts
  on them and customers as people;
* `tools_tickets`, `tools_workflow`, `tools_customers`, `tools_money` (+ `tool_helpers`) and their
  results `views_tickets`, `views_workflow`, `views_customers`, `views_money`: the 24 agent tools;
* `setups_orders`, `setups_queue`, `setups_order_records` (+ `setup_helpers`, `reference_replies`):
  scenario setups and reference replies;
* `checks_money`, `checks_replies`, `checks_queue`, `checks_escalation`, `checks_order_records` (+
  `check_helpers`, `shipping_answer`): scenario checks; `data_report`: mess rates; `ports`: the
  policy terms it offers other domains' generators;
* `policy` (loading `policy.md`): the numbered rules agents see. The runtime does not show a
  domain's policy by itself, so setups bind it as `{policy}` for the instructions.
"""

from __future__ import annotations

from saas_sim.core.text_facts import warm_text_readers
from saas_sim.domains.support import (
    checks_billing,
    checks_escalation,
    checks_money,
    checks_order_records,
    checks_queue,
    checks_replies,
    checks_suite_accounts,
    checks_suite_billing,
    checks_suite_blocker,
    checks_suite_drift,
    checks_suite_identity,
    checks_suite_incidents,
    checks_suite_tax,
    setups_adjustments,
    setups_billing,
    setups_order_records,
    setups_orders,
    setups_queue,
    setups_suite_accounts,
    setups_suite_billing,
    setups_suite_blocker,
    setups_suite_churn,
    setups_suite_drift,
    setups_suite_identity,
    setups_suite_incidents,
    setups_suite_proration,
    setups_suite_tax,
    setups_suite_tiering,
    tools_customers,
    tools_money,
    tools_tickets,
    tools_workflow,
)
from saas_sim.domains.support.check_helpers import CHECK_VIEWS
from saas_sim.domains.support.data_report import data_report
from saas_sim.domains.support.generate import generate
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.policy import POLICY
from saas_sim.domains.support.ports import PORTS
from saas_sim.domains.support.search_index import INDEXES
from saas_sim.domains.support.state import PROJECTION, SCHEMA

__all__ = ["DOMAIN"]

DOMAIN = kit.domain(
    module=__name__,
    # Tools appear to agents in this order: tickets, workflow, customers and knowledge base, money.
    modules=(
        tools_tickets,
        tools_workflow,
        tools_customers,
        tools_money,
        checks_money,
        checks_replies,
        checks_queue,
        checks_escalation,
        checks_order_records,
        checks_billing,
        checks_suite_accounts,
        checks_suite_billing,
        checks_suite_tax,
        checks_suite_drift,
        checks_suite_incidents,
        checks_suite_identity,
        checks_suite_blocker,
        setups_orders,
        setups_queue,
        setups_order_records,
        setups_billing,
        setups_adjustments,
        setups_suite_accounts,
        setups_suite_billing,
        setups_suite_proration,
        setups_suite_tax,
        setups_suite_churn,
        setups_suite_drift,
        setups_suite_incidents,
        setups_suite_identity,
        setups_suite_blocker,
        setups_suite_tiering,
    ),
    projection=PROJECTION,
    schema=SCHEMA,
    generate=generate,
    policy=POLICY,
    data_report=data_report,
    indexes=INDEXES,
    views=CHECK_VIEWS,
    warm=(warm_text_readers,),  # the lingua models, loaded off the event loop
    mess_params=("html_rate", "signature_rate", "quoted_rate", "typo_rate", "missing_order_rate", "alt_email_rate",
                 "duplicate_rate", "vague_subject_rate"),
    id_kinds={
        "agt": "agent", "apr": "approval", "cus": "customer", "esc": "escalation", "kb": "kb_article",
        "mac": "macro", "msg": "message", "ol": "order_line", "ord": "order", "prd": "product", "rf": "refund",
        "rpl": "replacement", "sc": "store_credit", "tkt": "ticket",
    },
    # Customers take over CRM contacts when the world holds a CRM (generate.py reads the port `crm.people`).
    uses=("crm",),
    ports=PORTS,
)
"""The support desk, as the runtime sees it."""
