"""Events: registry, encoding, the stored envelope's hash, and upcasters applied on read."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest
from pydantic import ValidationError

from saas_sim.core.events import GENESIS_HASH, Event, EventRegistry, RecordedEvent, chain_hash, event, upcaster
from saas_sim.core.store import EventStore
from saas_sim.errors import (
    EventError,
    EventValidationError,
    UnknownEventTypeError,
    UnregisteredEventError,
    UsageError,
)
from tests.conftest import StoreFactory
from tests.core.helpers import raw_fetch

REG = EventRegistry()


@event("ev.Paid", registry=REG)
class Paid(Event):
    invoice_id: str
    amount: Decimal
    at: datetime | None = None


@pytest.fixture
def registry() -> EventRegistry:
    return REG


def _record(payload: bytes, event_type: str = "ev.Paid", schema_version: int = 1, **kw: Any) -> RecordedEvent:
    h = chain_hash(GENESIS_HASH, 1, event_type, schema_version, None, payload)
    fields: dict[str, Any] = {
        "stream_id": "s", "version": 1, "global_position": 1, "event_type": event_type,
        "schema_version": schema_version, "payload": payload, "sim_time": None, "command_id": None,
        "prev_hash": GENESIS_HASH, "hash": h,
    }
    fields.update(kw)
    return RecordedEvent(**fields)


# --- registry -------------------------------------------------------------------------------------


def test_event_decorator_registers_name_and_version() -> None:
    assert Paid.event_type == "ev.Paid" and Paid.schema_version == 1
    assert REG.model_for("ev.Paid") is Paid
    assert "ev.Paid" in REG.names()


def test_a_name_taken_by_another_class_is_rejected() -> None:
    reg = EventRegistry()

    @event("x.A", registry=reg)
    class A(Event):
        n: int

    class B(Event):
        n: int

    with pytest.raises(EventError, match="already registered"):
        reg.register(B, "x.A")
    assert reg.register(A, "x.A") is A


def test_schema_versions_start_at_one() -> None:
    class C(Event):
        n: int

    with pytest.raises(EventError):
        EventRegistry().register(C, "x.C", version=0)


def test_looking_up_an_unknown_name_raises_unknown_event_type() -> None:
    with pytest.raises(UnknownEventTypeError, match=r"'x\.Nope'"):
        REG.model_for("x.Nope")


def test_events_are_frozen_and_reject_unknown_fields() -> None:
    p = Paid(invoice_id="inv_000001", amount=Decimal("1"))
    with pytest.raises(ValidationError):
        p.amount = Decimal("2")  # type: ignore[misc]
    with pytest.raises(ValidationError):
        Paid(invoice_id="inv_000001", amount=Decimal("1"), extra=True)  # type: ignore[call-arg]


# --- encoding -------------------------------------------------------------------------------------


def test_encode_gives_faithful_payload_and_utc_sim_time() -> None:
    at = datetime(2026, 3, 2, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    pending = REG.encode(Paid(invoice_id="inv_000001", amount=Decimal("25.00"), at=at), sim_time=at)
    assert pending.event_type == "ev.Paid" and pending.schema_version == 1
    # Faithful, not canonical: "25.00" and the +02:00 offset survive, so a state rebuilt from the
    # log shows exactly what the live state showed.
    assert pending.payload == b'{"invoice_id":"inv_000001","amount":"25.00","at":"2026-03-02T12:00:00+02:00"}'
    assert pending.sim_time == "2026-03-02T10:00:00Z"


def test_decode_gives_back_exactly_the_encoded_values() -> None:
    at = datetime(2026, 3, 2, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    for amount in (Decimal("25.00"), Decimal(25), Decimal("25.000"), Decimal("0.10")):
        ev = Paid(invoice_id="inv_000001", amount=amount, at=at)
        pending = REG.encode(ev)
        record = RecordedEvent("s", 1, 1, pending.event_type, 1, pending.payload, None, None, GENESIS_HASH, "")
        back = REG.decode(record)
        assert back == ev
        assert str(back.amount) == str(amount)  # the representation an agent would see
        assert back.model_dump_json() == ev.model_dump_json()


def test_encode_rejects_an_unregistered_class_or_a_non_event() -> None:
    class Loose(Event):
        n: int

    with pytest.raises(UnregisteredEventError):
        REG.encode(Loose(n=1))
    with pytest.raises(UnregisteredEventError):
        EventRegistry().encode(Paid(invoice_id="i", amount=Decimal(1)))
    with pytest.raises(UnregisteredEventError):
        REG.encode({"n": 1})  # type: ignore[arg-type]


def test_encode_rejects_a_payload_that_does_not_validate() -> None:
    with pytest.raises(EventValidationError, match=r"ev\.Paid"):
        REG.encode(Paid.model_construct(invoice_id="i", amount="lots"))
    with pytest.raises(EventValidationError):
        REG.encode(Paid.model_construct(invoice_id="i"))
    naive = Paid.model_construct(invoice_id="i", amount=Decimal(1), at=datetime(2026, 1, 1))
    with pytest.raises(EventValidationError):
        REG.encode(naive)


def test_a_naive_sim_time_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="naive"):
        REG.encode(Paid(invoice_id="i", amount=Decimal(1)), sim_time=datetime(2026, 1, 1))


def test_encoding_a_construct_built_event_stores_its_validated_form() -> None:
    loose = Paid.model_construct(invoice_id="inv_000001", amount="25.0", at=None)
    assert REG.encode(loose).payload == REG.encode(Paid(invoice_id="inv_000001", amount=Decimal("25.0"))).payload


def test_decode_round_trips_an_encoded_event() -> None:
    ev = Paid(invoice_id="inv_000001", amount=Decimal("9.99"), at=datetime(2026, 3, 2, tzinfo=UTC))
    assert REG.decode(_record(REG.encode(ev).payload)) == ev


def test_decode_reports_an_unknown_type_with_its_name_and_version() -> None:
    with pytest.raises(UnknownEventTypeError) as info:
        REG.decode(_record(b"{}", event_type="ev.Vanished", schema_version=4))
    assert info.value.event_type == "ev.Vanished"
    assert "'ev.Vanished'" in str(info.value) and "4" in str(info.value)


def test_decode_reports_a_stored_payload_that_no_longer_validates() -> None:
    with pytest.raises(EventValidationError, match=r"stream 's' version 1"):
        REG.decode(_record(b'{"invoice_id":"i"}'))


# --- chain hash -----------------------------------------------------------------------------------


def test_chain_hash_covers_every_stored_field_but_stream_and_position() -> None:
    base = ("p" * 64, 3, "ev.Paid", 1, "2026-03-02T09:00:00Z", b'{"a":1}')
    h = chain_hash(*base)
    for i, other in enumerate(["q" * 64, 4, "ev.Other", 2, None, b'{"a":2}']):
        changed = list(base)
        changed[i] = other
        assert chain_hash(*changed) != h, f"field {i} is not covered"
    rec = _record(b"{}")
    assert rec.verify()
    assert replace(rec, stream_id="fork", global_position=99).verify()


def test_chain_hash_fields_cannot_bleed_into_each_other() -> None:
    assert chain_hash("a" * 64, 1, "t", 1, "x", b"y") != chain_hash("a" * 64, 1, "t", 1, "", b"xy")
    assert chain_hash("a" * 64, 1, "t", 11, None, b"") != chain_hash("a" * 64, 11, "t", 1, None, b"")


def test_verify_detects_a_changed_payload_or_hash() -> None:
    rec = _record(b'{"amount":"1","at":null,"invoice_id":"i"}')
    assert not _record(b'{"amount":"2","at":null,"invoice_id":"i"}', hash=rec.hash).verify()
    assert not _record(rec.payload, hash="0" * 64).verify()


# --- upcasters ------------------------------------------------------------------------------------


def _v1_registry() -> EventRegistry:
    old = EventRegistry()

    @event("ev.Signup", registry=old)
    class SignupV1(Event):
        name: str

    return old


def _v3_registry() -> tuple[EventRegistry, type[Event]]:
    new = EventRegistry()

    @event("ev.Signup", version=3, registry=new)
    class Signup(Event):
        first_name: str
        last_name: str
        plan: str

    @upcaster("ev.Signup", 1, registry=new)
    def split_name(data: dict[str, Any]) -> dict[str, Any]:
        first, _, last = data.pop("name").partition(" ")
        data["first_name"], data["last_name"] = first, last
        return data

    @upcaster("ev.Signup", 2, registry=new)
    def add_plan(data: dict[str, Any]) -> dict[str, Any]:
        return {**data, "plan": "free"}

    return new, Signup


def test_an_old_payload_is_upcast_step_by_step_to_the_current_model() -> None:
    old = _v1_registry()
    new, signup = _v3_registry()
    pending = old.encode(old.model_for("ev.Signup")(name="Ada Lovelace"))
    rec = _record(pending.payload, event_type="ev.Signup", schema_version=1)
    assert new.decode(rec) == signup(first_name="Ada", last_name="Lovelace", plan="free")
    v2 = _record(b'{"first_name":"A","last_name":"B"}', event_type="ev.Signup", schema_version=2)
    assert new.decode(v2) == signup(first_name="A", last_name="B", plan="free")
    assert rec.payload == pending.payload and rec.verify()


def test_a_missing_upcaster_or_a_newer_stored_version_is_an_event_error() -> None:
    new = EventRegistry()

    @event("ev.Gap", version=3, registry=new)
    class Gap(Event):
        n: int

    @upcaster("ev.Gap", 2, registry=new)
    def two_to_three(data: dict[str, Any]) -> dict[str, Any]:
        return data

    with pytest.raises(EventError, match="no upcaster"):
        new.decode(_record(b'{"n":1}', event_type="ev.Gap", schema_version=1))
    with pytest.raises(EventError, match="newer"):
        new.decode(_record(b'{"n":1}', event_type="ev.Gap", schema_version=4))
    assert new.decode(_record(b'{"n":1}', event_type="ev.Gap", schema_version=2)) == Gap(n=1)


def test_an_upcaster_is_registered_once() -> None:
    new, _ = _v3_registry()
    with pytest.raises(EventError):
        new.add_upcaster("ev.Signup", 1, lambda d: d)


async def test_stored_v1_events_read_as_v2_and_their_bytes_are_never_rewritten(
    durable_store_url: str, open_stores: StoreFactory
) -> None:
    old = _v1_registry()
    writer = await open_stores(durable_store_url, registry=old)
    v1 = old.model_for("ev.Signup")
    await writer.append("u", [v1(name="Ada Lovelace"), v1(name="Grace Hopper")], 0)
    before = await writer.read("u")
    await writer.close()

    new, signup = _v3_registry()
    reader = await open_stores(durable_store_url, registry=new)
    assert await reader.read_events("u") == [
        signup(first_name="Ada", last_name="Lovelace", plan="free"),
        signup(first_name="Grace", last_name="Hopper", plan="free"),
    ]
    after = await reader.read("u")
    assert after == before
    assert [json.loads(r.payload) for r in after] == [{"name": "Ada Lovelace"}, {"name": "Grace Hopper"}]
    assert [r.schema_version for r in after] == [1, 1]
    # New events are written at the current version, after the old ones, on the same chain.
    await reader.append("u", [signup(first_name="Alan", last_name="Turing", plan="pro")], 2)
    rows = await reader.read("u")
    assert [r.schema_version for r in rows] == [1, 1, 3]
    assert rows[2].prev_hash == before[-1].hash


async def test_reading_upcast_events_leaves_the_stored_rows_untouched(store: EventStore) -> None:
    old = _v1_registry()
    new, _ = _v3_registry()
    store.registry = old
    await store.append("u", [old.model_for("ev.Signup")(name="Ada Lovelace")], 0)
    raw_before = await raw_fetch(store, "SELECT payload, schema_version, hash FROM events")
    store.registry = new
    for _ in range(2):
        await store.read_events("u")
    assert await raw_fetch(store, "SELECT payload, schema_version, hash FROM events") == raw_before
    assert bytes(raw_before[0][0]) == b'{"name":"Ada Lovelace"}'
