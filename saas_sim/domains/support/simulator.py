"""The simulated customer: a deterministic, rule-based persona behind every ticket.

Tools call the simulator after an agent's public reply (`on_agent_reply`) and
when a ticket is set to solved (`on_solved`). It returns events, which the tool
emits after its own: the customer's message, a reopen, a satisfaction rating and
the persona's new hidden state. So every reaction is recorded in the event log
and replays exactly.

Rules, in order, for a public agent reply:

1. A customer who already confirmed the fix stays silent.
2. If the state really fixes the problem (`ticket_outcome.assess`: the refund and
   replacement records, or for a refusal or a how-to question the true facts
   the replies state), the customer confirms, naming what it sees (for
   example the refunded amount).
3. A customer who has not said which order it means yet, and is asked for it
   (`reply_facts.asks_for_order`), answers with the order number and names the item.
4. Otherwise the customer restates what it needs, and grows impatient when
   the ticket's SLA is breached; out of patience, it asks for a manager.

The customer never reacts to wording: what it answers depends on the state,
on the facts the replies state, and on how many times it has answered. Two
replies that state the same facts in other words get the same answer.

When a ticket is solved without a real fix, the customer reopens it and rates
the support "bad". A fixed ticket is rated "good".

Reading ground truth: tools may not read `hidden.` tables (`ToolContext.table`
refuses them). The simulator is the one exception. It runs inside tool handlers
and reads the persona and the truth through `ToolContext.state` directly. It
never returns hidden data to the agent: only the customer's message, which is
public in the thread, reaches a tool result.

Replies are a pure function of (persona seed, state, facts): phrasing is
picked by a sha256 of the persona seed, the answer's kind and its turn,
never by `hash()`, a shared rng or the reply's wording. The
`CustomerSimulator` protocol lets an LLM persona replace the rules later; such
a persona must record its replies and replay them from a cache keyed the same
way, so episodes stay reproducible and tests never call a network.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Protocol

from saas_sim.core.events import Event
from saas_sim.core.ids import IdFactory
from saas_sim.core.state import State
from saas_sim.domains.support import events as ev
from saas_sim.domains.support.customer_phrases import phrase
from saas_sim.domains.support.models import Message, Persona, Ticket, TicketTruth
from saas_sim.domains.support.reply_facts import asks_for_order
from saas_sim.domains.support.state import ORDERS, PERSONAS, TICKETS, TRUTHS, sla_state
from saas_sim.domains.support.ticket_outcome import Assessment, assess

__all__ = ["RULES", "CustomerSimulator", "RuleBasedCustomer"]


class CustomerSimulator(Protocol):
    """Reacts to what the desk does on a ticket, as events."""

    def on_agent_reply(self, state: State, ticket_id: str, message: Message, now: datetime,
                       ids: IdFactory) -> list[Event]:
        """Returns the customer's reaction to a public agent reply (possibly none)."""
        ...

    def on_solved(self, state: State, ticket_id: str, now: datetime, ids: IdFactory) -> list[Event]:
        """Returns the customer's reaction to its ticket being set to solved."""
        ...


