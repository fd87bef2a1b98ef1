"""Checks of config and dependency tasks: imports that resolve, registered markers, pins that resolve.

Each predicate parses what the tool chain would parse (Python's `ast`, `tomllib`,
`packaging`'s PEP 440/508 grammar) and compares meanings, never text: `"1.10.3"`
and `"1.10.3.0"` are one version, a reordered `markers` list is the same
configuration, and a shim module at the old import path still points at the
old path.
"""

from __future__ import annotations

import ast
import re
import shlex
import tomllib
from collections.abc import Mapping
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from saas_sim.core.domain import CheckContext, CheckOutcome
from saas_sim.domains.ide.checks_refactor import CodeIndex, module_name, top_level_bindings
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.state import TASK
from saas_sim.domains.ide.task_model import IdeTask, load_task
from saas_sim.domains.ide.workspace import base_files, tree_files
from saas_sim.errors import HarnessError

__all__ = [
    "config_imports_resolve",
    "config_markers_registered",
    "config_pin_newest",
    "config_pins_consistent",
    "config_pins_kept",
    "config_pytest_options_kept",
    "import_problems",
    "marker_verdict",
    "parse_index",
    "parse_pins",
    "pin_problems",
    "pytest_options_kept",
]


# --- imports ----------------------------------------------------------------------------


