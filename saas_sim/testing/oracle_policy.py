"""Stub-model policies that play a scenario's oracle plan, read back from the conversation.

The policy keeps no state of its own: each request's messages say which plan
steps were answered (and with what, for `save_as`), so one policy serves any
number of conversations. A retryable error (`rate_limited`, `unavailable`,
`timeout`) is retried with the same tool call id, as a careful agent would.

* `oracle_chat_policy(plan, bindings)`: the tool-calling dialect of
  `saas_sim.runtime.llm_agent` (tool results are `{"ok", "value" | "error"}` JSON).
* `oracle_openenv_policy(resolve)`: the text dialect of verifiers' OpenEnv
  taskset: each user turn is `{"observation", "action_schema"}` JSON, each
  reply an OpenEnv `call_tool` action, and `submit` once the plan is played.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from saas_sim.runtime.toolkit import wire_name
from saas_sim.scenarios.model import Step
from saas_sim.scenarios.templating import render
from saas_sim.testing.openai_stub import Policy, Reply, ToolCall

__all__ = ["Observed", "next_step", "oracle_chat_policy", "oracle_openenv_policy"]

MAX_RETRIES = 12


@dataclass(frozen=True, slots=True)
class Observed:
    """What one call of the plan returned.

    Attributes:
        ok: Whether it returned a value.
        value: The value (ok) or None.
        retryable: Whether it failed with a retryable error.
    """

    ok: bool
    value: Any = None
    retryable: bool = False


def next_step(plan: Sequence[Step], bindings: Mapping[str, Any],
              observed: Sequence[Observed]) -> tuple[int, str, Any] | None:
    """Returns `(index, tool, rendered args)` of the plan's next call, or None once it is played."""
    bound: dict[str, Any] = dict(bindings)
    k = retries = 0
    for seen in observed:
        if k >= len(plan):
            break
        if not seen.ok and seen.retryable and retries < MAX_RETRIES:
            retries += 1
            continue
        save_as = plan[k].save_as
        if seen.ok and save_as:
            bound[save_as] = seen.value
        k, retries = k + 1, 0
    if k >= len(plan):
        return None
    return k, plan[k].tool, render(plan[k].args, bound)


def _chat_observed(messages: Sequence[Mapping[str, Any]]) -> list[Observed]:
    out = []
    for message in messages:
        if message.get("role") != "tool":
            continue
        try:
            data = json.loads(message.get("content") or "null")
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict) and data.get("ok"):
            out.append(Observed(True, data.get("value")))
        else:
            error = data.get("error") if isinstance(data, dict) else None
            out.append(Observed(False, retryable=bool(isinstance(error, dict) and error.get("retryable"))))
    return out


def oracle_chat_policy(plan: Sequence[Step], bindings: Mapping[str, Any]) -> Policy:
    """Returns a policy that calls the plan's steps one per turn, then answers in text."""

    def policy(request: dict[str, Any]) -> Reply:
        step = next_step(plan, bindings, _chat_observed(request.get("messages", [])))
        if step is None:
            return Reply(content="All steps are done.")
        k, tool, args = step
        return Reply(tool_calls=[ToolCall(wire_name(tool), args, id=f"oracle-{k}")])

    return policy


Resolver = Callable[[str, int], Awaitable[tuple[Sequence[Step], Mapping[str, Any]]]]


def _openenv_observed(turns: Sequence[Mapping[str, Any]]) -> list[Observed]:
    out = []
    for turn in turns:
        obs = turn.get("observation") or {}
        meta_error = (obs.get("metadata") or {}).get("error") or {}
        if obs.get("error") is None:
            out.append(Observed(True, obs.get("result")))
        else:
            out.append(Observed(False, retryable=bool(meta_error.get("retryable"))))
    return out


def oracle_openenv_policy(resolve: Resolver) -> Policy:
    """Returns a policy for verifiers' OpenEnv taskset that plays the oracle of the reset's scenario and seed.

    Args:
        resolve: Gives the oracle plan and the task's bindings for `(scenario, seed)`.
    """

    async def policy(request: dict[str, Any]) -> Reply:
        turns = []
        for message in request.get("messages", []):
            if message.get("role") != "user":
                continue
            content = message.get("content")
            if isinstance(content, list):  # content parts
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            try:
                turn = json.loads(content or "")
            except json.JSONDecodeError:
                continue  # a harness's own user text, not an observation
            if isinstance(turn, dict) and "observation" in turn:
                turns.append(turn)
        first = turns[0]["observation"]
        plan, bindings = await resolve(str(first["scenario"]), int(first["seed"]))
        step = next_step(plan, bindings, _openenv_observed(turns[1:]))
        if step is None:
            action = {"type": "call_tool", "tool_name": "submit", "arguments": {}}
        else:
            k, tool, args = step
            action = {"type": "call_tool", "tool_name": wire_name(tool), "arguments": args,
                      "metadata": {"call_id": f"oracle-{k}"}}
        return Reply(content=json.dumps(action))

    return policy
