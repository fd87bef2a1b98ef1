"""Building blocks for a domain's reducers.

Most of a domain's events either carry whole records, which the reducer just
stores (`TicketCreated`, `ContactsImported`), or change a record that must
already exist. `stores` and `stores_all` register the first kind in one line
each; `require` fetches the record the second kind changes.

A tool validates every id before it emits, so a reducer that finds a record
missing has met a bug, never an agent's mistake: `require` raises `StateError`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from saas_sim.core.events import Event
from saas_sim.core.state import Entity, Projection, State, TableKey
from saas_sim.errors import StateError

__all__ = ["require", "stores", "stores_all"]

E = TypeVar("E", bound=Entity)
Ev = TypeVar("Ev", bound=Event)


def require(state: State, key: TableKey[E], entity_id: str) -> E:
    """Returns the record `entity_id` of `key`'s table.

    Args:
        state: The state to read.
        key: The record's table.
        entity_id: The record's id.

    Raises:
        StateError: There is no such record.
    """
    entity = state.get(key, entity_id)
    if entity is None:
        raise StateError(f"{key.name} has no record {entity_id!r}")
    return entity


def stores(projection: Projection, event_cls: type[Ev], key: TableKey[E], record: Callable[[Ev], E]) -> None:
    """Registers the reducer of an event that carries one whole record: it puts `record(event)` in `key`.

    Example: `stores(PROJECTION, TicketCreated, TICKETS, lambda e: e.ticket)`.

    Args:
        projection: The domain's projection.
        event_cls: The event class; it must have no reducer yet.
        key: The table the record goes to.
        record: Picks the record out of an event.
    """

    def reduce(state: State, event: Ev) -> State:
        return state.put(key, record(event))

    projection.on(event_cls)(reduce)


def stores_all(
    projection: Projection, event_cls: type[Ev], key: TableKey[E], records: Callable[[Ev], Iterable[E]]
) -> None:
    """Registers the reducer of an event that carries many records (a bulk import): it puts them all in `key`.

    Example: `stores_all(PROJECTION, ContactsImported, CONTACTS, lambda e: e.contacts)`.

    Args:
        projection: The domain's projection.
        event_cls: The event class; it must have no reducer yet.
        key: The table the records go to.
        records: Picks the records out of an event.
    """

    def reduce(state: State, event: Ev) -> State:
        return state.put_many(key, records(event))

    projection.on(event_cls)(reduce)
