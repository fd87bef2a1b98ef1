"""Workflow tools: status, priority, tags, assignment, macros, merging and escalation."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field

from saas_sim.core.paging import PageArgs
from saas_sim.core.tool_errors import bad_args, conflict, denied, require
from saas_sim.core.tools import READ, WRITE, ToolArgs, ToolContext
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import (
    ACTIVE_STATUSES,
    STATUS_TRANSITIONS,
    Escalation,
    Group,
    Message,
    Priority,
    Team,
    Ticket,
)
from saas_sim.domains.support.state import AGENTS, CUSTOMERS, ESCALATIONS, MACROS, TICKETS
from saas_sim.domains.support.tool_helpers import acting_agent, open_ticket
from saas_sim.domains.support.tools_tickets import emit_solved_reaction, post_reply, react_to_reply
from saas_sim.domains.support.views_tickets import MessageView, ReplyResult, TicketSummary
from saas_sim.domains.support.views_workflow import (
    AgentPage,
    AgentView,
    EscalationView,
    MacroPage,
    MacroView,
    MergeResult,
    TicketUpdate,
)

__all__ = [
    "apply_macro",
    "assign_ticket",
    "escalate_ticket",
    "list_agents",
    "list_macros",
    "merge_tickets",
    "set_ticket_priority",
    "set_ticket_status",
    "update_ticket_tags",
]

_TAG = re.compile(r"^[a-z0-9][a-z0-9_\-]{0,39}$")


def _summary(ctx: ToolContext, ticket_id: str) -> TicketSummary:
    return TicketSummary.of(ctx.table(TICKETS).get(ticket_id), ctx.now)


def _check_transition(ticket: Ticket, to: str, field: str, current: str | None = None) -> None:
    """Raises `conflict` naming `field` (the argument that asked for `to`) unless the workflow allows it."""
    frm = current or ticket.status
    if to != frm and to not in STATUS_TRANSITIONS[frm]:
        allowed = sorted(STATUS_TRANSITIONS[frm])
        raise conflict(f"ticket {ticket.id} cannot go from {frm} to {to}; allowed: {allowed}", [field],
                       **{"from": frm, "to": to, "allowed": allowed})


class SetStatusArgs(ToolArgs):
    ticket_id: str = Field(description="The ticket to change.")
    status: Literal["open", "pending", "on-hold", "solved", "closed"] = Field(description=(
        "The new status. 'pending' waits for the customer, 'on-hold' waits for a third party, 'solved' "
        "means the problem is fixed, 'closed' is final (only from solved)."))


@kit.tool(WRITE, cost_s=15)
def set_ticket_status(ctx: ToolContext, args: SetStatusArgs) -> TicketUpdate:
    """Changes a ticket's status along the workflow new -> open -> pending -> on-hold -> solved -> closed.

    Only allowed transitions are accepted (others are `conflict`); setting the current status is a no-op.
    When a ticket is solved the customer is told; a customer whose problem is not really fixed reopens it
    and answers (returned as `customer_response`).
    """
    ticket = open_ticket(ctx, args.ticket_id)
    if args.status == ticket.status:
        return TicketUpdate(ticket=TicketSummary.of(ticket, ctx.now))
    _check_transition(ticket, args.status, "status")
    ctx.emit(ev.TicketStatusChanged(ticket_id=ticket.id, from_status=ticket.status, to_status=args.status,
                                    at=ctx.now))
    answer = emit_solved_reaction(ctx, ticket.id) if args.status == "solved" else None
    return TicketUpdate(ticket=_summary(ctx, ticket.id), customer_response=MessageView.of(answer) if answer else None)


class SetPriorityArgs(ToolArgs):
    ticket_id: str = Field(description="The ticket to change.")
    priority: Priority = Field(description="The new priority: low, normal, high or urgent.")


@kit.tool(WRITE, cost_s=15)
def set_ticket_priority(ctx: ToolContext, args: SetPriorityArgs) -> TicketUpdate:
    """Sets a ticket's priority. Setting the current priority is a no-op."""
    ticket = open_ticket(ctx, args.ticket_id)
    if ticket.priority != args.priority:
        ctx.emit(ev.TicketPriorityChanged(ticket_id=ticket.id, priority=args.priority, at=ctx.now))
    return TicketUpdate(ticket=_summary(ctx, ticket.id))


class UpdateTagsArgs(ToolArgs):
    ticket_id: str = Field(description="The ticket to change.")
    add: list[str] = Field(default_factory=list, max_length=20, description=(
        "Tags to add: lowercase letters, digits, '_' or '-', at most 40 characters."))
    remove: list[str] = Field(default_factory=list, max_length=20, description="Tags to remove.")


