"""Typed events, their registry and upcasters, and the stored envelope.

A domain event is a frozen pydantic model registered under a stable name and
a schema version::

    @event("crm.ContactCreated", version=2)
    class ContactCreated(Event):
        contact_id: str
        email: str

The store never keeps the model itself. It keeps a `RecordedEvent` envelope:
stream, version, global position, type, schema version, payload bytes
(faithful JSON, `saas_sim.core.faithful`: decoding gives back the very
values that were encoded), sim time, command id and a hash chained to the previous event of the
stream. Old payloads are upgraded on read by pure upcasters; stored bytes are
never rewritten.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from saas_sim.core.canonical import normalize
from saas_sim.core.faithful import faithful_bytes
from saas_sim.errors import (
    EventError,
    EventValidationError,
    UnknownEventTypeError,
    UnregisteredEventError,
)

__all__ = [
    "DEFAULT_REGISTRY",
    "GENESIS_HASH",
    "Event",
    "EventRegistry",
    "PendingEvent",
    "RecordedEvent",
    "chain_hash",
    "event",
    "upcaster",
]

GENESIS_HASH = "0" * 64
"""The `prev_hash` of the first event of every stream."""

E = TypeVar("E", bound="Event")
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


class Event(BaseModel):
    """Base class of every event: an immutable fact in the past tense."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=False)

    event_type: ClassVar[str] = ""
    schema_version: ClassVar[int] = 0


@dataclass(frozen=True, slots=True)
class PendingEvent:
    """An encoded event waiting to be appended (no position or hash yet)."""

    event_type: str
    schema_version: int
    payload: bytes
    sim_time: str | None


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """The stored envelope of an event.

    Attributes:
        stream_id: The stream the event belongs to.
        version: The 1-based position of the event within its stream.
        global_position: The store-wide position; strictly increasing in commit order.
        event_type: The registered name, such as `crm.ContactCreated`.
        schema_version: The schema version the payload was written with.
        payload: Faithful JSON bytes of the event (`saas_sim.core.faithful`).
        sim_time: The simulated instant of the event (UTC ISO), if any.
        command_id: The idempotency key of the append that wrote it, if any.
        prev_hash: The hash of the previous event of the stream.
        hash: `chain_hash` over this event and `prev_hash`.
    """

    stream_id: str
    version: int
    global_position: int
    event_type: str
    schema_version: int
    payload: bytes
    sim_time: str | None
    command_id: str | None
    prev_hash: str
    hash: str

    def verify(self) -> bool:
        """Returns whether the stored hash matches the stored content."""
        expected = chain_hash(
            self.prev_hash,
            self.version,
            self.event_type,
            self.schema_version,
            self.sim_time,
            self.payload,
        )
        return expected == self.hash


def chain_hash(
    prev_hash: str,
    version: int,
    event_type: str,
    schema_version: int,
    sim_time: str | None,
    payload: bytes,
) -> str:
    """Returns the hash of an event chained to its predecessor.

    The stream id and global position are left out on purpose: a fork that
    copies a prefix and replays the same calls reproduces the same chain.
    """
    h = hashlib.sha256()
    h.update(prev_hash.encode())
    h.update(b"\x1f%d\x1f" % version)
    h.update(event_type.encode())
    h.update(b"\x1f%d\x1f" % schema_version)
    h.update((sim_time or "").encode())
    h.update(b"\x1f")
    h.update(payload)
    return h.hexdigest()


