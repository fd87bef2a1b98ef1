"""Readable, deterministic ids: `ct_000042`."""

from __future__ import annotations

import pytest

from saas_sim.core.ids import IdFactory, format_id, parse_id
from saas_sim.errors import UsageError


def test_ids_are_a_prefix_and_a_zero_padded_number() -> None:
    assert format_id("ct", 42) == "ct_000042"
    assert format_id("tkt", 17) == "tkt_000017"
    assert format_id("x1", 1_234_567) == "x1_1234567"


@pytest.mark.parametrize(("prefix", "number"), [("CT", 1), ("", 1), ("1ct", 1), ("c_t", 1), ("a" * 13, 1),
                                                ("ct", 0), ("ct", -5)])
def test_bad_prefixes_and_numbers_are_rejected(prefix: str, number: int) -> None:
    with pytest.raises(UsageError):
        format_id(prefix, number)


def test_parse_id_inverts_format_id_and_refuses_other_strings() -> None:
    assert parse_id("ct_000042") == ("ct", 42)
    assert parse_id("tkt_1234567") == ("tkt", 1234567)
    for other in ("ct_42", "ct-000042", "CT_000042", "ct_000042x", "manual", ""):
        assert parse_id(other) is None


def test_a_factory_allocates_in_order_per_prefix() -> None:
    ids = IdFactory()
    assert [ids.next("ct"), ids.next("ct"), ids.next("tkt"), ids.next("ct")] == [
        "ct_000001", "ct_000002", "tkt_000001", "ct_000003"
    ]
    assert ids.counters() == {"ct": 3, "tkt": 1}


def test_peek_does_not_allocate() -> None:
    ids = IdFactory()
    assert ids.peek("dl") == "dl_000001" == ids.peek("dl")
    assert ids.next("dl") == "dl_000001"


def test_a_factory_continues_from_known_counters_and_shares_nothing() -> None:
    counters = {"ct": 41}
    ids = IdFactory(counters)
    assert ids.next("ct") == "ct_000042"
    assert counters == {"ct": 41}
    snapshot = ids.counters()
    ids.next("ct")
    assert snapshot == {"ct": 42}


def test_a_bad_prefix_does_not_advance_the_counter() -> None:
    ids = IdFactory()
    with pytest.raises(UsageError):
        ids.next("Bad")
    assert ids.counters() == {}


def test_ids_sort_in_creation_order() -> None:
    ids = IdFactory()
    made = [ids.next("ct") for _ in range(1500)]
    assert sorted(made) == made
