"""The domain kit: one way to declare a domain's tools, checks and setups.

Each domain makes one kit and decorates its functions with it; the names are
derived from the function, so adding a tool, check or setup is one edit::

    kit = DomainKit("notes")

    @kit.tool(WRITE)
    def archive_note(ctx: ToolContext, args: ArchiveNoteArgs) -> NoteView:   # "notes.archive_note"
        \"\"\"Archives a note.\"\"\"

    @kit.check
    def note_archived(ctx: CheckContext, note_id: str) -> CheckOutcome:      # "notes.note_archived"
        ...

    @kit.setup
    def stale_note(ctx: SetupContext) -> Setup:                              # "notes.stale_note"
        ...

    DOMAIN = kit.domain(module=__name__, modules=(tools_notes, checks_notes, setups_notes), projection=..., ...)

`kit.domain` lists the modules that declare things, in the order agents see
their tools (definition order within a module). A registered tool, check or
setup whose module is not listed, or a listed module that registers nothing,
is a harness error, so nothing is registered by accident or lost.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, TypeVar

from pydantic import BaseModel

from saas_sim.core.derived import Derived
from saas_sim.core.domain import CheckFn, Domain, GenerateFn, GradeEffectsFn, NarrateFn, SetupFn
from saas_sim.core.effects import Effect
from saas_sim.core.indexes import Index, Order, TextIndex
from saas_sim.core.links import Port
from saas_sim.core.snapshots import StateSchema
from saas_sim.core.state import Projection, State
from saas_sim.core.tools import ToolArgs, ToolContext, ToolKind, ToolSpec, tool
from saas_sim.errors import HarnessError

__all__ = ["DomainKit"]

A = TypeVar("A", bound=ToolArgs)
R = TypeVar("R", bound="BaseModel | Effect[Any]")
F = TypeVar("F", bound=Callable[..., Any])


@dataclass
class _Registry:
    """What one module declared, in definition order."""

    tools: list[ToolSpec] = field(default_factory=list)
    checks: dict[str, CheckFn] = field(default_factory=dict)
    setups: dict[str, SetupFn] = field(default_factory=dict)


class DomainKit:
    """Collects a domain's tools, checks and setups and builds its `Domain`.

    Args:
        name: The domain's name; every tool, check and setup is named `<name>.<function name>`.
    """

    def __init__(self, name: str) -> None:
        if not name.isidentifier():
            raise HarnessError(f"domain name {name!r} must be an identifier")
        self.name = name
        self._modules: dict[str, _Registry] = {}
        self._names: set[str] = set()

    def _claim(self, fn: Callable[..., Any], what: str) -> tuple[str, _Registry]:
        qualified = f"{self.name}.{fn.__name__}"
        if qualified in self._names:
            raise HarnessError(f"{what} {qualified} is declared twice")
        self._names.add(qualified)
        return qualified, self._modules.setdefault(fn.__module__, _Registry())

    def tool(
        self, kind: ToolKind, *, cost_s: float | None = None
    ) -> Callable[[Callable[[ToolContext, A], R]], ToolSpec]:
        """Decorator: declares a tool named `<domain>.<function name>` (see `saas_sim.core.tools.tool`).

        Args:
            kind: READ or WRITE.
            cost_s: Simulated seconds one call takes (default 5 for READ, 30 for WRITE).
        """

        def decorate(fn: Callable[[ToolContext, A], R]) -> ToolSpec:
            qualified, registry = self._claim(fn, "tool")
            spec = tool(qualified, kind, cost_s=cost_s)(fn)
            registry.tools.append(spec)
            return spec

        return decorate

    def check(self, fn: F) -> F:
        """Decorator: declares the check `<domain>.<function name>`; returns the function unchanged."""
        qualified, registry = self._claim(fn, "check")
        registry.checks[qualified] = fn
        return fn

    def setup(self, fn: F) -> F:
        """Decorator: declares the scenario setup `<domain>.<function name>`; returns the function unchanged."""
        qualified, registry = self._claim(fn, "setup")
        registry.setups[qualified] = fn
        return fn

    def domain(
        self,
        *,
        module: str,
        modules: Sequence[ModuleType],
        projection: Projection,
        schema: StateSchema,
        generate: GenerateFn,
        policy: str = "",
        data_report: Callable[[State], Mapping[str, Any]] | None = None,
        narrate: NarrateFn | None = None,
        id_kinds: Mapping[str, str] | None = None,
        requires: tuple[str, ...] = (),
        uses: tuple[str, ...] = (),
        grade_effects: GradeEffectsFn | None = None,
        indexes: Sequence[Index[Any] | TextIndex[Any] | Order[Any]] = (),
        views: Sequence[Derived[Any]] = (),
        mess_params: tuple[str, ...] = (),
        ports: Sequence[Port] = (),
        warm: Sequence[Callable[[], object]] = (),
    ) -> Domain:
        """Builds the `Domain` from everything the listed modules declared.

        Args:
            module: The module that holds the `DOMAIN` value (pass `__name__`), so that another
                process can import the domain (`Environment.from_config`).
            modules: The modules that declare tools, checks or setups; their order is the
                order of the tool list agents see.
            projection: The domain's reducers.
            schema: The models of its tables, for snapshots.
            generate: Its world generator.
            policy: The rules agents are shown.
            data_report: Measures each kind of mess in a world.
            narrate: How a successful call reads to a person (display only).
            id_kinds: Id prefix -> entity kind of every id it allocates.
            requires: Domains whose generated state its generator reads.
            uses: Domains whose generated state its generator reads when the world has them.
            grade_effects: The slow or impure work its checks need at grade time.
            indexes: The secondary indexes and list orders its tools use, prewarmed with each world.
            views: The per-state views its checks read, computed on each world when it is built.
            ports: The views of its state it offers other domains' generators (`saas_sim.core.links`).
            mess_params: The profile params that are mess rates, which the `mess` difficulty knob scales.
            warm: Fill process-wide caches (a language model) off the event loop, with each world's prewarm.

        Raises:
            HarnessError: A declaring module is missing from `modules`, or a listed one declares nothing.
        """
        listed = [m.__name__ for m in modules]
        unlisted = sorted(set(self._modules) - set(listed))
        if unlisted:
            raise HarnessError(
                f"domain {self.name}: modules {unlisted} declare tools, checks or setups but are not listed"
            )
        empty = [name for name in listed if name not in self._modules]
        if empty:
            raise HarnessError(f"domain {self.name}: listed modules {empty} declare nothing")
        foreign = sorted(p.name for p in ports if p.domain != self.name)
        if foreign:
            raise HarnessError(f"domain {self.name}: ports {foreign} must be named {self.name}.<what>")
        registries = [self._modules[name] for name in listed]
        return Domain(
            name=self.name,
            projection=projection,
            schema=schema,
            tools=tuple(spec for r in registries for spec in r.tools),
            generate=generate,
            setups={k: v for r in registries for k, v in r.setups.items()},
            checks={k: v for r in registries for k, v in r.checks.items()},
            policy=policy,
            data_report=data_report,
            narrate=narrate,
            id_kinds=dict(id_kinds or {}),
            requires=requires,
            uses=uses,
            grade_effects=grade_effects,
            indexes=tuple(indexes),
            views=tuple(views),
            mess_params=mess_params,
            ports=tuple(ports),
            warm=tuple(warm),
            module=module,
        )
