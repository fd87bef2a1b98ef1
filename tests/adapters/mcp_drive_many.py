"""Drives many episodes at once over MCP from one process: the 512-client test runs two of these.

    python -m tests.adapters.mcp_drive_many BASE_URL CLIENTS

Each client starts an episode over the JSON API and reports `ready` on stdout; on a
`go` line on stdin all of them drive their episodes at once (a fresh MCP connection
per call, the oracle's calls, then `submit`) and delete them. The last line is the
JSON `{"rewards": [...], "errors": [...]}`. Clients run in their own processes so
that they, not the server, get the machine's second core: the SDK's client costs
several times what the server spends on a call.
"""

from __future__ import annotations

import asyncio
import json
import sys

import httpx

from tests.adapters.test_mcp_http import MODERN, Live, drive


async def main() -> None:
    base, clients = sys.argv[1], int(sys.argv[2])
    async with httpx.AsyncClient(base_url=base, timeout=300.0, trust_env=False,
                                 limits=httpx.Limits(max_connections=32)) as api:
        live = Live(base, api)
        # Four seeds: four worlds, each built once, so the run measures serving rather than world builds.
        started = await asyncio.gather(*(live.start_task(i % 4) for i in range(clients)))
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)

        async def one(episode_id: str, url: str, instructions: str) -> float:
            # Pinned to the current protocol (one request per call, no discovery probe), given the task.
            _, results = await drive(url, MODERN, instructions)
            errors = [r.structured_content for r in results if r.is_error]
            if errors:
                raise AssertionError(f"{episode_id}: error results {errors}")
            submitted = results[-1].structured_content
            if submitted is None:
                raise AssertionError(f"{episode_id}: submit returned no structured content")
            deleted = await api.delete(f"/episodes/{episode_id}")
            if deleted.status_code != 204:
                raise AssertionError(f"{episode_id}: DELETE answered {deleted.status_code}")
            reward: float = submitted["reward"]
            return reward

        outcomes = await asyncio.gather(*(one(*s) for s in started), return_exceptions=True)
    print(json.dumps({"rewards": [o for o in outcomes if not isinstance(o, BaseException)],
                      "errors": [repr(o) for o in outcomes if isinstance(o, BaseException)]}))


if __name__ == "__main__":
    asyncio.run(main())
