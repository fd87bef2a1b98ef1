"""A richer test domain: nested models, enums, Decimal, floats, and checks with bugs.

The notes domain has only flat string/int arguments. This "ledger" domain has
the shapes real SaaS tools have (money as Decimal, a float rate, an enum, a
Literal, a list of nested line models with optional fields, an optional nested
object, and fields named `title` and `default`), so the runtime's schema export,
argument parsing and grading are exercised on them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from saas_sim.core.domain import CheckContext, CheckOutcome, Domain, GenerateContext, Setup, SetupContext
from saas_sim.core.events import Event, event
from saas_sim.core.snapshots import StateSchema
from saas_sim.core.state import Entity, Projection, State, TableKey
from saas_sim.core.tools import READ, WRITE, ToolArgs, ToolContext, ToolResult, tool
from saas_sim.errors import ToolError
from saas_sim.runtime.environment import Environment


class Kind(StrEnum):
    DEBIT = "debit"
    CREDIT = "credit"


class Meta(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    note: str | None = Field(default=None, description="A free-text note.")
    priority: int = Field(default=3, ge=1, le=5, description="1 (high) to 5 (low).")


class Line(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    sku: str = Field(description="The product code.")
    qty: int = Field(default=1, ge=1, description="How many.")
    meta: Meta | None = Field(default=None, description="Optional line metadata.")


class Entry(Entity):
    title: str
    amount: Decimal
    rate: float
    kind: str
    lines: int


ENTRIES = TableKey("reviewledger.entries", Entry)


@event("reviewledger.EntryPosted")
class EntryPosted(Event):
    entry_id: str
    title: str
    amount: Decimal
    rate: float
    kind: str
    lines: int


PROJECTION = Projection("reviewledger")


@PROJECTION.on(EntryPosted)
def _posted(state: State, ev: EntryPosted) -> State:
    return state.put(ENTRIES, Entry(id=ev.entry_id, title=ev.title, amount=ev.amount, rate=ev.rate,
                                    kind=ev.kind, lines=ev.lines))


class EntryView(ToolResult):
    id: str
    title: str
    amount: Decimal
    rate: float
    kind: str


class PostEntryArgs(ToolArgs):
    title: str = Field(min_length=1, description="The entry's title.")
    default: bool = Field(default=False, description="Make this the default entry.")
    amount: Decimal = Field(description="The amount, in dollars.")
    rate: float = Field(default=1.0, description="An exchange rate.")
    kind: Kind = Field(default=Kind.DEBIT, description="Debit or credit.")
    side: Literal["left", "right"] = Field(default="left", description="The ledger side.")
    lines: list[Line] = Field(default_factory=list, description="The entry's lines.")
    meta: Meta | None = Field(default=None, description="Optional metadata.")
    owner: Meta = Field(default_factory=Meta, description="Owner metadata (a nested object with a default).")


class GetEntryArgs(ToolArgs):
    entry_id: str = Field(description="The entry's id.")


def _view(e: Entry) -> EntryView:
    return EntryView(id=e.id, title=e.title, amount=e.amount, rate=e.rate, kind=e.kind)


@tool("ledger.post_entry", WRITE)
def post_entry(ctx: ToolContext, args: PostEntryArgs) -> EntryView:
    """Posts a ledger entry."""
    entry_id = ctx.ids.next("le")
    ctx.emit(EntryPosted(entry_id=entry_id, title=args.title, amount=args.amount, rate=args.rate,
                         kind=args.kind.value, lines=len(args.lines)))
    made = ctx.table(ENTRIES).get(entry_id)
    assert made is not None
    return _view(made)


@tool("ledger.get_entry", READ)
def get_entry(ctx: ToolContext, args: GetEntryArgs) -> EntryView:
    """Returns one entry."""
    entry = ctx.table(ENTRIES).get(args.entry_id)
    if entry is None:
        raise ToolError("not_found", f"entry {args.entry_id} does not exist")
    return _view(entry)


def generate(ctx: GenerateContext) -> list[Event]:
    return [
        EntryPosted(entry_id=ctx.ids.next("le"), title=f"Opening {i}", amount=Decimal("10.00") * i,
                    rate=1.0, kind="debit", lines=0)
        for i in range(1, int(ctx.params.get("entries", 3)) + 1)
    ]


def pick(ctx: SetupContext) -> Setup:
    return Setup(bindings={"target": {"title": f"Rent {ctx.rng.randint(1, 99)}", "amount": "12.50",
                                      "tags": ["rent", "monthly"]}})


def entry_posted(ctx: CheckContext, title: str) -> CheckOutcome:
    made = [e for e in ctx.created(ENTRIES) if e.title == title]
    return CheckOutcome.of(len(made) == 1, f"one new entry titled {title!r}")


def target_tags(ctx: CheckContext, target: dict[str, Any]) -> CheckOutcome:
    # A check with a (plausible) bug: it consumes its input in place.
    tags = target.pop("tags", [])
    return CheckOutcome.of(tags == ["rent", "monthly"], f"tags {tags}")


def bad_detail(ctx: CheckContext) -> CheckOutcome:
    # A check with a bug: its detail is not text.
    return CheckOutcome(1.0, None)  # type: ignore[arg-type]


LEDGER = Domain(
    name="ledger",
    projection=PROJECTION,
    schema=StateSchema(tables=[ENTRIES]),
    tools=[post_entry, get_entry],
    generate=generate,
    setups={"ledger.pick": pick},
    checks={"ledger.entry_posted": entry_posted, "ledger.target_tags": target_tags, "ledger.bad_detail": bad_detail},
)

PROFILE = """\
name: ledger-small
epoch: "2026-03-02T09:00:00Z"
domains:
  ledger: {entries: 3}
