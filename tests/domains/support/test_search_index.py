"""The support desk's indexed lookups return exactly what a full scan returns, on the world and after edits."""

from __future__ import annotations

import random
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from saas_sim.domains.support.customer_text import ascii_slug
from saas_sim.domains.support.models import ACTIVE_STATUSES, Customer, Ticket
from saas_sim.domains.support.plain_text import plain
from saas_sim.domains.support.search_index import ticket_sort_key
from saas_sim.domains.support.state import CUSTOMERS, MESSAGES, ORDERS, TICKETS, sla_state
from saas_sim.domains.support.views_customers import CustomerPage
from saas_sim.domains.support.views_tickets import TicketPage, TicketSummary
from tests.domains.support.conftest import Desk, support_world

STATUSES = ["new", "open", "pending", "on-hold", "solved", "closed"]


def _edit(desk: Desk, rng: random.Random, n: int) -> None:
    """Changes random tickets (status, group, tags, assignee, requester) and customers (name, phone, email)."""
    tickets = desk.state.table(TICKETS).values()
    customers = desk.state.table(CUSTOMERS).values()
    for k in range(n):
        t = rng.choice(tickets)
        desk.state = desk.state.put(TICKETS, Ticket.model_validate({**t.model_dump(),
            "status": rng.choice(STATUSES), "group": rng.choice(["general", "billing", "vip"]),
            "tags": tuple(rng.sample(["refund", "damaged", "vip", "late"], rng.randint(0, 2))),
            "assignee_id": rng.choice([None, t.assignee_id]), "requester_id": rng.choice(customers).id
        }))
        c = rng.choice(customers)
        desk.state = desk.state.put(CUSTOMERS, Customer.model_validate({**c.model_dump(),
            "name": rng.choice([c.name, "Zoë Ångström", c.name.upper()]),
            "phone": rng.choice([c.phone, f"+1 555 01{k:02d}"]),
            "email": rng.choice([c.email, c.email.upper(), f"x{k}@example.org"])
        }))


def _scan_customer_view(desk: Desk, c: Customer) -> tuple[int, int]:
    orders = sum(1 for o in desk.state.table(ORDERS) if o.customer_id == c.id)
    open_tickets = sum(1 for t in desk.state.table(TICKETS) if t.requester_id == c.id and t.status in ACTIVE_STATUSES)
    return orders, open_tickets


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), edits=st.sampled_from([0, 3, 30]))
def test_indexed_support_lookups_equal_a_scan(seed: int, edits: int) -> None:
    world = support_world(0)
    desk = Desk(world.state, world.profile.epoch)
    rng = random.Random(seed)
    _edit(desk, rng, edits)
    c = rng.choice(desk.state.table(CUSTOMERS).values())
    for args in [{"name": c.name.split()[-1]}, {"email": f" {c.email.upper()} "}, {"phone": c.phone[-6:]},
                 {"name": c.name[:2], "phone": "5"}, {"name": "ö"}]:
        page = desk.call("support.search_customers", **args)
        words = [ascii_slug(w) for w in (args.get("name") or "").split() if ascii_slug(w)]
        digits = re.sub(r"\D", "", args.get("phone") or "")
        email = args.get("email")
        rows = [x for x in desk.state.table(CUSTOMERS)
                if not (email and x.email.lower() != email.strip().lower())
                and not (words and not all(w in ascii_slug(x.name) for w in words))
                and not (digits and digits not in re.sub(r"\D", "", x.phone))]
        rows.sort(key=lambda x: (ascii_slug(x.name), x.id))  # by name (no tie salt outside an episode: then id)
        assert [i.id for i in page.items] == [x.id for x in rows][:20] and page.total == len(rows)
        assert isinstance(page, CustomerPage)
        for item in page.items:
            record = desk.state.get(CUSTOMERS, item.id)
            assert record is not None
            assert (item.order_count, item.open_ticket_count) == _scan_customer_view(desk, record)
    t = rng.choice(desk.state.table(TICKETS).values())
    for targs in [{}, {"status": ["new", "open"]}, {"status": []}, {"group": t.group, "sort": "priority"},
                  {"requester_id": t.requester_id, "sort": "-created_at"},
                  {"assignee_id": "unassigned", "sort": "sla_due"},
                  {"tag": "refund", "priority": ["high", "urgent"], "limit": 5}, {"sla_state": "breached"}]:
        page = desk.call("support.list_tickets", **targs)
        parsed: Any = desk.parse("support.list_tickets", targs)[1]
        now = desk.now

        def keep(x: Ticket, a: Any = parsed, now: Any = now) -> bool:
            want = None if a.assignee_id == "unassigned" else a.assignee_id
            return ((a.status is None or x.status in a.status) and (a.priority is None or x.priority in a.priority)
                    and (a.group is None or x.group == a.group) and (a.tag is None or a.tag in x.tags)
                    and (a.requester_id is None or x.requester_id == a.requester_id)
                    and (a.assignee_id is None or x.assignee_id == want)
                    and (a.sla_state is None or sla_state(x, now) == a.sla_state))

        expected = TicketPage.of([x for x in desk.state.table(TICKETS) if keep(x)], ticket_sort_key(parsed.sort),
                                 parsed, view=lambda x, now=now: TicketSummary.of(x, now))
        assert page.model_dump(mode="json") == expected.model_dump(mode="json"), targs
    o = rng.choice(desk.state.table(ORDERS).values())
    assert desk.call("support.get_order", order_id=f"#{o.number}").id == min(
        x.id for x in desk.state.table(ORDERS) if x.number == o.number)
    listed = desk.call("support.list_customer_orders", customer_id=o.customer_id, limit=100)
    assert [x.id for x in listed.items] == [x.id for x in sorted(
        (x for x in desk.state.table(ORDERS) if x.customer_id == o.customer_id),
        key=lambda x: (-int(x.placed_at.timestamp()), x.id))]


