"""Harbor's Agent Trajectory Interchange Format (ATIF v1.8): an export of a native trajectory.

The native JSONL (`saas_sim.runtime.trajectory`) stays the source of truth; this is a
pure function of it, and the same input gives the same bytes. The mapping:

* The header's instructions are the rendered task, then `## Policy` and the domains'
  policy (`runtime.task.make_task`). The policy becomes a `system` step and the task a
  `user` step; instructions without that heading become one `user` step. Neither has a
  timestamp: a native trajectory records no instant before its first call.
* Each native step (one tool call) becomes an `agent` step holding the call, with its
  `call_id` as `tool_call_id`, and its observation in the same step. The observation's
  content is what the agent saw (the result, or `{"error": ...}`) as JSON; its `extra`
  holds `ok`, the structured error, the injected fault and whether the call was a replay.
  A call whose arguments are not a JSON object (a random agent's garbage) keeps them in
  the tool call's `extra.raw_arguments`, with empty `arguments`. The step's timestamp is
  its simulated time (`sim_time`), never wall time. Scripted agents call no model, so
  their steps say `llm_call_count: 0`.
* The footer's grade goes to `final_metrics.extra`: score, goal score, the named checks
  (and their scores as a vector), attribution, violations, validity.
* The agent is named by `agent_name` / `agent_version`, else by the header's `agent`
  (if a producer recorded one), else `unknown` at the header's code version.

Harbor's own validator accepts the output (`python -m harbor.utils.trajectory_validator`;
tests/adapters/test_atif_harbor.py runs it in Harbor's virtualenv).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from saas_sim.runtime.trajectory import StepRecord, Trajectory, read_trajectory

__all__ = ["SCHEMA_VERSION", "dumps_atif", "export_atif", "to_atif"]

SCHEMA_VERSION = "ATIF-v1.8"
"""The newest ATIF version Harbor 0.26's validator accepts."""

POLICY_HEADING = "\n\n## Policy\n\n"
"""Where `runtime.task.make_task` appends the domains' policy to the task text."""


def to_atif(trajectory: Trajectory, *, agent_name: str | None = None,
            agent_version: str | None = None) -> dict[str, Any]:
    """Returns an ATIF document (a JSON-ready dict) for a native trajectory.

    Args:
        trajectory: The native trajectory.
        agent_name: The agent's name (default: the header's `agent`, else `unknown`).
        agent_version: The agent's version (default: the header's `code_version`).
    """
    header = trajectory.header
    steps = _prompt_steps(str(header.get("instructions") or ""))
    for record in trajectory.steps:
        steps.append(_agent_step(len(steps) + 1, record))
    recorded = header.get("agent")
    name = agent_name or (recorded if isinstance(recorded, str) and recorded else "unknown")
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "session_id": str(header.get("stream_id") or ""),
        "agent": {
            "name": name,
            "version": agent_version or str(header.get("code_version") or "unknown"),
            "extra": {"tools": list(header.get("tools") or [])},
        },
        "steps": steps,
        "final_metrics": _final_metrics(trajectory, len(steps)),
        "extra": {"saas_sim": {k: v for k, v in sorted(header.items()) if k not in ("instructions", "tools")}},
    }
    if not doc["session_id"]:
        del doc["session_id"]
    return doc


def dumps_atif(trajectory: Trajectory, **agent: str | None) -> str:
    """Returns the ATIF document as JSON text: sorted keys, ASCII escapes, one trailing newline.

    ASCII because Harbor's validator opens the file in the locale's encoding.
    """
    return json.dumps(to_atif(trajectory, **agent), sort_keys=True, ensure_ascii=True, indent=2) + "\n"


def export_atif(source: Path, out: Path | None = None, **agent: str | None) -> str:
    """Reads a native trajectory JSONL file and returns (and, given `out`, writes) its ATIF JSON.

    Raises:
        UsageError: The source is unreadable or not a trajectory.
    """
    text = dumps_atif(read_trajectory(source), **agent)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(text.encode("ascii"))
    return text


def _prompt_steps(instructions: str) -> list[dict[str, Any]]:
    task, found, policy = instructions.partition(POLICY_HEADING)
    steps: list[dict[str, Any]] = []
    if found and policy.strip():
        steps.append({"step_id": 1, "source": "system", "message": policy.strip()})
    steps.append({"step_id": len(steps) + 1, "source": "user", "message": task.strip() if found else instructions})
    return steps


def _agent_step(step_id: int, record: StepRecord) -> dict[str, Any]:
    call: dict[str, Any] = {"tool_call_id": record.call_id, "function_name": record.tool}
    if isinstance(record.args, dict):
        call["arguments"] = record.args
    else:
        call["arguments"] = {}
        call["extra"] = {"raw_arguments": record.args}
    seen = record.result if record.ok else {"error": record.error}
    result_extra: dict[str, Any] = {"ok": record.ok, "error": record.error, "fault": record.fault,
                                    "replayed": record.replayed}
    if record.effect is not None:
        result_extra["effect"] = record.effect
    return {
        "step_id": step_id,
        "timestamp": record.sim_time,
        "source": "agent",
        "message": "",
        "llm_call_count": 0,
        "tool_calls": [call],
        "observation": {"results": [{
            "source_call_id": record.call_id,
            "content": json.dumps(seen, sort_keys=True, ensure_ascii=False),
            "extra": result_extra,
        }]},
        "extra": {"index": record.index, "state_hash": record.state_hash, "events": record.events},
    }


def _final_metrics(trajectory: Trajectory, total_steps: int) -> dict[str, Any]:
    footer = trajectory.footer
    if footer is None:
        return {"total_steps": total_steps, "extra": {"graded": False}}
    grade = footer.get("grade") or {}
    checks = list(grade.get("checks") or [])
    extra = {
        "graded": True,
        "score": grade.get("score"),
        "goal_score": grade.get("goal_score"),
        "attribution": grade.get("attribution"),
        "valid": grade.get("valid"),
        "truncated": grade.get("truncated"),
        "error": grade.get("error"),
        "checks": checks,
        "check_scores": {c["name"]: c["score"] for c in checks if isinstance(c, dict) and "name" in c},
        "violations": list(grade.get("violations") or []),
        "tool_calls": footer.get("steps"),
        "sim_time": footer.get("sim_time"),
        "state_hash": footer.get("state_hash"),
        "content_hash": footer.get("content_hash"),
    }
    return {"total_steps": total_steps, "extra": extra}
