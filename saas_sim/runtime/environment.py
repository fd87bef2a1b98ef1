"""The `Environment`: the entry point that opens a store, knows the scenarios and starts episodes.

    async with Environment() as env:
        episode = await env.start("crm/close-won-deal", seed=3)
        print(episode.instructions)
        result = await episode.call("crm.search_deals", {"query": "Acme"})
        grade = await episode.grade()

Worlds are built once per (profile, seed, code version) and cached in memory
and as store snapshots. Tasks (a scenario set up on a world for one seed) are
cached in memory. So a reset copies a reference to an immutable state: its
cost does not grow with the world.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import sys
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Self

import anyio

from saas_sim.core.canonical import sha256_hex, stable_hash
from saas_sim.core.domain import Domain
from saas_sim.core.events import DEFAULT_REGISTRY, EventRegistry
from saas_sim.core.snapshots import decode_state, take_snapshot
from saas_sim.core.store import EventStore, open_store
from saas_sim.errors import SnapshotError, UsageError
from saas_sim.runtime.episode import Episode
from saas_sim.runtime.grade_worker import GradeWorker
from saas_sim.runtime.heap import retire_long_lived
from saas_sim.runtime.task import TaskInstance, make_task
from saas_sim.runtime.toolkit import Toolkit
from saas_sim.runtime.world import (
    World,
    WorldProfile,
    build_world,
    code_version,
    compose,
    load_profiles,
    prewarm_world,
    resolve_domains,
    world_key,
)
from saas_sim.scenarios.difficulty import Difficulty, DifficultyRequest, choose, scaled_profile
from saas_sim.scenarios.loader import Scenario, ScenarioCatalog
from saas_sim.scenarios.model import FaultProfile

__all__ = ["DEFAULT_STORE_URL", "Environment", "default_dirs"]

log = logging.getLogger(__name__)

DEFAULT_STORE_URL = "sqlite+aiosqlite:///.saas_sim/events.db"
"""An embedded SQLite file under `./.saas_sim/`."""

_REPO_ROOT = Path(__file__).resolve().parents[2]


def default_dirs(name: str) -> list[Path]:
    """Returns `./<name>` and the source checkout's `<name>` folder, deduplicated."""
    seen: dict[Path, None] = {}
    for folder in (Path.cwd() / name, _REPO_ROOT / name):
        if folder.is_dir():
            seen.setdefault(folder.resolve(), None)
    return list(seen)


def domain_ref(domain: Domain) -> str:
    """Returns `"module:attribute"` naming where a domain object is defined, for another process to import.

    The domain's generator module and its parent packages are searched for an attribute that *is* the
    domain: a domain shaped like CRM defines its generator in a submodule and `DOMAIN` in the package.

    Raises:
        UsageError: No importable module holds the domain (one built inside a function, say).
    """
    if domain.module:
        for attr, value in sorted(vars(importlib.import_module(domain.module)).items()):
            if value is domain:
                return f"{domain.module}:{attr}"
        raise UsageError(f"domain {domain.name!r} says it lives in {domain.module}, which holds no such attribute")
    parts = domain.generate.__module__.split(".")
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        module = sys.modules.get(name)
        for attr, value in sorted(vars(module).items()) if module is not None else ():
            if value is domain:
                return f"{name}:{attr}"
    raise UsageError(
        f"domain {domain.name!r} is not a module attribute near {domain.generate.__module__}; "
        "define it at module level so other processes can import it"
    )


def _import_ref(ref: str) -> Domain:
    module, _, attr = ref.partition(":")
    domain = getattr(importlib.import_module(module), attr or "DOMAIN")
    if not isinstance(domain, Domain):
        raise UsageError(f"{ref} is a {type(domain).__name__}, not a Domain")
    return domain


