"""Native trajectories to export in the ATIF tests: the built-in scenarios played by the reference agents.

The random agent plays with heavy injected faults (rate limits, outages, time-outs and
lost write responses), so its trajectories hold tool errors and faults as well as
invalid arguments.
"""

from __future__ import annotations

from saas_sim.runtime.agents import make_agent
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.trajectory import Trajectory
from saas_sim.scenarios.model import FaultProfile, FaultRates

SCENARIOS = ("crm/advance-qualified-deal", "crm/title-updates-rate-limited", "support/refund-with-lost-responses")
HEAVY_FAULTS = FaultProfile(
    read=FaultRates(rate_limited=0.2, unavailable=0.1, timeout=0.1),
    write=FaultRates(rate_limited=0.2, unavailable=0.1, lost_response=0.2),
)


def agents_of(env: Environment, scenario: str) -> list[str]:
    """The oracle, the no-op, the scenario's first declared hack and a random agent."""
    hacks = env.scenario(scenario).spec.hacks
    return ["oracle", "noop", *[f"hack:{h.name}" for h in hacks[:1]], "random:7"]


async def play(env: Environment, scenario: str, seed: int, agent: str) -> Trajectory:
    """Runs one graded episode and returns its native trajectory."""
    faults = HEAVY_FAULTS if agent.startswith("random") else "scenario"
    episode = await env.start(scenario, seed, faults=faults)
    try:
        await make_agent(agent, episode.task.scenario).run(episode)
        await episode.grade()
        return episode.trajectory
    finally:
        await episode.close()


async def play_llm(env: Environment, scenario: str, seed: int) -> Trajectory:
    """The `openai:` agent plays the oracle's plan through the local stub model; one graded trajectory."""
    from saas_sim.testing.openai_stub import StubServer
    from saas_sim.testing.oracle_policy import oracle_chat_policy

    episode = await env.start(scenario, seed)
    try:
        task = episode.task
        async with StubServer(oracle_chat_policy(task.scenario.spec.oracle, task.bindings)) as stub:
            await make_agent("openai:stub?max_retries=0", task.scenario, base_url=stub.base_url).run(episode)
        await episode.grade()
        return episode.trajectory
    finally:
        await episode.close()
