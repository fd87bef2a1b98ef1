"""`saas-sim view`: trajectories as one self-contained HTML report.

The file needs no server and no network: its CSS and JS are inline (from
`viewer_assets/`), and every trajectory is embedded as JSON in a
`<script type="application/json">` block whose `<`, `>` and `&` are written as
`\\u` escapes, so no trajectory text can end the block. The page's script
builds the DOM with `textContent` only, and a Content-Security-Policy allows
just its own inline script and style (by hash) and no fetch of any kind.

Per episode: the header, the grade (goals, constraints, violations with their
details, the scalar and the attribution), and a timeline of steps, each with
the state diff rebuilt by `runtime.step_diff` (a visible warning where it
cannot be); an LLM agent's model turns stand before the steps they caused.
Client-side filters: scenario, attribution, score range.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

from saas_sim.runtime.environment import Environment
from saas_sim.runtime.step_diff import rebuild_diffs
from saas_sim.runtime.trajectory import Trajectory, read_trajectory

__all__ = ["embed_json", "episode_data", "render_report", "write_report"]

_ASSETS = files("saas_sim.adapters") / "viewer_assets"


def embed_json(data: Any) -> str:
    """Returns `data` as JSON safe inside an HTML `<script>` block (no `<`, `>` or `&` left raw)."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    # Outside strings JSON has none of these characters, so escaping them everywhere only touches strings.
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _csp_hash(source: str) -> str:
    digest = base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii")
    return f"'sha256-{digest}'"


def render_report(episodes: Sequence[dict[str, Any]]) -> str:
    """Returns the HTML report of already assembled episodes (see `episode_data`)."""
    template = (_ASSETS / "report.html").read_text(encoding="utf-8")
    css = (_ASSETS / "report.css").read_text(encoding="utf-8")
    js = (_ASSETS / "report.js").read_text(encoding="utf-8")
    csp = (f"default-src 'none'; script-src {_csp_hash(js)}; style-src {_csp_hash(css)}; "
           "img-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'")
    parts = {"__SAAS_SIM_CSP__": csp, "__SAAS_SIM_CSS__": css, "__SAAS_SIM_JS__": js,
             "__SAAS_SIM_DATA__": embed_json({"episodes": list(episodes)})}
    # re.sub never rescans what it inserted: a placeholder inside the data is left as data.
    return re.sub("|".join(parts), lambda m: parts[m.group(0)], template)

async def episode_data(env: Environment, trajectory: Trajectory, label: str) -> dict[str, Any]:
    """Returns one episode as the report's JSON: header, grade, steps with their rebuilt diffs, an LLM agent's
    model turns and summary, any warning."""
    rebuild = await rebuild_diffs(env, trajectory)
    steps = []
    for step, diff in zip(trajectory.steps, rebuild.diffs, strict=True):
        data = step.to_json()
        data["diff"] = None if diff is None else [c.to_json() for c in diff]
        steps.append(data)
    footer = trajectory.footer or {}
    keep = ("scenario", "seed", "world", "world_hash", "code_version", "stream_id", "parent", "faults", "instructions")
    return {
        "label": label,
        "header": {k: trajectory.header.get(k) for k in keep},
        "grade": footer.get("grade"),
        "final": {k: footer.get(k) for k in ("steps", "sim_time", "state_hash")},
        "steps": steps,
        "model_turns": [t.to_json() for t in trajectory.model_turns],
        "agent": trajectory.agent,
        "verified": rebuild.verified,
        "warning": rebuild.warning,
    }


def _labels(paths: Sequence[Path]) -> list[str]:
    names = [p.name for p in paths]
    return [p.name if names.count(p.name) == 1 else str(p) for p in paths]


def _write(path: Path, html: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(html.encode("utf-8"))


async def write_report(env: Environment, paths: Sequence[Path], out: Path) -> int:
    """Reads trajectories, rebuilds their diffs in `env`, and writes the HTML report to `out`.

    Returns:
        How many episodes carry a warning (a diff that could not be rebuilt).

    Raises:
        UsageError: A file is unreadable or not a trajectory.
    """
    trajectories = [read_trajectory(p) for p in paths]
    episodes = [await episode_data(env, t, label) for t, label in zip(trajectories, _labels(paths), strict=True)]
    await asyncio.to_thread(_write, out, render_report(episodes))
    return sum(1 for e in episodes if e["warning"])
