"""`saas-sim view`: the HTML report embeds trajectories as inert data, needs no network, and rebuilds diffs.

The browser half (the page as chromium renders it, the filters) is tests/adapters/test_viewer_browser.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from saas_sim.adapters.viewer import embed_json, episode_data, render_report, write_report
from saas_sim.cli import app
from saas_sim.runtime.agents import make_agent
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.trajectory import Trajectory, read_trajectory

SCENARIO = "crm/advance-qualified-deal"
HOSTILE = '</script><img src=x onerror="window.__pwned=true"><!--'
DATA_BLOCK = re.compile(r'<script type="application/json" id="saas-sim-data">(.*?)</script>', re.S)


def memory_env() -> Environment:
    return Environment("sqlite+aiosqlite:///:memory:")


async def record(env: Environment, agent: str, path: Path, *, seed: int = 0, scenario: str = SCENARIO,
                 extra_calls: Sequence[tuple[str, Any]] = ()) -> Trajectory:
    """Plays one agent (then any extra calls), grades, and writes the trajectory to `path`."""
    sc = env.scenario(scenario)
    episode = await env.start(sc, seed)
    try:
        await make_agent(agent, sc).run(episode)
        for tool, args in extra_calls:
            await episode.call(tool, args)
        await episode.grade()
        episode.trajectory.write(path)
        return episode.trajectory
    finally:
        await episode.close()


def data_of(html: str) -> dict[str, Any]:
    found = DATA_BLOCK.findall(html)
    assert len(found) == 1
    return json.loads(found[0])  # type: ignore[no-any-return]


def field_changes(episode: dict[str, Any], step: int) -> dict[tuple[str, str, str], tuple[Any, Any]]:
    return {(c["table"], c["id"], f["path"]): (f["before"], f["after"])
            for c in episode["steps"][step]["diff"] for f in c["fields"]}


async def test_oracle_report_shows_the_deal_amount_it_changed(tmp_path: Path) -> None:
    async with memory_env() as env:
        traj = await record(env, "oracle", tmp_path / "oracle.jsonl")
        episode = await episode_data(env, traj, "oracle")
    assert episode["warning"] is None and episode["verified"] == len(traj.steps) == len(episode["steps"])
    amount_step = next(s for s in traj.steps if "amount" in s.args)
    deal_id = amount_step.args["deal_id"]
    before = traj.steps[0].result["deal"]["amount"]  # the oracle's first call reads the deal
    changes = field_changes(episode, amount_step.index)
    assert changes[("crm.deals", deal_id, "amount")] == (before, amount_step.args["amount"])
    assert all(s["diff"] == [] for s in episode["steps"] if s["tool"].split(".")[1].startswith(("get_", "list_")))
    assert episode["grade"]["attribution"] == "success"


async def test_hostile_trajectory_text_stays_inert_data(tmp_path: Path) -> None:
    async with memory_env() as env:
        traj = await record(env, "noop", tmp_path / "t.jsonl",
                            extra_calls=[("crm.get_deal", {"deal_id": HOSTILE}), ("crm.search_contacts", HOSTILE)])
        html = render_report([await episode_data(env, traj, HOSTILE)])
    assert "<img" not in html
    assert html.count("</script>") == 2  # the data block's and the page script's own ends, nothing injected
    assert "<!--" not in html
    data = data_of(html)
    assert data["episodes"][0]["label"] == HOSTILE
    assert data["episodes"][0]["steps"][0]["args"] == {"deal_id": HOSTILE}


def test_embedded_json_escapes_markup_and_reads_back() -> None:
    value = {"a": "</script>&<b>\u2028", "</": ["<!--", "-->"]}
    text = embed_json(value)
    assert not set("<>&") & set(text)
    assert json.loads(text) == value


def test_placeholders_inside_data_are_not_substituted() -> None:
    html = render_report([{"label": "__SAAS_SIM_JS__ __SAAS_SIM_DATA__", "header": {}, "steps": [], "grade": None}])
    assert data_of(html)["episodes"][0]["label"] == "__SAAS_SIM_JS__ __SAAS_SIM_DATA__"


async def test_report_loads_nothing_from_the_network(tmp_path: Path) -> None:
    async with memory_env() as env:
        traj = await record(env, "oracle", tmp_path / "o.jsonl")
        html = render_report([await episode_data(env, traj, "o")])
    page = DATA_BLOCK.sub("", html)
    assert not re.search(r"""(src|href|action)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    assert not re.search(r"https?://|<link\b|<img\b|<iframe\b|@import|url\(", page, re.I)
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert csp is not None and "default-src 'none'" in csp.group(1) and "connect-src 'none'" in csp.group(1)


