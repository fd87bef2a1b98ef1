"""Cross-app tax setup on the company's code: a release dropped the tax-exempt branch of invoice_total().

`tax_exempt_bug` stages an `ide.inject_bugs` task on `invoice_total` of acme/billing/invoice.py whose
one bug removes the guard that lets a tax-exempt customer pay the subtotal only (the only
`remove_condition` site of the function), so exempt invoices were charged sales tax. It draws the
exempt customer's invoice (what the buggy code charged, the subtotal it should have charged, the tax
in between) and the invoices of customers who are not exempt (rightly taxed: the code's figures for
them are the same before and after the fix), all computed by the module itself, in-process.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.domains.ide.code_figures import code_figures
from saas_sim.domains.ide.gen_reference import load_namespace
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.setups_suite_billing import INVOICE_PATH, dollars
from saas_sim.domains.ide.workspace import tree_files
from saas_sim.errors import HarnessError, ScenarioError

__all__ = ["tax_exempt_bug"]

# A support agent may refund up to 200 dollars without an approval; a customer notices 5.
_TAX_LOW, _TAX_HIGH = 500, 20_000
_INJECT_TRIES = 20


def _invoice(rng: random.Random, total: Callable[..., int], exempt_charged: Callable[..., int] | None
             ) -> tuple[list[list[int]], int, int]:
    """Invoice lines ([qty, unit_cents]) with tax in the refundable range: (lines, subtotal, taxed total)."""
    for _ in range(200):
        lines = [[rng.randint(1, 30), rng.randrange(1_000, 90_000)] for _ in range(rng.randint(1, 3))]
        sub, taxed = total(lines, True), total(lines, False)
        if _TAX_LOW <= taxed - sub <= _TAX_HIGH and (exempt_charged is None or exempt_charged(lines, True) == taxed):
            return lines, sub, taxed
    raise ScenarioError("no invoice of this world's tax rate has a refundable tax amount")


def _inject(ctx: SetupContext) -> Setup:
    """The inject_bugs task on invoice_total with its exempt guard removed, drawn again when the hidden
    inputs it drew hold too few exempt invoices to prove the bug (about one in five is exempt)."""
    from saas_sim.domains.ide.setups_bugfix import inject_bugs

    for _ in range(_INJECT_TRIES):
        sub = replace(ctx, params={
            "bugs": 1, "depth": 0, "units": ["invoice_total"], "modifiers": ["remove_condition"],
            "report": "vague", "visible_failing": True}, rng=random.Random(ctx.rng.getrandbits(64)))
        try:
            return inject_bugs(sub)
        except HarnessError:
            continue
    raise ScenarioError("no draw of hidden invoices proves the tax-exempt bug of invoice_total()")


@kit.setup
def tax_exempt_bug(ctx: SetupContext) -> Setup:
    """A bug in invoice_total() of acme/billing/invoice.py that charged a tax-exempt customer sales tax (`tax.*`).

    Params:
        others: Invoices of customers who are not tax-exempt, rightly taxed (0-3, default 1).

    Bindings: inject_bugs' (module_path, old_region, new_region, clean_text, test_path, ...) and `tax`:
    charged, subtotal, amount (the tax charged: charged minus subtotal), amount_less_cent, rate (percent,
    `"8.25"`), lines (the exempt invoice's [qty, unit_cents]); other_subtotals, other_taxes,
    other_charged (lists, one per other invoice, dollars); figures (what the clean module states: the
    late-fee cap and its rates, the tax rate among them; `code_figures`).
    """
    from saas_sim.domains.ide.state import PROJECTION

    n_other = int(ctx.params.get("others", 1))
    if not 0 <= n_other <= 3:
        raise ScenarioError(f"others must be 0-3, got {n_other}")
    clean_text = tree_files(ctx.state).get(INVOICE_PATH)
    if clean_text is None:
        raise ScenarioError(f"this world has no {INVOICE_PATH}: cross-app tax tasks need the suite's code base")
    clean: Mapping[str, Any] = load_namespace(clean_text)
    out = _inject(ctx)
    mutant = load_namespace(tree_files(PROJECTION.fold(ctx.state, out.events))[INVOICE_PATH])
    lines, subtotal, charged = _invoice(ctx.rng, clean["invoice_total"], mutant["invoice_total"])
    others = [_invoice(ctx.rng, clean["invoice_total"], None) for _ in range(n_other)]
    return Setup(bindings={**out.bindings, "tax": {
        "charged": dollars(charged), "subtotal": dollars(subtotal), "amount": dollars(charged - subtotal),
        "amount_less_cent": dollars(charged - subtotal - 1), "rate": f"{clean['TAX_RATE_BP'] / 100:.2f}",
        "lines": lines,
        "other_subtotals": [dollars(s) for _, s, _ in others],
        "other_taxes": [dollars(t - s) for _, s, t in others],
        "other_charged": [dollars(t) for _, _, t in others],
        "figures": code_figures(clean),
    }}, events=out.events)
