"""Tools: typed operations an agent may call, defined once.

A tool is a plain function with a pydantic argument model, a pydantic result
model, a READ or WRITE kind and a Google docstring. The docstring's summary and
`Args:` section become the description the agent reads, so write them for the
agent::

    class GetDealArgs(ToolArgs):
        deal_id: str = Field(description="The deal's id, such as dl_000042.")

    @tool("crm.get_deal", READ)
    def get_deal(ctx: ToolContext, args: GetDealArgs) -> DealView:
        \"\"\"Returns one deal with its stage, amount and contacts.\"\"\"
        deal = ctx.state.get(DEALS, args.deal_id)
        if deal is None:
            raise ToolError("not_found", f"deal {args.deal_id} does not exist")
        return DealView.of(deal)

A READ tool must not emit events. A WRITE tool validates against the current
state and calls `ctx.emit(event)` for each fact it decides; `emit` applies the
event at once, so the rest of the handler reads its own writes. A handler that
raises `ToolError` after emitting writes nothing: the call is all or nothing.
Handlers are synchronous, pure functions of (state, args, sim time, seed):
no I/O, no wall time, no global randomness. Slow or impure work (running
tests) is requested instead: annotate the handler `-> Effect[Result]` and
return an `Effect` (saas_sim/core/effects.py), which the runtime runs off the
event loop and records.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, TypeVar, get_args, get_origin

from pydantic import BaseModel, ConfigDict

from saas_sim.core.effects import Effect
from saas_sim.core.events import Event
from saas_sim.core.ids import IdFactory
from saas_sim.core.state import Projection, State, TableKey, ValueKey
from saas_sim.errors import HarnessError

__all__ = [
    "HIDDEN_PREFIX",
    "READ",
    "WRITE",
    "ToolArgs",
    "ToolContext",
    "ToolKind",
    "ToolResult",
    "ToolSpec",
    "tool",
]

HIDDEN_PREFIX = "hidden."
"""Tables and values whose name starts with this hold ground truth: checks read them, tools cannot."""

A = TypeVar("A", bound="ToolArgs")
R = TypeVar("R", bound="BaseModel | Effect[Any]")


class ToolKind(StrEnum):
    """Whether a tool only reads, or may change the world."""

    READ = "read"
    WRITE = "write"


READ = ToolKind.READ
WRITE = ToolKind.WRITE


class ToolArgs(BaseModel):
    """Base class of tool argument models: extra fields are rejected, strings are bounded."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_max_length=20_000)


class ToolResult(BaseModel):
    """Base class of tool result models."""

    model_config = ConfigDict(frozen=True)


class ToolContext:
    """What a handler sees: the current state, the sim clock, ids and a seeded rng.

    Args:
        state: The episode's current state.
        now: The simulated instant of the call.
        projection: Applies emitted events.
        rng: A random stream seeded by (episode seed, step), or a factory for one.
        kind: The tool's kind; READ tools may not emit.
        ties: The episode's tie salt: list and search tools pass it to their page (`Page.of(..., ties=)`),
            so records tied on a list's sort key follow an order drawn per episode, not their id order.
            None (bare unit tests) keeps the id order.
    """

    def __init__(
        self,
        state: State,
        now: datetime,
        projection: Projection,
        rng: random.Random | Callable[[], random.Random],
        kind: ToolKind,
        ties: str | None = None,
    ) -> None:
        self._state = state
        self.now = now
        self._projection = projection
        self._rng = rng
        self.kind = kind
        self.ties = ties
        self.ids = IdFactory(state.counters())
        self.events: list[Event] = []

    @property
    def rng(self) -> random.Random:
        """A random stream seeded by (episode seed, step): the only randomness a handler may use."""
        if not isinstance(self._rng, random.Random):
            self._rng = self._rng()
        return self._rng

    @property
    def state(self) -> State:
        """The current state, including this call's own emitted events."""
        return self._state

    def table(self, key: TableKey[Any]) -> Any:
        """Returns a table; hidden (ground-truth) tables are refused."""
        if key.name.startswith(HIDDEN_PREFIX):
            raise HarnessError(f"tool tried to read hidden table {key.name}")
        return self._state.table(key)

    def value(self, key: ValueKey[Any]) -> Any:
        """Returns a singleton value; hidden values are refused."""
        if key.name.startswith(HIDDEN_PREFIX):
            raise HarnessError(f"tool tried to read hidden value {key.name}")
        return self._state.value(key)

    def emit(self, ev: Event) -> None:
        """Records an event and applies it to `state` at once."""
        if self.kind is ToolKind.READ:
            raise HarnessError(f"READ tool emitted {type(ev).__name__}")
        self._state = self._projection.apply(self._state, ev)
        self.events.append(ev)


Handler = Callable[[ToolContext, Any], "BaseModel | Effect[Any]"]


@dataclass(frozen=True)
class ToolSpec:
    """A registered tool.

    Attributes:
        name: The dotted name the agent calls, such as `crm.update_deal_stage`.
        kind: READ or WRITE.
        args_model: Validates the arguments.
        result_model: Describes the result.
        handler: The implementation.
        description: The agent-facing description (from the docstring).
        sim_cost: How far one call moves the simulated clock.
        effect: True when the handler returns an `Effect` for the runtime to run.
    """

    name: str
    kind: ToolKind
    args_model: type[ToolArgs]
    result_model: type[BaseModel]
    handler: Handler
    description: str
    sim_cost: timedelta = field(default=timedelta(seconds=30))
    effect: bool = False


def _description(fn: Callable[..., Any]) -> str:
    doc = inspect.getdoc(fn) or ""
    # Keep the summary and prose; the argument docs live in the schema's field descriptions.
    lines: list[str] = []
    for line in doc.splitlines():
        if line.strip() in ("Args:", "Returns:", "Raises:"):
            break
        lines.append(line)
    text = "\n".join(lines).strip()
    if not text:
        raise HarnessError(f"tool {fn.__name__} has no docstring; the agent needs a description")
    return text


def tool(
    name: str, kind: ToolKind, *, cost_s: float | None = None
) -> Callable[[Callable[[ToolContext, A], R]], ToolSpec]:
    """Decorator: turns a handler into a `ToolSpec`.

    The argument and result models are read from the handler's annotations;
    a handler annotated `-> Effect[Result]` declares an effect tool.

    Args:
        name: The dotted tool name.
        kind: READ or WRITE.
        cost_s: Simulated seconds one call takes (default 5 for READ, 30 for WRITE).
    """

    def decorate(fn: Callable[[ToolContext, A], R]) -> ToolSpec:
        hints = inspect.get_annotations(fn, eval_str=True)
        params = list(inspect.signature(fn).parameters)
        if len(params) != 2:
            raise HarnessError(f"tool {name}: handler must take (ctx, args)")
        args_model = hints.get(params[1])
        result_model = hints.get("return")
        effect = get_origin(result_model) is Effect
        if effect:
            result_model = (get_args(result_model) or (None,))[0]
        if not (isinstance(args_model, type) and issubclass(args_model, ToolArgs)):
            raise HarnessError(f"tool {name}: args must be annotated with a ToolArgs model")
        if not (isinstance(result_model, type) and issubclass(result_model, BaseModel)):
            raise HarnessError(f"tool {name}: return must be annotated with a pydantic model")
        default_cost = 5.0 if kind is ToolKind.READ else 30.0
        return ToolSpec(
            name=name,
            kind=kind,
            args_model=args_model,
            result_model=result_model,
            handler=fn,
            description=_description(fn),
            sim_cost=timedelta(seconds=default_cost if cost_s is None else cost_s),
            effect=effect,
        )

    return decorate