class Environment:
    """Opens a store, loads scenarios and world profiles, and starts episodes.

    Args:
        store_url: The event store; defaults to an SQLite file under `./.saas_sim/`.
        scenario_dirs: Extra scenario folders (each holds `<domain>/*.yaml`).
        seeds_dirs: Extra world-profile folders.
        domains: Extra domains (a test domain, say), beside the built-in ones.
        builtin: Whether to load the built-in domains, scenarios and profiles.
        registry: The event registry.
        durable: For SQLite files, `synchronous=FULL`.
        durable_reads: Acknowledge a READ call only once its step is committed. By default a
            READ (which changes nothing) returns once its record is queued; the store commits in
            queue order, and the episode's next write, grade, fork or close waits for it. A crash
            can then lose the records of the reads since the last write, never a write. Set it
            when every acknowledged call must survive a crash (replicas that take over episodes).
        freeze_worlds: After a world is built or loaded, move the heap out of the cyclic garbage
            collector's view (`runtime.heap`), so full collections stop rescanning worlds (the
            pauses that otherwise dominate the call-latency tail). False keeps the default GC.
        grade_worker: Grade in a worker process of its own (runtime.grade_worker), so a server's
            checks run on another core than its calls. Started by `open`, stopped by `close`;
            grades run in-process whenever the worker cannot take them. The worker holds its own
            copy of every task it grades (worlds included), so it costs that memory a second time.
        world_progress: Called with a short message as a world is loaded or built, part by part
            (possibly from a worker thread); the command line draws a progress bar with it. It is
            also the attribute `world_progress`, which a caller may set or clear later.
    """

    def __init__(
        self,
        store_url: str | None = None,
        *,
        scenario_dirs: Sequence[Path | str] = (),
        seeds_dirs: Sequence[Path | str] = (),
        domains: Iterable[Domain] = (),
        builtin: bool = True,
        registry: EventRegistry | None = None,
        durable: bool | None = None,
        durable_reads: bool = False,
        freeze_worlds: bool = True,
        grade_worker: bool = False,
        world_progress: Callable[[str], None] | None = None,
    ) -> None:
        from saas_sim.domains import builtin_domains

        self.config: dict[str, Any] = {
            "scenario_dirs": [str(Path(p).resolve()) for p in scenario_dirs],
            "seeds_dirs": [str(Path(p).resolve()) for p in seeds_dirs],
            "domain_refs": [domain_ref(d) for d in domains],
            "builtin": builtin,
        }
        self.store_url = store_url or DEFAULT_STORE_URL
        self.registry = registry or DEFAULT_REGISTRY
        self.durable = durable
        self.durable_reads = durable_reads
        self.freeze_worlds = freeze_worlds
        self.world_progress = world_progress
        self.domains: dict[str, Domain] = dict(builtin_domains()) if builtin else {}
        for d in domains:
            self.domains[d.name] = d
        seeds = [*(default_dirs("seeds") if builtin else []), *map(Path, seeds_dirs)]
        scen = [*(default_dirs("scenarios") if builtin else []), *map(Path, scenario_dirs)]
        self.profiles: dict[str, WorldProfile] = load_profiles(seeds)
        self.catalog = ScenarioCatalog(scen, self.domains, self.profiles)
        self._store: EventStore | None = None
        self._worlds: dict[str, World] = {}
        self._building: dict[str, asyncio.Future[World]] = {}
        self._world_keys: dict[tuple[int, int], tuple[WorldProfile, str]] = {}
        self._tasks: dict[tuple[str, int, str, str], TaskInstance] = {}
        self._scaled: dict[tuple[int, float], tuple[WorldProfile, WorldProfile]] = {}
        self._toolkits: dict[str, Toolkit] = {}
        self._grade_worker = grade_worker
        self.grader: GradeWorker | None = None
        """The grade worker while the environment is open with `grade_worker=True`."""

    @classmethod
    def from_config(cls, config: dict[str, Any], store_url: str = "sqlite+aiosqlite:///:memory:") -> Environment:
        """Builds an environment like another one's `config` (used by subprocess checks)."""
        domains = [_import_ref(ref) for ref in config.get("domain_refs", [])]
        return cls(
            store_url, scenario_dirs=config.get("scenario_dirs", []), seeds_dirs=config.get("seeds_dirs", []),
            domains=domains, builtin=bool(config.get("builtin", True)),
        )

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def open(self) -> None:
        """Opens the store (idempotent)."""
        if self._store is None:
            self._store = await open_store(self.store_url, registry=self.registry, durable=self.durable)
            if self._grade_worker:
                self.grader = GradeWorker(self.config)
                await self.grader.start()

    async def close(self) -> None:
        """Closes the store and drops the caches. Idempotent."""
        store, self._store = self._store, None
        grader, self.grader = self.grader, None
        if grader is not None:
            await grader.aclose()
        self._worlds.clear()
        self._world_keys.clear()
        self._tasks.clear()
        if store is not None:
            await store.close()

    @property
    def store(self) -> EventStore:
        """The open event store."""
        if self._store is None:
            raise UsageError("the environment is not open; use `async with Environment() as env`")
        return self._store

    def scenarios(self, pattern: str = "*") -> list[Scenario]:
        """Returns the latest version of the scenarios whose id matches a glob."""
        return self.catalog.match(pattern)

    def scenario(self, name: str) -> Scenario:
        """Returns a scenario by `id` or `id@version`."""
        return self.catalog.get(name)

    async def world(self, profile: WorldProfile, seed: int) -> World:
        """Returns the world for (profile, seed), built at most once per process and code version."""
        # The fast path is keyed by id(profile), so it holds the profile itself: an id is only
        # unique among live objects, and a freed profile's id can be reused by another profile.
        fast = self._world_keys.get((id(profile), seed))
        if fast is not None and fast[0] is profile and fast[1] in self._worlds:
            return self._worlds[fast[1]]
        domains = resolve_domains(profile, self.domains)
        key = world_key(profile, seed, code_version({d.name: d for d in domains}))
        self._world_keys[(id(profile), seed)] = (profile, key)
        cached = self._worlds.get(key)
        if cached is not None:
            return cached
        # Single flight: concurrent first starts of one world wait for one build. Otherwise each
        # would build it (or load the snapshot another just saved), at N times the cost.
        while (building := self._building.get(key)) is not None:
            try:
                return await asyncio.shield(building)
            except asyncio.CancelledError:
                if building.cancelled():
                    continue  # the builder was cancelled, not this caller: build it here
                raise
        future: asyncio.Future[World] = asyncio.get_running_loop().create_future()
        self._building[key] = future
        try:
            world = await self._load_or_build(key, profile, seed, domains)
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # marks it retrieved: a build nobody else awaited logs no warning
            raise
        except BaseException:
            future.cancel()
            raise
        finally:
            del self._building[key]
        self._worlds[key] = world
        if self.freeze_worlds:
            retire_long_lived()
        future.set_result(world)
        return world

    async def _load_or_build(self, key: str, profile: WorldProfile, seed: int, domains: list[Domain]) -> World:
        say = self.world_progress
        if say is not None:
            say(f"world {profile.name} seed {seed}: snapshot")
        world = await self._world_from_snapshot(key, profile, seed, domains)
        if world is None:
            world = await anyio.to_thread.run_sync(build_world, profile, seed, self.domains, say)
            snap = await anyio.to_thread.run_sync(take_snapshot, world.key, 0, "0" * 64, world.state, world.schema)
            await self.store.save_snapshot(snap)
        return world

    async def _world_from_snapshot(
        self, key: str, profile: WorldProfile, seed: int, domains: list[Domain]
    ) -> World | None:
        snap = await self.store.load_snapshot(key)
        if snap is None:
            return None
        projection, schema = compose(domains)
        try:
            if snap.schema_version != schema.version:
                raise SnapshotError(f"schema v{snap.schema_version} is not v{schema.version}")
            if sha256_hex(snap.state) != snap.state_hash:
                raise SnapshotError("world snapshot bytes do not match their recorded hash")
            # verify=True: a world served from a snapshot must show agents exactly what the freshly
            # built one shows, so a value whose form does not survive the round trip is refused.
            state = await anyio.to_thread.run_sync(partial(decode_state, snap.state, schema, verify=True))
            world_hash = await anyio.to_thread.run_sync(state.content_hash)
            # Off the loop, like a build's: or the first search of the process builds the index on it.
            await anyio.to_thread.run_sync(prewarm_world, state, domains)
        except SnapshotError as exc:
            log.warning("world snapshot %s unusable (%s); rebuilding", key, exc)
            return None
        version = code_version({d.name: d for d in domains})
        return World(profile, seed, state, world_hash, projection, schema, version, source="snapshot")

    async def task(
        self, scenario: str | Scenario, seed: int, *, difficulty: DifficultyRequest | Difficulty = None
    ) -> TaskInstance:
        """Returns the set-up task for (scenario, seed, difficulty), computed once.

        Args:
            scenario: `id` (latest version), `id@version`, or a loaded `Scenario`.
            seed: The task seed.
            difficulty: A level (`"hard"`), `K=V` items, a mapping (`{"level": "hard", "distractors": 2}`)
                or a resolved `Difficulty`; None is the file's own level (docs/difficulty.md).

        Raises:
            UsageError: A bad seed, or an unknown level, knob or value.
        """
        sc = scenario if isinstance(scenario, Scenario) else self.catalog.get(scenario)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise UsageError(f"seed must be a non-negative int, got {seed!r}")
        level = choose(sc.spec, difficulty)
        world = await self.world(self._profile_at(sc.profile, level.mess), seed)
        key = (sc.ref, seed, world.world_hash, stable_hash(dict(level.changed)))
        task = self._tasks.get(key)
        if task is None:
            policy = "\n\n".join(
                self.domains[name].policy.strip() for name in sc.profile.domains if self.domains[name].policy.strip()
            )
            task = make_task(sc, seed, world, self.registry, policy, level)
            self._tasks[key] = task
        return task

    def _profile_at(self, profile: WorldProfile, mess: float) -> WorldProfile:
        """The profile with its mess rates scaled, one object per (profile, scale) so world lookups stay O(1)."""
        if mess == 1:
            return profile
        cached = self._scaled.get((id(profile), mess))
        if cached is None or cached[0] is not profile:
            cached = (profile, scaled_profile(profile, mess, self.domains))
            self._scaled[(id(profile), mess)] = cached
        return cached[1]

    def toolkit(self, scenario: Scenario) -> Toolkit:
        """Returns the scenario's toolkit (cached: it is immutable)."""
        kit = self._toolkits.get(scenario.ref)
        if kit is None:
            tools = [t for name in scenario.profile.domains for t in self.domains[name].tools]
            kit = Toolkit(tools, scenario.spec.tools)
            self._toolkits[scenario.ref] = kit
        return kit

    async def start(
        self,
        scenario: str | Scenario,
        seed: int,
        *,
        faults: FaultProfile | Literal["scenario"] | None = "scenario",
        stream_id: str | None = None,
        difficulty: DifficultyRequest | Difficulty = None,
    ) -> Episode:
        """Starts an episode of (scenario, seed).

        Args:
            scenario: `id` (latest version), `id@version`, or a loaded `Scenario`.
            seed: The task seed; it picks the task's entities and the faults.
            faults: `"scenario"` uses the fault profile of the scenario at its difficulty (the
                file's own at its level), None turns faults off, and a `FaultProfile` overrides it.
            stream_id: The episode's stream id (default: unique).
            difficulty: The task's difficulty (see `task`); None is the file's own level.
        """
        task = await self.task(scenario, seed, difficulty=difficulty)
        profile = task.difficulty.faults if faults == "scenario" else faults
        return Episode(task, self.store, self.toolkit(task.scenario), profile, stream_id=stream_id,
                       durable_reads=self.durable_reads, grader=self.grader)

    async def resume(self, stream_id: str) -> Episode:
        """Rebuilds a live episode from its stream (snapshot plus tail), in any process.

        Its later calls, hashes and grade equal those of an episode that never
        left memory. Another process writing the same episode meanwhile makes
        one of them fail with `ConcurrencyError`; that one resumes and retries.

        Raises:
            UsageError: The store holds no episode stream `stream_id`.
        """
        from saas_sim.runtime.resume import resume_episode

        return await resume_episode(self, stream_id)
