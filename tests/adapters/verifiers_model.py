"""The stub model for tests/adapters/test_verifiers_ecosystem.py: an OpenAI-compatible server on a loopback port.

It answers verifiers' OpenEnv taskset turns with `call_tool` actions that play the oracle of the
reset's scenario and seed (or a named hack of it: `SCENARIO=HACK` arguments), then `submit`. It
prints its base URL on one line once it serves, and runs until terminated.

    python tests/adapters/verifiers_model.py [SCENARIO=HACK ...]
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from saas_sim.runtime.environment import Environment
from saas_sim.scenarios.model import Step
from saas_sim.testing.openai_stub import StubServer
from saas_sim.testing.oracle_policy import oracle_openenv_policy


async def main(hacks: dict[str, str]) -> None:
    async with Environment("sqlite+aiosqlite:///:memory:") as env:

        async def resolve(scenario: str, seed: int) -> tuple[Sequence[Step], Mapping[str, Any]]:
            task = await env.task(scenario, seed)
            spec = task.scenario.spec
            hack = hacks.get(scenario.partition("@")[0])
            plan = spec.oracle if hack is None else next(h.steps for h in spec.hacks if h.name == hack)
            return plan, task.bindings

        async with StubServer(oracle_openenv_policy(resolve)) as stub:
            print(stub.base_url, flush=True)
            await asyncio.Event().wait()  # served until the test terminates the process


if __name__ == "__main__":
    asyncio.run(main(dict(arg.split("=", 1) for arg in sys.argv[1:])))
