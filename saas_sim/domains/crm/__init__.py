"""The CRM domain: a sales CRM with messy, seeded data, typed tools, scenario setups and checks.

Modules:

* `kit`: the domain kit every tool, check and setup below is declared on;
* `models`, `events`, `state`: records, facts and pure reducers (`PROJECTION`, `SCHEMA`);
* `pipeline`: ordered stages, required fields and allowed moves;
* `matching`: normalizing and matching messy names, emails, phones and companies (tools, generator, report);
* `people_identity`: records grouped into real people and companies, for the checks;
* `generate` (`gen_people`, `gen_sales`, `gen_companies`, `reference_data`): the seeded world generator and its
  fixed data; `ports`: the views it offers other domains' generators (people, organizations, price book);
* `tools_<resource>`: the agent-facing tools, `crm.<verb>_<noun>`, reads first; `tool_helpers`: what they share;
* `views_<resource>`: the result models of `tools_<resource>`;
* `setups_<topic>` (`setup_helpers`), `checks_<topic>` (`check_helpers`): scenario setups and checks;
  `text_claims` (`verb_governance`), `email_substance`, `report_figures`, `figure_marks`, `decline_causes`:
  what the checks read in the agent's free text;
* `data_report`: measured rates of each kind of mess; `policy` (`policy.md`): the rules agents see.
"""

from __future__ import annotations

from saas_sim.core.text_facts import warm_text_readers
from saas_sim.domains.crm import (
    checks_champion,
    checks_claims,
    checks_deals,
    checks_email,
    checks_email_facts,
    checks_forecast,
    checks_identity,
    checks_leave,
    checks_optout,
    checks_people,
    checks_quotes,
    checks_renewals,
    checks_reports,
    checks_routing,
    checks_suite_accounts,
    checks_suite_billing,
    checks_suite_blocker,
    checks_suite_churn,
    checks_suite_drift,
    checks_suite_identity,
    setups_champion,
    setups_deals,
    setups_forecast,
    setups_leave,
    setups_optout,
    setups_people,
    setups_quotes,
    setups_renewals,
    setups_routing,
    setups_suite_accounts,
    setups_suite_billing,
    setups_suite_blocker,
    setups_suite_churn,
    setups_suite_drift,
    setups_suite_identity,
    setups_suite_proration,
    setups_suite_tax,
    setups_suite_tiering,
    tools_deals,
    tools_directory,
    tools_engage,
    tools_records,
    tools_sales,
)
from saas_sim.domains.crm.data_report import data_report
from saas_sim.domains.crm.email_substance import warm_detector
from saas_sim.domains.crm.generate import generate
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.people_identity import CHECK_VIEWS
from saas_sim.domains.crm.policy import POLICY
from saas_sim.domains.crm.ports import PORTS
from saas_sim.domains.crm.search_index import INDEXES
from saas_sim.domains.crm.state import PROJECTION, SCHEMA

__all__ = ["DOMAIN", "POLICY"]

DOMAIN = kit.domain(
    module=__name__,
    # Tool order agents see: reads (directory, then sales) before writes (records, deals, engagement).
    modules=(
        tools_directory,
        tools_sales,
        tools_records,
        tools_deals,
        tools_engage,
        checks_deals,
        checks_email,
        checks_email_facts,
        checks_claims,
        checks_people,
        checks_reports,
        checks_identity,
        checks_champion,
        checks_leave,
        checks_optout,
        checks_quotes,
        checks_forecast,
        checks_renewals,
        checks_routing,
        checks_suite_billing,
        checks_suite_accounts,
        checks_suite_churn,
        checks_suite_drift,
        checks_suite_identity,
        checks_suite_blocker,
        setups_deals,
        setups_people,
        setups_champion,
        setups_leave,
        setups_optout,
        setups_quotes,
        setups_forecast,
        setups_renewals,
        setups_routing,
        setups_suite_billing,
        setups_suite_proration,
        setups_suite_tax,
        setups_suite_accounts,
        setups_suite_churn,
        setups_suite_drift,
        setups_suite_identity,
        setups_suite_tiering,
        setups_suite_blocker,
    ),
    projection=PROJECTION,
    schema=SCHEMA,
    generate=generate,
    policy=POLICY,
    data_report=data_report,
    indexes=INDEXES,
    views=CHECK_VIEWS,
    warm=(warm_text_readers, warm_detector),  # the lingua models, loaded off the event loop
    mess_params=("near_duplicate_rate", "false_friend_rate", "missing_optional_rate", "messy_company_rate",
                 "stale_rate", "lead_conflict_rate"),
    ports=PORTS,
    id_kinds={
        "acc": "account", "act": "activity", "ct": "contact", "dl": "deal", "enr": "enrollment", "ld": "lead",
        "li": "line_item", "pbe": "price_book_entry", "prd": "product", "rpt": "report", "seq": "sequence",
        "tsk": "task", "usr": "user",
    },
)
"""The CRM, as the runtime loads it."""
