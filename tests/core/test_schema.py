"""The store's tables: one SQLModel definition compiled for both engines."""

from __future__ import annotations

import pytest

from saas_sim.core.schema import ddl_statements


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
def test_both_engines_get_the_same_four_tables_created_if_missing(dialect: str) -> None:
    statements = ddl_statements(dialect)
    assert [s.split("(")[0].split()[-1] for s in statements] == ["events", "streams", "commands", "snapshots"]
    assert all(s.startswith("CREATE TABLE IF NOT EXISTS") for s in statements)
    events = statements[0]
    assert "uq_events_stream_version" in events and "UNIQUE (stream_id, version)" in events
    assert "PRIMARY KEY (global_position)" in events


def test_postgresql_uses_bigint_positions_and_bytea_payloads() -> None:
    events = ddl_statements("postgresql")[0]
    assert "global_position BIGINT" in events and "payload BYTEA" in events
    assert "global_position INTEGER" in ddl_statements("sqlite")[0]
