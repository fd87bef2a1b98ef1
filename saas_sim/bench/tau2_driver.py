"""The tau2-bench side of `saas-sim bench --compare tau2`: a driver run with *tau2's* interpreter.

`python tau2_driver.py TAU2_PATH` imports tau2 from its checkout (its own virtualenv: tau2's
pins conflict with ours), then answers one JSON request per stdin line with one JSON line on
its original stdout (tau2 prints to stdout when imported, so that output is sent to stderr):

* `{"op": "reset", "n": N}`: builds the retail `Environment` N times (`get_environment()`, what
  tau2 does at the start of every simulation: it loads the retail database);
* `{"op": "read", "n": N}`: `get_user_details` through `Environment.get_response` (a tool call
  as an agent's message makes it, JSON result included), N times on one environment;
* `{"op": "write", "n": N}`: `modify_user_address` with a new address each time, likewise;
* `{"op": "episode", "n": N}`: N whole episodes of retail task 0: reset, the task's expected
  actions as tool calls (reads and an exchange), then tau2's own environment evaluation
  (`EnvironmentEvaluator.calculate_reward`: replay into a fresh environment, a gold environment,
  and a comparison of the two databases' hashes);
* `{"op": "quit"}`.

Each answer holds `us` (each operation's latency in µs), `cpu_us_per_op` (process CPU time over
the loop / N) and `errors` (tool calls that returned an error, episodes whose database did not
match). It imports nothing of saas_sim (it runs in another virtualenv), so it reads its own
monotonic and CPU clocks, for metrics only, as `saas_sim.core.clock` does.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

READ_USER = "yusuf_rossi_9620"
"""The user of retail task 0 (its expected actions find this user)."""

TASK_ID = "0"


OFFLINE_ENV = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_LOCAL_BLOG_POSTS": "True",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
    "LITELLM_TELEMETRY": "False",
    "LITELLM_MODEL_COST_MAP_URL": "http://127.0.0.1:9/",
    "LITELLM_BLOG_POSTS_URL": "http://127.0.0.1:9/",
    "LITELLM_ANTHROPIC_BETA_HEADERS_URL": "http://127.0.0.1:9/",
    "HF_HUB_OFFLINE": "1",
}
"""Set before tau2 is imported: its LLM client (litellm) otherwise fetches price lists from the
internet at import time. The bench makes no LLM call and must send nothing off this machine."""


def _tau2(path: str) -> dict[str, Any]:
    os.environ.update(OFFLINE_ENV)
    sys.path.insert(0, os.path.join(path, "src"))
    from loguru import logger  # type: ignore[import-not-found]

    # As tau2's own runner does (its default log level is ERROR): its DEBUG lines are not the bench's cost.
    logger.remove()
    logger.add(sys.stderr, level="ERROR")
    from tau2.data_model.message import AssistantMessage, ToolCall  # type: ignore[import-not-found]
    from tau2.domains.retail.environment import get_environment, get_tasks  # type: ignore[import-not-found]
    from tau2.evaluator.evaluator_env import EnvironmentEvaluator  # type: ignore[import-not-found]

    tasks = {t.id: t for t in get_tasks(None)}
    return {"AssistantMessage": AssistantMessage, "ToolCall": ToolCall, "get_environment": get_environment,
            "task": tasks[TASK_ID], "Evaluator": EnvironmentEvaluator}


def _timed(n: int, op: Callable[[int], int]) -> dict[str, Any]:
    us: list[float] = []
    errors = 0
    cpu0 = time.process_time_ns()
    for i in range(n):
        t0 = time.perf_counter_ns()
        errors += op(i)
        us.append((time.perf_counter_ns() - t0) / 1000)
    return {"us": us, "cpu_us_per_op": (time.process_time_ns() - cpu0) / 1000 / max(1, n), "errors": errors}


def _call(t: dict[str, Any], env: Any, name: str, args: dict[str, Any], call_id: str) -> Any:
    return env.get_response(t["ToolCall"](id=call_id, name=name, arguments=args, requestor="assistant"))


def _episode(t: dict[str, Any]) -> int:
    env = t["get_environment"]()
    trajectory: list[Any] = []
    for i, action in enumerate(t["task"].evaluation_criteria.actions):
        call = t["ToolCall"](id=f"call-{i}", name=action.name, arguments=action.arguments, requestor="assistant")
        trajectory.append(t["AssistantMessage"].text("", tool_calls=[call]))
        trajectory.append(env.get_response(call))
    reward = t["Evaluator"].calculate_reward(environment_constructor=t["get_environment"], task=t["task"],
                                             full_trajectory=trajectory)
    return 0 if reward.db_check is not None and reward.db_check.db_match else 1


def _writer(t: dict[str, Any], env: Any, base: int) -> Callable[[int], int]:
    """The i-th write: the user's address with a new street number (a change every time)."""

    def write(i: int) -> int:
        args = {"user_id": READ_USER, "address1": f"{base + i} Bench Street", "address2": "",
                "city": "Philadelphia", "state": "PA", "country": "USA", "zip": "19122"}
        return int(_call(t, env, "modify_user_address", args, f"w{i}").error)

    return write


def serve(path: str) -> None:
    """Answers requests on stdin until `quit` or end of input."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # whatever tau2 prints goes to stderr, never into the protocol
    t = _tau2(path)
    env = t["get_environment"]()
    proto.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        req = json.loads(line)
        op, n = req["op"], int(req.get("n", 0))
        if op == "quit":
            break
        if op == "reset":
            out = _timed(n, lambda _i: int(t["get_environment"]() is None))
        elif op == "read":
            out = _timed(n, lambda i: int(_call(t, env, "get_user_details", {"user_id": READ_USER}, f"r{i}").error))
        elif op == "write":
            out = _timed(n, _writer(t, env, int(req.get("base", 0))))
        elif op == "episode":
            out = _timed(n, lambda _i: _episode(t))
        else:
            out = {"error": f"unknown op {op!r}"}
        proto.write(json.dumps({"op": op, **out}) + "\n")


if __name__ == "__main__":
    serve(sys.argv[1])
