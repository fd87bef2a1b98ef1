"""Result models of the contact and account write tools (`tools_records`)."""

from __future__ import annotations

from pydantic import Field

from saas_sim.core.tools import ToolResult
from saas_sim.domains.crm.models import Account, Contact

__all__ = [
    "AccountResult",
    "AssignOwnerResult",
    "ContactResult",
    "MergeResult",
]


class ContactResult(ToolResult):
    contact: Contact


class MergeResult(ToolResult):
    contact: Contact = Field(description="The surviving contact after the merge.")
    moved: dict[str, int] = Field(description="How many activities, tasks, deals and enrolments moved over.")


class AccountResult(ToolResult):
    account: Account


class AssignOwnerResult(ToolResult):
    changed: list[str] = Field(description="Ids whose owner changed, in order (deals moved along included).")
    unchanged: list[str] = Field(description="Ids that already had this owner.")
