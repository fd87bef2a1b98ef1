"""World building: a world profile (`scenarios.profiles`) and a seed give a world.

A world profile (`seeds/<name>.yaml`) names the domains a world holds and each
domain's generator parameters::

    name: crm-smb
    epoch: "2026-03-02T09:00:00Z"
    domains:
      crm: {accounts: 60, contacts: 400}

A world is a pure function of (profile, seed, code version): the domains'
generators run in the profile's order, each on its own branch of the seed
tree, and their events are folded into one `State`. Worlds are built once and
cached, in memory and as snapshots in the store.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from saas_sim._version import __version__
from saas_sim.core.canonical import stable_hash
from saas_sim.core.domain import Domain, GenerateContext
from saas_sim.core.faithful import FORMAT_VERSION
from saas_sim.core.ids import IdFactory
from saas_sim.core.indexes import prewarm
from saas_sim.core.links import Links
from saas_sim.core.relabel import RELABEL_PROJECTION
from saas_sim.core.rng import SeedTree
from saas_sim.core.snapshots import StateSchema
from saas_sim.core.state import Projection, State
from saas_sim.errors import ScenarioError, ScenarioNotFoundError
from saas_sim.scenarios.profiles import WorldProfile, load_profiles

__all__ = ["World", "WorldProfile", "build_world", "code_version", "load_profiles", "prewarm_world", "world_key"]


def code_version(domains: Mapping[str, Domain]) -> str:
    """Returns a short hash of everything that shapes generated worlds.

    It covers saas_sim's version, Faker's version (its tables change between
    releases), the storage format of snapshots and each domain's state schema
    version.
    """
    parts = {
        "saas_sim": __version__,
        "faker": importlib.metadata.version("faker"),
        "storage": FORMAT_VERSION,  # how snapshots encode states: a new format must not read old ones
        "domains": {name: d.schema.version for name, d in sorted(domains.items())},
    }
    return stable_hash(parts)[:16]


@dataclass(frozen=True)
class World:
    """A built world: its state, hash and the composed projection and schema.

    `source` says whether this process built it or decoded it from a snapshot;
    agents must not be able to tell the two apart (see `runtime.world_source`).
    """

    profile: WorldProfile
    seed: int
    state: State
    world_hash: str
    projection: Projection
    schema: StateSchema
    code_version: str
    source: Literal["built", "snapshot"] = "built"

    @property
    def key(self) -> str:
        """The world's cache key and snapshot stream id."""
        return world_key(self.profile, self.seed, self.code_version)


def world_key(profile: WorldProfile, seed: int, version: str) -> str:
    """Returns the cache key and snapshot stream id of the world of (profile, seed, code version).

    It holds a digest of the profile's *content*, not just its name: after an
    edit of `seeds/<name>.yaml`, a persistent store must not serve the old
    world's snapshot under the same name.
    """
    digest = stable_hash(profile.model_dump(mode="json", exclude={"description"}))[:16]
    return f"world:{profile.name}:{seed}:{version}:{digest}"


def compose(domains: Sequence[Domain]) -> tuple[Projection, StateSchema]:
    """Returns the projection and schema of a world holding `domains`."""
    from saas_sim.runtime.records import RUNTIME_PROJECTION

    projection = Projection("+".join(d.name for d in domains) or "empty")
    projection.include(RUNTIME_PROJECTION)
    projection.include(RELABEL_PROJECTION)
    tables: list[Any] = []
    values: list[Any] = []
    version = 1
    for d in domains:
        projection.include(d.projection)
        tables += list(d.schema.tables)
        values += list(d.schema.values)
        version = version * 1000 + d.schema.version
    return projection, StateSchema(tables=tables, values=values, version=version)


def resolve_domains(profile: WorldProfile, known: Mapping[str, Domain]) -> list[Domain]:
    """Returns the profile's domains in build order: each after the domains it requires or uses.

    The order is the profile's, except that a domain moves after the domains it reads (`requires`,
    and `uses` when the profile has them), so a profile's listing order cannot change a world.
    """
    missing = [name for name in profile.domains if name not in known]
    if missing:
        raise ScenarioNotFoundError(
            f"world profile {profile.name!r} needs unknown domain(s) {missing}; known: {sorted(known)}"
        )
    listed = list(profile.domains)
    for name in listed:
        absent = [r for r in known[name].requires if r not in profile.domains]
        if absent:
            raise ScenarioNotFoundError(
                f"world profile {profile.name!r}: domain {name!r} requires {absent}, which the profile does not list"
            )
    order: list[str] = []
    pending = listed
    while pending:
        ready = [n for n in pending
                 if all(r in order for r in (*known[n].requires, *known[n].uses) if r in profile.domains)]
        if not ready:
            raise ScenarioNotFoundError(f"world profile {profile.name!r}: domains {pending} depend on each other")
        order.append(ready[0])
        pending = [n for n in pending if n != ready[0]]
    return [known[name] for name in order]


def build_world(profile: WorldProfile, seed: int, known: Mapping[str, Domain],
                progress: Callable[[str], None] | None = None) -> World:
    """Builds a world from scratch. Pure: the same inputs give the same world hash.

    Args:
        profile: The world profile.
        seed: The world seed.
        known: The domains by name.
        progress: Called with a short message as each domain's data and then the indexes are built
            (from the thread that builds the world); it must not change anything the build reads.
    """
    say = progress or (lambda _m: None)
    domains = resolve_domains(profile, known)
    projection, schema = compose(domains)
    tree = SeedTree(f"world:{profile.name}:{seed}")
    state = State()
    epoch = profile.epoch
    known_ports = [port.name for d in known.values() for port in d.ports]
    for i, domain in enumerate(domains):
        say(f"world {profile.name} seed {seed}: {domain.name}")
        links = Links(state, [port for d in domains[:i] for port in d.ports],
                      declared=(*domain.requires, *domain.uses), known=known_ports, consumer=domain.name)
        ctx = GenerateContext(
            params=profile.domains[domain.name],
            seed=tree.child(domain.name),
            state=state,
            now=epoch,
            ids=IdFactory(state.counters()),
            links=links,
        )
        events = domain.generate(ctx)
        try:
            state = projection.fold(state, events)
        except Exception as exc:
            raise ScenarioError(f"world {profile.name!r}: {domain.name} generator's events failed: {exc}") from exc
    say(f"world {profile.name} seed {seed}: indexes")
    prewarm_world(state, domains)
    version = code_version({d.name: d for d in domains})
    return World(profile, seed, state, state.content_hash(), projection, schema, version)


def prewarm_world(state: State, domains: Sequence[Domain]) -> None:
    """Builds the domains' secondary indexes, list orders and check views on a world (O(size); off the event loop).

    It also runs the domains' `warm` functions (process-wide caches such as a language model), once
    a process, so that no agent's call or grade loads them on the event loop.

    Every episode's state derives from the world's, so it reads these through its own
    changes and never builds them again (`saas_sim.core.table`). Call it on a world
    decoded from a snapshot too; without it, the first search of each table builds it.
    """
    prewarm(state, [spec for domain in domains for spec in domain.indexes])
    for domain in domains:
        for view in domain.views:
            view.of(state)
        for fill in domain.warm:
            fill()
