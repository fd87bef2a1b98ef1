"""Result models of the sales read tools (`tools_sales`): deals, pipeline, products, activities, tasks, sequences."""

from __future__ import annotations

from decimal import Decimal

from pydantic import Field

from saas_sim.core.paging import Page
from saas_sim.core.tools import ToolResult
from saas_sim.domains.crm.models import (
    Activity,
    Deal,
    Enrollment,
    LineItem,
    Product,
    Sequence,
    Stage,
    Task,
)

__all__ = [
    "ActivityPage",
    "DealPage",
    "DealResult",
    "EnrollmentPage",
    "LineItemView",
    "PipelineResult",
    "ProductList",
    "ProductPrice",
    "SequenceList",
    "StageInfo",
    "TaskPage",
]


class DealPage(Page[Deal]):
    items: list[Deal] = Field(description="Deals in the requested order.")


class LineItemView(ToolResult):
    line_item: LineItem
    line_total: Decimal = Field(description="quantity * unit_price * (1 - discount_pct/100), rounded to cents.")


class DealResult(ToolResult):
    deal: Deal
    probability: int = Field(description="The stage's default win probability, in percent.")
    line_items: list[LineItemView] = Field(description="The deal's line items, in order.")
    allowed_next_stages: list[Stage] = Field(description="Stages the deal may move to from its current stage.")


class StageInfo(ToolResult):
    stage: Stage
    probability: int
    required_fields: list[str]
    allowed_next_stages: list[Stage]


class PipelineResult(ToolResult):
    stages: list[StageInfo] = Field(description="Every stage in pipeline order.")


class ProductPrice(ToolResult):
    product: Product
    unit_price: Decimal | None = Field(description="The price book's list price in the requested currency.")


class ProductList(Page[ProductPrice]):
    items: list[ProductPrice] = Field(description="Products sorted by SKU.")


class ActivityPage(Page[Activity]):
    items: list[Activity] = Field(description="Activities, newest first (occurred_at descending), then id.")


class TaskPage(Page[Task]):
    items: list[Task] = Field(description="Tasks sorted by due_at (earliest first), then id.")


class SequenceList(Page[Sequence]):
    items: list[Sequence] = Field(description="Sequences by id; `purpose` is nurture, outbound or re_engagement.")


class EnrollmentPage(Page[Enrollment]):
    items: list[Enrollment] = Field(description="Enrolments sorted by id.")
