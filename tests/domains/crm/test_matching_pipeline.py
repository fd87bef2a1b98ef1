"""Normalization, duplicate matching and pipeline rules."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from saas_sim.domains.crm.matching import (
    canonical_first_name,
    edit_distance_at_most_one,
    fold,
    norm_company,
    phone_digits,
)
from saas_sim.domains.crm.models import Deal
from saas_sim.domains.crm.pipeline import OPEN_STAGES, allowed_moves, missing_fields

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_fold_strips_case_accents_and_spaces() -> None:
    assert fold("  Jürgen   MÜLLER ") == "jurgen muller"
    assert fold("Groß") == "gross"


def test_nicknames_map_to_formal_names() -> None:
    assert canonical_first_name("Bob") == canonical_first_name("ROBERT") == "robert"


def test_company_names_ignore_suffixes_and_punctuation() -> None:
    assert norm_company("  ACME, Inc. ") == norm_company("Acme") == "acme"
    assert norm_company("Inc") == "inc"


def test_phone_digits_ignore_format_and_country_code() -> None:
    assert phone_digits("+1 (415) 555-0134") == phone_digits("415.555.0134")
    assert phone_digits("12") == ""


@pytest.mark.parametrize(("a", "b", "ok"), [
    ("smith", "smith", True), ("smith", "smyth", True), ("smith", "smiht", True),
    ("smith", "smit", True), ("smith", "smiths", True), ("smith", "jones", False), ("smith", "smtih x", False),
])
def test_edit_distance(a: str, b: str, ok: bool) -> None:
    assert edit_distance_at_most_one(a, b) is ok


def _deal(stage: str, **kw: object) -> Deal:
    base: dict[str, object] = {
        "id": "dl_000001", "name": "d", "account_id": "acc_000001", "owner_id": "usr_000001", "stage": stage,
        "amount": None, "currency": "USD", "close_date": None, "primary_contact_id": None, "next_step": None,
        "created_at": T0, "updated_at": T0, "stage_changed_at": T0,
    }
    base.update(kw)
    return Deal.model_validate(base)


def test_open_deals_move_one_stage_forward_or_back() -> None:
    assert allowed_moves("discovery") == ("prospecting", "qualification", "proposal", "closed_lost")
    assert allowed_moves("negotiation")[-2:] == ("closed_won", "closed_lost")
    assert allowed_moves("closed_won") == ()
    assert allowed_moves("closed_lost") == ("prospecting",)
    for stage in OPEN_STAGES:
        assert "closed_lost" in allowed_moves(stage)


def test_required_fields_accumulate() -> None:
    assert missing_fields(_deal("prospecting"), "closed_won") == ["primary_contact_id", "close_date", "amount"]
    full = _deal("negotiation", amount=Decimal("10"), close_date=date(2026, 4, 1), primary_contact_id="ct_000001",
                 next_step="  ")
    assert missing_fields(full, "negotiation") == ["next_step"]
    assert missing_fields(full.model_copy(update={"amount": Decimal(0)}), "proposal") == ["amount"]
