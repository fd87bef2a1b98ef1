"""A concrete task: one scenario file plus one seed, set up on its world.

Setting up a task runs the scenario's setup function (which picks entities
with the seeded rng and may stage events), renders the instructions, and
pre-encodes the episode's first events. All of it is a pure function of
(scenario, seed, world), so it is computed once and shared by every episode of
the task: a reset then costs O(1), whatever the world's size.
"""

from __future__ import annotations

import functools
import pickle
import random
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from saas_sim.core.canonical import normalize, stable_hash
from saas_sim.core.domain import SetupContext
from saas_sim.core.events import GENESIS_HASH, Event, EventRegistry, PendingEvent, chain_hash
from saas_sim.core.ids import IdFactory
from saas_sim.core.relabel import IdsRelabeled, Relabeller
from saas_sim.core.rng import SeedTree
from saas_sim.core.state import State
from saas_sim.errors import ScenarioError
from saas_sim.runtime.records import EpisodeStarted
from saas_sim.runtime.world import World
from saas_sim.scenarios.difficulty import Difficulty, resolve
from saas_sim.scenarios.loader import Scenario
from saas_sim.scenarios.templating import render

__all__ = ["TaskInstance", "make_task"]


@dataclass(frozen=True)
class TaskInstance:
    """Everything episodes of one (scenario, seed) share. Immutable.

    Attributes:
        scenario: The resolved scenario.
        seed: The task seed.
        world: The world the task starts from.
        bindings: The setup's bindings (JSON-ready).
        instructions: What the agent reads: the rendered task, then the domains' policy.
        task_text: The rendered task alone, without the policy.
        initial: The state after setup: where the agent takes over.
        start_events: The encoded first events of every episode of this task.
        start_head: The chain hash after `start_events`.
        start_time: The sim instant the agent takes over.
        bindings_hash: The canonical hash of `bindings`.
        difficulty: The resolved difficulty the task was set up at (setup params, hints, default faults).
        labels: How the setup's look-alike groups were dealt (`IdsRelabeled.pairs`); empty when it declared none.
    """

    scenario: Scenario
    seed: int
    world: World
    bindings: dict[str, Any]
    instructions: str
    task_text: str
    initial: State
    start_events: tuple[PendingEvent, ...]
    start_head: str
    start_time: datetime
    bindings_hash: str
    difficulty: Difficulty
    labels: tuple[tuple[str, str], ...] = ()

    def fresh_bindings(self) -> dict[str, Any]:
        """A private deep copy of `bindings`, for checks that might change their params in place: every
        episode of the task shares the bindings, so a change in place would change other episodes' rewards."""
        copied: dict[str, Any] = pickle.loads(self._bindings_pickle)
        return copied

    def unlabelled_bindings(self) -> dict[str, Any]:
        """The bindings as they were before the look-alike groups were dealt: there the record a task is
        about held its group's lowest id, so a policy that takes the lowest id acts as these bindings say
        (the self-audit's look-alike attack)."""
        return dict(Relabeller({new: old for old, new in self.labels}).value(self.fresh_bindings()))

    @functools.cached_property
    def _bindings_pickle(self) -> bytes:
        # A grade copies the bindings; unpickling is about ten times faster than copy.deepcopy on them.
        return pickle.dumps(self.bindings, protocol=pickle.HIGHEST_PROTOCOL)

    @property
    def seed_tree(self) -> SeedTree:
        """The task's seed tree (steps and faults derive from it)."""
        return SeedTree(f"task:{self.scenario.ref}:{self.seed}")

    @functools.cached_property
    def tie_salt(self) -> str:
        """The salt that orders records tied on a list's sort key (`ToolContext.ties`): one per task, so a
        cursor stays valid for the whole episode, and the same wherever the episode is replayed or resumed."""
        return self.seed_tree.child("ties").seed


