"""The IDE's seed generator: a messy `acme` Python project of the company behind the CRM and the support desk.

```yaml
domains:
  ide: {files: 40, mess: 0.6, visible_cases: 3}
```

`build_project(seed, params)` is the pure part other families build on: it returns the
file map (path -> text, sorted) and, per core module, its text and drawn constants. The
project has five core modules (`acme/billing/invoice.py`, `acme/pricing/tiers.py`,
`acme/refunds/policy.py`, `acme/sla/timers.py`, `acme/utils/money.py`, see `gen_modules`),
one visible test file per unit (`tests/test_<function>.py`, literal expected values), a
`pyproject.toml` with the pytest configuration, and distractors up to `files` paths.

Named random streams of the seed: `constants`, `mess`, `distractors`, `visible`.
`generate(ctx)` turns the file map into the workspace's write events and marks the base.

The code is the company's own product. In a world with a support desk, the refund policy
(`REFUND_WINDOW_DAYS`, `FULL_REFUND_DAYS`, `RESTOCKING_FEE_BP`) and the SLA targets
(`TARGET_MINUTES`, `WARN_MINUTES`) are the desk's terms (port `support.policy_terms`); in a
world with a CRM, the first seat tier costs the CRM's list price of its per-seat product per
month (port `crm.price_book`; the volume tiers keep their seeded steps below it). The constants
are drawn as always and then replaced (`linked_constants`), so a world without those products
is byte-identical to one built before the links existed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from saas_sim.core.domain import GenerateContext
from saas_sim.core.events import Event
from saas_sim.core.links import Links, Terms
from saas_sim.core.rng import SeedTree
from saas_sim.domains.ide import gen_mess
from saas_sim.domains.ide.events import BaseMarked
from saas_sim.domains.ide.gen_modules import CORE_MODULES, CoreModule, Unit, draw_constants
from saas_sim.domains.ide.gen_reference import Raised, call_all, load_namespace
from saas_sim.domains.ide.hidden_tests import Case, render_tests
from saas_sim.domains.ide.workspace import TreeWriter

__all__ = [
    "IdeParams",
    "Project",
    "build_project",
    "core_module",
    "generate",
    "linked_constants",
    "unit_cases",
    "visible_test_path",
]

Overrides = Mapping[str, Mapping[str, str]]
"""Core module path -> placeholder -> text that replaces the drawn constant."""

_REFUNDS, _SLA, _TIERS = "acme/refunds/policy.py", "acme/sla/timers.py", "acme/pricing/tiers.py"


class IdeParams(BaseModel):
    """The knobs of a generated project (the profile's `ide:` section).

    Attributes:
        files: About how many paths the project has (at least the core ones, 22).
        mess: The chance each core module gets dead code and leftovers appended.
        visible_cases: Visible test cases per unit.
        dead_functions: How many dead functions a messy core module gets.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    files: int = Field(default=40, ge=1, le=5000)
    mess: float = Field(default=0.6, ge=0, le=1)
    visible_cases: int = Field(default=3, ge=1, le=20)
    dead_functions: int = Field(default=4, ge=0, le=200)


@dataclass(frozen=True)
class Project:
    """A generated project.

    Attributes:
        files: Path -> text, sorted by path.
        modules: Core module path -> its clean text (as in `files`).
    """

    files: dict[str, str]
    modules: dict[str, str]


_PYPROJECT = """[project]
name = "acme-backoffice"
version = "0.{minor}.0"
requires-python = ">=3.11"
description = "Billing, pricing, refunds and SLA code of Acme (monorepo slice)"

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]
addopts = "-q"
"""

_README = """# acme-backoffice

Billing, pricing, refund policy and SLA timers shared by the CRM and the support desk.

Run the tests with `pytest`. Money is integer cents everywhere (except acme/legacy).
"""


def visible_test_path(unit: Unit) -> str:
    """The visible test file of a unit."""
    return f"tests/test_{unit.function}.py"


def core_module(path: str) -> CoreModule:
    """The core module at `path` (a KeyError names an unknown path)."""
    return {m.path: m for m in CORE_MODULES}[path]


def unit_cases(text: str, unit: Unit, inputs: list[list[Any]]) -> list[Case]:
    """The cases of `unit` on `inputs` against the module `text` (a raising input keeps `Raised`)."""
    return list(zip(inputs, call_all(text, unit.function, inputs), strict=True))


def _visible_cases(text: str, unit: Unit, seed: SeedTree, n: int) -> list[Case]:
    rng = seed.random(f"visible:{unit.function}")
    ns = load_namespace(text)
    inputs = unit.inputs(rng, ns, 0.2)
    cases = [c for c in unit_cases(text, unit, inputs) if not isinstance(c[1], Raised)]
    return cases[:n]


def linked_constants(links: Links) -> dict[str, dict[str, str]]:
    """The constants the world's other products fix (see the module docstring), by module path.

    Empty in a world without a support desk or a CRM (their ports read as empty).
    """
    out: dict[str, dict[str, str]] = {}
    terms = {t.id: t for t in links.read("support.policy_terms", Terms)}
    if "refunds" in terms:
        r = terms["refunds"]
        out[_REFUNDS] = {"window": str(r.whole("window_days")), "full_days": str(r.whole("full_refund_days")),
                         "restock_bp": str(r.whole("restocking_fee_bp"))}
    if "sla_first_response_minutes" in terms:
        t = terms["sla_first_response_minutes"]
        out[_SLA] = {prio: str(t.whole(prio)) for prio in ("urgent", "high", "normal", "low")}
        if "sla_warning" in terms:
            out[_SLA]["warn"] = str(terms["sla_warning"].whole("at_risk_minutes"))
    seats = [t for t in links.read("crm.price_book", Terms) if t.values.get("seat") == 1 and "USD" in t.values]
    if seats:
        seat = seats[0]  # in SKU order
        cents = seat.values["USD"] * 100 / seat.values.get("months", 1)
        out[_TIERS] = {"p1": str(int(cents.to_integral_value()))}
    return out


def _override(consts: dict[str, dict[str, str]], overrides: Overrides) -> None:
    for path, values in overrides.items():
        drawn = consts[path]
        if path == _TIERS and "p1" in values:
            # Volume tiers keep their seeded discount steps below the linked list price.
            delta = int(values["p1"]) - int(drawn["p1"])
            drawn.update({k: str(int(drawn[k]) + delta) for k in ("p2", "p3", "p4")})
        drawn.update(values)


def build_project(seed: SeedTree | int | str, params: Mapping[str, Any] | IdeParams | None = None,
                  overrides: Overrides | None = None) -> Project:
    """Builds a project's files from a seed: a pure function (same seed, params and overrides, same files).

    Args:
        seed: The project's seed tree (or a value to root one at).
        params: The profile's `ide:` knobs.
        overrides: Constants fixed by the world's other products (`linked_constants`); every
            other constant is drawn as without them.

    Raises:
        pydantic.ValidationError: An unknown knob or an out-of-range value.
    """
    p = params if isinstance(params, IdeParams) else IdeParams.model_validate(dict(params or {}))
    tree = seed if isinstance(seed, SeedTree) else SeedTree(seed)
    consts = draw_constants(tree.random("constants"))
    _override(consts, overrides or {})
    mess = tree.random("mess")
    files: dict[str, str] = {
        "pyproject.toml": _PYPROJECT.format(minor=mess.randint(3, 40)),
        "README.md": _README,
        "acme/__init__.py": '"""Acme back office."""\n',
    }
    modules: dict[str, str] = {}
    for m in CORE_MODULES:
        package = m.path.rsplit("/", 1)[0]
        files[f"{package}/__init__.py"] = ""
        text = m.render(consts[m.path])
        if mess.random() < p.mess and p.dead_functions:
            text += gen_mess.messy_suffix(mess, p.dead_functions)
        files[m.path] = text
        modules[m.path] = text
        for unit in m.units:
            cases = _visible_cases(text, unit, tree, p.visible_cases)
            files[visible_test_path(unit)] = render_tests(m.module, unit.function, cases)
    if p.files > len(files):
        rng = tree.random("distractors")
        for path, text in gen_mess.distractor_files(rng, p.files - len(files)).items():
            files.setdefault(path, text)
    return Project(files=dict(sorted(files.items())), modules=modules)


def generate(ctx: GenerateContext) -> list[Event]:
    """Builds an IDE world: one write event per file (blobs first), then the base mark.

    Raises:
        pydantic.ValidationError: The profile has an unknown knob or an out-of-range value.
    """
    project = build_project(ctx.seed.child("project"), ctx.params, linked_constants(ctx.links))
    writer = TreeWriter(ctx.state)
    for path, text in project.files.items():
        writer.write(path, text, operation="generate")
    return [*writer.events, BaseMarked()]
