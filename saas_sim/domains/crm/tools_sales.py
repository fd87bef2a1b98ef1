"""READ tools over the sales side: deals, the pipeline, products, activities, tasks and sequences."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import Field

from saas_sim.core.indexes import candidates, given_keys, select_page
from saas_sim.core.paging import PageArgs
from saas_sim.core.tool_errors import bad_args, require
from saas_sim.core.tools import READ, ToolArgs, ToolContext
from saas_sim.domains.crm.gen_sales import line_total
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.models import (
    Activity,
    ActivityKind,
    Currency,
    Deal,
    Direction,
    EnrollmentStatus,
    Stage,
    TaskStatus,
)
from saas_sim.domains.crm.pipeline import PROBABILITY, REQUIRED_FIELDS, STAGES, allowed_moves, is_open
from saas_sim.domains.crm.search_index import ACTIVITY_INDEX, ACTIVITY_ORDER, DEAL_INDEX, DEAL_ORDERS
from saas_sim.domains.crm.state import (
    ACTIVITIES,
    DEALS,
    ENROLLMENTS,
    LINE_ITEMS,
    PRICE_BOOK,
    PRODUCTS,
    SEQUENCES,
    TASKS,
)
from saas_sim.domains.crm.tool_helpers import Query, matches_query, table
from saas_sim.domains.crm.views_sales import (
    ActivityPage,
    DealPage,
    DealResult,
    EnrollmentPage,
    LineItemView,
    PipelineResult,
    ProductList,
    ProductPrice,
    SequenceList,
    StageInfo,
    TaskPage,
)

__all__ = [
    "get_deal",
    "get_pipeline",
    "list_activities",
    "list_enrollments",
    "list_products",
    "list_sequences",
    "list_tasks",
    "search_deals",
]



# --- deals ----------------------------------------------------------------------------


class SearchDealsArgs(PageArgs):
    query: str | None = Field(
        default=None, max_length=200, description="Words to find in the deal's name."
    )
    account_id: str | None = Field(default=None, description="Only deals of this account.")
    owner_id: str | None = Field(default=None, description="Only deals owned by this user id.")
    stage: Stage | None = Field(default=None, description="Only deals in this stage.")
    status: Literal["open", "closed", "all"] = Field(
        default="all", description="open: not closed_won/closed_lost; closed: closed_won or closed_lost."
    )
    currency: Currency | None = Field(default=None, description="Only deals in this currency.")
    close_date_from: date | None = Field(default=None, description="Only deals closing on or after this date.")
    close_date_to: date | None = Field(default=None, description="Only deals closing on or before this date.")
    sort: Literal["id", "close_date", "amount_desc", "last_activity"] = Field(
        default="id",
        description=(
            "id; close_date (earliest first, undated last); amount_desc (largest first, no amount last); "
            "last_activity (least recently touched first). Ties break by id."
        ),
    )


@kit.tool(READ)
def search_deals(ctx: ToolContext, args: SearchDealsArgs) -> DealPage:
    """Searches deals (opportunities) with filters on account, owner, stage, status, currency and close date."""
    if args.close_date_from and args.close_date_to and args.close_date_from > args.close_date_to:
        raise bad_args("close_date_from is after close_date_to", ["close_date_from", "close_date_to"])
    query = Query(args.query)
    deals = table(ctx, DEALS)
    keys = given_keys(account=args.account_id, owner=args.owner_id, stage=args.stage, currency=args.currency,
                      open=None if args.status == "all" else args.status == "open")
    among = candidates(deals, [(DEAL_INDEX, keys)])

    def where(d: Deal) -> bool:
        return ((args.account_id is None or d.account_id == args.account_id)
                and (args.owner_id is None or d.owner_id == args.owner_id)
                and (args.stage is None or d.stage == args.stage)
                and (args.status == "all" or (args.status == "open") == is_open(d.stage))
                and (args.currency is None or d.currency == args.currency)
                and (args.close_date_from is None
                     or (d.close_date is not None and d.close_date >= args.close_date_from))
                and (args.close_date_to is None or (d.close_date is not None and d.close_date <= args.close_date_to))
                and query(d.name))

    exact = not query.terms and args.close_date_from is None and args.close_date_to is None
    return select_page(DealPage, deals, DEAL_ORDERS[args.sort], args, where, among=among, exact=exact,
                       ties=ctx.ties)


class GetDealArgs(ToolArgs):
    deal_id: str = Field(description="The deal's id, such as dl_000042.", max_length=64)


@kit.tool(READ)
def get_deal(ctx: ToolContext, args: GetDealArgs) -> DealResult:
    """Returns one deal with its line items, win probability and the stages it may move to next.

    The deal's `amount` is entered by hand and may differ from the sum of its line totals.
    """
    deal = require(ctx, DEALS, args.deal_id, "deal", "deal_id")
    items = table(ctx, LINE_ITEMS)
    views = []
    for item_id in deal.line_item_ids:
        item = items.get(item_id)
        if item is not None:
            views.append(LineItemView(line_item=item, line_total=line_total(item.quantity, item.unit_price,
                                                                             item.discount_pct)))
    return DealResult(
        deal=deal,
        probability=PROBABILITY[deal.stage],
        line_items=views,
        allowed_next_stages=list(allowed_moves(deal.stage)),
    )


class GetPipelineArgs(ToolArgs):
    pass


@kit.tool(READ)
def get_pipeline(ctx: ToolContext, args: GetPipelineArgs) -> PipelineResult:
    """Returns the pipeline: stages in order, the fields each stage requires and the allowed moves."""
    return PipelineResult(
        stages=[
            StageInfo(
                stage=s,
                probability=PROBABILITY[s],
                required_fields=list(REQUIRED_FIELDS[s]),
                allowed_next_stages=list(allowed_moves(s)),
            )
            for s in STAGES
        ]
    )


# --- products -------------------------------------------------------------------------


class ListProductsArgs(PageArgs):
    currency: Currency = Field(default="USD", description="The currency of the prices to show.")


@kit.tool(READ)
def list_products(ctx: ToolContext, args: ListProductsArgs) -> ProductList:
    """Lists the product catalogue with list prices from the price book, sorted by SKU."""
    prices = {e.product_id: e.unit_price for e in table(ctx, PRICE_BOOK) if e.currency == args.currency}
    return ProductList.of(table(ctx, PRODUCTS), lambda p: (p.sku, p.id), args,
                          view=lambda p: ProductPrice(product=p, unit_price=prices.get(p.id)))


# --- activities and tasks -------------------------------------------------------------


class ListActivitiesArgs(PageArgs):
    contact_id: str | None = Field(default=None, description="Only activities linked to this contact.")
    deal_id: str | None = Field(default=None, description="Only activities linked to this deal.")
    account_id: str | None = Field(default=None, description="Only activities linked to this account.")
    kind: ActivityKind | None = Field(default=None, description="Only calls, emails, meetings or notes.")
    direction: Direction | None = Field(default=None, description="Only inbound or outbound emails and calls.")


@kit.tool(READ)
def list_activities(ctx: ToolContext, args: ListActivitiesArgs) -> ActivityPage:
    """Lists calls, emails (sent and received), meetings and notes, newest first, with filters."""
    activities = table(ctx, ACTIVITIES)
    keys = given_keys(contact=args.contact_id, deal=args.deal_id, account=args.account_id, kind=args.kind,
                      direction=args.direction)
    among = candidates(activities, [(ACTIVITY_INDEX, keys)])

    def where(a: Activity) -> bool:
        return ((args.contact_id is None or a.contact_id == args.contact_id)
                and (args.deal_id is None or a.deal_id == args.deal_id)
                and (args.account_id is None or a.account_id == args.account_id)
                and (args.kind is None or a.kind == args.kind)
                and (args.direction is None or a.direction == args.direction))

    return select_page(ActivityPage, activities, ACTIVITY_ORDER, args, where, among=among, exact=True,
                       ties=ctx.ties)


class ListTasksArgs(PageArgs):
    owner_id: str | None = Field(default=None, description="Only tasks owned by this user id.")
    status: TaskStatus | None = Field(default=None, description="Only open or completed tasks.")
    deal_id: str | None = Field(default=None, description="Only tasks linked to this deal.")
    contact_id: str | None = Field(default=None, description="Only tasks linked to this contact.")
    due_before: datetime | None = Field(default=None, description="Only tasks due before this UTC instant.")


@kit.tool(READ)
def list_tasks(ctx: ToolContext, args: ListTasksArgs) -> TaskPage:
    """Lists tasks with filters, earliest due first."""
    if args.due_before is not None and args.due_before.tzinfo is None:
        raise bad_args("due_before needs a timezone, e.g. 2026-03-04T15:00:00Z", ["due_before"])
    rows = [
        t for t in table(ctx, TASKS)
        if (args.owner_id is None or t.owner_id == args.owner_id)
        and (args.status is None or t.status == args.status)
        and (args.deal_id is None or t.deal_id == args.deal_id)
        and (args.contact_id is None or t.contact_id == args.contact_id)
        and (args.due_before is None or t.due_at < args.due_before)
    ]
    return TaskPage.of(rows, lambda t: (t.due_at.isoformat(), t.id), args, ties=ctx.ties)


# --- sequences ------------------------------------------------------------------------


class ListSequencesArgs(PageArgs):
    query: str | None = Field(
        default=None, max_length=200, description="Words to find in the sequence name."
    )


@kit.tool(READ)
def list_sequences(ctx: ToolContext, args: ListSequencesArgs) -> SequenceList:
    """Lists the email sequences (automated cadences) contacts can be enrolled in."""
    rows = [s for s in table(ctx, SEQUENCES) if matches_query(args.query, (s.name,))]
    return SequenceList.of(rows, lambda s: (s.id,), args)


class ListEnrollmentsArgs(PageArgs):
    contact_id: str | None = Field(default=None, description="Only enrolments of this contact.")
    sequence_id: str | None = Field(default=None, description="Only enrolments in this sequence.")
    status: EnrollmentStatus | None = Field(default=None, description="Only active, removed or completed ones.")


@kit.tool(READ)
def list_enrollments(ctx: ToolContext, args: ListEnrollmentsArgs) -> EnrollmentPage:
    """Lists sequence enrolments with filters, sorted by id."""
    if args.sequence_id is not None:
        require(ctx, SEQUENCES, args.sequence_id, "sequence", "sequence_id")
    rows = [
        e for e in table(ctx, ENROLLMENTS)
        if (args.contact_id is None or e.contact_id == args.contact_id)
        and (args.sequence_id is None or e.sequence_id == args.sequence_id)
        and (args.status is None or e.status == args.status)
    ]
    return EnrollmentPage.of(rows, lambda e: (e.id,), args)
