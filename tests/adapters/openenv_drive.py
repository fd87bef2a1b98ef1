"""Drives a saas_sim server with OpenEnv's own clients; runs in an openenv virtualenv, never imports saas_sim.

    python openenv_drive.py BASE_URL SCENARIO SEED TOOL ARGS_JSON

Prints one JSON object: what `GenericEnvClient` (twice, same seed) and
`MCPToolClient` observed. tests/adapters/test_openenv_ecosystem.py asserts on it.
"""

from __future__ import annotations

import asyncio
import json
import sys
from importlib import metadata
from typing import Any

from openenv.core import GenericEnvClient
from openenv.core.mcp_client import MCPToolClient


def _dump(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    return value


async def generic(url: str, scenario: str, seed: int, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    async with GenericEnvClient(base_url=url) as env:
        tools_before = await env.step({"type": "list_tools"})
        reset = await env.reset(seed=seed, scenario=scenario)
        tools = await env.step({"type": "list_tools"})
        call = await env.step({"type": "call_tool", "tool_name": tool, "arguments": args})
        bad = await env.step({"type": "call_tool", "tool_name": "no_such_tool", "arguments": {}})
        state = await env.state()
        submit = await env.step({"type": "call_tool", "tool_name": "submit", "arguments": {}})
        after = await env.state()
        return {
            "tools_before_reset": [t["name"] for t in tools_before.observation["tools"]],
            "reset": {"observation": reset.observation, "reward": reset.reward, "done": reset.done},
            "tools": [t["name"] for t in tools.observation["tools"]],
            "call": {"observation": call.observation, "reward": call.reward, "done": call.done},
            "bad": bad.observation,
            "state": state,
            "submit": {"observation": submit.observation, "reward": submit.reward, "done": submit.done},
            "state_after_submit": after,
        }


async def mcp(url: str, scenario: str, seed: int, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    async with MCPToolClient(base_url=url) as env:
        reset = await env.reset(seed=seed, scenario=scenario)
        tools = await env.list_tools()
        result = await env.call_tool(tool, **args)
        state = await env.state()
        return {
            "production_mode": bool(getattr(env, "use_production_mode", False)),
            "reset": {"observation": _dump(reset.observation), "done": reset.done},
            "tools": [t.name for t in tools],
            "result": _dump(result),
            "state": _dump(state),
        }


async def main() -> None:
    url, scenario, seed, tool, args = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], json.loads(sys.argv[5])
    report = {
        "versions": {name: _version(name) for name in ("openenv", "openenv-core")},
        "generic": await generic(url, scenario, seed, tool, args),
        "generic_again": await generic(url, scenario, seed, tool, args),
        "mcp": await mcp(url, scenario, seed, tool, args),
    }
    print(json.dumps(report))


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


if __name__ == "__main__":
    asyncio.run(main())
