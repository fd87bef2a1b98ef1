"""The contract a domain (CRM, support desk, IDE, or a test domain) fulfils.

A domain is data plus pure functions, registered in one `Domain` value:

* `projection` and `schema`: its events' reducers and its tables' models;
* `tools`: the `ToolSpec`s agents may call;
* `generate`: builds its part of a world from a profile's parameters and a
  seed, as a list of events (it sees the state built so far, so a support desk
  can link customers to CRM contacts);
* `setups`: named scenario setup functions. Each picks the task's entities
  with the episode's seeded rng and may emit setup events;
* `checks`: named predicates over the final state and its diff from the start;
* `policy`: the numbered rules the agent is shown;
* `data_report`: measured rates of each kind of mess in a world;
* `id_kinds`: the id prefixes it allocates and the kind of entity each names;
* `grade_effects`: slow or impure work its checks need at grade time (hidden test runs);
* `requires` and `uses`: the domains whose generated state it reads, always or when present
  (built before it);
* `ports`: the named, typed views of its state it offers other domains' generators
  (`saas_sim.core.links`); a generator reads those of the domains it requires or uses.

Nothing here knows the runtime or any adapter.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from saas_sim.core.derived import Derived
from saas_sim.core.effects import Effect, EffectOutcome
from saas_sim.core.events import Event
from saas_sim.core.ids import IdFactory
from saas_sim.core.indexes import Index, Order, TextIndex
from saas_sim.core.links import Links, Port
from saas_sim.core.rng import SeedTree
from saas_sim.core.snapshots import StateSchema
from saas_sim.core.state import Entity, Projection, State, TableKey
from saas_sim.core.tools import ToolSpec

__all__ = [
    "CheckContext",
    "CheckFn",
    "CheckOutcome",
    "Domain",
    "GenerateContext",
    "GenerateFn",
    "GradeEffectsFn",
    "NarrateFn",
    "RefusedCall",
    "Setup",
    "SetupContext",
    "SetupFn",
]

T = TypeVar("T", bound=Entity)


@dataclass
class GenerateContext:
    """What a world generator gets.

    Attributes:
        params: The domain's section of the world profile.
        seed: The seed subtree of this domain (derive named children from it).
        state: The world built so far by earlier domains.
        now: The world's clock at generation time.
        ids: Allocates ids continuing from `state`'s counters.
        links: The ports of the domains built so far that this domain requires or uses
            (`links.read(name, kind)`); never read another domain's tables.
    """

    params: Mapping[str, Any]
    seed: SeedTree
    state: State
    now: datetime
    ids: IdFactory
    links: Links = field(default_factory=Links)


GenerateFn = Callable[[GenerateContext], list[Event]]


@dataclass
class Setup:
    """A scenario setup's output: the task's bindings and any events that stage it."""

    bindings: dict[str, Any]
    events: list[Event] = field(default_factory=list)


@dataclass
class SetupContext:
    """What a scenario setup function gets.

    Attributes:
        state: The world state, ground truth included.
        params: The `setup.params` of the scenario file.
        rng: A random stream seeded by the episode seed; picks the task's entities.
        now: The simulated instant the episode starts.
        ids: Allocates ids for setup events.
        lookalikes: The groups of look-alike records the setup staged (`declare_lookalikes`); a context
            made for a sub-step shares its parent's list (`dataclasses.replace` keeps it).
    """

    state: State
    params: Mapping[str, Any]
    rng: random.Random
    now: datetime
    ids: IdFactory
    lookalikes: list[tuple[str, ...]] = field(default_factory=list)

    def declare_lookalikes(self, real_id: str, *copy_ids: str) -> None:
        """Declares records of one table that an agent must tell apart by content, not by id.

        Ids show creation order, so a copy staged beside a world record would always carry the higher
        id. After the setup, each declared group's ids are permuted by a seeded draw
        (`saas_sim.core.relabel`): every reference moves with its record, so the task is the same
        task under other names, and the real record's id is any of the group's with equal chance.
        Declare only records whose order means nothing to the task (never duplicates where "the
        older record" is a rule the agent is given).

        Args:
            real_id: The record the task is about.
            copy_ids: The look-alikes staged beside it (same id prefix).
        """
        if not copy_ids:
            return
        for i, group in enumerate(self.lookalikes):
            if real_id in group:  # more copies of a record already declared join its group
                self.lookalikes[i] = (*group, *(c for c in copy_ids if c not in group))
                return
        self.lookalikes.append((real_id, *copy_ids))


SetupFn = Callable[[SetupContext], Setup]


@dataclass(frozen=True)
class CheckOutcome:
    """The verdict of one check: a score in [0, 1] and a human-readable detail."""

    score: float
    detail: str

    @classmethod
    def passed(cls, detail: str) -> CheckOutcome:
        """Returns a full-credit outcome."""
        return cls(1.0, detail)

    @classmethod
    def failed(cls, detail: str) -> CheckOutcome:
        """Returns a zero-credit outcome."""
        return cls(0.0, detail)

    @classmethod
    def of(cls, ok: bool, detail: str) -> CheckOutcome:
        """Returns full or zero credit from a boolean."""
        return cls(1.0 if ok else 0.0, detail)


@dataclass(frozen=True)
class RefusedCall:
    """A call the agent made that a tool refused: an attempt that changed nothing, yet may break a rule.

    A refusal leaves no event, so without it a policy could try every forbidden write and let the
    app's guard sort them out at no cost. Checks read these to judge the attempt itself.

    Attributes:
        step: The 0-based step of the call.
        tool: The tool name as called.
        args: The arguments as recorded (empty when they were not a JSON object).
        code: The error code the agent saw (`permission_denied`, `conflict`, ...).
        details: The error's structured details, as the tool gave them.
    """

    step: int
    tool: str
    args: Mapping[str, Any]
    code: str
    details: Mapping[str, Any]


_UNKNOWN: Any = object()
"""`CheckContext`'s changed keys before the first diff asks for them."""


@dataclass
class CheckContext:
    """What a check reads: the start and final states, their diff, and the task's bindings.

    Attributes:
        initial: The state when the agent took over (after setup).
        final: The state at grading time.
        bindings: The setup's bindings (picked entities, expected values).
        events: The events the agent's calls emitted, in order.
        now: The simulated instant at grading.
        effects: The outcomes of the domains' grade effects (hidden test runs), by name.
        refused: The calls a tool refused (never an injected fault), in order: attempts that left no event.
    """

    initial: State
    final: State
    bindings: Mapping[str, Any]
    events: Sequence[Event]
    now: datetime
    effects: Mapping[str, EffectOutcome] = field(default_factory=dict)
    refused: Sequence[RefusedCall] = ()
    _diffs: dict[str, tuple[tuple[str, Any, Any], ...]] = field(default_factory=dict, init=False, repr=False,
                                                                 compare=False)
    _changed_keys: Any = field(default=_UNKNOWN, init=False, repr=False, compare=False)

    def changed(self, key: TableKey[T]) -> Iterator[tuple[str, T | None, T | None]]:
        """Yields `(id, before, after)` for every entity of `key` that differs, in id order.

        `before` is None for a created entity and `after` is None for a deleted one. Both states
        are immutable, so each table's diff is worked out once per context, however many checks ask.
        """
        diff = self._diffs.get(key.name)
        if diff is None:
            diff = self._diffs[key.name] = tuple(self._diff(key))
        return iter(diff)

    def _diff(self, key: TableKey[T]) -> Iterator[tuple[str, T | None, T | None]]:
        before = self.initial.table(key)
        after = self.final.table(key)
        if before.same_as(after):
            return
        if self._changed_keys is _UNKNOWN:
            self._changed_keys = self.final.changed_since(self.initial)
        changed = self._changed_keys
        if changed is None:  # no shared lineage (a state from raw maps): compare in full
            ids = sorted(set(before.ids()) | set(after.ids()))
        else:
            ids = sorted(k[2] for k in changed if k[0] == "t" and k[1] == key.name)
        for entity_id in ids:
            b = before.get(entity_id)
            a = after.get(entity_id)
            if b is not a and b != a:
                yield entity_id, b, a

    def created(self, key: TableKey[T]) -> list[T]:
        """Returns the entities of `key` that did not exist at the start."""
        return [a for _, b, a in self.changed(key) if b is None and a is not None]

    def events_of(self, cls: type[Event]) -> list[Event]:
        """Returns the agent's events of one class, in order."""
        return [e for e in self.events if isinstance(e, cls)]


CheckFn = Callable[..., CheckOutcome]
"""`check(ctx: CheckContext, **params) -> CheckOutcome`."""

GradeEffectsFn = Callable[[State, Mapping[str, Any]], Mapping[str, Effect[Any]]]
"""`grade_effects(final_state, bindings) -> {name: Effect}`: work a grade needs that is slow or impure.

The IDE runs its hidden tests this way. The runtime runs the effects off the event loop, records their
outcomes in the episode's log (a regrade, replay or resume reads them back, never re-runs them) and hands
them to the checks as `CheckContext.effects`. Names carry the domain's prefix (`ide.hidden_tests`).
`Effect.complete` is not called for grade effects.
"""

NarrateFn = Callable[[str, Any, Any], list[str]]
"""`narrate(tool, args, value) -> lines`: how a successful call reads to a person (for `saas-sim run`).

Return an empty list to fall back to the raw result. Display only: never part of results or grades.
"""


@dataclass(frozen=True)
class Domain:
    """One simulated product, as the runtime sees it."""

    name: str
    projection: Projection
    schema: StateSchema
    tools: Sequence[ToolSpec]
    generate: GenerateFn
    setups: Mapping[str, SetupFn] = field(default_factory=dict)
    checks: Mapping[str, CheckFn] = field(default_factory=dict)
    policy: str = ""
    data_report: Callable[[State], Mapping[str, Any]] | None = None
    narrate: NarrateFn | None = None
    id_kinds: Mapping[str, str] = field(default_factory=dict)
    """Id prefix -> entity kind of every id the domain allocates (`"ct": "contact"`).

    The runtime and its agents learn a world's ids from here, never from hard-coded prefixes.
    """
    requires: tuple[str, ...] = ()
    """Domains whose state this domain's generator reads; a world profile must include them."""
    uses: tuple[str, ...] = ()
    """Domains whose state the generator reads when the world has them (a support desk takes over CRM contacts).

    A world builds every domain after the ones it requires or uses, whatever order the profile lists them in.
    """
    grade_effects: GradeEffectsFn | None = None
    """The slow or impure work its checks need at grade time (see `GradeEffectsFn`), if any."""
    ports: tuple[Port, ...] = ()
    """The views of its state it offers the generators of other domains (`saas_sim.core.links`).

    Each name starts with the domain's name. A consumer reads them through `GenerateContext.links`.
    """
    indexes: tuple[Index[Any] | TextIndex[Any] | Order[Any], ...] = ()
    """The secondary indexes and list orders its tools use (`saas_sim.core.indexes`).

    A world builds them once when it is built (`prewarm`), off the event loop, so no agent call does.
    """
    views: tuple[Derived[Any], ...] = ()
    """The per-state views its checks read (`saas_sim.core.derived`): computed on each world when it is
    built, off the event loop, so a grade only carries them forward over the episode's changes."""
    mess_params: tuple[str, ...] = ()
    """The world-profile params that are mess rates (0..1): the `mess` difficulty knob scales them."""
    warm: tuple[Callable[[], object], ...] = ()
    """Fill the process-wide caches its checks or tools would otherwise fill on first use (a language
    model that takes a second or two to load). Called with every world's prewarm, off the event loop,
    so they must be idempotent and cheap once done (`functools.cache`)."""
    module: str = ""
    """The module whose `DOMAIN` attribute is this domain, so another process can import it.

    `DomainKit.domain` sets it; a hand-built domain may leave it empty and is then looked up near its generator.
    """