"""

SCENARIO = """\
id: ledger/post-entry
version: 1
description: Post an entry.
world: ledger-small
setup: {fn: ledger.pick}
instructions: Post an entry titled "{target.title}" for {target.amount}.
tools: ["ledger.*"]
limits: {max_steps: 10, sim_time_s: 3600}
checks:
  - {name: posted, weight: 1, fn: ledger.entry_posted, params: {title: "{target.title}"}}
  - {name: target_tags, weight: 1, fn: ledger.target_tags, params: {target: "{target}"}}
scope: {unguarded: "a runtime test domain; its checks exercise argument and grading mechanics"}
oracle:
  - {tool: ledger.post_entry, args: {title: "{target.title}", amount: "{target.amount}"}}
noop_score: 0.5
"""

BAD_DETAIL = """\
id: ledger/bad-detail
version: 1
description: A check whose detail is not text.
world: ledger-small
setup: {fn: ledger.pick}
instructions: Do anything.
tools: ["ledger.*"]
checks:
  - {name: bad_detail, weight: 1, fn: ledger.bad_detail}
scope: {unguarded: "a runtime test domain; its checks exercise argument and grading mechanics"}
oracle: []
noop_score: 1
"""


def ledger_env(root: Path, url: str = "sqlite+aiosqlite:///:memory:") -> Environment:
    (root / "seeds").mkdir(parents=True, exist_ok=True)
    (root / "scenarios" / "ledger").mkdir(parents=True, exist_ok=True)
    (root / "seeds" / "ledger-small.yaml").write_text(PROFILE)
    (root / "scenarios" / "ledger" / "post-entry.yaml").write_text(SCENARIO)
    (root / "scenarios" / "ledger" / "bad-detail.yaml").write_text(BAD_DETAIL)
    return Environment(url, scenario_dirs=[root / "scenarios"], seeds_dirs=[root / "seeds"], domains=[LEDGER],
                       builtin=False)


@pytest.fixture
async def lenv(tmp_path: Path) -> AsyncIterator[Environment]:
    async with ledger_env(tmp_path) as env:
        yield env


GOOD = {"title": "Rent", "amount": "12.50"}


async def test_ledger_oracle_scores_one(lenv: Environment) -> None:
    from saas_sim.runtime.agents import make_agent

    ep = await lenv.start("ledger/post-entry", 0)
    await make_agent("oracle", ep.task.scenario).run(ep)
    grade = await ep.grade()
    assert grade.score == 1.0, grade


@pytest.mark.parametrize(
    "args",
    [
        '{"title": "Rent", "amount": "12.50", "rate": NaN}',
        '{"title": "Rent", "amount": "12.50", "rate": Infinity}',
        '{"title": "Rent", "amount": "12.50", "rate": 1e999}',
        {"title": "Rent", "amount": "12.50", "rate": "nan"},
        {"title": "Rent", "amount": "12.50", "rate": float("-inf")},
        {"title": "Rent", "amount": "12.50", "rate": 1.0, "lines": [{"sku": "a", "qty": float("nan")}]},
    ],
)
async def test_non_finite_numbers_are_invalid_arguments_not_harness_errors(lenv: Environment, args: Any) -> None:
    # Bug: NaN/Infinity (JSON literals, "nan" strings or Python floats) passed validation of a float
    # field, and then the event's canonical encoding raised: a harness error that invalidated the episode
    # because of what the agent typed.
    ep = await lenv.start("ledger/post-entry", 0)
    result = await ep.call("ledger.post_entry", args)
    assert not result.ok and result.error is not None and result.error.code == "invalid_argument"
    assert ep.invalid is None
    ok = await ep.call("ledger.post_entry", GOOD)
    assert ok.ok
    assert (await ep.grade()).valid
    ep.trajectory.dumps()  # the junk the agent sent is still writable


async def test_nested_optional_fields_accept_null_from_strict_clients(lenv: Environment) -> None:
    # Bug: the strict schema makes every optional field nullable, nested ones included, but only
    # top-level nulls were mapped to the default; a nested null was refused as invalid_argument.
    ep = await lenv.start("ledger/post-entry", 0)
    args = {
        "title": "Rent", "default": None, "amount": "12.50", "rate": None, "kind": None, "side": None,
        "lines": [{"sku": "a", "qty": None, "meta": {"note": None, "priority": None}}, {"sku": "b", "qty": 2,
                                                                                         "meta": None}],
        "meta": {"note": "x", "priority": None},
        "owner": None,
    }
    result = await ep.call("ledger.post_entry", args)
    assert result.ok, result.error
    parsed = ep.toolkit.parse_args(ep.toolkit.spec("ledger.post_entry"), args)
    assert isinstance(parsed, PostEntryArgs)
    assert parsed.lines[0].qty == 1 and parsed.lines[0].meta == Meta(note=None, priority=3)
    assert parsed.meta == Meta(note="x", priority=3) and parsed.owner == Meta()
    assert parsed.rate == 1.0 and parsed.kind is Kind.DEBIT and parsed.side == "left" and parsed.default is False


async def test_a_check_that_mutates_its_params_cannot_change_another_episodes_grade(lenv: Environment) -> None:
    # Bug: `"{target}"` rendered to the task's own bindings dict, which is cached and shared by every
    # episode of the task. A check that consumed it in place changed the next episode's reward.
    first = await lenv.start("ledger/post-entry", 0)
    second = await lenv.start("ledger/post-entry", 0)
    bindings_before = repr(first.task.bindings)
    g1 = await first.grade()
    g2 = await second.grade()
    assert g1.vector == g2.vector == {"posted": 0.0, "target_tags": 1.0}
    assert repr(second.task.bindings) == bindings_before


async def test_a_check_returning_a_malformed_outcome_is_a_verifier_error(lenv: Environment) -> None:
    # Bug: a check whose detail is not text made `grade()` raise a pydantic error instead of
    # returning an invalid grade attributed to the verifier.
    ep = await lenv.start("ledger/bad-detail", 0)
    grade = await ep.grade()
    assert grade.attribution == "verifier_error" and not grade.valid and grade.score is None
    assert "bad_detail" in (grade.error or "")


async def test_money_and_rates_round_trip_through_trajectory_and_replay(lenv: Environment, tmp_path: Path) -> None:
    from saas_sim.runtime.replay import replay
    from saas_sim.runtime.trajectory import read_trajectory

    ep = await lenv.start("ledger/post-entry", 0)
    await ep.call("ledger.post_entry", {"title": "A", "amount": Decimal("12.50"), "rate": 0.1})
    await ep.call("ledger.post_entry", '{"title": "B", "amount": 12.5, "rate": 2.5, "kind": "credit"}')
    await ep.grade()
    path = tmp_path / "t.jsonl"
    ep.trajectory.write(path)
    report, _ = await replay(lenv, read_trajectory(path))
    assert report.identical, report.describe()
