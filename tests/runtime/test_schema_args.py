"""Which ids an attack agent tries in which argument: the schema's example first, then the domains' id kinds."""

from __future__ import annotations

from saas_sim.runtime.schema_args import example_prefix, fits_field

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
