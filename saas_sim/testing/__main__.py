"""`python -m saas_sim.testing`: serves the OpenAI stub on a loopback port until interrupted.

It prints its base URL (`http://127.0.0.1:PORT/v1`) on one line once it answers. The
model plays `--oracle SCENARIO` (that task's oracle plan on `--seed`, one tool call per
turn, then a text answer) or `--script FILE`: a JSON list of turns, each
`{"content": ..., "tool_calls": [{"name", "arguments", "id"}], "usage": [prompt, completion]}`
or `{"fault": 429}`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

from saas_sim.testing.openai_stub import Fault, Policy, Reply, StubServer, ToolCall, scripted


def _turn(data: dict[str, Any]) -> Reply | Fault:
    if "fault" in data:
        return Fault(int(data["fault"]))
    calls = [ToolCall(c["name"], c.get("arguments", {}), c.get("id")) for c in data.get("tool_calls", [])]
    usage = data.get("usage")
    return Reply(data.get("content"), calls, None if usage is None else (int(usage[0]), int(usage[1])))


async def _oracle(scenario: str, seed: int) -> Policy:
    from saas_sim.runtime.environment import Environment
    from saas_sim.testing.oracle_policy import oracle_chat_policy

    async with Environment("sqlite+aiosqlite:///:memory:") as env:
        task = await env.task(scenario, seed)
        return oracle_chat_policy(task.scenario.spec.oracle, task.bindings)


async def _serve(args: argparse.Namespace, turns: list[dict[str, Any]]) -> None:
    policy = await _oracle(args.oracle, args.seed) if args.oracle else scripted([_turn(t) for t in turns])
    async with StubServer(policy, port=args.port) as stub:
        print(stub.base_url, flush=True)
        await asyncio.Event().wait()


def main() -> None:
    """Parses the arguments and serves until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m saas_sim.testing", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0: a free one).")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--oracle", metavar="SCENARIO", help="Play this scenario's oracle plan.")
    which.add_argument("--script", metavar="FILE", help="Play the turns of this JSON file.")
    parser.add_argument("--seed", type=int, default=0, help="The task seed of --oracle.")
    args = parser.parse_args()
    turns = json.loads(Path(args.script).read_text()) if args.script else []
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(args, turns))


if __name__ == "__main__":
    main()
