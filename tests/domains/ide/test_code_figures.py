"""The figures a module of the company's code states are bound for the truth checks: money in dollars, rates."""

from __future__ import annotations

import pytest

from saas_sim.core.state import State
from saas_sim.domains.ide.code_figures import Figure, code_figures
from saas_sim.domains.ide.gen_reference import load_namespace
from saas_sim.domains.ide.setups_suite_billing import INVOICE_PATH, PRICING_PATH, code_late_fee, code_quote, dollars
from saas_sim.domains.ide.setups_suite_proration import code_downgrade
from saas_sim.domains.ide.workspace import tree_files
from tests.domains.suite_world import run_setup, suite_state


def _amounts(figures: list[Figure]) -> set[str]:
    return {f["amount"] if isinstance(f, dict) else f for f in figures}


@pytest.fixture(scope="module")
def state() -> State:
    return suite_state()


def test_the_invoice_module_states_its_cap_in_dollars_and_its_rates_as_percents(state: State) -> None:
    ns = load_namespace(tree_files(state)[INVOICE_PATH])
    want = {dollars(ns["LATE_FEE_CAP_CENTS"]), dollars(ns["TAX_RATE_BP"]), dollars(ns["LATE_FEE_BP"]),
            dollars(ns["BULK_DISCOUNT_BP"])}
    assert _amounts(code_figures(ns)) == want  # days and quantities are no money
    assert {"amount": dollars(ns["LATE_FEE_CAP_CENTS"]), "per": []} in code_figures(ns)  # a cap is a total


def test_the_price_list_states_every_tier_price_and_the_enterprise_price(state: State) -> None:
    ns = load_namespace(tree_files(state)[PRICING_PATH])
    prices = {dollars(cents) for _, cents in ns["TIERS"]} | {dollars(ns["ENTERPRISE_SEAT_CENTS"])}
    assert _amounts(code_figures(ns)) == prices | {dollars(ns["ANNUAL_DISCOUNT_BP"])}
    assert all(f["per"] == ["seat", "month"] for f in code_figures(ns) if isinstance(f, dict))  # the list's unit
    assert {"amount": "12.34", "per": ["month"]} in code_figures(ns, (1234, ["month"]))  # computed by a setup


def test_code_figures_ignore_what_is_no_int() -> None:
    ns = {"X_CENTS": "25", "FLAG_BP": True, "TIERS": ((5, 4900), "junk"), "lower_cents": 7}
    assert code_figures(ns) == [{"amount": "49.00", "per": ["seat", "month"]}]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_code_setups_bind_the_figures_the_code_states(state: State, seed: int) -> None:
    for rules in (1, 2, 3):
        fee = run_setup(code_late_fee, state, seed, {"rules": rules}).bindings["code_fee"]
        assert {fee["cap"], fee["period_fee"]} <= _amounts(fee["figures"])
        assert fee["per_period"] not in _amounts(fee["figures"])  # a misreading (the cap ignored)
    quote = run_setup(code_quote, state, seed, {"rules": 2}).bindings["code_quote"]
    assert quote["seat_price"] in _amounts(quote["figures"]) and quote["amount"] not in _amounts(quote["figures"])
    p = run_setup(code_downgrade, state, seed, {"rules": 2}).bindings["proration"]
    assert {p["old_seat_price"], p["new_seat_price"]} <= _amounts(p["figures"])
    assert p["old_seat_price"] != p["new_seat_price"]  # rules 2: the new count is in another tier