class EventRegistry:
    """Maps stable event names to their current model and upcasters."""

    def __init__(self) -> None:
        self._types: dict[str, type[Event]] = {}
        self._upcasters: dict[tuple[str, int], Upcaster] = {}

    def register(self, cls: type[E], name: str, version: int = 1) -> type[E]:
        """Registers `cls` under `name` at schema `version` and returns it."""
        if version < 1:
            raise EventError(f"schema version of {name!r} must be >= 1")
        existing = self._types.get(name)
        if existing is not None and existing is not cls:
            raise EventError(f"event type {name!r} is already registered by {existing.__name__}")
        cls.event_type = name
        cls.schema_version = version
        self._types[name] = cls
        return cls

    def add_upcaster(self, name: str, from_version: int, fn: Upcaster) -> None:
        """Registers a pure function that turns a `from_version` payload into the next version."""
        key = (name, from_version)
        if key in self._upcasters:
            raise EventError(f"upcaster for {name!r} v{from_version} already registered")
        self._upcasters[key] = fn

    def model_for(self, name: str) -> type[Event]:
        """Returns the model registered under `name`."""
        try:
            return self._types[name]
        except KeyError:
            raise UnknownEventTypeError(name) from None

    def names(self) -> list[str]:
        """Returns the registered event names, sorted."""
        return sorted(self._types)

    def encode(self, ev: Event, sim_time: datetime | None = None, *, revalidate: bool = True) -> PendingEvent:
        """Validates and encodes an event for appending.

        Args:
            ev: The event.
            sim_time: The simulated instant recorded with it.
            revalidate: Validate the event's fields again before encoding. Only code that built
                the event itself through its constructor (the runtime's own records) may pass
                False: it skips a second validation, never the encoding's own checks.

        Raises:
            UnregisteredEventError: The event's class was never registered here.
            EventValidationError: The event's fields do not satisfy its model.
        """
        cls = type(ev)
        if not isinstance(ev, Event) or self._types.get(cls.event_type) is not cls:
            raise UnregisteredEventError(
                f"{cls.__name__} is not a registered event class; decorate it with @event(...)"
            )
        data = ev.model_dump(mode="python", warnings=False)
        try:
            # Re-validate: model_construct() and mutation tricks must not reach the log.
            # The payload is the validated (coerced) form, so one fact has one encoding. It is
            # faithful, not canonical: a state rebuilt from the log must show an agent exactly
            # what the live state showed ("22950.00", not "22950").
            payload = faithful_bytes(cls.model_validate(data).model_dump(mode="python") if revalidate else data)
        except (ValidationError, ValueError) as exc:  # UsageError (a non-finite number) is a ValueError
            raise EventValidationError(f"invalid {cls.event_type} payload: {exc}") from exc
        return PendingEvent(
            event_type=cls.event_type,
            schema_version=cls.schema_version,
            payload=payload,
            sim_time=None if sim_time is None else normalize(sim_time),
        )

    def decode(self, record: RecordedEvent) -> Event:
        """Decodes a stored envelope into the current model, upcasting old versions.

        Raises:
            UnknownEventTypeError: No model is registered for the stored type.
            EventValidationError: The (upcast) payload does not fit the model.
        """
        cls = self._types.get(record.event_type)
        if cls is None:
            raise UnknownEventTypeError(record.event_type, record.schema_version)
        data: dict[str, Any] = json.loads(record.payload)
        version = record.schema_version
        while version < cls.schema_version:
            fn = self._upcasters.get((record.event_type, version))
            if fn is None:
                raise EventError(
                    f"no upcaster for {record.event_type!r} from schema v{version} "
                    f"(current v{cls.schema_version})"
                )
            data = fn(dict(data))
            version += 1
        if version > cls.schema_version:
            raise EventError(
                f"{record.event_type!r} was stored at schema v{version}, newer than this "
                f"code's v{cls.schema_version}"
            )
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise EventValidationError(
                f"stream {record.stream_id!r} version {record.version}: "
                f"{record.event_type} payload does not validate: {exc}"
            ) from exc


DEFAULT_REGISTRY = EventRegistry()
"""The registry `@event` uses unless told otherwise. It holds code, never episode data."""


def event(
    name: str, *, version: int = 1, registry: EventRegistry = DEFAULT_REGISTRY
) -> Callable[[type[E]], type[E]]:
    """Class decorator: registers an event model under a stable name and schema version."""

    def decorate(cls: type[E]) -> type[E]:
        return registry.register(cls, name, version)

    return decorate


def upcaster(
    name: str, from_version: int, *, registry: EventRegistry = DEFAULT_REGISTRY
) -> Callable[[Upcaster], Upcaster]:
    """Function decorator: registers an upcaster from `from_version` to `from_version + 1`."""

    def decorate(fn: Upcaster) -> Upcaster:
        registry.add_upcaster(name, from_version, fn)
        return fn

    return decorate
