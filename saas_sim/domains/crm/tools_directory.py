"""READ tools over people and companies: users, accounts, contacts and leads."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from saas_sim.core.indexes import candidates, given_keys, select_page
from saas_sim.core.paging import PageArgs
from saas_sim.core.tool_errors import require
from saas_sim.core.tools import READ, ToolArgs, ToolContext
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import fold, phone_digits
from saas_sim.domains.crm.models import Account, Consent, Contact, Lead, LeadSource, LeadStatus
from saas_sim.domains.crm.search_index import (
    ACCOUNT_INDEX,
    ACCOUNT_ORDER,
    ACCOUNT_TEXT,
    CONTACT_INDEX,
    CONTACT_ORDER,
    CONTACT_TEXT,
    LEAD_INDEX,
    LEAD_ORDER,
    LEAD_TEXT,
)
from saas_sim.domains.crm.state import ACCOUNTS, CONTACTS, LEADS, USERS
from saas_sim.domains.crm.tool_helpers import Query, table
from saas_sim.domains.crm.views_directory import (
    AccountPage,
    AccountResult,
    ContactPage,
    ContactResult,
    LeadPage,
    LeadResult,
    UserPage,
)

__all__ = [
    "get_account",
    "get_contact",
    "get_lead",
    "list_users",
    "search_accounts",
    "search_contacts",
    "search_leads",
]


# --- users ----------------------------------------------------------------------------


class ListUsersArgs(PageArgs):
    territory: str | None = Field(default=None, description="Only users in this territory, e.g. DACH.")
    role: Literal["sdr", "ae", "manager"] | None = Field(default=None, description="Only users with this role.")


@kit.tool(READ)
def list_users(ctx: ToolContext, args: ListUsersArgs) -> UserPage:
    """Lists the CRM's users (sales reps and managers) who can own records, sorted by id."""
    rows = [
        u for u in table(ctx, USERS)
        if (args.territory is None or u.territory == args.territory) and (args.role is None or u.role == args.role)
    ]
    return UserPage.of(rows, lambda u: (u.id,), args)


# --- accounts -------------------------------------------------------------------------


class SearchAccountsArgs(PageArgs):
    query: str | None = Field(
        default=None,
        max_length=200,
        description="Words to find in the name, domain or city (case- and accent-insensitive; all words must match).",
    )
    territory: str | None = Field(default=None, description="Only accounts in this territory, e.g. NA-East.")
    owner_id: str | None = Field(default=None, description="Only accounts owned by this user id.")
    industry: str | None = Field(default=None, description="Only accounts in this industry (exact, case-insensitive).")


@kit.tool(READ)
def search_accounts(ctx: ToolContext, args: SearchAccountsArgs) -> AccountPage:
    """Searches accounts (companies) by name, domain or city, with filters. Sorted by name; accounts of one name
    come in an order drawn for the episode (not by id or age)."""
    industry = fold(args.industry) if args.industry else None
    query = Query(args.query)
    accounts = table(ctx, ACCOUNTS)
    keys = given_keys(territory=args.territory, owner=args.owner_id, industry=industry)
    among = candidates(accounts, [(ACCOUNT_INDEX, keys), (ACCOUNT_TEXT, query.terms)])

    def where(a: Account) -> bool:
        return ((args.territory is None or a.territory == args.territory)
                and (args.owner_id is None or a.owner_id == args.owner_id)
                and (industry is None or fold(a.industry or "") == industry)
                and query(a.name, a.domain, a.city))

    return select_page(AccountPage, accounts, ACCOUNT_ORDER, args, where, among=among, exact=not query.terms,
                       ties=ctx.ties)


class GetAccountArgs(ToolArgs):
    account_id: str = Field(description="The account's id, such as acc_000042.", max_length=64)


@kit.tool(READ)
def get_account(ctx: ToolContext, args: GetAccountArgs) -> AccountResult:
    """Returns one account by id."""
    return AccountResult(account=require(ctx, ACCOUNTS, args.account_id, "account", "account_id"))


# --- contacts -------------------------------------------------------------------------


