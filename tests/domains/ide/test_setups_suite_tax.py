"""The cross-app tax setup: invoice_total() loses its tax-exempt branch, and the invoices drawn show the damage."""

from __future__ import annotations

import pytest

from saas_sim.domains.ide.gen_reference import load_namespace
from saas_sim.domains.ide.setups_suite_billing import INVOICE_PATH, dollars
from saas_sim.domains.ide.setups_suite_tax import tax_exempt_bug
from saas_sim.domains.ide.state import PROJECTION, TASK
from saas_sim.domains.ide.workspace import tree_files
from saas_sim.errors import ScenarioError
from tests.domains.suite_world import run_setup, suite_state


def _cents(amount: str) -> int:
    whole, _, cents = amount.partition(".")
    return int(whole) * 100 + int(cents)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_bug_taxes_exempt_invoices_and_the_drawn_invoice_shows_exactly_the_tax(seed: int) -> None:
    state = suite_state()
    clean = load_namespace(tree_files(state)[INVOICE_PATH])
    out = run_setup(tax_exempt_bug, state, seed, {"others": 2})
    after = PROJECTION.fold(state, out.events)
    assert after.value(TASK) is not None  # hidden tests are staged
    mutant = load_namespace(tree_files(after)[INVOICE_PATH])
    tax = out.bindings["tax"]
    lines = tax["lines"]
    taxed = dollars(clean["invoice_total"](lines, False))
    assert dollars(mutant["invoice_total"](lines, True)) == tax["charged"] == taxed
    assert dollars(clean["invoice_total"](lines, True)) == tax["subtotal"]
    assert _cents(tax["amount"]) == _cents(tax["charged"]) - _cents(tax["subtotal"])
    assert 500 <= _cents(tax["amount"]) <= 20_000
    assert out.bindings["function"] == "invoice_total" and out.bindings["clean_text"] == tree_files(state)[INVOICE_PATH]


def test_other_invoices_are_rightly_taxed_and_the_count_follows_the_param() -> None:
    state = suite_state()
    for n in (0, 1, 3):
        tax = run_setup(tax_exempt_bug, state, 4, {"others": n}).bindings["tax"]
        assert len(tax["other_subtotals"]) == len(tax["other_taxes"]) == len(tax["other_charged"]) == n
        for sub, t, total in zip(tax["other_subtotals"], tax["other_taxes"], tax["other_charged"], strict=True):
            assert _cents(sub) + _cents(t) == _cents(total) and _cents(t) > 0


def test_the_seed_moves_the_invoice() -> None:
    state = suite_state()
    amounts = {run_setup(tax_exempt_bug, state, s, {}).bindings["tax"]["charged"] for s in range(4)}
    assert len(amounts) > 1


def test_more_than_three_other_invoices_is_refused() -> None:
    with pytest.raises(ScenarioError):
        run_setup(tax_exempt_bug, suite_state(), 0, {"others": 4})