async def test_unknown_scenario_version_lists_steps_without_diffs_and_warns(tmp_path: Path) -> None:
    async with memory_env() as env:
        traj = await record(env, "oracle", tmp_path / "o.jsonl")
        traj.header["scenario"] = SCENARIO + "@999"
        episode = await episode_data(env, traj, "old")
    assert episode["warning"] and "@999" in episode["warning"]
    assert len(episode["steps"]) == len(traj.steps) and all(s["diff"] is None for s in episode["steps"])


async def test_state_hash_mismatch_keeps_only_the_verified_diffs(tmp_path: Path) -> None:
    async with memory_env() as env:
        traj = await record(env, "oracle", tmp_path / "o.jsonl")
        traj.steps[2].state_hash = "0" * 64
        episode = await episode_data(env, traj, "tampered")
    assert episode["warning"] and "step 2" in episode["warning"]
    assert episode["verified"] == 2
    assert [s["diff"] is None for s in episode["steps"]] == [False, False, True, True]


def test_view_command_writes_one_report_for_several_files(tmp_path: Path) -> None:
    import asyncio

    async def make() -> None:
        async with memory_env() as env:
            await record(env, "oracle", tmp_path / "oracle.jsonl")
            await record(env, "noop", tmp_path / "noop.jsonl", seed=1)

    asyncio.run(make())
    out = tmp_path / "report" / "r.html"
    result = CliRunner().invoke(app, ["view", str(tmp_path / "oracle.jsonl"), str(tmp_path / "noop.jsonl"),
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    episodes = data_of(out.read_text(encoding="utf-8"))["episodes"]
    assert [e["label"] for e in episodes] == ["oracle.jsonl", "noop.jsonl"]
    assert [e["header"]["seed"] for e in episodes] == [0, 1]
    assert read_trajectory(tmp_path / "noop.jsonl").steps == [] and episodes[1]["steps"] == []


def test_view_command_refuses_a_file_that_is_no_trajectory(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "header"}\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["view", str(bad), "--out", str(tmp_path / "r.html")])
    assert result.exit_code == 2
    assert "not a saas_sim.trajectory" in result.output
    assert not (tmp_path / "r.html").exists()


async def test_write_report_counts_episodes_without_verified_diffs(tmp_path: Path) -> None:
    async with memory_env() as env:
        traj = await record(env, "oracle", tmp_path / "o.jsonl")
        traj.header["world_hash"] = "f" * 64
        traj.write(tmp_path / "other_world.jsonl")
        warned = await write_report(env, [tmp_path / "o.jsonl", tmp_path / "other_world.jsonl"], tmp_path / "r.html")
    assert warned == 1
    episodes = data_of((tmp_path / "r.html").read_text(encoding="utf-8"))["episodes"]
    assert "world differs" in episodes[1]["warning"] and episodes[0]["warning"] is None


async def test_llm_agent_turns_and_summary_are_embedded(tmp_path: Path) -> None:
    from saas_sim.runtime.trajectory import ModelTurn

    async with memory_env() as env:
        traj = await record(env, "oracle", tmp_path / "o.jsonl")
        traj.model_turns = [ModelTurn(index=0, before_step=0, content="reading the deal", usage={"total_tokens": 7})]
        traj.agent = {"agent": "openai:stub", "turns": 1, "usage": {"total_tokens": 7}, "stop": "done", "error": None}
        episode = await episode_data(env, traj, "llm")
    assert episode["model_turns"][0]["content"] == "reading the deal"
    assert episode["agent"]["agent"] == "openai:stub" and episode["warning"] is None