class SearchContactsArgs(PageArgs):
    query: str | None = Field(
        default=None,
        max_length=200,
        description=(
            "Words to find in the name, emails, phone digits or title (case- and accent-insensitive; "
            "all words must match). Search by last name or email domain to catch spelling variants."
        ),
    )
    account_id: str | None = Field(default=None, description="Only contacts of this account.")
    owner_id: str | None = Field(default=None, description="Only contacts owned by this user id.")
    consent: Consent | None = Field(default=None, description="Only contacts with this email consent.")
    include_merged: bool = Field(default=False, description="Also return contacts merged into another record.")


@kit.tool(READ)
def search_contacts(ctx: ToolContext, args: SearchContactsArgs) -> ContactPage:
    """Searches contacts by name, email, phone or title, with filters. Sorted by last name, then first name;
    contacts of one name come in an order drawn for the episode (not by id or age).

    Merged-away records are hidden unless `include_merged` is true.
    """
    query = Query(args.query)
    contacts = table(ctx, CONTACTS)
    keys = given_keys(live=None if args.include_merged else True, account=args.account_id, owner=args.owner_id,
                      consent=args.consent)
    among = candidates(contacts, [(CONTACT_INDEX, keys), (CONTACT_TEXT, query.terms)])

    def where(c: Contact) -> bool:
        return ((args.include_merged or c.merged_into is None)
                and (args.account_id is None or c.account_id == args.account_id)
                and (args.owner_id is None or c.owner_id == args.owner_id)
                and (args.consent is None or c.consent == args.consent)
                and query(c.first_name, c.last_name, c.email, c.secondary_email, c.title,
                          phone_digits(c.phone) if query.has_digits else None))

    return select_page(ContactPage, contacts, CONTACT_ORDER, args, where, among=among, exact=not query.terms,
                       ties=ctx.ties)


class GetContactArgs(ToolArgs):
    contact_id: str = Field(description="The contact's id, such as ct_000042.", max_length=64)


@kit.tool(READ)
def get_contact(ctx: ToolContext, args: GetContactArgs) -> ContactResult:
    """Returns one contact by id, with its account's name. A merged record shows `merged_into`."""
    contact = require(ctx, CONTACTS, args.contact_id, "contact", "contact_id")
    account = table(ctx, ACCOUNTS).get(contact.account_id) if contact.account_id else None
    return ContactResult(contact=contact, account_name=account.name if account else None)


# --- leads ----------------------------------------------------------------------------


class SearchLeadsArgs(PageArgs):
    query: str | None = Field(
        default=None, max_length=200, description="Words to find in the lead's name, email or company."
    )
    status: LeadStatus | None = Field(default=None, description="Only leads with this status.")
    source: LeadSource | None = Field(default=None, description="Only leads from this source.")
    owner_id: str | None = Field(default=None, description="Only leads owned by this user id.")


@kit.tool(READ)
def search_leads(ctx: ToolContext, args: SearchLeadsArgs) -> LeadPage:
    """Searches leads by name, email or company, with filters. Newest first."""
    query = Query(args.query)
    leads = table(ctx, LEADS)
    keys = given_keys(status=args.status, source=args.source, owner=args.owner_id)
    among = candidates(leads, [(LEAD_INDEX, keys), (LEAD_TEXT, query.terms)])

    def where(ld: Lead) -> bool:
        return ((args.status is None or ld.status == args.status)
                and (args.source is None or ld.source == args.source)
                and (args.owner_id is None or ld.owner_id == args.owner_id)
                and query(ld.first_name, ld.last_name, ld.email, ld.company))

    return select_page(LeadPage, leads, LEAD_ORDER, args, where, among=among, exact=not query.terms,
                       ties=ctx.ties)


class GetLeadArgs(ToolArgs):
    lead_id: str = Field(description="The lead's id, such as ld_000042.", max_length=64)


@kit.tool(READ)
def get_lead(ctx: ToolContext, args: GetLeadArgs) -> LeadResult:
    """Returns one lead by id, including the message it came in with."""
    return LeadResult(lead=require(ctx, LEADS, args.lead_id, "lead", "lead_id"))