def _scan_search(desk: Desk, query: str, status: list[str] | None) -> list[str]:
    """`support.search_tickets`' own predicate over every ticket, newest first (its documented order)."""
    words = [w for w in plain(query).split(" ") if any(ch.isalnum() for ch in w)]
    messages = desk.state.table(MESSAGES)
    hits = []
    for t in desk.state.table(TICKETS):
        if status is not None and t.status not in status:
            continue
        bodies = " ".join(m.body for m in (messages.get(i) for i in t.message_ids) if m is not None)
        text = plain(f"{t.subject} {t.requester_email} {bodies}")
        if all(w in text for w in words):
            hits.append(t)
    return [t.id for t in sorted(hits, key=lambda t: (-int(t.created_at.timestamp()), t.id))]


def _edit_threads(desk: Desk, rng: random.Random, n: int) -> None:
    """Rewrites message bodies (HTML, entities, new words), moves messages between threads, renames subjects."""
    tickets = desk.state.table(TICKETS).values()
    messages = desk.state.table(MESSAGES).values()
    for k in range(n):
        m = rng.choice(messages)
        desk.state = desk.state.put(MESSAGES, m.model_copy(update={"body": rng.choice([
            f"<p>Zebra&amp;quartz {k}</p>", m.body.upper(), "plain words only", f"{m.body} xylophone"])}))
        a, b = rng.sample(tickets, 2)
        a, b = desk.state.get(TICKETS, a.id), desk.state.get(TICKETS, b.id)
        assert a is not None and b is not None
        if a.message_ids:  # a merge-like move: b's thread takes a's last message
            moved = a.message_ids[-1]
            desk.state = desk.state.put(TICKETS, a.model_copy(update={"message_ids": a.message_ids[:-1]}))
            desk.state = desk.state.put(TICKETS, b.model_copy(update={"message_ids": (*b.message_ids, moved)}))
        t = rng.choice(tickets)
        current = desk.state.get(TICKETS, t.id)
        assert current is not None
        desk.state = desk.state.put(TICKETS, current.model_copy(update={
            "subject": rng.choice([current.subject, "Quartz zebra", current.subject.lower()]),
            "status": rng.choice(STATUSES)}))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), edits=st.sampled_from([0, 4, 40]))
def test_indexed_ticket_search_equals_a_scan(seed: int, edits: int) -> None:
    world = support_world(0)
    desk = Desk(world.state, world.profile.epoch)
    rng = random.Random(seed)
    _edit_threads(desk, rng, edits)
    t = rng.choice(desk.state.table(TICKETS).values())
    subject_word = next((w for w in plain(t.subject).split(" ") if len(w) > 3), "order")
    queries = [subject_word, t.requester_email, "zebra quartz", "xylophone", "order damaged", "ZEBRA&amp;",
               f"{subject_word} {t.requester_email.split('@')[0]}", "no-such-word-anywhere", "a b"]
    for query in queries:
        for status in (None, ["new", "open"]):
            args: dict[str, Any] = {"query": query, "limit": 100}
            if status is not None:
                args["status"] = status
            page = desk.call("support.search_tickets", **args)
            expected = _scan_search(desk, query, status)
            assert [i.id for i in page.items] == expected[:100] and page.total == len(expected), (query, status)
