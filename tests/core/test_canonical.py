"""Canonical JSON and hashing: equal meaning, equal bytes, in any process."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from enum import Enum, IntEnum, StrEnum
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from saas_sim.core.canonical import canonical_bytes, canonical_decimal, normalize, sha256_hex, stable_hash
from saas_sim.errors import UsageError


class Color(Enum):
    RED = "red"


class Level(IntEnum):
    HIGH = 3


class Stage(StrEnum):
    WON = "won"


class Money(BaseModel):
    amount: Decimal
    currency: str


def test_an_integral_float_and_an_int_encode_alike() -> None:
    assert canonical_bytes(25) == canonical_bytes(25.0) == b"25"
    assert canonical_bytes({"price": 25}) == canonical_bytes({"price": 25.0})
    assert stable_hash([1, 2.0, -0.0]) == stable_hash([1, 2, 0])
    assert canonical_bytes(2.5) == b"2.5"
    assert canonical_bytes(1e20) == canonical_bytes(10**20)


@pytest.mark.parametrize(
    ("value", "text"),
    [("25.00", "25"), ("25.50", "25.5"), ("0.10", "0.1"), ("1E+2", "100"), ("-0.00", "0"), ("0E-8", "0"),
     ("-12.3400", "-12.34"), ("1234567890.000000001", "1234567890.000000001"), ("1e-7", "0.0000001")],
)
def test_decimals_are_written_as_plain_normalized_fixed_point(value: str, text: str) -> None:
    assert canonical_decimal(Decimal(value)) == text
    assert canonical_bytes(Decimal(value)) == f'"{text}"'.encode()


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), Decimal("NaN"), Decimal("Infinity")])
def test_non_finite_numbers_are_rejected(bad: Any) -> None:
    with pytest.raises(UsageError):
        canonical_bytes({"x": bad})


def test_a_naive_datetime_is_rejected() -> None:
    with pytest.raises(UsageError, match="naive"):
        canonical_bytes({"at": datetime(2026, 3, 2, 9, 0)})


def test_aware_datetimes_become_utc_with_a_z_suffix() -> None:
    paris = datetime(2026, 3, 2, 10, 0, tzinfo=timezone(timedelta(hours=1)))
    utc = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    assert normalize(paris) == normalize(utc) == "2026-03-02T09:00:00Z"
    assert normalize(datetime(2026, 3, 2, 9, 0, 0, 500, tzinfo=UTC)) == "2026-03-02T09:00:00.000500Z"
    assert normalize(date(2026, 3, 2)) == "2026-03-02"


@given(st.datetimes(datetime(1900, 1, 1), datetime(2200, 1, 1), timezones=st.timezones()),
       st.integers(-14 * 60, 14 * 60))
def test_a_datetime_normalizes_as_its_utc_instant_whatever_was_normalized_before(moment: datetime,
                                                                                 minutes: int) -> None:
    # normalize caches datetimes: the same instant in another offset (equal, and hashing alike) must
    # read the same, and a naive datetime must be refused every time, never served from the cache.
    if moment.utcoffset() is None:
        return
    expected = moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
    shifted = moment.astimezone(timezone(timedelta(minutes=minutes)))
    assert normalize(moment) == normalize(shifted) == normalize([shifted])[0] == expected
    naive = moment.replace(tzinfo=None)
    for _ in range(2):
        with pytest.raises(UsageError, match="naive"):
            normalize(naive)


def test_key_order_never_changes_the_bytes() -> None:
    a = {"b": 1, "a": {"y": [1, {"d": 1, "c": 2}], "x": None}}
    b = OrderedDict([("a", OrderedDict([("x", None), ("y", [1, {"c": 2, "d": 1}])])), ("b", 1)])
    assert canonical_bytes(a) == canonical_bytes(b) == b'{"a":{"x":null,"y":[1,{"c":2,"d":1}]},"b":1}'


def test_sets_are_sorted_and_tuples_are_lists() -> None:
    assert canonical_bytes({"tags": {"b", "c", "a"}}) == b'{"tags":["a","b","c"]}'
    assert canonical_bytes(frozenset({3, 1, 2})) == b"[1,2,3]"
    assert canonical_bytes((1, "a")) == canonical_bytes([1, "a"])


def test_enums_models_and_text_encode_by_value() -> None:
    assert canonical_bytes([Color.RED, Level.HIGH, Stage.WON]) == b'["red",3,"won"]'
    assert canonical_bytes(Money(amount=Decimal("10.50"), currency="EUR")) == b'{"amount":"10.5","currency":"EUR"}'
    assert canonical_bytes("Zoë ✓") == '"Zoë ✓"'.encode()
    assert canonical_bytes([True, False, None]) == b"[true,false,null]"


def test_unsupported_types_are_rejected() -> None:
    for bad in (object(), b"bytes", 1j):
        with pytest.raises(UsageError):
            canonical_bytes(bad)


def test_stable_hash_is_the_sha256_of_the_canonical_bytes_and_is_pinned() -> None:
    value = {"b": [1, 2.0, Decimal("3.10")], "a": "x"}
    assert canonical_bytes(value) == b'{"a":"x","b":[1,2,"3.1"]}'
    assert stable_hash(value) == hashlib.sha256(b'{"a":"x","b":[1,2,"3.1"]}').hexdigest()
    assert stable_hash(value) == "0509d83a0914dd9db1fc9ca65a95cfbbf429521e51f94879ba436ff68adfae36"
    assert sha256_hex(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6)
    | st.decimals(allow_nan=False, allow_infinity=False, places=3),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=5), json_values, max_size=6), st.randoms(use_true_random=False))
def test_any_key_order_gives_the_same_bytes(data: dict[str, Any], rnd: Any) -> None:
    items = list(data.items())
    rnd.shuffle(items)
    assert canonical_bytes(dict(items)) == canonical_bytes(data)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-(2**53), max_value=2**53))
def test_an_int_and_its_float_hash_alike(n: int) -> None:
    assert stable_hash({"n": n}) == stable_hash({"n": float(n)})


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=-(10**20), max_value=10**20), st.integers(-6, 6), st.integers(0, 6))
def test_trailing_zeros_never_change_a_decimal(digits: int, exponent: int, zeros: int) -> None:
    d = Decimal(digits).scaleb(exponent)
    sign, ds, exp = d.as_tuple()
    assert isinstance(exp, int)
    padded = Decimal((sign, (*ds, *([0] * zeros)), exp - zeros))
    assert padded == d
    assert canonical_bytes(padded) == canonical_bytes(d)
