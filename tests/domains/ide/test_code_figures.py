"""The figures a module of the company's code states are bound for the truth checks: money in dollars, rates."""

from __future__ import annotations

import pytest

from saas_sim.core.state import State
from saas_sim.domains.ide.code_figures import code_figures
from saas_sim.domains.ide.gen_reference import load_namespace
from saas_sim.domains.ide.setups_suite_billing import INVOICE_PATH, PRICING_PATH, code_late_fee, code_quote, dollars
from saas_sim.domains.ide.setups_suite_proration import code_downgrade
from saas_sim.domains.ide.workspace import tree_files
from tests.domains.suite_world import run_setup, suite_state


@pytest.fixture(scope="module")
def state() -> State:
    return suite_state()


def test_the_invoice_module_states_its_cap_in_dollars_and_its_rates_as_percents(state: State) -> None:
    ns = load_namespace(tree_files(state)[INVOICE_PATH])
    want = {dollars(ns["LATE_FEE_CAP_CENTS"]), dollars(ns["TAX_RATE_BP"]), dollars(ns["LATE_FEE_BP"]),
            dollars(ns["BULK_DISCOUNT_BP"])}
    assert set(code_figures(ns)) == want  # days and quantities are no money


def test_the_price_list_states_every_tier_price_and_the_enterprise_price(state: State) -> None:
    ns = load_namespace(tree_files(state)[PRICING_PATH])
    prices = {dollars(cents) for _, cents in ns["TIERS"]} | {dollars(ns["ENTERPRISE_SEAT_CENTS"])}
    assert set(code_figures(ns)) == prices | {dollars(ns["ANNUAL_DISCOUNT_BP"])}
    assert "12.34" in code_figures(ns, 1234)  # a figure the setup computed from the code


def test_code_figures_ignore_what_is_no_int() -> None:
    assert code_figures({"X_CENTS": "25", "FLAG_BP": True, "TIERS": ((5, 4900), "junk"), "lower_cents": 7}) == ["49.00"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_code_setups_bind_the_figures_the_code_states(state: State, seed: int) -> None:
    for rules in (1, 2, 3):
        fee = run_setup(code_late_fee, state, seed, {"rules": rules}).bindings["code_fee"]
        assert {fee["cap"], fee["period_fee"]} <= set(fee["figures"])
        assert fee["per_period"] not in fee["figures"]  # a misreading (the cap ignored) is no figure of the code
    quote = run_setup(code_quote, state, seed, {"rules": 2}).bindings["code_quote"]
    assert quote["seat_price"] in quote["figures"] and quote["amount"] not in quote["figures"]
    p = run_setup(code_downgrade, state, seed, {"rules": 2}).bindings["proration"]
    assert {p["old_seat_price"], p["new_seat_price"]} <= set(p["figures"])
    assert p["old_seat_price"] != p["new_seat_price"]  # rules 2: the new count is in another tier
