"""Implement-from-docstring tasks: a core function's body is gone; hidden seeded inputs judge the new one.

`ide.stub_function` params (the family's knobs):

* `units`: which functions may be chosen (default: every unit);
* `visible_examples`: how many visible test cases the function keeps (0-6);
* `edge_share`: the share of hidden inputs drawn on a boundary of the documented rules;
* `hidden_calls`: how many hidden calls (about).

The docstring, the module's constants and its helpers stay. The grader calls the function on
the hidden inputs in the sandbox and compares the type-tagged results with the oracle's (the
clean body's, computed here from the clean module); the visible examples are never among them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.ide.gen_modules import CORE_MODULES, CoreModule, Unit
from saas_sim.domains.ide.gen_reference import Raised, call_all, load_namespace
from saas_sim.domains.ide.generate import visible_test_path
from saas_sim.domains.ide.hidden_tests import render_tests
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.setup_helpers import attic_copies, diff_lines, function_node, hack_bindings, stage_task
from saas_sim.domains.ide.task_model import FunctionSpec, IdeTask, TaskScope
from saas_sim.domains.ide.workspace import tree_files
from saas_sim.errors import HarnessError

__all__ = ["ALTERNATIVE_BODIES", "STUB_LINE", "ImplementParams", "stub_function"]

STUB_LINE = '    raise NotImplementedError("TODO: implement (see the docstring)")\n'

ALTERNATIVE_BODIES: dict[str, str] = {
    "late_fee": (
        "    if balance_cents > 0 and days_late > GRACE_DAYS:\n"
        "        overdue = days_late - GRACE_DAYS\n"
        "        periods = overdue // 30 + (1 if overdue % 30 else 0)\n"
        "        one_period = _round_half_up(balance_cents * LATE_FEE_BP, 10000)\n"
        "        return min(one_period * periods, LATE_FEE_CAP_CENTS)\n"
        "    return 0\n"),
    "refund_amount": (
        "    if final_sale or days_since_purchase < 0 or days_since_purchase > REFUND_WINDOW_DAYS:\n"
        "        return 0\n"
        "    fee = 0\n"
        "    if days_since_purchase > FULL_REFUND_DAYS:\n"
        "        fee = _round_half_up(paid_cents * RESTOCKING_FEE_BP, 10000)\n"
        "    return paid_cents - fee\n"),
    "breach_status": (
        "    target = target_minutes(priority, vip)\n"
        "    if elapsed_minutes > target:\n"
        "        return \"breached\"\n"
        "    return \"at_risk\" if target - elapsed_minutes <= WARN_MINUTES else \"ok\"\n"),
    "quote": (
        "    if seats < MIN_SEATS:\n"
        "        raise ValueError(\"a plan needs at least one seat\")\n"
        "    total = seats * seat_price(seats) * months\n"
        "    if months >= 12:\n"
        "        total = total - _round_half_up(total * ANNUAL_DISCOUNT_BP, 10000)\n"
        "    return total\n"),
    "format_cents": (
        "    whole, frac = divmod(abs(cents), 100)\n"
        "    text = CURRENCY_SYMBOL + \"{:,}\".format(whole) + \".\" + str(frac).zfill(2)\n"
        "    return \"-\" + text if cents < 0 else text\n"),
    "invoice_total": (
        "    sub = sum(line_amount(qty, unit_cents) for qty, unit_cents in lines if qty > 0)\n"
        "    return sub if tax_exempt else sub + _round_half_up(sub * TAX_RATE_BP, 10000)\n"),
}
"""Other correct bodies of each unit (the scenarios' alternatives): same behaviour, other code."""


class ImplementParams(BaseModel):
    """The implement family's knobs (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    units: list[str] | None = None
    visible_examples: int = Field(default=2, ge=0, le=6)
    edge_share: float = Field(default=0.5, ge=0, le=1)
    hidden_calls: int = Field(default=40, ge=5, le=200)
    decoys: int = Field(default=0, ge=0, le=8)
    """Distractors: stale copies of the stubbed module under `attic/` (`attic_copies`)."""


def _body(text: str, function: str) -> tuple[str, str, str]:
    """Splits a module around a function's body (after its docstring): (head, body, tail)."""
    node = function_node(text, function)
    lines = text.splitlines(keepends=True)
    start = node.body[1].lineno - 1 if len(node.body) > 1 else node.body[0].lineno - 1
    end = node.end_lineno or start + 1
    return "".join(lines[:start]), "".join(lines[start:end]), "".join(lines[end:])


def _build(ctx: SetupContext, p: ImplementParams, module: CoreModule, unit: Unit) -> Setup:
    files = tree_files(ctx.state)
    clean = files[module.path]
    ns = load_namespace(clean)
    rng = ctx.rng
    seen: set[str] = set()
    inputs: list[list[Any]] = []
    expected: list[Any] = []
    visible: list[tuple[list[Any], Any]] = []
    for _ in range(40):
        drawn = unit.inputs(rng, ns, p.edge_share)
        for args, ref in zip(drawn, call_all(clean, unit.function, drawn), strict=True):
            key = repr(args)
            if isinstance(ref, Raised) or key in seen:
                continue
            seen.add(key)
            # Visible examples come first from the random draws, so they vary with the seed.
            if len(visible) < p.visible_examples and len(inputs) >= 5:
                visible.append((args, ref))
            elif len(inputs) < p.hidden_calls:
                inputs.append(args)
                expected.append(ref)
        if len(inputs) >= p.hidden_calls and len(visible) >= p.visible_examples:
            break
    head, body, tail = _body(clean, unit.function)
    stub = head + STUB_LINE + tail
    staged = {module.path: stub, visible_test_path(unit): render_tests(
        module.module, unit.function, visible, header=f"Examples of {module.module}.{unit.function}.")}
    task = IdeTask(
        family="implement",
        scope=TaskScope(allowed=[module.path], oracle_diff_lines=diff_lines(stub, clean), max_ratio=3.0,
                        slack_lines=12),
        function=FunctionSpec(module=module.module, function=unit.function, inputs=inputs, expected=expected,
                              seed=str(rng.getrandbits(64))),
        details={"module": module.path, "unit": unit.function, "visible_examples": len(visible)},
    )
    bindings: dict[str, Any] = {
        "module_path": module.path,
        "module": module.module,
        "function": unit.function,
        "test_path": visible_test_path(unit),
        "stub_line": STUB_LINE,
        "oracle_body": body,
        "alternative_body": ALTERNATIVE_BODIES[unit.function],
        "clean_text": clean,
        **hack_bindings(stub, unit.function, visible),
    }
    return stage_task(ctx, {**staged, **attic_copies(staged, p.decoys)}, task, bindings)


@kit.setup
def stub_function(ctx: SetupContext) -> Setup:
    """Stages an implement task: one core function loses its body; hidden seeded calls judge it."""
    p = ImplementParams.model_validate(dict(ctx.params))
    units = [(m, u) for m in CORE_MODULES for u in m.units if p.units is None or u.function in p.units]
    if not units:
        raise HarnessError(f"no unit among {p.units}")
    module, unit = units[ctx.rng.randrange(len(units))]
    return _build(ctx, p, module, unit)
