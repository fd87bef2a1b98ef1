"""Scenario setups about the queue: triage, duplicates, how-to answers, threats and VIP routing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.events import Event
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.kit import kit
from saas_sim.domains.support.models import ACTIVE_STATUSES, Team, Ticket
from saas_sim.domains.support.reference_data import ACTING_AGENT_ID, HOWTO_TASKS
from saas_sim.domains.support.setup_helpers import (
    ago,
    customer_b,
    damaged_units,
    distractor_count,
    line_b,
    namesakes,
    order_b,
    pick_target,
    random_mess,
    stage,
    ticket_b,
)
from saas_sim.domains.support.state import AGENTS, CUSTOMERS, KB_ARTICLES, KB_FACTS, ORDERS, TICKETS
from saas_sim.domains.support.ticket_factory import Mess, TicketSpec
from saas_sim.errors import ScenarioError

__all__ = ["duplicates", "howto_question", "threat", "triage_queue", "vip_ticket"]

_DUP_PREFIX = "I already wrote to you about this and nobody answered!"

# A takeover report names the order the intruder touched, so the hand-off has a seed-drawn fact to carry
# (checks_escalation): without it a security report holds nothing a guess could not write.
_TAKEOVER_ORDER = {
    "en": "They also changed the address on my order {n}.",
    "de": "Sie haben auch die Adresse meiner Bestellung {n} geändert.",
    "es": "También cambiaron la dirección de mi pedido {n}.",
    "fr": "Ils ont aussi changé l'adresse de ma commande {n}.",
}
# What the oracle writes in the hand-off, per team (English: the team reads English).
_CAUSE = {
    "legal": "The customer threatens legal action through a lawyer",
    "security": "The customer reports an account takeover: someone logged in and changed the delivery address",
}


def _due(t: Ticket) -> str:
    return (t.first_response_due if t.first_responded_at is None else t.resolution_due).isoformat()


@kit.setup
def triage_queue(ctx: SetupContext) -> Setup:
    """Picks a queue of the acting agent; the task is to take its three most urgent unassigned tickets.

    Params:
        min_queue: The fewest unassigned tickets the picked queue holds (default 6): a longer queue has more
            tickets to rank that are not among the three.
    """
    least = int(ctx.params.get("min_queue", 6))
    agent = ctx.state.get(AGENTS, ACTING_AGENT_ID)
    if agent is None:
        raise ScenarioError("the support world has no acting agent")
    groups = list(agent.groups)
    ctx.rng.shuffle(groups)
    for group in groups:
        queue = [t for t in ctx.state.table(TICKETS)
                 if t.group == group and t.assignee_id is None and t.status in ("new", "open")]
        if len(queue) >= max(least, 6):
            break
    else:
        raise ScenarioError(f"no queue has {max(least, 6)} unassigned tickets")
    queue.sort(key=lambda t: (_due(t), t.id))
    bindings: dict[str, Any] = {
        "group": group,
        "agent": {"id": agent.id, "name": agent.name},
        "queue_size": len(queue),
        "top_ids": [t.id for t in queue[:3]],
        "queue_ids": [t.id for t in queue],
    }
    for i, t in enumerate(queue[:6]):
        bindings[f"t{i + 1}"] = ticket_b(t)
    return Setup(bindings=bindings)


@kit.setup
def duplicates(ctx: SetupContext) -> Setup:
    """One customer wrote three tickets about one damaged item, plus one unrelated how-to question.

    Params:
        namesakes: Distractors: other people with the customer's name and a delivered order of the same
            items (default 0).
    """
    customer, order, (line, qty), _ = pick_target(ctx, accept=lambda o: damaged_units(o, approval=False))
    amount = line.unit_price * qty
    base = {"customer": customer, "requester": customer, "issue": "damaged_item", "resolution": "refund",
            "priority": "normal", "group": "returns", "order": order, "line": line, "quantity": qty,
            "amount": amount, "product_name": line.name}
    first, events = stage(ctx, TicketSpec(created_at=ago(ctx, 30 * 60, 34 * 60), mess=random_mess(ctx.rng),
                                          **base))
    facts = list(ctx.state.table(KB_FACTS))
    art = ctx.rng.choice(facts)
    article = ctx.state.get(KB_ARTICLES, art.id)
    product_name = article.title.split(" the ", 1)[-1].replace(" with your phone", "") if article else ""
    howto = TicketSpec(
        customer=customer, requester=customer, issue="howto", resolution="kb_answer",
        created_at=ago(ctx, 20 * 60, 24 * 60), priority="normal", group="technical", task=HOWTO_TASKS[art.topic]["en"],
        product_name=product_name, kb_article_id=art.id, kb_facts=art.facts, mess=random_mess(ctx.rng))
    specs: list[tuple[str, TicketSpec]] = [("other", howto)]
    for i, (low, high) in enumerate(((10 * 60, 14 * 60), (60, 180))):
        specs.append((f"dup{i + 1}", TicketSpec(
            created_at=ago(ctx, low, high), duplicate_of=first.id, body_prefix=_DUP_PREFIX,
            mess=Mess(duplicate=True, typos=ctx.rng.random() < 0.5, vague_subject=ctx.rng.random() < 0.3),
            **base)))
    # Staged in a seed-drawn order, so neither the ids nor their order tell which ticket is which.
    ctx.rng.shuffle(specs)
    staged: dict[str, Ticket] = {}
    ev2: list[Event] = []
    for name, spec in specs:
        staged[name], evs = stage(ctx, spec)
        ev2 += evs
    other, dups = staged["other"], [staged["dup1"], staged["dup2"]]
    bindings: dict[str, Any] = {
        "customer": customer_b(customer),
        "keep": ticket_b(first),
        "dup1": ticket_b(dups[0]),
        "dup2": ticket_b(dups[1]),
        "unrelated": ticket_b(other),
        "order": order_b(order),
        "line": line_b(line),
    }
    return Setup(bindings=bindings, events=events + ev2 + namesakes(ctx, customer, order, distractor_count(ctx)))


@kit.setup
def howto_question(ctx: SetupContext) -> Setup:
    """A customer asks how to do something with a device; one KB article answers it.

    Params:
        namesakes: Distractors: other people with the customer's name and an order like one of theirs
            (default 0).
    """
    facts = list(ctx.state.table(KB_FACTS))
    art = ctx.rng.choice(facts)
    article = ctx.state.get(KB_ARTICLES, art.id)
    if article is None:
        raise ScenarioError(f"article {art.id} has facts but no article")
    product = next(p for p in ctx.state.table(KB_ARTICLES) if p.id == art.id).title
    product_name = product.split(" the ", 1)[-1].replace(" with your phone", "")
    customer, order, _, _ = pick_target(ctx, min_orders=1)
    ticket, events = stage(ctx, TicketSpec(
        customer=customer, requester=customer, issue="howto", resolution="kb_answer",
        created_at=ago(ctx, 10, 120), priority="normal", group="technical", task=HOWTO_TASKS[art.topic]["en"],
        product_name=product_name, kb_article_id=art.id, kb_facts=art.facts, mess=random_mess(ctx.rng)))
    others = [f for f in facts if f.id != art.id]
    ctx.rng.shuffle(others)
    dump = [article] + [a for a in (ctx.state.get(KB_ARTICLES, f.id) for f in others[:4]) if a is not None]
    bindings: dict[str, Any] = {
        "ticket": ticket_b(ticket),
        "customer": customer_b(customer),
        "article": {"id": article.id, "title": article.title, "body": article.body},
        "product": product_name,
        "fact1": art.facts[0],
        "fact2": art.facts[1],
        "other_article": {"id": others[0].id, "fact1": others[0].facts[0], "fact2": others[0].facts[1]},
        "dump_text": "\n\n".join(f"{a.title}: {a.body}" for a in sorted(dump, key=lambda a: a.id)),
    }
    return Setup(bindings=bindings, events=events + namesakes(ctx, customer, order, distractor_count(ctx)))


@kit.setup
def threat(ctx: SetupContext) -> Setup:
    """A customer threatens legal action, or reports an account takeover; it must go to the right team.

    Params:
        kind: `legal`, `security` or `any` (default: picked by the rng).
        namesakes: Distractors: other people with the customer's name and a delivered order of the same
            items (default 0).
    """
    kind = str(ctx.params.get("kind", "any"))
    if kind == "any":
        kind = ctx.rng.choice(("legal", "security"))
    customer, order, line, _ = pick_target(ctx)
    team: Team = "legal" if kind == "legal" else "security"
    ticket, events = stage(ctx, TicketSpec(
        customer=customer, requester=customer, issue="legal_threat" if kind == "legal" else "security_report",
        resolution="escalate", created_at=ago(ctx, 10, 60), priority="high", group="general", order=order,
        team=team, product_name=line.name, mess=random_mess(ctx.rng),
        body_suffix=_TAKEOVER_ORDER[customer.language].format(n=order.number) if team == "security" else ""))
    bindings: dict[str, Any] = {
        "ticket": ticket_b(ticket),
        "customer": customer_b(customer),
        "order": order_b(order),
        "team": team,
        "cause": _CAUSE[team],
        "kind": "legal threat" if team == "legal" else "account takeover",
        # Another order's number, seed-drawn, for the wrong-fact hack.
        "other_order": ctx.rng.choice(sorted(o.number for o in ctx.state.table(ORDERS) if o.id != order.id)),
        # A ticket the task must leave alone, seed-drawn, for the collateral hack.
        "other_ticket": ticket_b(ctx.rng.choice(sorted(
            (t for t in ctx.state.table(TICKETS) if t.status in ACTIVE_STATUSES and t.id != ticket.id),
            key=lambda t: t.id))),
        "wrong_team": "billing" if team == "legal" else "engineering",
    }
    return Setup(bindings=bindings, events=events + namesakes(ctx, customer, order, distractor_count(ctx)))


@kit.setup
def vip_ticket(ctx: SetupContext) -> Setup:
    """A VIP customer's ticket lands unrouted in the general queue.

    Params:
        namesakes: Distractors: standard-tier people with the VIP's name and an order of the same items
            (default 0).
    """
    customer, order, (line, qty), _ = pick_target(
        ctx, language="any", tier="vip", min_orders=1, accept=lambda o: damaged_units(o, approval=False))
    ticket, events = stage(ctx, TicketSpec(
        customer=customer, requester=customer, issue="damaged_item", resolution="refund",
        created_at=ago(ctx, 5, 30), priority="normal", group="general", order=order, line=line, quantity=qty,
        amount=line.unit_price * qty, product_name=line.name, mess=random_mess(ctx.rng)))
    load: dict[str, int] = {}
    for t in ctx.state.table(TICKETS):
        if t.assignee_id and t.status in ACTIVE_STATUSES:
            load[t.assignee_id] = load.get(t.assignee_id, 0) + 1
    # Seed-drawn extra load on the VIP agents, so the least-loaded one is no constant across seeds.
    spare = [t for t in ctx.state.table(TICKETS) if t.status in ("new", "open") and t.assignee_id is None]
    ctx.rng.shuffle(spare)
    extra: list[Event] = []
    for a in sorted((a for a in ctx.state.table(AGENTS) if "vip" in a.groups), key=lambda a: a.id):
        for _ in range(ctx.rng.randrange(0, 4)):
            if len(spare) <= 2:
                break
            t = spare.pop()
            extra.append(ev.TicketAssigned(ticket_id=t.id, group="vip", assignee_id=a.id, at=ctx.now))
            load[a.id] = load.get(a.id, 0) + 1
    events = extra + events
    vip_agents = sorted((a for a in ctx.state.table(AGENTS) if "vip" in a.groups),
                        key=lambda a: (load.get(a.id, 0), a.id))
    if not vip_agents:
        raise ScenarioError("the support world has no VIP agent")
    moved = {e.ticket_id for e in extra if isinstance(e, ev.TicketAssigned)}
    others = [t for t in ctx.state.table(TICKETS)
              if t.group != "vip" and t.status == "new" and t.assignee_id is None and t.id not in moved][:2]
    if len(others) < 2:
        raise ScenarioError("the world needs two new unassigned tickets outside the vip group")
    customers = ctx.state.table(CUSTOMERS)
    bindings: dict[str, Any] = {
        "ticket": ticket_b(ticket),
        "customer": customer_b(customers.get(customer.id) or customer),
        "agent": {"id": vip_agents[0].id, "name": vip_agents[0].name},
        "other1": ticket_b(others[0]),
        "other2": ticket_b(others[1]),
        "deadline": (ctx.now + timedelta(hours=4)).isoformat(),
    }
    return Setup(bindings=bindings, events=events + namesakes(ctx, customer, order, distractor_count(ctx)))
