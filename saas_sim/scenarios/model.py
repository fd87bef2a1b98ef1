"""The scenario file format (YAML), validated by pydantic.

A scenario file in `scenarios/<domain>/<name>.yaml` looks like this::

    id: crm/close-won-deal          # <domain>/<name>
    version: 1                      # bump when behaviour that affects results changes
    description: Close a won deal with the amount from its line items.
    difficulty: {level: medium, knobs: {distractor_deals: 3}}
    world: crm-smb                  # a profile in seeds/<world>.yaml
    setup: {fn: crm.pick_won_deal, params: {}}
    instructions: |
      The customer signed. Close deal "{deal.name}" as won ...
    tools: [crm.search_deals, crm.get_deal, crm.update_deal_stage]
    limits: {max_steps: 30, sim_time_s: 7200}
    faults: null                    # or {read: {rate_limited: 0.2}, write: {lost_response: 0.1}}
    checks:
      - {name: deal_closed_won, weight: 3, fn: crm.deal_in_stage,
         params: {deal_id: "{deal.id}", stage: closed_won}}
    oracle:
      - {tool: crm.update_deal_stage, args: {deal_id: "{deal.id}", stage: closed_won}}
    hacks:
      - name: force_stage_without_fields
        max_score: 0.2
        steps: [...]
    noop_score: 0.0

Strings in `instructions`, check `params` and step `args` are templates over
the setup's bindings: `"{deal.id}"` alone is replaced by the bound value
(keeping its type), and `"Deal {deal.name}"` interpolates text. A step with
`save_as: name` binds its result, so later steps can use `{name.id}`.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "CheckSpec",
    "FaultProfile",
    "FaultRates",
    "HackSpec",
    "Limits",
    "ScenarioFile",
    "SetupSpec",
    "Step",
]

_ID = re.compile(r"^[a-z][a-z0-9_]*/[a-z0-9][a-z0-9_-]*$")
# Sim-time amounts must stay finite and far inside `datetime`'s range: YAML's `.inf` (or 1e30)
# would otherwise pass `gt=0` and overflow the clock of every episode. 100 years is plenty.
_MAX_SIM_SECONDS = 100 * 365 * 24 * 3600


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SetupSpec(_Strict):
    """Which setup function picks the task's entities, and its parameters."""

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
    """One weighted check: a domain check function and its (templated) parameters."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    weight: float = Field(gt=0, allow_inf_nan=False)  # an infinite weight makes the score NaN
    fn: str
    params: dict[str, Any] = Field(default_factory=dict)
    description: str = ""


class Step(_Strict):
    """One tool call of a scripted agent (oracle or hack)."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    save_as: str | None = None
    expect_error: str | None = None


class HackSpec(_Strict):
    """A known way to game the task, which must stay under `max_score`."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    description: str = ""
    max_score: float = Field(ge=0, le=1)
    steps: list[Step]


class ScenarioFile(_Strict):
    """A scenario file, as validated on load."""

    id: str
    version: int = Field(ge=1)
    description: str
    difficulty: dict[str, Any] = Field(default_factory=dict)
    world: str
    setup: SetupSpec
    instructions: str = Field(min_length=1)
    tools: list[str] = Field(min_length=1)
    limits: Limits = Field(default_factory=Limits)
    faults: FaultProfile | None = None
    checks: list[CheckSpec] = Field(min_length=1)
    oracle: list[Step]
    hacks: list[HackSpec] = Field(default_factory=list)
    noop_score: float = Field(ge=0, le=1)
    success_threshold: float = Field(default=1.0, gt=0, le=1)
    tags: list[str] = Field(default_factory=list)
    kind: Literal["task"] = "task"

    @field_validator("id")
    @classmethod
    def _id_shape(cls, v: str) -> str:
        if not _ID.match(v):
            raise ValueError("id must look like <domain>/<name>, lowercase")
        return v

    @model_validator(mode="after")
    def _unique_names(self) -> ScenarioFile:
        names = [c.name for c in self.checks]
        if len(set(names)) != len(names):
            raise ValueError("check names must be unique")
        hacks = [h.name for h in self.hacks]
        if len(set(hacks)) != len(hacks):
            raise ValueError("hack names must be unique")
        return self

    @property
    def domain(self) -> str:
        """The domain part of the id."""
        return self.id.split("/", 1)[0]

    @property
    def ref(self) -> str:
        """`id@version`."""
        return f"{self.id}@{self.version}"
