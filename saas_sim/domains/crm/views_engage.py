"""Result models of the engagement write tools (`tools_engage`): activities, emails, tasks, sequences and reports."""

from __future__ import annotations

from pydantic import Field

from saas_sim.core.tools import ToolResult
from saas_sim.domains.crm.models import Activity, Enrollment, Report, Task

__all__ = [
    "ActivityResult",
    "EnrollResult",
    "RemoveResult",
    "ReportResult",
    "TaskResult",
]


class ActivityResult(ToolResult):
    activity: Activity


class TaskResult(ToolResult):
    task: Task


class EnrollResult(ToolResult):
    enrollments: list[Enrollment] = Field(description="New enrolments; the first step's email went out now.")
    already_enrolled: list[str] = Field(description="Contacts already actively enrolled, left as they were.")


class RemoveResult(ToolResult):
    enrollment: Enrollment


class ReportResult(ToolResult):
    report: Report
