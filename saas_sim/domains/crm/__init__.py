"""The CRM domain: a sales CRM with messy, seeded data, typed tools, scenario setups and checks.

Modules:

* `models`, `events`, `state`: records, facts and pure reducers (`PROJECTION`, `SCHEMA`);
* `pipeline`: ordered stages, required fields and allowed moves;
* `generate` (`gen_people`, `gen_sales`, `catalog`): the seeded world generator;
* `tools_*`: the agent-facing tools, `crm.<verb>_<noun>`;
* `setups_*`, `checks_*`: scenario setups and checks;
* `data_report`: measured rates of each kind of mess; `policy.md`: the rules agents see.
"""

from __future__ import annotations

from importlib import resources

from saas_sim.core.domain import CheckFn, Domain, SetupFn
from saas_sim.core.tools import ToolSpec
from saas_sim.domains.crm import (
    checks_claims,
    checks_deals,
    checks_email,
    checks_email_facts,
    checks_identity,
    checks_people,
    setups_deals,
    setups_people,
    tools_deals,
    tools_directory,
    tools_engage,
    tools_records,
    tools_sales,
)
from saas_sim.domains.crm.data_report import data_report
from saas_sim.domains.crm.generate import generate
from saas_sim.domains.crm.state import PROJECTION, SCHEMA

__all__ = ["CHECKS", "DOMAIN", "POLICY", "SETUPS", "TOOLS"]

TOOLS: tuple[ToolSpec, ...] = (
    # reads
    tools_directory.list_users,
    tools_directory.search_accounts,
    tools_directory.get_account,
    tools_directory.search_contacts,
    tools_directory.get_contact,
    tools_directory.search_leads,
    tools_directory.get_lead,
    tools_sales.search_deals,
    tools_sales.get_deal,
    tools_sales.get_pipeline,
    tools_sales.list_products,
    tools_sales.list_activities,
    tools_sales.list_tasks,
    tools_sales.list_sequences,
    tools_sales.list_enrollments,
    # writes
    tools_records.create_contact,
    tools_records.update_contact,
    tools_records.update_contact_consent,
    tools_records.merge_contacts,
    tools_records.create_account,
    tools_records.update_account,
    tools_records.assign_owner,
    tools_deals.convert_lead,
    tools_deals.create_deal,
    tools_deals.update_deal,
    tools_deals.update_deal_stage,
    tools_deals.set_line_items,
    tools_engage.log_activity,
    tools_engage.send_email,
    tools_engage.create_task,
    tools_engage.complete_task,
    tools_engage.reschedule_task,
    tools_engage.enroll_in_sequence,
    tools_engage.remove_from_sequence,
    tools_engage.submit_report,
)
"""Every CRM tool, reads first."""

SETUPS: dict[str, SetupFn] = {
    "crm.qualified_deal": setups_deals.qualified_deal,
    "crm.won_deal": setups_deals.won_deal,
    "crm.call_followup": setups_deals.call_followup,
    "crm.stalled_deal": setups_deals.stalled_deal,
    "crm.pipeline_report": setups_deals.pipeline_report,
    "crm.existing_person": setups_people.existing_person,
    "crm.duplicate_pair": setups_people.duplicate_pair,
    "crm.campaign_audience": setups_people.campaign_audience,
    "crm.territory_handover": setups_people.territory_handover,
    "crm.stale_contact_email": setups_people.stale_contact_email,
    "crm.inbound_lead": setups_people.inbound_lead,
    "crm.conference_updates": setups_people.conference_updates,
    "crm.conflicting_lead": setups_people.conflicting_lead,
}

CHECKS: dict[str, CheckFn] = {
    "crm.deal_in_stage": checks_deals.deal_in_stage,
    "crm.deal_amount": checks_deals.deal_amount,
    "crm.deal_close_date": checks_deals.deal_close_date,
    "crm.deal_closed_won": checks_deals.deal_closed_won,
    "crm.no_other_deals_changed": checks_deals.no_other_deals_changed,
    "crm.call_logged": checks_deals.call_logged,
    "crm.task_due": checks_deals.task_due,
    "crm.task_within": checks_deals.task_within,
    "crm.call_outcomes_agree": checks_deals.call_outcomes_agree,
    "crm.one_followup_time": checks_deals.one_followup_time,
    "crm.deal_edits_within": checks_deals.deal_edits_within,
    "crm.personal_email_sent": checks_email.personal_email_sent,
    "crm.emails_truthful": checks_email_facts.emails_truthful,
    "crm.claims_hold": checks_claims.claims_hold,
    "crm.emails_are_messages": checks_email.emails_are_messages,
    "crm.next_step_changed": checks_deals.next_step_changed,
    "crm.deal_open_not_nurtured": checks_deals.deal_open_not_nurtured,
    "crm.person_updated": checks_people.person_updated,
    "crm.contact_edits_within": checks_people.contact_edits_within,
    "crm.only_lead_records_created": checks_people.only_lead_records_created,
    "crm.only_named_reports": checks_people.only_named_reports,
    "crm.titles_updated": checks_people.titles_updated,
    "crm.only_contacts_changed": checks_people.only_contacts_changed,
    "crm.duplicates_merged": checks_people.duplicates_merged,
    "crm.merge_winner": checks_people.merge_winner,
    "crm.enrollment_coverage": checks_people.enrollment_coverage,
    "crm.no_optout_contacted": checks_identity.no_optout_contacted,
    "crm.no_new_duplicate_people": checks_identity.no_new_duplicate_people,
    "crm.no_duplicate_accounts": checks_identity.no_duplicate_accounts,
    "crm.owner_changes": checks_people.owner_changes,
    "crm.only_owner_changes": checks_people.only_owner_changes,
    "crm.lead_converted": checks_people.lead_converted,
    "crm.lead_converted_to_contact": checks_people.lead_converted_to_contact,
    "crm.deal_created_from_lead": checks_people.deal_created_from_lead,
    "crm.no_accounts_created": checks_people.no_accounts_created,
    "crm.read_only": checks_people.read_only,
    "crm.report_records": checks_people.report_records,
    "crm.report_values": checks_people.report_values,
    "crm.report_truthful": checks_people.report_truthful,
}

POLICY: str = resources.files(__package__).joinpath("policy.md").read_text(encoding="utf-8")

DOMAIN = Domain(
    name="crm",
    projection=PROJECTION,
    schema=SCHEMA,
    tools=TOOLS,
    generate=generate,
    setups=SETUPS,
    checks=CHECKS,
    policy=POLICY,
    data_report=data_report,
    id_kinds={
        "acc": "account", "act": "activity", "ct": "contact", "dl": "deal", "enr": "enrollment", "ld": "lead",
        "li": "line_item", "pbe": "price_book_entry", "prd": "product", "rpt": "report", "seq": "sequence",
        "tsk": "task", "usr": "user",
    },
)
