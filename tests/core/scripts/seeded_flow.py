"""A seeded flow through every determinism primitive, and a canonical dump of what it stored.

usage: python -m tests.core.scripts.seeded_flow STORE_URL [SEED]

It derives contacts, deals and stage changes from one seed (seed tree,
named random streams, seeded Faker, id factory, virtual clock), appends them
to the store with sim times and command ids, folds them into a `State`, and
prints one line of canonical JSON: every stored envelope, every stream head and
the state's content hash. Two runs must print the same bytes, whatever the
process, `PYTHONHASHSEED` or backend.
"""

from __future__ import annotations

import asyncio
import sys
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from saas_sim.core.canonical import canonical_bytes
from saas_sim.core.clock import SimClock
from saas_sim.core.events import Event, EventRegistry, event
from saas_sim.core.ids import IdFactory
from saas_sim.core.rng import SeedTree
from saas_sim.core.state import Entity, Projection, State, TableKey
from saas_sim.core.store import EventStore, open_store

REG = EventRegistry()


@event("flow.ContactCreated", registry=REG)
class ContactCreated(Event):
    contact_id: str
    name: str
    email: str
    company: str
    tags: frozenset[str]
    credit: Decimal
    since: datetime


@event("flow.DealOpened", registry=REG)
class DealOpened(Event):
    deal_id: str
    contact_id: str
    amount: Decimal
    probability: float


@event("flow.DealStageChanged", registry=REG)
class DealStageChanged(Event):
    deal_id: str
    stage: str


class Contact(Entity):
    name: str
    email: str
    tags: frozenset[str]
    credit: Decimal


class Deal(Entity):
    contact_id: str
    amount: Decimal
    stage: str
    probability: float


CONTACTS = TableKey("contacts", Contact)
DEALS = TableKey("deals", Deal)
PROJECTION = Projection("flow")


@PROJECTION.on(ContactCreated)
def _contact_created(state: State, ev: ContactCreated) -> State:
    return state.put(CONTACTS, Contact(id=ev.contact_id, name=ev.name, email=ev.email, tags=ev.tags,
                                       credit=ev.credit))


@PROJECTION.on(DealOpened)
def _deal_opened(state: State, ev: DealOpened) -> State:
    return state.put(DEALS, Deal(id=ev.deal_id, contact_id=ev.contact_id, amount=ev.amount, stage="open",
                                 probability=ev.probability))


@PROJECTION.on(DealStageChanged)
def _deal_stage_changed(state: State, ev: DealStageChanged) -> State:
    deal = state.get(DEALS, ev.deal_id)
    assert deal is not None
    return state.put(DEALS, deal.model_copy(update={"stage": ev.stage}))


STAGES = ("qualified", "proposal", "negotiation", "won", "lost")
TAGS = ("vip", "churn-risk", "partner", "trial", "enterprise", "smb")


def build_flow(seed: int | str) -> list[tuple[str, list[Event], datetime, str]]:
    """Returns (stream, events, sim_time, command_id) appends, all derived from `seed`."""
    tree, clock, ids = SeedTree(seed), SimClock(), IdFactory()
    people = tree.faker("people")
    rng = tree.random("deals")
    stage_rng = tree.child("stages").random("pick")
    appends: list[tuple[str, list[Event], datetime, str]] = []
    deals: list[str] = []
    for step in range(40):
        now = clock.advance(timedelta(seconds=rng.randint(1, 3600)))
        roll = rng.random()
        if roll < 0.4 or not deals:
            cid = ids.next("ct")
            tags = frozenset(rng.sample(TAGS, rng.randint(0, 3)))
            evs: list[Event] = [ContactCreated(
                contact_id=cid, name=people.name(), email=people.email(), company=people.company(), tags=tags,
                credit=Decimal(rng.randint(0, 10**6)) / 100, since=now - timedelta(days=rng.randint(0, 900)),
            )]
            if rng.random() < 0.5:
                did = ids.next("dl")
                deals.append(did)
                evs.append(DealOpened(deal_id=did, contact_id=cid, amount=Decimal(f"{rng.randint(1, 99999)}.50"),
                                      probability=rng.choice([0.25, 0.5, 1.0, 0.1])))
            appends.append((f"contacts/{cid}", evs, now, f"call-{step:03d}"))
        else:
            did = stage_rng.choice(deals)
            appends.append((f"deals/{did}", [DealStageChanged(deal_id=did, stage=stage_rng.choice(STAGES))], now,
                            f"call-{step:03d}"))
    return appends


async def run_flow(store: EventStore, seed: int | str) -> dict[str, Any]:
    """Appends the flow to `store` and returns the canonical summary of what was stored."""
    versions: dict[str, int] = {}
    state = State()
    for stream, evs, now, command_id in build_flow(seed):
        result = await store.append(stream, evs, versions.get(stream, 0), command_id, sim_time=now)
        versions[stream] = result.last_version
        state = PROJECTION.fold(state, evs)
    rows = []
    cursor = 0
    while batch := await store.read_all(after=cursor, limit=100):
        rows.extend(batch)
        cursor = batch[-1].global_position
    replayed = PROJECTION.fold(State(), [REG.decode(r) for r in rows])
    assert replayed.content_hash() == state.content_hash()
    heads = {stream: (await store.read(stream))[-1].hash for stream in sorted(versions)}
    return {
        "log": [
            [r.global_position, r.stream_id, r.version, r.event_type, r.schema_version, r.payload.decode(),
             r.sim_time, r.command_id, r.prev_hash, r.hash]
            for r in rows
        ],
        "heads": heads,
        "state_hash": state.content_hash(),
    }


async def _main(url: str, seed: str) -> None:
    async with await open_store(url, registry=REG) as store:
        summary = await run_flow(store, seed)
    sys.stdout.buffer.write(canonical_bytes(summary) + b"\n")


if __name__ == "__main__":
    asyncio.run(_main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "20260302"))
