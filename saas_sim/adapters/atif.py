"""Harbor's Agent Trajectory Interchange Format (ATIF v1.8): an export of a native trajectory.

The native JSONL (`saas_sim.runtime.trajectory`) stays the source of truth; this is a
pure function of it, and the same input gives the same bytes. The mapping:

* The header's instructions are the rendered task, then `## Policy` and the domains'
  policy (`runtime.task.make_task`). The policy becomes a `system` step and the task a
  `user` step; instructions without that heading become one `user` step. Neither has a
  timestamp: a native trajectory records no instant before its first call.
* A scripted agent's native step (one tool call) becomes an `agent` step holding the call,
  with its `call_id` as `tool_call_id`, and its observation in the same step; it asked no
  model (`llm_call_count: 0`). The observation's content is what the agent saw (the result,
  or `{"error": ...}`) as JSON; its `extra` holds `ok`, the structured error, the injected
  fault, whether the call was a replay, and the native step's index, state hash and events.
  A call whose arguments are not a JSON object (a random agent's garbage) keeps them in
  the tool call's `extra.raw_arguments`, with empty `arguments`. Timestamps are simulated
  time (`sim_time` after the call), never wall time.
* An LLM agent's trajectory (its `model` lines) gives one `agent` step per model answer:
  the assistant text as `message`, its token usage as `metrics`, every call it asked for
  (the model's own id in the call's `extra.model_call_id`) and the observations of the
  calls it made. The agent line's summed usage fills `final_metrics`' token totals.
* The footer's grade goes to `final_metrics.extra`: score, goal score, the named checks
  (and their scores as a vector), attribution, violations, validity.
* The agent is named by `agent_name` / `agent_version`, else by the LLM agent's recorded
  name (`openai:MODEL`), else `unknown`; the version defaults to the header's code version.
  A native trajectory does not record which scripted agent played it.

Harbor's own validator accepts the output (`python -m harbor.utils.trajectory_validator`;
tests/adapters/test_atif_harbor.py runs it in Harbor's virtualenv).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from saas_sim.runtime.trajectory import ModelTurn, StepRecord, Trajectory, read_trajectory

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
        agent_name: The agent's name (default: the LLM agent's recorded name, else `unknown`).
        agent_version: The agent's version (default: the header's `code_version`).
    """
    header = trajectory.header
    summary = trajectory.agent or {}
    recorded = str(summary.get("agent") or "")
    steps = _prompt_steps(str(header.get("instructions") or ""))
    if trajectory.model_turns:
        steps += _llm_steps(trajectory, len(steps) + 1)
    else:
        steps += [_scripted_step(len(steps) + 1 + i, r) for i, r in enumerate(trajectory.steps)]
    agent: dict[str, Any] = {
        "name": agent_name or recorded or "unknown",
        "version": agent_version or str(header.get("code_version") or "unknown"),
        "extra": {"tools": list(header.get("tools") or [])},
    }
    if recorded.startswith("openai:"):
        agent["model_name"] = recorded.removeprefix("openai:").partition("?")[0]
    saas_sim = {k: v for k, v in sorted(header.items()) if k not in ("instructions", "tools")}
    if trajectory.agent is not None:
        saas_sim["agent"] = trajectory.agent
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "agent": agent,
        "steps": steps,
        "final_metrics": _final_metrics(trajectory, len(steps)),
        "extra": {"saas_sim": saas_sim},
    }
    if header.get("stream_id"):
        doc["session_id"] = str(header["stream_id"])
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


def _call(record: StepRecord) -> dict[str, Any]:
    call: dict[str, Any] = {"tool_call_id": record.call_id, "function_name": record.tool}
    if isinstance(record.args, dict):
        call["arguments"] = record.args
    else:
        call["arguments"] = {}
        call["extra"] = {"raw_arguments": record.args}
    return call


def _result(record: StepRecord) -> dict[str, Any]:
    seen = record.result if record.ok else {"error": record.error}
    extra: dict[str, Any] = {"ok": record.ok, "error": record.error, "fault": record.fault,
                             "replayed": record.replayed, "index": record.index,
                             "state_hash": record.state_hash, "events": record.events}
    if record.effect is not None:
        extra["effect"] = record.effect
    return {"source_call_id": record.call_id, "content": json.dumps(seen, sort_keys=True, ensure_ascii=False),
            "extra": extra}


