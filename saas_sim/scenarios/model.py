"""The scenario file format (YAML), validated by pydantic.

A scenario file in `scenarios/<domain>/<name>.yaml` looks like this::

    id: crm/close-won-deal          # <domain>/<name>
    version: 1                      # bump when behaviour that affects results changes
    description: Close a won deal with the amount from its line items.
    difficulty:                     # docs/difficulty.md: the knobs and the levels
      level: medium                 # the level this file's own setup params describe
      knobs: {distractors: {param: distractor_deals, easy: 0, medium: 3, hard: 8}}
    hints: ["Line items carry the agreed prices."]   # shown only at easier levels
    world: crm-smb                  # a profile in seeds/<world>.yaml
    setup: {fn: crm.pick_won_deal, params: {distractor_deals: 3}}
    instructions: |
      The customer signed. Close deal "{deal.name}" as won ...
    tools: [crm.search_deals, crm.get_deal, crm.update_deal_stage]
    limits: {max_steps: 30, sim_time_s: 7200}
    faults: null                    # or {read: {rate_limited: 0.2}, write: {lost_response: 0.1}}
    checks:
      # a goal (the default kind): weighted, partial credit
      - {name: deal_closed_won, weight: 3, fn: crm.deal_in_stage,
         params: {deal_id: "{deal.id}", stage: closed_won}}
      # a constraint: a gate; if violated, the scalar is capped at `cap`
      - {name: no_duplicate_contacts, kind: constraint, cap: 0.0,
         fn: crm.no_new_duplicate_people, params: {}}
    scope:                          # the generic scope guard (a constraint named `scope`)
      allow:
        - {change: "crm.DealStageChanged", on: ["{deal.id}"]}
        - {change: "crm.Activity*"}   # no `on`: any entity
      cap: 0.0
      # or instead:  unguarded: "why this scenario has no scope guard"
    oracle:
      - {tool: crm.update_deal_stage, args: {deal_id: "{deal.id}", stage: closed_won}}
    alternatives:                   # other correct solutions; each must score 1.0
      - {name: with_extra_reads, description: "...", steps: [...]}
    hacks:
      - name: force_stage_without_fields
        covers: [wrong_target]
        max_score: 0.2
        steps: [...]
      - name: log_on_the_first_search_hit   # right on some seeds by chance: bound its mean as well
        covers: [identity_bypass]
        max_score: 1.0
        max_mean_score: 0.6
        steps: [...]
    blind_ceiling: {max_score: 0.6, reason: "one of five teams"}   # optional
    seed_invariant: "why the oracle's writes transfer across seeds"  # optional
    noop_score: 0.0

Strings in `instructions`, check `params` and step `args` are templates over
the setup's bindings: `"{deal.id}"` alone is replaced by the bound value
(keeping its type), and `"Deal {deal.name}"` interpolates text. A step with
`save_as: name` binds its result, so later steps can use `{name.id}`. The ids
in a scope rule's `on` are templates too. docs/grading.md is the contract.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "DIFFICULTY_KNOBS",
    "FAULT_LEVELS",
    "HACK_CLASSES",
    "LEVELS",
    "SCOPE_CHECK",
    "SETUP_KNOBS",
    "AlternativeSpec",
    "BlindCeiling",
    "CheckSpec",
    "DifficultySpec",
    "FaultProfile",
    "FaultRates",
    "HackClass",
    "HackSpec",
    "KnobName",
    "KnobSpec",
    "Level",
    "Limits",
    "ScenarioFile",
    "ScopeRule",
    "ScopeSpec",
    "SetupSpec",
    "Step",
    "knob_target",
    "knob_value_problem",
]

HackClass = Literal[
    "collateral", "wrong_target", "false_claim", "identity_bypass", "memorized", "blind",
    "keyword_stuffing", "shotgun", "proxy_action", "policy_breach", "other",
]
"""The classes of attack a declared hack can cover (issue 9's weakness classes)."""

HACK_CLASSES: tuple[str, ...] = get_args(HackClass)
"""Every `HackClass` value, in declaration order."""

SCOPE_CHECK = "scope"
"""The name of the runtime's scope-guard constraint; no check may take it."""

_ID = re.compile(r"^[a-z][a-z0-9_]*/[a-z0-9][a-z0-9_-]*$")
# Sim-time amounts must stay finite and far inside `datetime`'s range: YAML's `.inf` (or 1e30)
# would otherwise pass `gt=0` and overflow the clock of every episode. 100 years is plenty.
_MAX_SIM_SECONDS = 100 * 365 * 24 * 3600


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SetupSpec(_Strict):
    """Which setup function picks the task's entities, and its parameters.

    A cross-app scenario lists several (`setup: [{fn: ide.pricing_bug}, {fn: support.wrong_charge, ...}]`).
    They run in order, each on the state the earlier ones staged; a later one's `params` are templates over
    the bindings so far (`"{bug.charged_cents}"`), which is how one product's entities reach another's setup
    without either domain reading the other. Binding names must not repeat across the steps.
    """

    fn: str
    params: dict[str, Any] = Field(default_factory=dict)


class Limits(_Strict):
    """When an episode is truncated."""

    max_steps: int = Field(default=50, ge=1, le=10_000)
    sim_time_s: float = Field(default=8 * 3600, gt=0, le=_MAX_SIM_SECONDS)


class FaultRates(_Strict):
    """Per-call probabilities of each injected fault, for one tool kind."""

    rate_limited: float = Field(default=0.0, ge=0, le=1)
    unavailable: float = Field(default=0.0, ge=0, le=1)
    timeout: float = Field(default=0.0, ge=0, le=1)
    lost_response: float = Field(default=0.0, ge=0, le=1)

    @model_validator(mode="after")
    def _total(self) -> FaultRates:
        total = self.rate_limited + self.unavailable + self.timeout + self.lost_response
        if total > 1:
            raise ValueError(f"fault rates add up to {total}, more than 1")
        return self


class FaultProfile(_Strict):
    """Seeded fault injection. Each decision is a pure function of (seed, step, tool)."""

    read: FaultRates = Field(default_factory=FaultRates)
    write: FaultRates = Field(default_factory=FaultRates)
    retry_after_s: float = Field(default=2.0, gt=0, le=_MAX_SIM_SECONDS)

    @field_validator("read")
    @classmethod
    def _no_lost_reads(cls, v: FaultRates) -> FaultRates:
        if v.lost_response:
            raise ValueError("lost_response applies to WRITE tools only")
        return v


class CheckSpec(_Strict):
    """One check: a domain check function and its (templated) parameters.

    A `goal` (the default) is weighted and gives partial credit. A
    `constraint` is a gate: its function returns 1.0 when it held and 0.0
    when violated, and a violation caps the scenario's scalar at `cap`,
    whatever the goals scored. `weight` is ignored for constraints.
    """

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    kind: Literal["goal", "constraint"] = "goal"
    weight: float = Field(default=1.0, gt=0, allow_inf_nan=False)  # an infinite weight makes the score NaN
    cap: float = Field(default=0.0, ge=0, le=1, allow_inf_nan=False)
    fn: str
    params: dict[str, Any] = Field(default_factory=dict)
    description: str = ""


class ScopeRule(_Strict):
    """One kind of change the task allows.

    Attributes:
        change: An event-type glob (fnmatch, case-sensitive), such as `crm.Activity*`.
        on: Templated entity ids the change may touch; None allows any entity.
            Entities the agent created in the episode are always allowed.
    """

    change: str = Field(min_length=1)
    on: list[str] | None = None

    @model_validator(mode="before")
    @classmethod
    def _yaml_on(cls, data: Any) -> Any:
        # YAML 1.1 (PyYAML's safe_load) reads a bare `on:` key as the boolean True.
        if isinstance(data, dict) and True in data:
            if "on" in data:
                raise ValueError("a scope rule has `on` twice")
            data = {("on" if k is True else k): v for k, v in data.items()}
        return data


class ScopeSpec(_Strict):
    """The task's scope: the changes allowed, and the cap when a write falls outside.

    Exactly one of `allow` (possibly empty: the task allows no writes) and
    `unguarded` (the written reason the scenario has no scope guard).
    """

    allow: list[ScopeRule] | None = None
    cap: float = Field(default=0.0, ge=0, le=1, allow_inf_nan=False)
    unguarded: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _one_of(self) -> ScopeSpec:
        if (self.allow is None) == (self.unguarded is None):
            raise ValueError("a scope needs exactly one of `allow` and `unguarded` (a reason)")
        if self.unguarded is not None and "cap" in self.model_fields_set:
            raise ValueError("an unguarded scope has no cap")
        return self

class Step(_Strict):
    """One tool call of a scripted agent (oracle or hack)."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    save_as: str | None = None
    expect_error: str | None = None


class AlternativeSpec(_Strict):
    """Another correct solution (other wording, order, argument forms); it must score 1.0."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    description: str = ""
    steps: list[Step]


class HackSpec(_Strict):
    """A known way to game the task, which must stay under `max_score` on every seed.

    `max_mean_score` bounds its mean over the audited seeds too: for a guess that is right by chance
    on some seeds (the first of several same-named search hits), which no per-seed bound can hold down.
    """

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    description: str = ""
    covers: list[HackClass] = Field(default_factory=list)
    max_score: float = Field(ge=0, le=1)
    max_mean_score: float | None = Field(default=None, ge=0, le=1)
    steps: list[Step]


class BlindCeiling(_Strict):
    """A declared ceiling for the blind search agent, for a tiny decision space."""

    max_score: float = Field(ge=0, le=1)
    reason: str = Field(min_length=1)


Level = Literal["easy", "medium", "hard"]
"""A difficulty level, easiest first."""

LEVELS: tuple[str, ...] = get_args(Level)
"""Every level, easiest first: a level's distance from another is the difference of their positions."""

KnobName = Literal["distractors", "entities", "depth", "specificity", "mess", "faults"]
"""The six standard difficulty knobs (docs/difficulty.md)."""

DIFFICULTY_KNOBS: tuple[str, ...] = get_args(KnobName)
"""Every knob name, in the spec's order."""

SETUP_KNOBS: tuple[str, ...] = ("distractors", "entities", "depth")
"""The knobs that act through a setup parameter (`param`); the others act on hints, world and faults."""

FAULT_LEVELS: tuple[str, ...] = ("none", "mild", "harsh", "scenario")
"""The values of the `faults` knob: a standard profile, or the file's own `faults` (`scenario`)."""


def _same(a: Any, b: Any) -> bool:
    # 3 and 3.0 (or 1 and True) compare equal but render differently: a knob must not change a binding's type.
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


class KnobSpec(_Strict):
    """One knob's value at each level, and the setup parameter it sets (setup knobs only).

    Attributes:
        param: The setup parameter: `key` (one setup step), `<fn>.<key>` or `<position>.<key>`.
            Only `distractors`, `entities` and `depth` have one.
        easy: The value at `easy`.
        medium: The value at `medium`.
        hard: The value at `hard`.
    """

    param: str | None = Field(default=None, min_length=1)
    easy: Any
    medium: Any
    hard: Any

    def at(self, level: str) -> Any:
        """Returns the value at a level."""
        return getattr(self, level)


class DifficultySpec(_Strict):
    """A scenario's difficulty: its own level and its knobs (docs/difficulty.md).

    Attributes:
        level: The level the file's own setup params, world and faults describe.
        knobs: Knob name -> its values per level.
    """

    level: Level = "medium"
    knobs: dict[KnobName, KnobSpec] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _old_shape(cls, data: Any) -> Any:
        # The first files described knobs with plain values; say what replaced them, not just "not a dict".
        if isinstance(data, dict) and isinstance(data.get("knobs"), dict):
            plain = sorted(str(k) for k, v in data["knobs"].items() if not isinstance(v, dict))
            if plain:
                raise ValueError(f"knobs {plain} have plain values (the retired descriptive shape); a knob is "
                                 "{param: <setup param>, easy: ..., medium: ..., hard: ...} (docs/difficulty.md)")
        return data

    @model_validator(mode="after")
    def _knob_shapes(self) -> DifficultySpec:
        for name, knob in self.knobs.items():
            if name in SETUP_KNOBS and knob.param is None:
                raise ValueError(f"knob {name!r} acts through a setup parameter: give it a `param`")
            if name not in SETUP_KNOBS and knob.param is not None:
                raise ValueError(f"knob {name!r} is generic and takes no `param`")
            for level in LEVELS:
                problem = knob_value_problem(name, knob.at(level))
                if problem:
                    raise ValueError(f"knob {name!r} at {level}: {problem}")
        return self


def knob_value_problem(name: str, value: Any) -> str | None:
    """Returns why `value` cannot be a value of the generic knob `name` (None: it can, or it is a setup knob)."""
    if name == "specificity" and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        return f"specificity is a number of hints shown (an int >= 0), not {value!r}"
    if name == "mess" and (isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 100):
        return f"mess is a scale of the world's mess rates (a number from 0 to 100), not {value!r}"
    if name == "faults" and value not in FAULT_LEVELS:
        return f"faults is one of {list(FAULT_LEVELS)}, not {value!r}"
    return None


def knob_target(steps: list[SetupSpec], param: str) -> tuple[int, str]:
    """Returns the setup step (its position) and the key a knob's `param` names.

    Raises:
        ValueError: The param names no step, or a plain key is ambiguous among several steps.
    """
    if len(steps) == 1 and param in steps[0].params:
        return 0, param
    head, dot, key = param.rpartition(".")
    if dot:
        hits = [i for i, s in enumerate(steps) if (head.isdigit() and int(head) == i) or s.fn == head]
        if hits:
            return hits[0], key
        raise ValueError(f"param {param!r}: no setup step is {head!r} (steps: {[s.fn for s in steps]})")
    if len(steps) == 1:
        raise ValueError(f"param {param!r} is not a key of setup.params; write its value there")
    raise ValueError(f"param {param!r}: several setup steps; name one as <fn>.{param} or <position>.{param}")


class ScenarioFile(_Strict):
    """A scenario file, as validated on load."""

    id: str
    version: int = Field(ge=1)
    description: str
    difficulty: DifficultySpec = Field(default_factory=DifficultySpec)
    """The file's own level and its knobs (docs/difficulty.md)."""
    world: str
    setup: SetupSpec | list[SetupSpec]
    instructions: str = Field(min_length=1)
    hints: list[str] = Field(default_factory=list)
    """Hints for easier levels than the file's own, most useful first (the `specificity` knob shows some)."""
    tools: list[str] = Field(min_length=1)
    limits: Limits = Field(default_factory=Limits)
    faults: FaultProfile | None = None
    checks: list[CheckSpec] = Field(min_length=1)
    scope: ScopeSpec
    oracle: list[Step]
    alternatives: list[AlternativeSpec] = Field(default_factory=list)
    hacks: list[HackSpec] = Field(default_factory=list)
    blind_ceiling: BlindCeiling | None = None
    seed_invariant: str | None = Field(default=None, min_length=1)
    noop_score: float = Field(ge=0, le=1)
    success_threshold: float = Field(default=1.0, gt=0, le=1)
    skill: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
    """What the scenario teaches, as a kebab-case group name (`deduplication`, `refunds`); `saas-sim
    scenarios` lists scenarios grouped by it. Every built-in scenario names one."""
    tags: list[str] = Field(default_factory=list)
    kind: Literal["task"] = "task"

    @model_validator(mode="before")
    @classmethod
    def _hints_in_difficulty(cls, data: Any) -> Any:
        # `hints` may sit inside `difficulty:` too (some files put it there); one list either way.
        if isinstance(data, dict) and isinstance(data.get("difficulty"), dict) and "hints" in data["difficulty"]:
            if data.get("hints"):
                raise ValueError("hints are given twice: at the top and inside `difficulty`")
            difficulty = {k: v for k, v in data["difficulty"].items() if k != "hints"}
            data = {**data, "difficulty": difficulty, "hints": data["difficulty"]["hints"]}
        return data

    @field_validator("id")
    @classmethod
    def _id_shape(cls, v: str) -> str:
        if not _ID.match(v):
            raise ValueError("id must look like <domain>/<name>, lowercase")
        return v

    @model_validator(mode="after")
    def _unique_names(self) -> ScenarioFile:
        # One namespace: the audit's report and the grade's violations name them side by side.
        names = [c.name for c in self.checks] + [h.name for h in self.hacks] + [a.name for a in self.alternatives]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"names must be unique across checks, hacks and alternatives: {dupes}")
        if any(c.name == SCOPE_CHECK for c in self.checks):
            raise ValueError(f"{SCOPE_CHECK!r} is the scope guard's name; a check may not take it")
        if isinstance(self.setup, list) and not self.setup:
            raise ValueError("setup needs at least one function")
        if not any(c.kind == "goal" for c in self.checks):
            raise ValueError("a scenario needs at least one goal check (constraints alone give no credit)")
        self._check_knobs()
        return self

    def _check_knobs(self) -> None:
        """A knob's value at the file's own level must be what the file already says (the default is unchanged)."""
        own = self.difficulty.level
        for name, knob in self.difficulty.knobs.items():
            value = knob.at(own)
            if knob.param is not None:
                i, key = knob_target(self.setup_steps, knob.param)
                params = self.setup_steps[i].params
                if key not in params:
                    raise ValueError(f"knob {name!r}: setup {self.setup_steps[i].fn!r} has no param {key!r}; "
                                     f"write its {own} value ({value!r}) in setup.params")
                if not _same(params[key], value):
                    raise ValueError(f"knob {name!r} is {value!r} at the file's level {own!r}, but setup param "
                                     f"{key!r} says {params[key]!r}")
            elif name == "specificity" and value != 0:
                raise ValueError(f"knob 'specificity' must be 0 at the file's level {own!r}: its instructions "
                                 "show no hints")
            elif name == "mess" and value != 1:
                raise ValueError(f"knob 'mess' must be 1 at the file's level {own!r}: its world is the profile's")
            elif name == "faults" and value != "scenario" and not (value == "none" and self.faults is None):
                raise ValueError(f"knob 'faults' must be 'scenario' at the file's level {own!r} (its own faults)")
            if name == "specificity":
                most = max(knob.at(level) for level in LEVELS)
                if most > len(self.hints):
                    raise ValueError(f"knob 'specificity' shows up to {most} hints; the file has {len(self.hints)}")

    @property
    def setup_steps(self) -> list[SetupSpec]:
        """The setup functions in the order they run (one for most scenarios)."""
        return self.setup if isinstance(self.setup, list) else [self.setup]

    @property
    def domain(self) -> str:
        """The domain part of the id."""
        return self.id.split("/", 1)[0]

    @property
    def ref(self) -> str:
        """`id@version`."""
        return f"{self.id}@{self.version}"
