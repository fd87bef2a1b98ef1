"""Same observations wherever a world came from: a fresh build, or a snapshot in some store.

An agent must see byte-identical observations whether its world was built in
this process or loaded from a snapshot another process saved, on SQLite or on
PostgreSQL. Grades and hashes cannot show a difference in *form* (canonical
hashing folds `"22950.00"` and `"22950"` together), so this module compares
whole trajectories byte for byte:

    async with WorldSources.open(env.config) as sources:
        diff = await sources.compare(scenario_ref, seed)   # None when identical

The cold side builds every world from scratch (an in-memory store never holds
a snapshot). The snapshot side is another environment over another store,
holding only the snapshots the cold side wrote there, so every world it uses
is decoded from a snapshot. `saas-sim check` runs this for every scenario and
seed, and the tests run it with SQLite and PostgreSQL snapshot stores.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

import anyio

from saas_sim.core.ids import unique_token
from saas_sim.core.snapshots import take_snapshot
from saas_sim.errors import HarnessError
from saas_sim.runtime.agents import make_agent
from saas_sim.runtime.environment import Environment
from saas_sim.runtime.world import World
from saas_sim.scenarios.loader import Scenario

__all__ = ["MEMORY_URL", "WorldSources", "first_difference", "observed_trajectory"]

MEMORY_URL = "sqlite+aiosqlite:///:memory:"


async def observed_trajectory(env: Environment, scenario: Scenario, seed: int, agent: str = "oracle") -> str:
    """Runs `agent` on (scenario, seed) and returns the graded trajectory's JSONL text.

    The stream id is fixed, so two runs of the same calls give the same text
    exactly when every observation, hash and grade is the same. A store that
    already holds that stream (a second run on one file) gets a suffixed id:
    another run's episode is not this one's to continue, so compare such texts
    without their header lines.
    """
    stream_id = f"world-source:{scenario.ref}:{seed}:{agent}"
    if await env.store.stream_version(stream_id):
        stream_id = f"{stream_id}:{unique_token()}"
    episode = await env.start(scenario, seed, stream_id=stream_id)
    try:
        await make_agent(agent, scenario).run(episode)
        await episode.grade()
        return episode.trajectory.dumps()
    finally:
        await episode.close()


def first_difference(a: str, b: str) -> str | None:
    """Returns a short description of the first line where two JSONL texts differ, or None."""
    if a == b:
        return None
    left, right = a.split("\n"), b.split("\n")
    for i, (x, y) in enumerate(zip(left, right, strict=False)):
        if x != y:
            at = next((k for k in range(min(len(x), len(y))) if x[k] != y[k]), min(len(x), len(y)))
            lo = max(at - 40, 0)
            where = f"line {i + 1} differs at column {at + 1}: {x[lo:at + 40]!r} vs {y[lo:at + 40]!r}"
            leaves = _leaf_differences(x, y)
            return where + (f"; {leaves}" if leaves else "")
    return f"one trajectory has {len(left)} lines, the other {len(right)}"


def _leaf_differences(x: str, y: str, limit: int = 4, width: int = 300) -> str:
    """The first `limit` JSON paths where two JSON lines hold other values, with both values (cut to
    `width` characters), or "" when either line is not JSON. A differing grade then names the check."""
    try:
        a, b = json.loads(x), json.loads(y)
    except json.JSONDecodeError:
        return ""
    found: list[str] = []

    def walk(u: Any, v: Any, path: str) -> None:
        if len(found) >= limit or u == v:
            return
        if isinstance(u, dict) and isinstance(v, dict):
            for k in sorted(set(u) | set(v), key=str):
                walk(u.get(k), v.get(k), f"{path}.{k}")
        elif isinstance(u, list) and isinstance(v, list) and len(u) == len(v):
            for k, (p, q) in enumerate(zip(u, v, strict=True)):
                walk(p, q, f"{path}[{k}]")
        else:
            found.append(f"{path or '.'}: {json.dumps(u)[:width]} vs {json.dumps(v)[:width]}")

    walk(a, b, "")
    return "; ".join(found)


@dataclass
class WorldSources:
    """A cold environment (builds every world) and a twin that loads every world from a snapshot.

    Attributes:
        cold: Builds worlds from scratch, in memory.
        snapshot: Reads worlds only from the snapshots `cold` saved into its store.
    """

    cold: Environment
    snapshot: Environment
    _saved: set[str] = field(default_factory=set)

    @classmethod
    def open(cls, config: dict[str, Any], snapshot_url: str = MEMORY_URL) -> WorldSources:
        """Returns the pair for environments like the one of `config`; use it with `async with`.

        Args:
            config: An `Environment.config` (scenario folders, domains).
            snapshot_url: The store the snapshot side reads from (SQLite file, PostgreSQL, memory).
        """
        return cls(Environment.from_config(config, MEMORY_URL), Environment.from_config(config, snapshot_url))

    async def __aenter__(self) -> Self:
        await self.cold.open()
        await self.snapshot.open()
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.cold.close()
        await self.snapshot.close()

    async def _snapshot_world(self, scenario: Scenario, seed: int) -> World:
        world = await self.cold.world(scenario.profile, seed)
        if world.source != "built":
            raise HarnessError(f"the cold side loaded world {world.key} instead of building it")
        twin_profile = self.snapshot.scenario(scenario.ref).profile
        if world.key not in self._saved:
            snap = await anyio.to_thread.run_sync(take_snapshot, world.key, 0, "0" * 64, world.state, world.schema)
            await self.snapshot.store.save_snapshot(snap)
            self._saved.add(world.key)
        twin = await self.snapshot.world(twin_profile, seed)
        if twin.source != "snapshot":
            raise HarnessError(f"the snapshot side rebuilt world {world.key} instead of loading its snapshot")
        if twin.world_hash != world.world_hash:
            raise HarnessError(f"world {world.key}: the snapshot hashes to {twin.world_hash[:12]}, "
                               f"the build to {world.world_hash[:12]}")
        return twin

    async def compare(self, ref: str, seed: int, agent: str = "oracle") -> str | None:
        """Runs `agent` on a built and on a snapshot-loaded world; returns the first difference or None."""
        scenario = self.cold.scenario(ref)
        await self._snapshot_world(scenario, seed)
        cold = await observed_trajectory(self.cold, scenario, seed, agent)
        warm = await observed_trajectory(self.snapshot, self.snapshot.scenario(ref), seed, agent)
        return first_difference(cold, warm)