def _scripted_step(step_id: int, record: StepRecord) -> dict[str, Any]:
    """A scripted agent's call: no model was asked (`llm_call_count: 0`)."""
    return {"step_id": step_id, "timestamp": record.sim_time, "source": "agent", "message": "", "llm_call_count": 0,
            "tool_calls": [_call(record)], "observation": {"results": [_result(record)]}}


def _llm_steps(trajectory: Trajectory, first_id: int) -> list[dict[str, Any]]:
    """One step per model answer, holding the calls it made and their observations.

    A turn caused the native steps recorded from its `before_step` up to the next turn's.
    Steps before the first turn (a scripted start, then a resumed LLM) stay scripted steps.
    """
    records = sorted(trajectory.steps, key=lambda r: r.index)
    turns = sorted(trajectory.model_turns, key=lambda t: (t.before_step, t.index))
    out = [_scripted_step(first_id + i, r) for i, r in enumerate(r for r in records if r.index < turns[0].before_step)]
    for k, turn in enumerate(turns):
        end = turns[k + 1].before_step if k + 1 < len(turns) else None
        caused = [r for r in records if r.index >= turn.before_step and (end is None or r.index < end)]
        before = [r for r in records if r.index < turn.before_step]
        out.append(_turn_step(first_id + len(out), turn, caused, before[-1].sim_time if before else None))
    return out


def _turn_step(step_id: int, turn: ModelTurn, caused: list[StepRecord], earlier: str | None) -> dict[str, Any]:
    by_call = {r.call_id: r for r in caused}
    calls: list[dict[str, Any]] = []
    for asked in turn.tool_calls:
        record = by_call.get(str(asked.get("call_id")))
        call = _call(record) if record is not None else _unmade_call(asked)
        call["extra"] = {**call.get("extra", {}), "model_call_id": asked.get("id")}
        calls.append(call)
    named = {c["tool_call_id"] for c in calls}
    calls += [_call(r) for r in caused if r.call_id not in named]
    step: dict[str, Any] = {"step_id": step_id, "source": "agent", "message": turn.content or "",
                            "extra": {"turn": turn.index, "finish_reason": turn.finish_reason, "error": turn.error}}
    timestamp = caused[-1].sim_time if caused else earlier
    if timestamp is not None:
        step["timestamp"] = timestamp  # simulated: the clock after the turn's last call
    if turn.error is None:
        step["llm_call_count"] = 1
    if turn.usage is not None:
        step["metrics"] = {"prompt_tokens": turn.usage.get("prompt_tokens"),
                           "completion_tokens": turn.usage.get("completion_tokens"),
                           "extra": {"total_tokens": turn.usage.get("total_tokens")}}
    if calls:
        step["tool_calls"] = calls
    if caused:
        step["observation"] = {"results": [_result(r) for r in caused]}
    return step


def _unmade_call(asked: dict[str, Any]) -> dict[str, Any]:
    """A call the model asked for that was never made (the episode was over)."""
    text = asked.get("arguments")
    try:
        parsed = json.loads(text) if isinstance(text, str) else None
    except json.JSONDecodeError:
        parsed = None
    call: dict[str, Any] = {"tool_call_id": str(asked.get("call_id") or asked.get("id") or ""),
                            "function_name": str(asked.get("name") or ""),
                            "arguments": parsed if isinstance(parsed, dict) else {}, "extra": {"made": False}}
    if not isinstance(parsed, dict):
        call["extra"]["raw_arguments"] = text
    return call


def _final_metrics(trajectory: Trajectory, total_steps: int) -> dict[str, Any]:
    metrics: dict[str, Any] = {"total_steps": total_steps}
    usage = (trajectory.agent or {}).get("usage")
    if isinstance(usage, dict):
        metrics["total_prompt_tokens"] = usage.get("prompt_tokens")
        metrics["total_completion_tokens"] = usage.get("completion_tokens")
    footer = trajectory.footer
    if footer is None:
        metrics["extra"] = {"graded": False}
        return metrics
    grade = footer.get("grade") or {}
    checks = list(grade.get("checks") or [])
    metrics["extra"] = {
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
    return metrics
