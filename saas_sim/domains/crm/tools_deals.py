"""WRITE tools over deals and leads: create, update, move through the pipeline, line items, convert a lead."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from saas_sim.core.money import Money, to_cents
from saas_sim.core.tool_errors import bad_args, conflict, require
from saas_sim.core.tools import WRITE, ToolArgs, ToolContext
from saas_sim.domains.crm import events as ev
from saas_sim.domains.crm.gen_sales import line_total
from saas_sim.domains.crm.kit import kit
from saas_sim.domains.crm.matching import account_candidates, contact_candidates
from saas_sim.domains.crm.models import Account, Contact, Deal, LineItem, Stage
from saas_sim.domains.crm.pipeline import allowed_moves, missing_fields
from saas_sim.domains.crm.reference_data import TERRITORIES
from saas_sim.domains.crm.state import ACCOUNTS, CONTACTS, DEALS, LEADS, PRICE_BOOK, PRODUCTS, USERS, patched
from saas_sim.domains.crm.tool_helpers import clean, contact_conflict, live_contact, require_user, table
from saas_sim.domains.crm.views_deals import ConvertResult, DealResult, LineItemsResult

__all__ = ["convert_lead", "create_deal", "set_line_items", "update_deal", "update_deal_stage"]


def _money(value: Decimal | None, field: str) -> Decimal | None:
    if value is None:
        return None
    if not value.is_finite() or value <= 0:
        raise bad_args(f"{field} must be a positive amount", [field])
    cents = to_cents(value)
    if cents is None:
        raise bad_args(f"{field} has more than two decimals", [field])
    return cents


def _editable(ctx: ToolContext, deal_id: str) -> Deal:
    deal = require(ctx, DEALS, deal_id, "deal", "deal_id")
    if deal.stage == "closed_won":
        raise conflict(f"deal {deal_id} is closed won and can no longer be edited", ["deal_id"], stage=deal.stage)
    return deal


# --- leads ----------------------------------------------------------------------------


class ConvertLeadArgs(ToolArgs):
    lead_id: str = Field(description="The lead to convert.")
    account_id: str | None = Field(
        default=None,
        description="Attach to this existing account. Omit to create a new account from the lead's company "
        "(fails with `conflict` if a matching account exists, unless force is true).",
    )
    contact_id: str | None = Field(
        default=None,
        description="Attach to this existing contact instead of creating one (must belong to the account).",
    )
    create_deal: bool = Field(default=True, description="Also create a deal.")
    deal_name: str | None = Field(default=None, max_length=200, description="Name of the new deal.")
    deal_stage: Literal["prospecting", "qualification"] = Field(default="qualification", description="Its stage.")
    territory: str | None = Field(default=None, description="Territory of a new account (default: the owner's).")
    owner_id: str | None = Field(default=None, description="Owner of new records; default: the lead's owner.")
    force: bool = Field(default=False, description="Create the account or contact even if duplicates exist.")


@kit.tool(WRITE)
def convert_lead(ctx: ToolContext, args: ConvertLeadArgs) -> ConvertResult:
    """Converts a lead into a contact on an account, and optionally a deal.

    Prefer attaching to the existing account (and contact) when the company or person is already in the
    CRM: creating them again fails with `conflict` listing the candidates unless `force` is true.
    """
    lead = require(ctx, LEADS, args.lead_id, "lead", "lead_id")
    if lead.status == "converted":
        raise conflict(f"lead {lead.id} was already converted", ["lead_id"], contact_id=lead.converted_contact_id)
    if args.create_deal and clean(args.deal_name) is None:
        raise bad_args("deal_name is required when create_deal is true", ["deal_name"])
    owner = args.owner_id or lead.owner_id
    if args.account_id is not None:
        account = require(ctx, ACCOUNTS, args.account_id, "account", "account_id")
        owner = owner or account.owner_id
        require_user(ctx, owner)
    else:
        if owner is None:
            raise bad_args("owner_id is required: the lead has no owner", ["owner_id"])
        require_user(ctx, owner)
        domain = lead.email.rpartition("@")[2].casefold()
        if not args.force:
            matches = account_candidates(table(ctx, ACCOUNTS), name=lead.company, domain=domain)
            if matches:
                # `account_id` is the argument that resolves it: the agent left it out.
                raise conflict("the lead's company probably exists already; pass its account_id", ["account_id"],
                               candidates=[{"id": m.account.id, "name": m.account.name,
                                            "domain": m.account.domain, "reason": m.reason} for m in matches])
        owner_user = require(ctx, USERS, owner, "user", "owner_id")
        territory = args.territory or owner_user.territory
        if territory not in {t.name for t in TERRITORIES}:
            raise bad_args(f"unknown territory {territory!r}", ["territory"])
        account = Account(
            id=ctx.ids.next("acc"), name=" ".join(lead.company.split()), domain=domain, industry=None,
            employees=None, territory=territory, country=next(t.country for t in TERRITORIES if t.name == territory),
            city=None, phone=None, owner_id=owner, created_at=ctx.now, updated_at=ctx.now,
        )
        ctx.emit(ev.AccountCreated(account=account))
    if args.contact_id is not None:
        contact = live_contact(ctx, args.contact_id, "contact_id", hint="")
        if contact.account_id != account.id:
            raise bad_args("the contact does not belong to that account", ["contact_id"])
    else:
        if not args.force:
            people = contact_candidates(table(ctx, CONTACTS), first_name=lead.first_name, last_name=lead.last_name,
                                        email=lead.email, phone=lead.phone, account_id=account.id)
            if people:
                raise contact_conflict(people)
        contact = Contact(
            id=ctx.ids.next("ct"), account_id=account.id, first_name=" ".join(lead.first_name.split()),
            last_name=" ".join(lead.last_name.split()), email=lead.email.strip(), phone=lead.phone,
            title=lead.title, consent="subscribed", owner_id=owner, created_at=ctx.now, updated_at=ctx.now,
        )
        ctx.emit(ev.ContactCreated(contact=contact))
    deal_id = None
    if args.create_deal:
        deal = _new_deal(ctx, account, clean(args.deal_name) or "", args.deal_stage, owner, None, None, contact.id)
        ctx.emit(ev.DealCreated(deal=deal))
        deal_id = deal.id
    ctx.emit(ev.LeadConverted(lead_id=lead.id, contact_id=contact.id, account_id=account.id, deal_id=deal_id,
                              converted_at=ctx.now))
    return ConvertResult(lead=require(ctx, LEADS, lead.id, "lead"), account_id=account.id,
                         contact_id=contact.id, deal_id=deal_id)


# --- create / update ------------------------------------------------------------------


class CreateDealArgs(ToolArgs):
    account_id: str = Field(description="The account the deal is with.")
    name: str = Field(min_length=1, max_length=200, description="Deal name, e.g. 'Acme - Platform rollout'.")
    stage: Literal["prospecting", "qualification"] = Field(default="prospecting", description="Starting stage.")
    owner_id: str | None = Field(default=None, description="Owning user; defaults to the account's owner.")
    amount: Money | None = Field(default=None, description="Expected amount, a decimal string like '12500.00'.")
    close_date: date | None = Field(default=None, description="Expected close date, YYYY-MM-DD.")
    primary_contact_id: str | None = Field(default=None, description="The buyer-side main contact.")


@kit.tool(WRITE)
def create_deal(ctx: ToolContext, args: CreateDealArgs) -> DealResult:
    """Creates a deal on an account in prospecting or qualification (qualification needs a primary contact)."""
    account = require(ctx, ACCOUNTS, args.account_id, "account", "account_id")
    name = clean(args.name)
    if name is None:
        raise bad_args("name must not be blank", ["name"])
    owner = args.owner_id or account.owner_id
    require_user(ctx, owner)
    if args.primary_contact_id is not None:
        live_contact(ctx, args.primary_contact_id, "primary_contact_id", hint="")
    deal = _new_deal(ctx, account, name, args.stage, owner, _money(args.amount, "amount"), args.close_date,
                     args.primary_contact_id)
    ctx.emit(ev.DealCreated(deal=deal))
    return DealResult(deal=deal)


def _new_deal(ctx: ToolContext, account: Account, name: str, stage: Stage, owner: str, amount: Decimal | None,
              close: date | None, contact_id: str | None) -> Deal:
    currency = next((t.currency for t in TERRITORIES if t.name == account.territory), "USD")
    deal = Deal(
        id=ctx.ids.next("dl"), name=name, account_id=account.id, owner_id=owner, stage=stage, amount=amount,
        currency=currency, close_date=close, primary_contact_id=contact_id, next_step=None,
        created_at=ctx.now, updated_at=ctx.now, stage_changed_at=ctx.now,
    )
    missing = missing_fields(deal, stage)
    if missing:
        raise bad_args(f"stage {stage} requires {', '.join(missing)}", missing)
    return deal


class DealFields(ToolArgs):
    amount: Money | None = Field(default=None, description="Amount as a decimal string like '12500.00'; omit to keep.")
    close_date: date | None = Field(default=None, description="Close date, YYYY-MM-DD; omit to keep.")
    primary_contact_id: str | None = Field(default=None, description="The buyer-side main contact; omit to keep.")
    next_step: str | None = Field(default=None, max_length=300, description="The agreed next step; omit to keep.")


def _deal_changes(ctx: ToolContext, deal: Deal, args: DealFields) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    amount = _money(args.amount, "amount")
    if amount is not None:
        changes["amount"] = amount
    if args.close_date is not None:
        changes["close_date"] = args.close_date
    if args.primary_contact_id is not None:
        contact = live_contact(ctx, args.primary_contact_id, "primary_contact_id", hint="")
        if contact.account_id != deal.account_id:
            raise bad_args("the primary contact must belong to the deal's account", ["primary_contact_id"])
        changes["primary_contact_id"] = contact.id
    if args.next_step is not None:
        changes["next_step"] = clean(args.next_step)
    return {k: v for k, v in changes.items() if getattr(deal, k) != v}


def _emit_update(ctx: ToolContext, deal: Deal, changes: dict[str, Any]) -> None:
    if changes:
        ctx.emit(ev.DealUpdated(deal_id=deal.id, fields=sorted(changes), updated_at=ctx.now, **changes))


class UpdateDealArgs(DealFields):
    deal_id: str = Field(description="The deal to update.")
    name: str | None = Field(default=None, max_length=200, description="New name; omit to keep.")


@kit.tool(WRITE)
def update_deal(ctx: ToolContext, args: UpdateDealArgs) -> DealResult:
    """Updates a deal's amount, close date, primary contact, next step or name, without changing its stage.

    The deal must still meet its current stage's required fields. Closed-won deals cannot be edited.
    """
    deal = _editable(ctx, args.deal_id)
    changes = _deal_changes(ctx, deal, args)
    if args.name is not None:
        name = clean(args.name)
        if name is None:
            raise bad_args("name must not be blank", ["name"])
        if name != deal.name:
            changes["name"] = name
    if not changes and all(getattr(args, f) is None for f in ("amount", "close_date", "primary_contact_id",
                                                               "next_step", "name")):
        raise bad_args("nothing to update: pass at least one field", ["deal_id"])
    _emit_update(ctx, deal, changes)
    return DealResult(deal=require(ctx, DEALS, deal.id, "deal"))


class UpdateDealStageArgs(DealFields):
    deal_id: str = Field(description="The deal to move.")
    stage: Stage = Field(description="The target stage. Must be an allowed move from the current stage.")
    lost_reason: str | None = Field(default=None, max_length=300, description="Why it was lost (closed_lost only).")


@kit.tool(WRITE)
def update_deal_stage(ctx: ToolContext, args: UpdateDealStageArgs) -> DealResult:
    """Moves a deal to another pipeline stage, optionally setting fields in the same call.

    Open deals move forward one stage at a time (or back to any earlier open stage); only negotiation
    can become closed_won; any open stage can become closed_lost. The deal must have every field the
    target stage requires (see crm.get_pipeline), counting fields passed in this call; otherwise the
    call fails with `invalid_argument` and `details.fields` names the missing ones.
    """
    deal = require(ctx, DEALS, args.deal_id, "deal", "deal_id")
    if args.stage not in allowed_moves(deal.stage):
        raise bad_args(
            f"cannot move from {deal.stage} to {args.stage}",
            ["stage"],
            allowed=list(allowed_moves(deal.stage)),
        )
    if args.lost_reason is not None and args.stage != "closed_lost":
        raise bad_args("lost_reason only applies when moving to closed_lost", ["lost_reason"])
    changes = _deal_changes(ctx, deal, args)
    if args.lost_reason is not None:
        changes["lost_reason"] = clean(args.lost_reason)
    missing = missing_fields(patched(deal, changes), args.stage)
    if missing:
        raise bad_args(f"stage {args.stage} requires {', '.join(missing)}", missing)
    _emit_update(ctx, deal, changes)
    ctx.emit(ev.DealStageChanged(deal_id=deal.id, from_stage=deal.stage, to_stage=args.stage, changed_at=ctx.now))
    return DealResult(deal=require(ctx, DEALS, deal.id, "deal"))


# --- line items -----------------------------------------------------------------------


class LineItemInput(BaseModel):
    """One line of a deal."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    product_id: str = Field(description="The product, such as prd_000003.")
    quantity: int = Field(ge=1, le=100_000, description="Units.")
    discount_pct: Money = Field(default=Decimal(0), ge=0, le=100, description="Discount in percent, 0-100.")
    unit_price: Money | None = Field(
        default=None, description="Override the price book's unit price in the deal's currency; omit to use it."
    )