def import_problems(files: Mapping[str, str], path: str, forbidden_module: str) -> list[str]:
    """Why the `acme` imports of `path` would fail or still go through `forbidden_module` (empty: none)."""
    index = CodeIndex(files)
    f = index.files.get(path)
    if f is None:
        return [f"{path} is missing or does not parse"]
    problems: list[str] = []
    for node in ast.walk(f.tree):
        targets: list[tuple[str, str | None]]
        if isinstance(node, ast.Import):
            targets = [(a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = f.module.rsplit(".", 1)[0] if not path.endswith("__init__.py") else f.module
            if node.level:
                parts = base.split(".")
                keep = len(parts) - (node.level - 1)
                src = ".".join([*parts[:max(keep, 0)], *([node.module] if node.module else [])])
            else:
                src = node.module or ""
            targets = [(src, a.name) for a in node.names]
        else:
            continue
        for mod, name in targets:
            if mod.split(".")[0] != "acme":
                continue
            full = f"{mod}.{name}" if name else mod
            if mod == forbidden_module or full == forbidden_module:
                problems.append(f"line {node.lineno}: still imports {forbidden_module}")
            elif mod not in index.modules:
                problems.append(f"line {node.lineno}: no module {mod}")
            elif name and name != "*" and full not in index.modules and name not in top_level_bindings(index, mod):
                problems.append(f"line {node.lineno}: {mod} has no {name}")
    return problems


# --- pytest markers -----------------------------------------------------------------------


def _pytest_options(text: str) -> dict[str, Any] | None:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    opts = doc.get("tool", {}).get("pytest", {}).get("ini_options")
    return opts if isinstance(opts, dict) else None


def _registered(opts: Mapping[str, Any]) -> set[str]:
    markers = opts.get("markers", [])
    lines = markers.splitlines() if isinstance(markers, str) else markers if isinstance(markers, list) else []
    return {str(m).split(":", 1)[0].split("(", 1)[0].strip() for m in lines if str(m).strip()}


def marker_verdict(final: Mapping[str, str], config: str, missing: list[str]) -> tuple[float, str]:
    """The share of the `missing` markers that the final configuration registers."""
    opts = _pytest_options(final.get(config, ""))
    if opts is None:
        return 0.0, f"{config} does not parse as TOML with a [tool.pytest.ini_options] table"
    have = _registered(opts)
    got = [m for m in missing if m in have]
    lacking = [m for m in missing if m not in have]
    detail = f"{len(got)}/{len(missing)} missing markers registered" + (f"; still missing {lacking}" if lacking else "")
    return len(got) / len(missing), detail


def pytest_options_kept(base: Mapping[str, str], final: Mapping[str, str], config: str) -> tuple[float, str]:
    """Score 1 when only `markers` changed, only by additions and typo fixes, and `--strict-markers` stays."""
    try:
        before = tomllib.loads(base[config])
        after = tomllib.loads(final.get(config, ""))
    except tomllib.TOMLDecodeError:
        return 0.0, f"{config} does not parse as TOML"
    a_opts = _pytest_options(final.get(config, "")) or {}
    problems: list[str] = []
    try:
        strict = "--strict-markers" in shlex.split(str(a_opts.get("addopts", "")))
    except ValueError:
        strict = False
    if not strict:
        problems.append("--strict-markers was dropped from addopts")
    if _without_markers(before) != _without_markers(after):
        problems.append(f"{config} changed beyond the markers list")
    # A typo fix may rename a registered marker no test uses; a marker the tests use must stay registered
    # (renaming a right-looking `smoke2` to `smoke` breaks the collection of every test marked with it).
    dropped = sorted((_registered(_pytest_options(base[config]) or {}) & _used_markers(base))
                     - _registered(a_opts))
    if dropped:
        problems.append(f"markers the tests use are no longer registered: {dropped}")
    return (0.0 if problems else 1.0), ("; ".join(problems) or "only markers were added; strict markers kept")


_MARK_USE = re.compile(r"\bpytest\.mark\.([A-Za-z_]\w*)|\bmark\.([A-Za-z_]\w*)")


def _used_markers(files: Mapping[str, str]) -> set[str]:
    """The marker names the project's Python files apply (`@pytest.mark.slow`, `mark.db`)."""
    return {a or b for path, text in files.items() if path.endswith(".py") for a, b in _MARK_USE.findall(text)}


def _without_markers(doc: dict[str, Any]) -> dict[str, Any]:
    tool = dict(doc.get("tool", {}))
    pytest_table = dict(tool.get("pytest", {}))
    opts = {k: v for k, v in dict(pytest_table.get("ini_options", {})).items() if k != "markers"}
    return {**doc, "tool": {**tool, "pytest": {**pytest_table, "ini_options": opts}}}


# --- pins ---------------------------------------------------------------------------------


def parse_pins(text: str) -> tuple[dict[str, Version], list[str]]:
    """The exact pins of a requirements file (canonical name -> version) and the lines that are not one."""
    pins: dict[str, Version] = {}
    bad: list[str] = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            req = Requirement(line)
            specs = list(req.specifier)
            if len(specs) != 1 or specs[0].operator != "==" or "*" in specs[0].version or req.marker or req.url:
                raise InvalidRequirement("not an exact pin")
            name = canonicalize_name(req.name)
            if name in pins:
                raise InvalidRequirement("pinned twice")
            pins[name] = Version(specs[0].version)
        except (InvalidRequirement, InvalidVersion):
            bad.append(line)
    return pins, bad


def parse_index(text: str) -> dict[str, dict[Version, list[Requirement]]]:
    """The offline index: canonical name -> version -> its requirements (a setup-made file: loud on errors)."""
    out: dict[str, dict[Version, list[Requirement]]] = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        head, _, reqs = line.partition(" requires: ")
        name, version = head.split()
        out.setdefault(canonicalize_name(name), {})[Version(version)] = [
            Requirement(r.strip()) for r in reqs.split(";") if r.strip()]
    return out


def pin_problems(requirements: str, index_text: str) -> list[str]:
    """Why the pins would not install from the index (empty: every pin exists and every requirement holds)."""
    pins, bad = parse_pins(requirements)
    index = parse_index(index_text)
    problems = [f"not an exact pin: {line!r}" for line in bad]
    for name, version in sorted(pins.items()):
        reqs = index.get(name, {}).get(version)
        if reqs is None:
            problems.append(f"{name}=={version} is not in the index")
            continue
        for req in reqs:
            dep = canonicalize_name(req.name)
            if dep in pins and not req.specifier.contains(pins[dep], prereleases=True):
                problems.append(f"{name}=={version} requires {req}, but {dep} is pinned to {pins[dep]}")
    return problems


# --- checks ---------------------------------------------------------------------------------


def _config_task(ctx: CheckContext, kind: str) -> IdeTask:
    staged = ctx.final.value(TASK)
    task = load_task(staged.task if staged else None)
    if task is None or task.family != "config" or task.details.get("kind") != kind:
        raise HarnessError(f"a {kind} config check runs on a state without a staged {kind} config task")
    return task


@kit.check
def config_imports_resolve(ctx: CheckContext) -> CheckOutcome:
    """The share of the broken modules whose `acme` imports all resolve, none through the old module path."""
    task = _config_task(ctx, "stale_import")
    files = tree_files(ctx.final)
    paths = [str(p) for p in task.details["paths"]]  # type: ignore[union-attr]
    old = str(task.details["old_module"])
    if any(module_name(p) is None for p in paths):
        raise HarnessError(f"stale-import task paths are malformed: {paths}")
    found = {p: import_problems(files, p, old) for p in paths}
    good = [p for p, probs in found.items() if not probs]
    detail = "; ".join(f"{p}: {', '.join(probs)}" for p, probs in found.items() if probs)
    return CheckOutcome(len(good) / len(paths), f"{len(good)}/{len(paths)} modules import cleanly"
                        + (f" ({detail})" if detail else ""))


@kit.check
def config_markers_registered(ctx: CheckContext) -> CheckOutcome:
    """The share of the markers the tests use but the configuration lacked that it now registers."""
    task = _config_task(ctx, "markers")
    missing = [str(m) for m in task.details["missing"]]  # type: ignore[union-attr]
    score, detail = marker_verdict(tree_files(ctx.final), str(task.details["config"]), missing)
    return CheckOutcome(score, detail)


@kit.check
def config_pytest_options_kept(ctx: CheckContext) -> CheckOutcome:
    """Nothing but the markers list changed in the configuration, and `--strict-markers` stays."""
    task = _config_task(ctx, "markers")
    score, detail = pytest_options_kept(base_files(ctx.initial), tree_files(ctx.final), str(task.details["config"]))
    return CheckOutcome(score, detail)


@kit.check
def config_pins_consistent(ctx: CheckContext) -> CheckOutcome:
    """Every pin is exact, exists in the offline index, and satisfies every other pin's requirements."""
    task = _config_task(ctx, "pin")
    files = tree_files(ctx.final)
    index = base_files(ctx.initial)[str(task.details["index"])]  # the index is the mirror's, not the agent's
    problems = pin_problems(files.get(str(task.details["requirements"]), ""), index)
    return CheckOutcome.of(not problems, "; ".join(problems[:5]) or "every pin resolves from the offline index")


@kit.check
def config_pin_newest(ctx: CheckContext) -> CheckOutcome:
    """The broken package is pinned to the newest indexed version the other pins accept."""
    task = _config_task(ctx, "pin")
    pins, _ = parse_pins(tree_files(ctx.final).get(str(task.details["requirements"]), ""))
    name = canonicalize_name(str(task.details["package"]))
    want = Version(str(task.details["answer"]))
    got = pins.get(name)
    return CheckOutcome.of(got == want, f"{name} is pinned to {got} (expected {want})")


@kit.check
def config_pins_kept(ctx: CheckContext) -> CheckOutcome:
    """Every other package keeps its pin, and no package was added or dropped."""
    task = _config_task(ctx, "pin")
    pins, _ = parse_pins(tree_files(ctx.final).get(str(task.details["requirements"]), ""))
    name = canonicalize_name(str(task.details["package"]))
    want = {canonicalize_name(k): Version(str(v)) for k, v in task.details["pins"].items()}  # type: ignore[union-attr]
    others = {k: v for k, v in pins.items() if k != name}
    problems = [f"{k} is pinned to {others.get(k)} (was {v})" for k, v in sorted(want.items()) if others.get(k) != v]
    problems += [f"{k} was added" for k in sorted(set(others) - set(want))]
    if name not in pins:
        problems.append(f"{name} is no longer pinned")
    return CheckOutcome.of(not problems, "; ".join(problems) or "the other pins are unchanged")
