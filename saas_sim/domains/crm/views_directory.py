"""Result models of the directory tools (`tools_directory`): users, accounts, contacts and leads."""

from __future__ import annotations

from pydantic import Field

from saas_sim.core.paging import Page
from saas_sim.core.tools import ToolResult
from saas_sim.domains.crm.models import Account, Contact, Lead, User

__all__ = [
    "AccountPage",
    "AccountResult",
    "ContactPage",
    "ContactResult",
    "LeadPage",
    "LeadResult",
    "UserPage",
]


class UserPage(Page[User]):
    items: list[User] = Field(description="Users, sorted by id.")


class AccountPage(Page[Account]):
    items: list[Account] = Field(description="Accounts, sorted by name (case-insensitive) then id.")


class AccountResult(ToolResult):
    account: Account


class ContactPage(Page[Contact]):
    items: list[Contact] = Field(description="Contacts, sorted by last name, first name (case-insensitive), then id.")


class ContactResult(ToolResult):
    contact: Contact
    account_name: str | None = Field(description="The name of the contact's account, if any.")


class LeadPage(Page[Lead]):
    items: list[Lead] = Field(description="Leads, newest first (created_at descending), then id.")


class LeadResult(ToolResult):
    lead: Lead
