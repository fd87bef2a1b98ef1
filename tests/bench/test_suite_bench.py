"""`saas-sim bench`: the quick run reports every figure with a sane shape (never timed against a limit)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from saas_sim.bench.probes import BENCH_SCENARIO, SEARCH_PROBES, WRITE_PROBE, unlimited
from saas_sim.bench.stats import pct, summarize_runs
from saas_sim.bench.suite import QUICK, run_suite
from saas_sim.bench.sustained import WriteProbe, open_loop_writes
from saas_sim.cli import app
from saas_sim.domains.crm.state import DEALS
from saas_sim.runtime.environment import Environment

ZERO_ALLOWED = ("_errors", "episode_oracle_failures", "effects_failed")
"""Counts whose healthy value is 0; every other figure is a positive measurement or size."""


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    import asyncio

    notes: list[str] = []
    result = asyncio.run(run_suite(runs=1, quick=True, workdir=tmp_path_factory.mktemp("bench"),
                                   progress=notes.append))
    assert notes, "progress was never called"
    return result


def _figure(result: dict[str, Any], key: str) -> float:
    assert key in result["figures"], f"missing figure {key}"
    return float(result["figures"][key]["median"])


def test_every_figure_is_finite_and_positive_with_min_at_most_median(quick: dict[str, Any]) -> None:
    assert quick["figures"], "no figures"
    for key, fig in quick["figures"].items():
        assert set(fig) == {"min", "median", "runs"}, key
        assert len(fig["runs"]) == 1, key
        assert math.isfinite(fig["median"]) and math.isfinite(fig["min"]), key
        assert fig["min"] <= fig["median"], key
        if key.endswith(ZERO_ALLOWED):
            assert fig["median"] >= 0, key
        else:
            assert fig["median"] > 0, key


def test_the_sustained_load_reports_offered_achieved_and_the_tail_at_each_rate(quick: dict[str, Any]) -> None:
    for rate in QUICK.rates:
        prefix = f"sustained_write_{rate:g}"
        offered = _figure(quick, f"{prefix}_offered_per_s")
        assert offered == rate
        assert _figure(quick, f"{prefix}_achieved_per_s") <= offered + 1e-6
        assert _figure(quick, f"{prefix}_calls") == round(rate * QUICK.duration_s)
        assert _figure(quick, f"{prefix}_episodes") == QUICK.episodes
        assert _figure(quick, f"{prefix}_errors") == 0
        p50, p99, p999 = (_figure(quick, f"{prefix}_{q}_us") for q in ("p50", "p99", "p999"))
        assert p50 <= p99 <= p999
        for tail in ("cpu_us_per_call", "cpu_cores", "dispatch_lag_p99_us", "max_in_flight", "window_s"):
            _figure(quick, f"{prefix}_{tail}")


def test_one_at_a_time_latencies_grades_and_episodes_are_reported(quick: dict[str, Any]) -> None:
    for key in ("reset_p50_us", "reset_p99_us", "read_get_deal_p50_us", "read_get_deal_p99_us",
                "read_get_deal_cpu_us_per_call", "write_single_p50_us", "write_single_p99_us",
                "write_single_cpu_us_per_call", "grade_crm_p50_us", "grade_crm_p99_us", "grade_support_p50_us",
                "grade_support_p99_us", "grade_ide_p50_us", "episode_worst_ms", "episode_median_ms",
                "episode_ide_worst_ms", "episode_ide_median_ms", f"episode_ms[{BENCH_SCENARIO}]",
                "sqlite_durable_events_per_s_group"):
        _figure(quick, key)
    assert _figure(quick, "episode_oracle_failures") == 0
    assert _figure(quick, "episode_worst_ms") >= _figure(quick, "episode_median_ms")
    worst = quick["labels"]["episode_worst_scenario"]
    assert worst[0] in (QUICK.scenarios or ()) and not worst[0].startswith("ide/")


def test_search_is_reported_on_every_world_profile_for_each_of_its_domains(quick: dict[str, Any]) -> None:
    env = Environment("sqlite+aiosqlite:///:memory:")
    expected = {f"search_{SEARCH_PROBES[d].name}_{name.replace('-', '_')}_p50_us"
                for name, profile in env.profiles.items() for d in profile.domains if d in SEARCH_PROBES}
    assert {"search_crm_contacts_crm_enterprise_p50_us", "search_ide_code_ide_large_p50_us"} <= expected
    for key in sorted(expected):
        _figure(quick, key)


def test_the_run_names_its_machine_date_load_and_default_gc(quick: dict[str, Any]) -> None:
    meta = quick["meta"]
    assert meta["runs"] == 1 and meta["quick"] is True
    assert meta["gc"].startswith("default")
    assert meta["cpu_count"] > 0 and meta["load_1m_at_start"] >= 0
    assert meta["date"][:4].isdigit()


def test_summaries_give_min_and_median_and_keep_labels_apart() -> None:
    figures, labels = summarize_runs([{"a": 3, "w": "x"}, {"a": 1, "w": "y"}, {"a": 2, "w": "x"}])
    assert figures == {"a": {"min": 1.0, "median": 2.0, "runs": [3, 1, 2]}}
    assert labels == {"w": ["x", "y", "x"]}


def test_nearest_rank_percentiles_never_interpolate() -> None:
    values = [float(v) for v in range(1, 1001)]
    assert (pct(values, 0.5), pct(values, 0.99), pct(values, 0.999)) == (500.0, 990.0, 999.0)
    assert pct([], 0.5) == 0.0


async def test_failed_calls_in_the_open_loop_are_counted_as_errors() -> None:
    bad = WriteProbe(WRITE_PROBE.tool, lambda _ep, k: {"deal_id": f"dl_missing_{k}", "next_step": "x"})
    async with Environment("sqlite+aiosqlite:///:memory:") as env:
        scenario = unlimited(env.scenario(BENCH_SCENARIO))
        episodes = [await env.start(scenario, 0, faults=None) for _ in range(4)]
        out = await open_loop_writes(episodes, bad, rate=200.0, duration_s=0.1, warmup_s=0.0, prefix="w")
    assert out["w_calls"] == 20 and out["w_errors"] == 20
    assert out["w_achieved_per_s"] == 0.0


async def test_each_episode_makes_a_sequence_of_writes_in_the_open_loop() -> None:
    async with Environment("sqlite+aiosqlite:///:memory:") as env:
        scenario = unlimited(env.scenario(BENCH_SCENARIO))
        episodes = [await env.start(scenario, 0, faults=None) for _ in range(3)]
        out = await open_loop_writes(episodes, WRITE_PROBE, rate=300.0, duration_s=0.1, warmup_s=0.0, prefix="w")
        assert out["w_errors"] == 0 and out["w_achieved_per_s"] <= 300.0
        assert [ep.steps for ep in episodes] == [10, 10, 10]
        notes = {ep.state.get(DEALS, str(WRITE_PROBE.args(ep, 0)["deal_id"])).next_step  # type: ignore[union-attr]
                 for ep in episodes}
    assert notes == {"Bench follow-up 9"}


def test_compare_refuses_an_unknown_peer_or_a_missing_checkout(tmp_path: Path) -> None:
    runner = CliRunner()
    unknown = runner.invoke(app, ["bench", "--compare", "tau3", str(tmp_path)])
    assert unknown.exit_code != 0 and "tau2" in unknown.output
    missing = runner.invoke(app, ["bench", "--compare", "tau2", str(tmp_path)])
    assert missing.exit_code == 2 and "tau2-bench checkout" in " ".join(missing.output.split())
