"""Difficulty resolution: a level and knob overrides give a task's setup params, hints, world mess and faults.

Pure: `resolve(spec, "hard", {"distractors": 2})` depends on the scenario file alone, and the knob values
fully determine the rest, so an episode's log records only the values that differ from the file's own
level (`Difficulty.changed`) and `resolve(spec, None, changed)` rebuilds the same task. docs/difficulty.md
is the spec.

Generic knobs, for a scenario that does not declare them, by the distance `n` of the level from the
file's own level (`hard` in a `medium` file: n = 1):

* `specificity`: the number of hints shown; none at the file's level or harder, the first half (rounded
  up) one level easier, all of them two levels easier;
* `mess`: a scale of the world's mess rates (each domain's `mess_params`): 1 + n/2 above the file's
  level, 1 + n/4 below (0.5 two levels easier: a setup that picks a messy record still finds one);
* `faults`: the file's own profile at its level, `none` when easier (if it has one), `mild` one level
  harder (`harsh` if the file already has faults) and `harsh` two levels harder.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import yaml

from saas_sim.core.domain import Domain
from saas_sim.errors import UsageError
from saas_sim.scenarios.model import (
    DIFFICULTY_KNOBS,
    LEVELS,
    SETUP_KNOBS,
    FaultProfile,
    FaultRates,
    KnobName,
    KnobSpec,
    ScenarioFile,
    knob_target,
    knob_value_problem,
)
from saas_sim.scenarios.profiles import WorldProfile

__all__ = [
    "FAULT_PROFILES",
    "SETUP_KNOB_STRETCH",
    "Difficulty",
    "DifficultyRequest",
    "choose",
    "parse_request",
    "resolve",
    "scaled_profile",
]

FAULT_PROFILES: Mapping[str, FaultProfile | None] = {
    "none": None,
    "mild": FaultProfile(read=FaultRates(rate_limited=0.05, unavailable=0.02),
                         write=FaultRates(timeout=0.03, lost_response=0.03)),
    "harsh": FaultProfile(read=FaultRates(rate_limited=0.1, unavailable=0.05, timeout=0.03),
                          write=FaultRates(rate_limited=0.05, timeout=0.05, lost_response=0.08)),
}
"""The standard fault profiles the `faults` knob names (`scenario` names the file's own)."""

SETUP_KNOB_STRETCH = 4
"""A setup knob that counts (`distractors`, `entities`, `depth` declared as ints) takes an int from 0 to this
many times the largest value its scenario declares: room to go past `hard`, never a count that makes a setup
stage millions of records (setups run on the caller's event loop: one such request hung a server and every
episode on it)."""

DifficultyRequest = str | Sequence[str] | Mapping[str, Any] | None
"""What a caller asks for: a level (`"hard"`), `K=V` items (`["hard", "distractors=2"]`), a mapping
(`{"level": "hard", "distractors": 2}`), or None for the file's own level."""


@dataclass(frozen=True)
class Difficulty:
    """A resolved difficulty: every knob's value and what they set.

    Attributes:
        level: The level asked for (the file's own when none was).
        knobs: Every knob's value (declared and generic), by knob name in the spec's order.
        changed: The knobs whose values differ from the file's own level: what an episode records.
        setup_params: The params of each setup step, in order.
        hints: The hints the instructions show.
        mess: The scale of the world's mess rates (1: the profile as written).
        faults: The fault profile episodes start with by default.
    """

    level: str
    knobs: Mapping[str, Any]
    changed: Mapping[str, Any]
    setup_params: tuple[dict[str, Any], ...]
    hints: tuple[str, ...]
    mess: float
    faults: FaultProfile | None = field(default=None)

    @property
    def is_default(self) -> bool:
        """Whether the task is the file's own (every knob at the file's level)."""
        return not self.changed


def parse_request(items: Sequence[str]) -> dict[str, Any]:
    """Parses command-line items (`hard`, `distractors=2`) into a request mapping.

    A value is read as a YAML scalar (`2` is an int, `0.5` a float, `mild` a string).

    Raises:
        UsageError: Two levels, or an item that is neither a level nor `K=V`.
    """
    out: dict[str, Any] = {}
    for item in items:
        for part in (p.strip() for p in item.split(",")):
            if not part:
                continue
            key, eq, raw = part.partition("=")
            if not eq:
                if part not in LEVELS:
                    raise UsageError(f"difficulty {part!r}: give a level ({'|'.join(LEVELS)}) or KNOB=VALUE")
                key, value = "level", part
            else:
                try:
                    value = yaml.safe_load(raw)
                except yaml.YAMLError:
                    value = raw
            key = key.strip()
            if key in out and out[key] != value:
                raise UsageError(f"difficulty {key!r} is given twice ({out[key]!r} and {value!r})")
            out[key] = value
    return out


def choose(spec: ScenarioFile, request: DifficultyRequest | Difficulty, *,
           ignore_undeclared: bool = False) -> Difficulty:
    """Resolves any form of request (see `DifficultyRequest`) for one scenario.

    Raises:
        UsageError: An unknown level or knob, a bad value, or (unless `ignore_undeclared`) a setup knob
            the scenario does not declare.
    """
    if isinstance(request, Difficulty):
        return request
    if request is None:
        return resolve(spec)
    if isinstance(request, str):
        request = [request]
    wanted = dict(request) if isinstance(request, Mapping) else parse_request(list(request))
    level = wanted.pop("level", None)
    if level is not None and level not in LEVELS:
        raise UsageError(f"unknown difficulty level {level!r}; known: {list(LEVELS)}")
    return resolve(spec, level, wanted, ignore_undeclared=ignore_undeclared)


def _hint_count(n: int, hints: int) -> int:
    return 0 if n >= 0 else math.ceil(hints / 2) if n == -1 else hints


def _generic(spec: ScenarioFile, name: str, n: int) -> Any:
    if name == "specificity":
        return _hint_count(n, len(spec.hints))
    if name == "mess":
        # Easier worlds keep half their mess at least: setups that pick a messy record need some to exist.
        return 1.0 + n / 2 if n >= 0 else 1.0 + n / 4
    own = spec.faults is not None
    if n == 0:
        return "scenario" if own else "none"
    if n < 0:
        return "none"
    return "harsh" if own or n >= 2 else "mild"


def _canonical(spec: ScenarioFile, name: str, value: Any) -> Any:
    if name == "mess":
        return float(value)
    if name == "faults" and value == "scenario" and spec.faults is None:
        return "none"
    return value


def _values(spec: ScenarioFile, level: str) -> dict[str, Any]:
    n = LEVELS.index(level) - LEVELS.index(spec.difficulty.level)
    declared = spec.difficulty.knobs
    return {
        name: _canonical(spec, name, declared[name].at(level) if name in declared else _generic(spec, name, n))
        for name in DIFFICULTY_KNOBS
        if name in declared or name not in SETUP_KNOBS
    }


def resolve(spec: ScenarioFile, level: str | None = None, overrides: Mapping[str, Any] | None = None, *,
            ignore_undeclared: bool = False) -> Difficulty:
    """Resolves a level and knob overrides for a scenario.

    Args:
        spec: The scenario file.
        level: `easy`, `medium` or `hard`; None is the file's own level.
        overrides: Knob values that replace the level's (`{"distractors": 2}`).
        ignore_undeclared: Skip overrides of setup knobs the scenario does not declare (a prompt set over
            many scenarios), instead of refusing them.

    Raises:
        UsageError: An unknown level or knob, a bad value, or an undeclared setup knob.
    """
    own = spec.difficulty.level
    target = own if level is None else level
    if target not in LEVELS:
        raise UsageError(f"unknown difficulty level {target!r}; known: {list(LEVELS)}")
    base = _values(spec, own)
    values = _values(spec, target)
    for name, value in sorted((overrides or {}).items()):
        if name not in DIFFICULTY_KNOBS:
            raise UsageError(f"unknown difficulty knob {name!r}; the knobs are {list(DIFFICULTY_KNOBS)}")
        if name not in values:
            if ignore_undeclared:
                continue
            raise UsageError(f"{spec.id} has no {name!r} knob; its knobs: {sorted(values)}")
        problem = knob_value_problem(name, value)
        if problem is None and name in SETUP_KNOBS:
            problem = _setup_value_problem(name, spec.difficulty.knobs[cast(KnobName, name)], value)
        if problem:
            raise UsageError(f"{spec.id}: {problem}")
        if name == "specificity" and value > len(spec.hints):
            raise UsageError(f"{spec.id}: specificity {value} asks for more hints than its {len(spec.hints)}")
        values[name] = _canonical(spec, name, value)
    changed = {name: v for name, v in values.items() if _differs(v, base[name])}
    params = [dict(step.params) for step in spec.setup_steps]
    for name, knob in spec.difficulty.knobs.items():
        if knob.param is not None and name in changed:
            i, key = knob_target(spec.setup_steps, knob.param)
            params[i][key] = values[name]
    faults = spec.faults if values["faults"] == "scenario" else FAULT_PROFILES[values["faults"]]
    return Difficulty(
        level=target, knobs=values, changed=changed, setup_params=tuple(params),
        hints=tuple(spec.hints[: values["specificity"]]), mess=float(values["mess"]), faults=faults,
    )


def _setup_value_problem(name: str, knob: KnobSpec, value: Any) -> str | None:
    """Why `value` cannot be given to a setup knob that counts (its declared values are ints): an int from 0 to
    `SETUP_KNOB_STRETCH` times its largest declared value. None: it can, or the knob is no count."""
    declared = (knob.easy, knob.medium, knob.hard)
    if not all(type(v) is int for v in declared):
        return None
    most = SETUP_KNOB_STRETCH * max(declared)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
        return (f"{name} is an int from 0 to {most} ({SETUP_KNOB_STRETCH} times its largest declared value), "
                f"not {value!r}")
    return None


def _differs(a: Any, b: Any) -> bool:
    return type(a) is not type(b) or a != b


def scaled_profile(profile: WorldProfile, scale: float, domains: Mapping[str, Domain]) -> WorldProfile:
    """Returns the profile with each domain's mess rates (`Domain.mess_params`) scaled, capped at 1.

    Only rates the profile writes are scaled (a domain's defaults are its own). The scaled profile is
    named `<name>~mess<scale>`, so its worlds cache and snapshot apart from the original's; a profile with
    no rate to scale is returned as it is.
    """
    if scale == 1:
        return profile
    out: dict[str, dict[str, Any]] = {}
    for name, params in profile.domains.items():
        rates = domains[name].mess_params if name in domains else ()
        out[name] = {
            k: min(1.0, round(float(v) * scale, 6))
            if k in rates and isinstance(v, int | float) and not isinstance(v, bool) else v
            for k, v in params.items()
        }
    if out == profile.domains:  # nothing to scale: the same world, not a renamed copy built again
        return profile
    return profile.model_copy(update={"name": f"{profile.name}~mess{scale:g}", "domains": out})
