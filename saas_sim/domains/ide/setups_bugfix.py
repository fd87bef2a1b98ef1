"""Bug-fix tasks: seeded bugs injected into a core module, judged by hidden cases with the clean module's values.

`ide.inject_bugs` params (the family's knobs):

* `modifiers`: the mutator kinds allowed (default: all five);
* `bugs`: how many bugs (1-3), each in a function of the unit's call chain;
* `depth`: call depth from the symptom to the first bug (0: in the function the report names);
* `visible_failing`: whether a visible test fails on the bug (else every visible test passes);
* `report`: how specific the bug report is: `specific` (function, file, failing call),
  `symptom` (a failing call, no file), `vague` (the area only);
* `units`: which units may be chosen (default: any with a chain deep enough);
* `edge_share`: the share of hidden inputs drawn on a boundary.

Every bug is proven at setup by evaluating the mutant (`gen_reference`): alone it changes at
least `min_failing` hidden results, so fixing all but one bug never reaches full credit, and
the hidden cases never include the visible or reported call, so hardcoding those earns nothing.

The hidden tests are hidden cases (`task_model.HiddenCase`): calls the grader makes in the sandbox and
results it compares outside it, so no expected value is in the process that runs the agent's code.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.ide.gen_modules import CORE_MODULES, CoreModule, Unit
from saas_sim.domains.ide.gen_reference import Raised, call_all, load_namespace, same
from saas_sim.domains.ide.generate import visible_test_path
from saas_sim.domains.ide.hidden_tests import Case, case_ids, hidden_cases, hidden_path, render_tests
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.mutators import MUTATOR_KINDS, Mutation, apply_mutations, candidate_mutations, overlaps
from saas_sim.domains.ide.setup_helpers import (
    diff_lines,
    function_node,
    hack_bindings,
    stage_task,
    unique_region,
    visible_test_ids,
)
from saas_sim.domains.ide.task_model import HiddenCase, IdeTask, TaskScope
from saas_sim.domains.ide.workspace import tree_files
from saas_sim.errors import HarnessError

__all__ = ["BugfixParams", "inject_bugs"]

_AREA = {
    "acme/billing/invoice.py": "invoice totals and late fees",
    "acme/pricing/tiers.py": "seat quotes",
    "acme/refunds/policy.py": "refund amounts",
    "acme/sla/timers.py": "SLA breach states on tickets",
    "acme/utils/money.py": "formatted money amounts",
}


class BugfixParams(BaseModel):
    """The bug-fix family's knobs (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    modifiers: list[str] = Field(default_factory=lambda: list(MUTATOR_KINDS))
    bugs: int = Field(default=1, ge=1, le=3)
    depth: int = Field(default=0, ge=0, le=2)
    visible_failing: bool = True
    report: str = Field(default="specific", pattern="^(specific|symptom|vague)$")
    units: list[str] | None = None
    edge_share: float = Field(default=0.5, ge=0, le=1)
    min_failing: int = Field(default=3, ge=1)


def _failing(mutant: str, unit: Unit, inputs: Sequence[list[Any]], expected: Sequence[Any]) -> list[int]:
    got = call_all(mutant, unit.function, inputs)
    return [k for k, (g, e) in enumerate(zip(got, expected, strict=True)) if not same(g, e)]


def _choose_bugs(rng: random.Random, clean: str, unit: Unit, p: BugfixParams, inputs: list[list[Any]],
                 expected: list[Any]) -> list[Mutation] | None:
    first = candidate_mutations(clean, [unit.chain[p.depth]], p.modifiers)
    rest = candidate_mutations(clean, unit.chain, p.modifiers)
    rng.shuffle(first)
    rng.shuffle(rest)
    chosen: list[Mutation] = []
    for pool in (first, *([rest] * (p.bugs - 1))):
        for m in pool:
            if any(overlaps(m, c) or m.line == c.line for c in chosen):
                continue
            if len(_failing(apply_mutations(clean, [m]), unit, inputs, expected)) < p.min_failing:
                continue
            chosen.append(m)
            break
        else:
            return None
    return chosen


def _draw_outside(rng: random.Random, unit: Unit, ns: Mapping[str, Any], taken: set[str], clean: str,
                  mutant: str, want_failing: bool, n: int) -> list[Case]:
    """Cases not among `taken` (by repr), failing on the mutant or not as asked, with clean values."""
    out: list[Case] = []
    for _ in range(40):
        inputs = [a for a in unit.inputs(rng, ns, 0.6) if repr(a) not in taken]
        ref = call_all(clean, unit.function, inputs)
        got = call_all(mutant, unit.function, inputs)
        for args, r, g in zip(inputs, ref, got, strict=True):
            if isinstance(r, Raised) or (not same(r, g)) != want_failing:
                continue
            taken.add(repr(args))
            out.append((args, r))
            if len(out) == n:
                return out
    return out


def _report(kind: str, module: CoreModule, unit: Unit, case: Case, actual: Any, depth: int) -> str:
    args, expected = case
    call = f"{unit.function}({', '.join(repr(a) for a in args)})"
    got = f"raises {actual.error}" if isinstance(actual, Raised) else f"returns {actual!r}"
    if kind == "specific":
        where = " The cause may sit in a function it calls." if depth else ""
        return (f"`{unit.function}` in {module.path} is wrong: {call} {got}, but the documented rules give "
                f"{expected!r}.{where}")
    if kind == "symptom":
        return f"Finance reports wrong {_AREA[module.path]}: for example {call} {got} instead of {expected!r}."
    return f"Customers and the finance team say our {_AREA[module.path]} look wrong since the last release."


