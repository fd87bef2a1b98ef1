"""ide.code_downgrade binds the refund the pricing code gives a mid-term seat downgrade, and misreadings that differ."""

from __future__ import annotations

import pytest

from saas_sim.core.state import State
from saas_sim.domains.ide.gen_reference import load_namespace
from saas_sim.domains.ide.setups_suite_billing import PRICING_PATH, dollars
from saas_sim.domains.ide.setups_suite_proration import code_downgrade
from saas_sim.domains.ide.workspace import tree_files
from saas_sim.errors import ScenarioError
from tests.domains.suite_world import run_setup, suite_state


@pytest.fixture(scope="module")
def state() -> State:
    return suite_state()


@pytest.mark.parametrize("rules", [1, 2, 3])
def test_the_refund_is_the_remaining_months_at_old_minus_new_seats(state: State, rules: int) -> None:
    ns = load_namespace(tree_files(state)[PRICING_PATH])
    for seed in range(4):
        out = run_setup(code_downgrade, state, seed, {"rules": rules})
        assert out.events == []  # the code is right: nothing is staged in the tree
        p = out.bindings["proration"]
        left = p["term"] - p["elapsed"]
        assert p["remaining"] == left and 0 < left < 12
        cents = ns["quote"](p["old_seats"], left) - ns["quote"](p["new_seats"], left)
        assert p["refund_cents"] == cents and p["refund"] == dollars(cents)
        assert 25_000 <= cents <= 100_000  # needs a lead's approval, which a lead grants
        paid = ns["quote"](p["old_seats"], p["term"])
        assert p["paid"] == dollars(paid) and p["new_value"] == dollars(paid - cents)
        assert p["refund"] not in {p["guess"], p["dropped_alone"], p["elapsed_refund"]}


def test_the_rules_level_decides_whether_the_new_seats_change_tier(state: State) -> None:
    ns = load_namespace(tree_files(state)[PRICING_PATH])
    for rules, same in ((1, True), (2, False), (3, False)):
        for seed in range(3):
            p = run_setup(code_downgrade, state, seed, {"rules": rules}).bindings["proration"]
            assert (ns["seat_price"](p["old_seats"]) == ns["seat_price"](p["new_seats"])) is same


def test_the_customers_estimate_ignores_the_tiers(state: State) -> None:
    p = run_setup(code_downgrade, state, 1, {"rules": 2}).bindings["proration"]
    per_seat_month = float(p["paid"]) / (p["old_seats"] * p["term"])
    drop = p["old_seats"] - p["new_seats"]
    assert abs(float(p["guess"]) - per_seat_month * drop * p["remaining"]) < 0.01


def test_the_seed_moves_the_contract(state: State) -> None:
    plans = {tuple(run_setup(code_downgrade, state, s, {}).bindings["proration"][k]
                   for k in ("old_seats", "new_seats", "term", "elapsed")) for s in range(6)}
    assert len(plans) > 3


def test_an_unknown_rules_level_is_refused(state: State) -> None:
    with pytest.raises(ScenarioError):
        run_setup(code_downgrade, state, 0, {"rules": 4})
