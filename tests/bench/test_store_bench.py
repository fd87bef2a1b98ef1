"""Smoke test of the store benchmark: it runs end to end and reports every key.

Not a timed test: the numbers are only checked to be present and positive.
"""

from __future__ import annotations

from pathlib import Path

from saas_sim.bench import run_store_bench

REQUIRED = (
    "sqlite_events_per_s_single",
    "sqlite_events_per_s_group",
    "sqlite_durable_events_per_s_group",
    "sqlite_events_per_s_group_command_ids",
    "raw_sqlite_events_per_s",
    "group_to_raw_ratio",
    "fold_events_per_s",
    "fold_from_store_events_per_s",
    "snapshot_load_us",
    "snapshot_bytes",
    "snapshot_entities",
    "group_events",
    "raw_events",
    "fold_events",
    "bench_seconds",
)


def _leftovers(directory: Path) -> list[Path]:
    return list(directory.glob("*.db*"))


async def test_store_bench_reports_every_key_at_tiny_scale(tmp_path: Path) -> None:
    notes: list[str] = []
    result = await run_store_bench(pg_url=None, workdir=tmp_path, scale=0.02, progress=notes.append)

    for key in REQUIRED:
        value = result[key]
        assert isinstance(value, int | float), key
        assert value > 0, key
    assert "postgres_events_per_s_group" not in result
    assert isinstance(result["python_version"], str)
    assert isinstance(result["sqlite_version"], str)
    assert result["raw_events"] == result["group_events"]
    assert notes, "progress was never called"
    assert not _leftovers(tmp_path), "benchmark left database files behind"
