"""A writer for the SIGKILL test: appends batches forever until it is killed.

usage: crash_writer.py STORE_URL BATCH_SIZE CYCLE

Eight tasks append batches of BATCH_SIZE events to their own streams. Each
batch's command id is its batch id; the writer prints `committed <batch id>`
once the append returned, so the parent knows which batches were acknowledged.
"""

from __future__ import annotations

import asyncio
import sys

from saas_sim.core.events import Event, EventRegistry, event
from saas_sim.core.store import open_store

REG = EventRegistry()


@event("crash.Item", registry=REG)
class Item(Event):
    batch: str
    i: int
    filler: str


async def main(url: str, size: int, cycle: str) -> None:
    store = await open_store(url, registry=REG)

    async def worker(w: int) -> None:
        k = 0
        while True:
            batch_id = f"c{cycle}-w{w}-b{k}"
            events = [Item(batch=batch_id, i=i, filler="x" * 300) for i in range(size)]
            await store.append(f"stream-{w}", events, None, command_id=batch_id)
            print("committed", batch_id, flush=True)
            k += 1

    try:
        await asyncio.gather(*(worker(w) for w in range(8)))
    finally:
        await store.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
