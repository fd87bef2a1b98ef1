"""The trajectory viewer in a real browser: Debian's chromium driven by Playwright for Python.

Playwright runs in its own virtualenv (`.ci/ecosystem.sh`, `SAAS_SIM_PLAYWRIGHT_PYTHON`) and launches
/usr/bin/chromium (`.ci/setup_browser.sh`) through `executable_path`: nothing is downloaded. Without them the
test skips locally and fails in CI (`CI` set). The screenshot goes to `$SAAS_SIM_ARTIFACTS_DIR` (default:
pytest's tmp_path), for CI to keep.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from saas_sim.adapters.viewer import write_report
from saas_sim.runtime.trajectory import ModelTurn, Trajectory
from tests.adapters.test_openenv_ecosystem import ecosystem_python
from tests.adapters.test_viewer import HOSTILE, SCENARIO, memory_env, record

HERE = Path(__file__).resolve().parent
DRIVE = HERE / "viewer_drive.py"
CHROMIUM = Path("/usr/bin/chromium")
HACK = "hack:just_reply_by_email"
VIOLATION = "emails_are_messages"
MODEL_SAYS = "The buyer confirmed the budget: <b>moving the deal</b>."


def chromium() -> None:
    if CHROMIUM.is_file():
        return
    hint = f"{CHROMIUM} is missing: run bash .ci/setup_browser.sh"
    if os.environ.get("CI"):
        pytest.fail(hint + " (CI must run the browser test, never skip)")
    pytest.skip(hint)


async def three_episodes(folder: Path) -> tuple[Trajectory, Trajectory, Path]:
    """Records the oracle, the no-op and a hack with a violation (plus a hostile call), and reports them."""
    async with memory_env() as env:
        oracle = await record(env, "oracle", folder / "oracle.jsonl")
        # As an LLM agent records them: a model turn before the steps its tool calls became.
        oracle.model_turns = [ModelTurn(index=0, before_step=2, content=MODEL_SAYS, tool_calls=[
            {"id": "c1", "name": oracle.steps[2].tool, "arguments": "{}", "call_id": oracle.steps[2].call_id}])]
        oracle.write(folder / "oracle.jsonl")
        await record(env, "noop", folder / "noop.jsonl")
        hack = await record(env, HACK, folder / "hack.jsonl", extra_calls=[("crm.get_deal", {"deal_id": HOSTILE})])
        report = folder / "report.html"
        await write_report(env, [folder / n for n in ("oracle.jsonl", "noop.jsonl", "hack.jsonl")], report)
    return oracle, hack, report


def test_report_in_chromium_shows_steps_diffs_grades_and_filters(tmp_path: Path) -> None:
    python = ecosystem_python("SAAS_SIM_PLAYWRIGHT_PYTHON")
    chromium()
    oracle, hack, report = asyncio.run(three_episodes(tmp_path))
    artifacts = Path(os.environ.get("SAAS_SIM_ARTIFACTS_DIR") or tmp_path)
    shot = artifacts / "viewer_report.png"
    done = subprocess.run([python, str(DRIVE), str(report), str(shot), "agent_failure"], capture_output=True,
                          text=True, timeout=180, check=False,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert done.returncode == 0, f"driver failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    facts: dict[str, Any] = json.loads(done.stdout)

    assert facts["console_errors"] == []  # no script error, no CSP refusal
    assert facts["requests"] == [report.resolve().as_uri()]  # the page fetched nothing else
    assert facts["alert_injected"] is False
    by_label = {e["label"]: e for e in facts["episodes"]}
    assert list(by_label) == ["oracle.jsonl", "noop.jsonl", "hack.jsonl"]
    assert [by_label[n]["steps"] for n in by_label] == [len(oracle.steps), 0, len(hack.steps)]
    assert by_label["oracle.jsonl"]["timeline"] == ["step", "step", "model"] + ["step"] * (len(oracle.steps) - 2)
    assert by_label["oracle.jsonl"]["model_text"][0] == MODEL_SAYS  # shown as text, not markup
    assert all(e["warning"] is None and e["scenario"].startswith(SCENARIO + "@") for e in facts["episodes"])

    amount_step = next(s for s in oracle.steps if "amount" in s.args)
    deal_id = amount_step.args["deal_id"]
    shown = [d for d in by_label["oracle.jsonl"]["diffs"] if (d["table"], d["id"], d["path"]) ==
             ("crm.deals", deal_id, "amount")]
    before = oracle.steps[0].result["deal"]["amount"]  # a seed's deal may have no amount yet: shown as "∅"
    assert shown == [{"step": amount_step.index, "table": "crm.deals", "id": deal_id, "path": "amount",
                      "before": "∅" if before is None else before, "after": amount_step.args["amount"]}]

    assert by_label["oracle.jsonl"]["score"] == "score 1.000"
    assert by_label["oracle.jsonl"]["attribution"] == "success"
    assert by_label["hack.jsonl"]["violations"] == [VIOLATION]
    assert by_label["hack.jsonl"]["score"] == "score 0.000" and by_label["noop.jsonl"]["attribution"] == "agent_failure"

    assert facts["summary_before"] == "showing 3 of 3 episodes"
    assert facts["visible_after_click"] == ["oracle.jsonl"]  # agent_failure unticked: the noop and the hack hide
    assert facts["summary_after"] == "showing 1 of 3 episodes"
    assert facts["visible_score_over_half"] == ["oracle.jsonl"]  # ticked again, but the noop and hack scored 0

    assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and shot.stat().st_size > 10_000