def _pick(persona: Persona, key: str, n: int, options: int) -> int:
    digest = hashlib.sha256(f"{persona.seed}:{n}:{key}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % options


class RuleBasedCustomer:
    """The default, deterministic customer simulator (see the module docstring for its rules)."""

    def on_agent_reply(self, state: State, ticket_id: str, message: Message, now: datetime,
                       ids: IdFactory) -> list[Event]:
        """Returns the customer's reaction to a public agent reply (possibly none)."""
        persona, truth, ticket = self._load(state, ticket_id)
        if persona is None or truth is None or ticket is None or persona.confirmed:
            return []
        outcome = assess(state, ticket_id, message)
        if outcome is None:
            return []
        n = persona.replies
        updates: dict[str, object] = {"replies": n + 1}
        number = self._order_number(state, truth)
        if outcome.fixed:
            key = "confirm"
            updates.update(resolved=True, confirmed=True)
        elif number and not persona.order_revealed and asks_for_order(message.body):
            key, updates["order_revealed"] = "give_order", True
        else:
            key = "restate"
            if sla_state(ticket, now) == "breached":
                updates["patience"] = max(persona.patience - 1, 0)
        patience = int(str(updates.get("patience", persona.patience)))
        if key == "restate" and patience == 0:
            key = "manager"
        text = self._text(persona, truth, outcome, key, state, n)
        if key == "restate" and sla_state(ticket, now) == "breached" and n == 0:
            text = f"{phrase(persona.language, 'waited', 0)} {text}"
        # A customer's answer puts a pending ticket back to open; on a solved ticket, only a
        # complaint reopens it (a confirmation leaves it solved).
        reopen = ticket.status == "pending" or (ticket.status == "solved" and key != "confirm")
        if ticket.status == "solved" and reopen:
            updates["reopen_count"] = persona.reopen_count + 1
        new_persona = persona.model_copy(update=updates)
        out: list[Event] = [self._message(ticket, persona, text, now, ids)]
        if reopen:
            out.append(ev.TicketStatusChanged(ticket_id=ticket_id, from_status=ticket.status,
                                              to_status="open", at=now))
        out.append(ev.PersonaUpdated(persona=new_persona))
        return out

    def on_solved(self, state: State, ticket_id: str, now: datetime, ids: IdFactory) -> list[Event]:
        """Returns the customer's reaction to its ticket being set to solved."""
        persona, truth, ticket = self._load(state, ticket_id)
        if persona is None or truth is None or ticket is None:
            return []
        outcome = assess(state, ticket_id)
        if outcome is None:
            return []
        if outcome.fixed:
            good = phrase(persona.language, "rate_good", 0)
            return [
                ev.SatisfactionRated(ticket_id=ticket_id, rating="good", comment=good, at=now),
                ev.PersonaUpdated(persona=persona.model_copy(update={"resolved": True})),
            ]
        n = persona.replies
        text = self._text(persona, truth, outcome, "reopen", state, n)
        new_persona = persona.model_copy(update={
            "replies": n + 1,
            "reopen_count": persona.reopen_count + 1,
            "patience": max(persona.patience - 1, 0),
            "resolved": False,
            "confirmed": False,
        })
        return [
            self._message(ticket, persona, text, now, ids),
            ev.TicketStatusChanged(ticket_id=ticket_id, from_status="solved", to_status="open", at=now),
            ev.SatisfactionRated(ticket_id=ticket_id, rating="bad",
                                 comment=phrase(persona.language, "rate_bad", 0), at=now),
            ev.PersonaUpdated(persona=new_persona),
        ]

    # helpers ---------------------------------------------------------------------------------
    @staticmethod
    def _load(state: State, ticket_id: str) -> tuple[Persona | None, TicketTruth | None, Ticket | None]:
        # The simulator's sanctioned read of hidden tables (see the module docstring).
        return state.get(PERSONAS, ticket_id), state.get(TRUTHS, ticket_id), state.get(TICKETS, ticket_id)

    @staticmethod
    def _order_number(state: State, truth: TicketTruth) -> str | None:
        if truth.order_id is None:
            return None
        order = state.get(ORDERS, truth.order_id)
        return order.number if order else None

    def _text(self, persona: Persona, truth: TicketTruth, outcome: Assessment, key: str, state: State,
              n: int) -> str:
        order = state.get(ORDERS, truth.order_id) if truth.order_id else None
        line = order.line(truth.line_id) if order and truth.line_id else None
        item = line.name if line else ""
        values = {
            "number": order.number if order else "",
            "item": item or (order.lines[0].name if order else ""),
            "amount": f"{outcome.refunded:.2f} {order.currency}" if order else "",
            "want": phrase(persona.language, f"want_{truth.resolution}", 0),
            "name": persona.name.split()[0] if persona.name else "",
        }
        if key == "confirm":
            if truth.resolution == "deny":
                key = "confirm_deny"
            elif outcome.refunded > 0:
                key = "confirm_refund"
        template = phrase(persona.language, key, _pick(persona, key, n, 2))
        sign = "" if persona.style == "terse" else f"\n\n{values['name']}"
        return template.format(**values) + sign

    @staticmethod
    def _message(ticket: Ticket, persona: Persona, text: str, now: datetime, ids: IdFactory) -> ev.MessagePosted:
        return ev.MessagePosted(message=Message(
            id=ids.next("msg"),
            ticket_id=ticket.id,
            author_kind="customer",
            author_id=ticket.requester_id,
            author_name=persona.name,
            public=True,
            body=text,
            created_at=now,
        ))


RULES: CustomerSimulator = RuleBasedCustomer()
"""The simulator tools use. It is stateless: every fact it needs is in the state."""