def _build(ctx: SetupContext, p: BugfixParams, module: CoreModule, unit: Unit) -> Setup | None:
    files = tree_files(ctx.state)
    clean = files[module.path]
    ns = load_namespace(clean)
    rng = ctx.rng
    raw = unit.inputs(rng, ns, p.edge_share)
    raw_ref = call_all(clean, unit.function, raw)
    inputs = [a for a, r in zip(raw, raw_ref, strict=True) if not isinstance(r, Raised)]
    expected = [r for r in raw_ref if not isinstance(r, Raised)]
    bugs = _choose_bugs(rng, clean, unit, p, inputs, expected)
    if bugs is None:
        return None
    mutant = apply_mutations(clean, bugs)
    taken = {repr(a) for a in inputs}
    # The reported call and the visible cases are drawn outside the hidden inputs.
    reported = _draw_outside(rng, unit, ns, taken, clean, mutant, True, 1)
    passing = _draw_outside(rng, unit, ns, taken, clean, mutant, False, 3)
    if not reported or not (passing or p.visible_failing):
        return None
    visible = [*passing, *(reported if p.visible_failing else [])]
    hidden: list[HiddenCase] = []
    fail_to_pass: list[str] = []
    pass_to_pass: list[str] = []
    staged = {module.path: mutant}
    for other in module.units:
        if other.function == unit.function:
            o_inputs, o_expected = inputs, expected
        else:
            o_raw = other.inputs(rng, ns, p.edge_share)
            o_ref = call_all(clean, other.function, o_raw)
            o_inputs = [a for a, r in zip(o_raw, o_ref, strict=True) if not isinstance(r, Raised)]
            o_expected = [r for r in o_ref if not isinstance(r, Raised)]
        path = hidden_path(other.function)
        hidden += hidden_cases(path, module.module, other.function, list(zip(o_inputs, o_expected, strict=True)))
        ids = case_ids(path, other.function, len(o_inputs))
        bad = set(_failing(mutant, other, o_inputs, o_expected))
        fail_to_pass += [i for k, i in enumerate(ids) if k in bad]
        pass_to_pass += [i for k, i in enumerate(ids) if k not in bad]
        if other.function != unit.function:
            o_vis = _draw_outside(rng, other, ns, {repr(a) for a in o_inputs}, clean, mutant, False, 3)
            staged[visible_test_path(other)] = render_tests(module.module, other.function, o_vis)
    staged[visible_test_path(unit)] = render_tests(module.module, unit.function, visible)
    after = {**files, **staged}
    visible_ids = visible_test_ids(after)
    failing_visible = set(case_ids(visible_test_path(unit), unit.function, len(visible))[len(passing):])
    pass_to_pass += [i for i in visible_ids if i not in failing_visible]
    old_region, new_region = unique_region(mutant, clean)
    oracle_lines = diff_lines(mutant, clean)
    chain_lines = sum(len(_function_text(clean, fn).splitlines()) for fn in unit.chain)
    task = IdeTask(
        family="bugfix",
        hidden_cases=hidden,
        fail_to_pass=sorted(fail_to_pass),
        pass_to_pass=sorted(pass_to_pass),
        scope=TaskScope(allowed=[module.path], oracle_diff_lines=oracle_lines, max_ratio=4.0,
                        slack_lines=2 * chain_lines + 8),
        details={"module": module.path, "unit": unit.function, "depth": p.depth,
                 "bugs": [m.describe() for m in bugs], "kinds": sorted({m.kind for m in bugs})},
    )
    actual = call_all(mutant, unit.function, [reported[0][0]])[0]
    bindings: dict[str, Any] = {
        "module_path": module.path,
        "module": module.module,
        "function": unit.function,
        "test_path": visible_test_path(unit),
        "report": _report(p.report, module, unit, reported[0], actual, p.depth),
        "old_region": old_region,
        "new_region": new_region,
        "commented_region": _commented(new_region),
        "clean_text": clean,
        "bug_count": len(bugs),
        **hack_bindings(mutant, unit.function, visible),
    }
    if p.report == "vague" and not p.visible_failing:
        bindings["report"] += f" (Start from {unit.function}.)"
    return stage_task(ctx, staged, task, bindings)


def _commented(region: str) -> str:
    lines = region.splitlines(keepends=True)
    first = lines[0]
    indent = first[: len(first) - len(first.lstrip())]
    return f"{indent}# fixed: the documented rule (see the docstring)\n" + region


def _function_text(text: str, name: str) -> str:
    node = function_node(text, name)
    return "\n".join(text.splitlines()[node.lineno - 1: node.end_lineno])


@kit.setup
def inject_bugs(ctx: SetupContext) -> Setup:
    """Stages a bug-fix task: seeded bugs in one core module, hidden tests, a report (see the module docstring)."""
    p = BugfixParams.model_validate(dict(ctx.params))
    units = [(m, u) for m in CORE_MODULES for u in m.units
             if len(u.chain) > p.depth and (p.units is None or u.function in p.units)]
    if not units:
        raise HarnessError(f"no unit has a call chain deeper than {p.depth} among {p.units}")
    ctx.rng.shuffle(units)
    for module, unit in units:
        setup = _build(ctx, p, module, unit)
        if setup is not None:
            return setup
    raise HarnessError(f"no bug of {p.modifiers} could be injected with {p.bugs} bugs at depth {p.depth}")
