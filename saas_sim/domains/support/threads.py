"""Reading ticket threads: plain text of a message, and the agent's public replies on a ticket.

Shared by the outcome assessment, the reply facts and the checks, so every
reader sees the same thread (a ticket and the tickets merged with it).
"""

from __future__ import annotations

import html
import re

from saas_sim.core.state import State
from saas_sim.domains.support.models import Message, Ticket
from saas_sim.domains.support.state import MESSAGES, TICKETS

__all__ = ["agent_replies", "related_tickets", "reply_text"]

_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"[ \t\r\f\v]+")


def reply_text(text: str) -> str:
    """Returns `text` without HTML tags or entities, with single spaces (newlines and case kept)."""
    no_tags = html.unescape(_TAG.sub(" ", text))
    return "\n".join(_SPACE.sub(" ", line).strip() for line in no_tags.splitlines()).strip()


def related_tickets(state: State, ticket: Ticket) -> list[Ticket]:
    """Returns the ticket and the tickets merged into or with it, in id order."""
    tickets = state.table(TICKETS)
    ids = {ticket.id, *ticket.merged_from}
    if ticket.merged_into:
        ids.add(ticket.merged_into)
    return [t for t in (tickets.get(i) for i in sorted(ids)) if t is not None]


def agent_replies(state: State, ticket: Ticket) -> list[Message]:
    """Returns public agent messages on a ticket and on tickets merged with it, in id order."""
    messages = state.table(MESSAGES)
    out: list[Message] = []
    for t in related_tickets(state, ticket):
        for mid in t.message_ids:
            m = messages.get(mid)
            if m is not None and m.public and m.author_kind == "agent":
                out.append(m)
    return sorted(out, key=lambda m: m.id)