class SetLineItemsArgs(ToolArgs):
    deal_id: str = Field(description="The deal whose line items are replaced.")
    items: list[LineItemInput] = Field(max_length=50, description="The complete new list of line items.")
    update_amount: bool = Field(default=False, description="Also set the deal's amount to the new line total.")


@kit.tool(WRITE)
def set_line_items(ctx: ToolContext, args: SetLineItemsArgs) -> LineItemsResult:
    """Replaces a deal's line items with a new list (prices from the price book unless overridden)."""
    deal = _editable(ctx, args.deal_id)
    prices = {(e.product_id, e.currency): e.unit_price for e in table(ctx, PRICE_BOOK)}
    new: list[LineItem] = []
    for i, item in enumerate(args.items):
        product = require(ctx, PRODUCTS, item.product_id, "product", f"items.{i}.product_id")
        price = _money(item.unit_price, f"items.{i}.unit_price") or prices.get((product.id, deal.currency))
        if price is None:
            raise bad_args(f"{product.name} has no {deal.currency} price; pass unit_price", [f"items.{i}.unit_price"])
        if to_cents(item.discount_pct) is None:
            raise bad_args("discount_pct has more than two decimals", [f"items.{i}.discount_pct"])
        new.append(LineItem(id=ctx.ids.next("li"), deal_id=deal.id, product_id=product.id,
                            product_name=product.name,
                            quantity=item.quantity, unit_price=price, discount_pct=item.discount_pct))
    total = sum((line_total(i.quantity, i.unit_price, i.discount_pct) for i in new), Decimal(0))
    if args.update_amount and total <= 0:
        raise bad_args("cannot set the amount from an empty or zero line list", ["update_amount"])
    ctx.emit(ev.LineItemsReplaced(deal_id=deal.id, removed_ids=list(deal.line_item_ids), added=new,
                                  updated_at=ctx.now))
    if args.update_amount and total != deal.amount:
        ctx.emit(ev.DealUpdated(deal_id=deal.id, fields=["amount"], amount=total, updated_at=ctx.now))
    return LineItemsResult(deal=require(ctx, DEALS, deal.id, "deal"), line_items=new, line_total=total)
