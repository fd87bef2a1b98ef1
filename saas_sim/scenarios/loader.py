"""Loading and validating scenario files.

Every file in a scenario folder (`<dir>/<domain>/*.yaml`) is validated on load
against the file model *and* against the code: its world profile, setup
function, check functions (goals and constraints) and tools must exist, every
scope rule must match some event type of the world, and every scripted step
(oracle, alternatives, hacks) must call an allowed tool. A scope rule's `on`
ids are templates; they are rendered from the bindings at grade time. A bad
file fails with its path and the offending field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

import yaml
from pydantic import ValidationError

from saas_sim.core.domain import CheckFn, Domain, GradeEffectsFn, SetupFn
from saas_sim.core.events import DEFAULT_REGISTRY
from saas_sim.errors import ScenarioFileError, ScenarioNotFoundError
from saas_sim.scenarios.model import ScenarioFile
from saas_sim.scenarios.profiles import WorldProfile
from saas_sim.scenarios.yaml_io import safe_load

__all__ = ["Scenario", "ScenarioCatalog", "load_scenario_file"]


@dataclass(frozen=True)
class Scenario:
    """A validated scenario file, resolved against the code."""

    spec: ScenarioFile
    path: Path
    profile: WorldProfile
    setup_fns: tuple[SetupFn, ...]
    """The setup functions of `spec.setup_steps`, in order."""
    check_fns: Mapping[str, CheckFn]
    grade_effects: tuple[GradeEffectsFn, ...] = ()
    """The grade effects of the world's domains, in build order."""

    @property
    def ref(self) -> str:
        """`id@version`."""
        return self.spec.ref


def load_scenario_file(path: Path) -> ScenarioFile:
    """Reads and validates one scenario file (the model only).

    Raises:
        ScenarioFileError: The file is unreadable or invalid; the message names path and field.
    """
    try:
        raw = safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ScenarioFileError(f"{path}: cannot read scenario: {exc}") from exc
    try:
        return ScenarioFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(file)"
        raise ScenarioFileError(f"{path}: field {where!r}: {first['msg']}") from exc


def _resolve(
    spec: ScenarioFile, path: Path, domains: Mapping[str, Domain], profiles: Mapping[str, WorldProfile]
) -> Scenario:
    def bad(field: str, msg: str) -> ScenarioFileError:
        return ScenarioFileError(f"{path}: field {field!r}: {msg}")

    profile = profiles.get(spec.world)
    if profile is None:
        raise bad("world", f"unknown world profile {spec.world!r}; known: {sorted(profiles)}")
    missing = [d for d in profile.domains if d not in domains]
    if missing:
        raise bad("world", f"profile {spec.world!r} needs unknown domains {missing}")
    in_world = [domains[d] for d in profile.domains]
    setups = {k: v for d in in_world for k, v in d.setups.items()}
    checks = {k: v for d in in_world for k, v in d.checks.items()}
    tool_names = [t.name for d in in_world for t in d.tools]
    setup_steps = spec.setup_steps
    for i, setup in enumerate(setup_steps):
        if setup.fn not in setups:
            where = "setup.fn" if len(setup_steps) == 1 else f"setup.{i}.fn"
            raise bad(where, f"unknown setup function {setup.fn!r}")
    for i, check in enumerate(spec.checks):  # goals and constraints alike
        if check.fn not in checks:
            raise bad(f"checks.{i}.fn", f"unknown {check.kind} check function {check.fn!r}")
    events = [
        n for n in DEFAULT_REGISTRY.names()
        if any(d.projection.handles(DEFAULT_REGISTRY.model_for(n)) for d in in_world)
    ]
    for i, rule in enumerate(spec.scope.allow or [] if spec.scope else []):
        if not any(fnmatchcase(t, rule.change) for t in events):
            raise bad(f"scope.allow.{i}.change", f"{rule.change!r} matches no event type of this world")
    allowed: set[str] = set()
    for i, pattern in enumerate(spec.tools):
        hits = [n for n in tool_names if fnmatchcase(n, pattern)]
        if not hits:
            raise bad(f"tools.{i}", f"{pattern!r} matches no tool of this world")
        allowed.update(hits)
    scripts = [("oracle", spec.oracle)] + [(f"hacks.{i}.steps", h.steps) for i, h in enumerate(spec.hacks)]
    scripts += [(f"alternatives.{i}.steps", a.steps) for i, a in enumerate(spec.alternatives)]
    for where, steps in scripts:
        for j, step in enumerate(steps):
            if step.tool not in allowed:
                raise bad(f"{where}.{j}.tool", f"{step.tool!r} is not an allowed tool of this scenario")
    return Scenario(
        spec=spec, path=path, profile=profile, setup_fns=tuple(setups[setup.fn] for setup in setup_steps),
        check_fns={c.name: checks[c.fn] for c in spec.checks},
        grade_effects=tuple(d.grade_effects for d in in_world if d.grade_effects is not None),
    )


class ScenarioCatalog:
    """All scenarios found in some folders, by `id` and `id@version`.

    Args:
        dirs: Scenario folders; each holds `<domain>/*.yaml`.
        domains: The known domains.
        profiles: The known world profiles.
    """

    def __init__(
        self, dirs: Sequence[Path], domains: Mapping[str, Domain], profiles: Mapping[str, WorldProfile]
    ) -> None:
        self._by_ref: dict[str, Scenario] = {}
        self._latest: dict[str, Scenario] = {}
        for folder in dirs:
            if not folder.is_dir():
                continue
            for path in sorted(folder.glob("*/*.yaml")):
                spec = load_scenario_file(path)
                if path.parent.name != spec.domain:
                    raise ScenarioFileError(
                        f"{path}: field 'id': {spec.id!r} must live in a folder named {spec.domain!r}"
                    )
                scenario = _resolve(spec, path, domains, profiles)
                if scenario.ref in self._by_ref:
                    other = self._by_ref[scenario.ref].path
                    raise ScenarioFileError(f"{path}: field 'id': {scenario.ref} is also defined in {other}")
                self._by_ref[scenario.ref] = scenario
                current = self._latest.get(spec.id)
                if current is None or current.spec.version < spec.version:
                    self._latest[spec.id] = scenario

    def get(self, name: str) -> Scenario:
        """Returns a scenario by `id` (latest version) or `id@version`.

        Raises:
            ScenarioNotFoundError: No scenario has that name.
        """
        found = self._by_ref.get(name) if "@" in name else self._latest.get(name)
        if found is None:
            raise ScenarioNotFoundError(f"unknown scenario {name!r}; try `saas-sim scenarios`")
        return found

    def match(self, pattern: str = "*") -> list[Scenario]:
        """Returns the latest version of every scenario whose id matches a glob, sorted by id."""
        if "@" in pattern:
            return [self.get(pattern)]
        return [s for sid, s in sorted(self._latest.items()) if fnmatchcase(sid, pattern)]

    def __len__(self) -> int:
        return len(self._latest)