@kit.tool(WRITE, cost_s=15)
def update_ticket_tags(ctx: ToolContext, args: UpdateTagsArgs) -> TicketUpdate:
    """Adds and removes tags on a ticket. Removing a tag the ticket does not have is ignored."""
    if not args.add and not args.remove:
        raise bad_args("give at least one tag to add or remove", ["add", "remove"])
    for i, tag in enumerate(args.add):
        if not _TAG.match(tag):
            raise bad_args(f"tag {tag!r} must be lowercase letters, digits, '_' or '-'", [f"add.{i}"])
    ticket = open_ticket(ctx, args.ticket_id)
    tags = tuple(sorted((set(ticket.tags) | set(args.add)) - set(args.remove)))
    if tags != ticket.tags:
        ctx.emit(ev.TicketTagsChanged(ticket_id=ticket.id, tags=tags, at=ctx.now))
    return TicketUpdate(ticket=_summary(ctx, ticket.id))


class AssignArgs(ToolArgs):
    ticket_id: str = Field(description="The ticket to route.")
    group: Group | None = Field(default=None, description="The group (queue) to move it to; null keeps it.")
    assignee_id: str | None = Field(default=None, description=(
        "The agent to assign, who must belong to the ticket's (new) group; null keeps the assignee when "
        "they belong to the group and clears it otherwise."))


@kit.tool(WRITE, cost_s=15)
def assign_ticket(ctx: ToolContext, args: AssignArgs) -> TicketUpdate:
    """Routes a ticket to a group and/or an agent. Use support.list_agents to see groups and loads."""
    if args.group is None and args.assignee_id is None:
        raise bad_args("give a group, an assignee_id or both", ["group", "assignee_id"])
    ticket = open_ticket(ctx, args.ticket_id)
    group = args.group or ticket.group
    assignee = args.assignee_id or ticket.assignee_id
    if args.assignee_id is not None:
        agent = require(ctx, AGENTS, args.assignee_id, "agent", "assignee_id")
        if group not in agent.groups:
            raise bad_args(f"agent {agent.id} does not work in group {group}", ["assignee_id"],
                           agent_groups=list(agent.groups))
    elif assignee is not None:
        current = ctx.table(AGENTS).get(assignee)
        if current is None or group not in current.groups:
            assignee = None
    if (group, assignee) != (ticket.group, ticket.assignee_id):
        ctx.emit(ev.TicketAssigned(ticket_id=ticket.id, group=group, assignee_id=assignee, at=ctx.now))
    return TicketUpdate(ticket=_summary(ctx, ticket.id))


class ListAgentsArgs(PageArgs):
    group: Group | None = Field(default=None, description="Only agents of this group; null for all.")


@kit.tool(READ)
def list_agents(ctx: ToolContext, args: ListAgentsArgs) -> AgentPage:
    """Lists agents by id with their groups, role and number of active (new/open/pending/on-hold) tickets."""
    load: dict[str, int] = {}
    for t in ctx.table(TICKETS):
        if t.assignee_id and t.status in ACTIVE_STATUSES:
            load[t.assignee_id] = load.get(t.assignee_id, 0) + 1
    agents = [a for a in ctx.table(AGENTS) if args.group is None or args.group in a.groups]
    return AgentPage.of(agents, lambda a: (a.id,), args,
                        view=lambda a: AgentView.of(a, active_tickets=load.get(a.id, 0)))


class ListMacrosArgs(PageArgs):
    pass


@kit.tool(READ)
def list_macros(ctx: ToolContext, args: ListMacrosArgs) -> MacroPage:
    """Lists every macro (canned reply plus actions), by id."""
    return MacroPage.of(ctx.table(MACROS), lambda m: (m.id,), args, view=MacroView.of)


class ApplyMacroArgs(ToolArgs):
    ticket_id: str = Field(description="The ticket to apply the macro to.")
    macro_id: str = Field(description="The macro, such as mac_000002.")


