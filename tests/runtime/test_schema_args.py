"""Which ids and paths an attack agent tries in which argument: the schema's example, the domains' id kinds, shapes."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from saas_sim.runtime.schema_args import (
    example_prefix,
    fill_args,
    fits_field,
    harvest_ids,
    is_path,
    ref_fields,
    text_ids,
)

KINDS = {"ord": "order", "ol": "order_line", "tkt": "ticket", "cus": "customer"}
SCHEMA = {
    "properties": {
        "deal_id": {"type": "string", "description": "The deal's id, such as dl_000042."},
        "order_id": {"type": "string", "description": "The order."},
        "line_id": {"type": "string"},
        "ticket_ids": {"type": "array"},
        "assignee_id": {"type": "string"},
    }
}


def test_an_example_in_the_description_decides_the_prefix() -> None:
    assert example_prefix(SCHEMA["properties"]["deal_id"]) == "dl_"
    assert fits_field(SCHEMA, "deal_id", "dl_000007", KINDS)
    assert not fits_field(SCHEMA, "deal_id", "tkt_000007", KINDS)


def test_a_field_named_for_a_declared_kind_takes_only_ids_of_that_kind() -> None:
    assert fits_field(SCHEMA, "order_id", "ord_000003", KINDS)
    assert not fits_field(SCHEMA, "order_id", "tkt_000003", KINDS)
    assert fits_field(SCHEMA, "line_id", "ol_000009", KINDS)  # `line` names the kind order_line
    assert not fits_field(SCHEMA, "line_id", "cus_000009", KINDS)
    assert fits_field(SCHEMA, "ticket_ids", "tkt_000001", KINDS)


def test_a_field_that_names_no_kind_takes_any_id() -> None:
    assert fits_field(SCHEMA, "assignee_id", "tkt_000001", KINDS)
    assert fits_field(SCHEMA, "order_id", "tkt_000001", {})  # no kinds declared: nothing to go by


FILES = {
    "properties": {
        "path": {"type": "string"}, "dst": {"type": "string"}, "content": {"type": "string"},
        "note_id": {"type": "string"},
    },
    "required": ["path", "dst", "content", "note_id"],
}


def test_file_paths_go_only_into_path_fields_and_ids_only_into_id_fields() -> None:
    assert fits_field(FILES, "path", "acme/billing/invoice.py")
    assert fits_field(FILES, "dst", "tests/test_tiers.py")
    assert not fits_field(FILES, "path", "nt_000001")
    assert not fits_field(FILES, "note_id", "acme/billing/invoice.py")
    assert ref_fields(FILES) == ["path", "dst", "note_id"]


def test_paths_are_harvested_from_text_and_results_but_numbers_and_ids_are_not_paths() -> None:
    text = "The bug is in acme/pricing/tiers.py; see tests/test_tiers.py (and ct_000004, v1.2, e.g. 3.14)."
    assert text_ids(text) == ["ct_000004", "acme/pricing/tiers.py", "tests/test_tiers.py"]
    assert harvest_ids({"items": [{"path": "acme/sla/timers.py"}, {"path": "acme"}, {"n": "3.14"}]}) == [
        "acme/sla/timers.py"
    ]
    assert is_path("pyproject.toml") and not is_path("3.14") and not is_path("ct_000004")


def test_a_path_field_draws_known_paths_and_starts_from_the_root() -> None:
    rng = random.Random(0)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    first = fill_args(FILES, rng, ["nt_000001"], now)
    assert first["path"] == "" and first["note_id"] == "nt_000001"
    later = [fill_args(FILES, rng, ["nt_000001", "acme/x.py"], now) for _ in range(20)]
    assert {a["path"] for a in later} == {"acme/x.py"} and {a["note_id"] for a in later} == {"nt_000001"}