def _run_setups(
    scenario: Scenario, tree: SeedTree, world: World, now: datetime, difficulty: Difficulty
) -> tuple[dict[str, Any], list[Event]]:
    """Runs the scenario's setup functions in order; returns their merged bindings and staged events.

    Each step sees the state the earlier ones staged and allocates ids from one shared factory, and a
    later step's params are rendered over the bindings so far. The first step draws from the stream
    `setup` (so a one-step scenario is what it always was), step i > 0 from `setup.<i>`. The params
    are the difficulty's (the file's own at its own level). Last, the look-alike groups the steps declared
    get their labels (`_label_lookalikes`).
    """
    state = world.state
    ids = IdFactory(world.state.counters())
    bindings: dict[str, Any] = {}
    events: list[Event] = []
    groups: list[tuple[str, ...]] = []
    steps = zip(scenario.spec.setup_steps, difficulty.setup_params, scenario.setup_fns, strict=True)
    for i, (step, own_params, fn) in enumerate(steps):
        params = own_params if i == 0 else render(own_params, bindings)
        ctx = SetupContext(
            state=state, params=params, rng=tree.random("setup" if i == 0 else f"setup.{i}"), now=now, ids=ids,
        )
        out = fn(ctx)
        groups += ctx.lookalikes
        got: dict[str, Any] = normalize(out.bindings)
        clash = sorted(bindings.keys() & got.keys())
        if clash:
            raise ScenarioError(f"{scenario.spec.ref}: setup {step.fn!r} rebinds {clash}, bound by an earlier step")
        bindings.update(got)
        events.extend(out.events)
        if i + 1 < len(scenario.setup_fns):
            state = world.projection.fold(state, out.events)
    relabelled = _label_lookalikes(groups, tree.random("lookalikes"))
    if relabelled is None:
        return bindings, events
    return Relabeller(dict(relabelled.pairs)).value(bindings), [*events, relabelled]


def _label_lookalikes(groups: list[tuple[str, ...]], rng: random.Random) -> IdsRelabeled | None:
    """Returns the event that deals each declared look-alike group's ids out among its records at random.

    Each group's ids are permuted uniformly (its own draw from `rng`, in declaration order), so the record
    a task is about holds any of its group's ids with equal chance; None when no group was declared (the
    task's events are then what they always were).
    """
    if not groups:
        return None
    seen: set[str] = set()
    pairs: list[tuple[str, str]] = []
    for group in groups:
        if len(set(group)) != len(group) or seen & set(group):
            raise ScenarioError(f"look-alike group {group} repeats an id or shares one with another group")
        seen |= set(group)
        labels = sorted(group)
        rng.shuffle(labels)
        pairs += zip(sorted(group), labels, strict=True)
    return IdsRelabeled(pairs=tuple(sorted(pairs)))


def _with_hints(task_text: str, hints: tuple[str, ...], bindings: dict[str, Any]) -> str:
    if not hints:
        return task_text
    lines = "\n".join(f"- {str(render(h, bindings)).strip()}" for h in hints)
    return f"{task_text}\n\nHints:\n{lines}"


def make_task(
    scenario: Scenario, seed: int, world: World, registry: EventRegistry, policy: str = "",
    difficulty: Difficulty | None = None,
) -> TaskInstance:
    """Sets up one task. Pure: the same inputs give the same task.

    Args:
        scenario: The resolved scenario.
        seed: The task seed.
        world: The world it starts from.
        registry: Encodes the episode's first events.
        policy: The numbered rules of the world's domains, appended to the instructions.
        difficulty: The resolved difficulty (default: the file's own level). Its world (the mess
            scale) is the caller's to build; `world` must be it.
    """
    spec = scenario.spec
    level = difficulty or resolve(spec)
    tree = SeedTree(f"task:{spec.ref}:{seed}")
    now = world.profile.epoch
    fns = " then ".join(repr(step.fn) for step in spec.setup_steps)
    try:
        bindings, setup_events = _run_setups(scenario, tree, world, now, level)
        bindings.setdefault("seed", seed)
        initial = world.projection.fold(world.state, setup_events)
        # Hashed now, in O(setup changes): every episode's state then descends from a hashed
        # initial state, so grading hashes and diffs only what the agent changed.
        initial.content_hash()
        task_text = _with_hints(str(render(spec.instructions, bindings)).strip(), level.hints, bindings)
    except ScenarioError:
        raise
    except Exception as exc:
        raise ScenarioError(f"{spec.ref} seed {seed}: setup {fns} failed: {exc!r}") from exc
    bindings_hash = stable_hash(bindings)
    instructions = f"{task_text}\n\n## Policy\n\n{policy.strip()}" if policy.strip() else task_text
    started = EpisodeStarted(
        scenario=spec.ref, seed=seed, world_hash=world.world_hash,
        bindings_hash=bindings_hash, faults_enabled=level.faults is not None,
        difficulty=dict(level.changed) or None,
    )
    pending = tuple(registry.encode(ev, now) for ev in [started, *setup_events])
    head = GENESIS_HASH
    for version, p in enumerate(pending, start=1):
        head = chain_hash(head, version, p.event_type, p.schema_version, p.sim_time, p.payload)
    return TaskInstance(
        scenario=scenario, seed=seed, world=world, bindings=bindings, instructions=instructions, task_text=task_text,
        initial=initial, start_events=pending, start_head=head, start_time=now, bindings_hash=bindings_hash,
        difficulty=level, labels=next((e.pairs for e in setup_events if isinstance(e, IdsRelabeled)), ()),
    )