@kit.tool(WRITE)
def apply_macro(ctx: ToolContext, args: ApplyMacroArgs) -> ReplyResult:
    """Applies a macro: sends its text as a public reply, then applies its tags, priority and status."""
    ticket = open_ticket(ctx, args.ticket_id)
    macro = require(ctx, MACROS, args.macro_id, "macro", "macro_id")
    effective = "open" if ticket.status == "new" else ticket.status
    if macro.set_status is not None:
        _check_transition(ticket, macro.set_status, "macro_id", effective)
    requester = ctx.table(CUSTOMERS).get(ticket.requester_id)
    first = requester.first_name if requester else "there"
    body = macro.body.replace("{{first_name}}", first).replace("{{agent_name}}", acting_agent(ctx).name)
    ctx.emit(ev.MacroApplied(ticket_id=ticket.id, macro_id=macro.id, at=ctx.now))
    msg, _ = post_reply(ctx, ticket, body, macro_id=macro.id, react=False)
    if macro.add_tags:
        now_tags = ctx.table(TICKETS).get(ticket.id).tags
        tags = tuple(sorted(set(now_tags) | set(macro.add_tags)))
        if tags != now_tags:
            ctx.emit(ev.TicketTagsChanged(ticket_id=ticket.id, tags=tags, at=ctx.now))
    if macro.set_priority is not None and macro.set_priority != ticket.priority:
        ctx.emit(ev.TicketPriorityChanged(ticket_id=ticket.id, priority=macro.set_priority, at=ctx.now))
    answer: Message | None
    if macro.set_status is not None and macro.set_status != effective:
        ctx.emit(ev.TicketStatusChanged(ticket_id=ticket.id, from_status=effective, to_status=macro.set_status,
                                        at=ctx.now))
    if macro.set_status == "solved":
        answer = emit_solved_reaction(ctx, ticket.id)
    else:
        answer = react_to_reply(ctx, ticket.id, msg)
    return ReplyResult(message=MessageView.of(msg), ticket=_summary(ctx, ticket.id),
                       customer_response=MessageView.of(answer) if answer else None)


class MergeArgs(ToolArgs):
    target_id: str = Field(description="The ticket to keep (policy: the oldest ticket about the issue).")
    source_ids: list[str] = Field(min_length=1, max_length=10, description=(
        "Tickets to merge into the target. They are closed and point to the target."))


@kit.tool(WRITE)
def merge_tickets(ctx: ToolContext, args: MergeArgs) -> MergeResult:
    """Merges duplicate tickets of the same requester into one target ticket.

    The sources are closed with `merged_into` set; an internal note on the target lists them. Tickets of
    different requesters cannot be merged (`permission_denied`).
    """
    if args.target_id in args.source_ids:
        raise bad_args("a ticket cannot be merged into itself", ["source_ids"])
    if len(set(args.source_ids)) != len(args.source_ids):
        raise bad_args("source_ids contains duplicates", ["source_ids"])
    target = open_ticket(ctx, args.target_id, "target_id")
    sources = [open_ticket(ctx, sid, f"source_ids.{i}") for i, sid in enumerate(args.source_ids)]
    for i, src in enumerate(sources):
        if src.requester_id != target.requester_id:
            raise denied(f"{src.id} and {target.id} have different requesters; "
                         "policy only allows merging tickets of the same requester", [f"source_ids.{i}"])
    ctx.emit(ev.TicketsMerged(target_id=target.id, source_ids=tuple(s.id for s in sources), at=ctx.now))
    agent = acting_agent(ctx)
    listing = "\n".join(f"- {s.id}: {s.subject}" for s in sources)
    ctx.emit(ev.MessagePosted(message=Message(
        id=ctx.ids.next("msg"), ticket_id=target.id, author_kind="system", author_id=agent.id,
        author_name="System", public=False, body=f"Merged into this ticket:\n{listing}", created_at=ctx.now)))
    return MergeResult(target=_summary(ctx, target.id), merged=[s.id for s in sources])


class EscalateArgs(ToolArgs):
    ticket_id: str = Field(description="The ticket to escalate.")
    team: Team = Field(description=(
        "The specialist team: legal (legal threats, lawyers, lawsuits), security (account takeover, data "
        "exposure), engineering (product defects), billing (payment disputes) or management (complaints "
        "about staff)."))
    reason: str = Field(min_length=10, max_length=2_000, description="Why, for the team (at least 10 characters).")


@kit.tool(WRITE)
def escalate_ticket(ctx: ToolContext, args: EscalateArgs) -> EscalationView:
    """Hands a ticket to a specialist team. The ticket goes on-hold and is tagged `escalated_<team>`."""
    ticket = open_ticket(ctx, args.ticket_id)
    if ticket.status == "solved":
        raise conflict(f"ticket {ticket.id} is solved; reopen it before escalating", ["ticket_id"])
    for e in ctx.table(ESCALATIONS):
        if e.ticket_id == ticket.id and e.team == args.team:
            raise conflict(f"ticket {ticket.id} is already escalated to {args.team} ({e.id})", ["team"],
                           escalation_id=e.id)
    esc = Escalation(id=ctx.ids.next("esc"), ticket_id=ticket.id, team=args.team, reason=args.reason,
                     created_at=ctx.now)
    ctx.emit(ev.TicketEscalated(escalation=esc))
    if ticket.status != "on-hold":
        ctx.emit(ev.TicketStatusChanged(ticket_id=ticket.id, from_status=ticket.status, to_status="on-hold",
                                        at=ctx.now))
    return EscalationView.of(esc, ticket=_summary(ctx, ticket.id))
