"""The cross-app billing setups bind what the company's code computes, and misreadings that differ from it."""

from __future__ import annotations

import random
from typing import Any

import pytest

from saas_sim.core.domain import SetupContext
from saas_sim.core.ids import IdFactory
from saas_sim.core.state import State
from saas_sim.domains.ide.gen_reference import load_namespace
from saas_sim.domains.ide.setups_suite_billing import INVOICE_PATH, PRICING_PATH, code_late_fee, code_quote, dollars
from saas_sim.domains.ide.workspace import tree_files
from saas_sim.errors import ScenarioError
from tests.domains.ide.tasks import NOW, world


def _bind(fn: Any, state: State, seed: int, **params: Any) -> dict[str, Any]:
    out = fn(SetupContext(state=state, params=params, rng=random.Random(seed), now=NOW, ids=IdFactory()))
    assert out.events == []  # the code is right: nothing is staged in the tree
    return dict(out.bindings)


@pytest.fixture(scope="module")
def state() -> State:
    return world(3)


def test_dollars_writes_cents_as_a_plain_amount() -> None:
    assert [dollars(c) for c in (0, 5, 123456, -250)] == ["0.00", "0.05", "1234.56", "-2.50"]


@pytest.mark.parametrize("rules", [1, 2, 3])
def test_code_quote_binds_what_the_pricing_code_returns(state: State, rules: int) -> None:
    ns = load_namespace(tree_files(state)[PRICING_PATH])
    for seed in range(6):
        q = _bind(code_quote, state, seed, rules=rules)["code_quote"]
        assert q["cents"] == ns["quote"](q["seats"], q["months"])
        assert q["amount"] == dollars(q["cents"])
        figures = {q["amount"], q["no_discount"], q["first_tier"], q["last_year"]}
        assert len(figures) == 4, q


def test_code_quote_rules_move_the_term_and_the_tier_limit(state: State) -> None:
    limits = [limit for limit, _ in load_namespace(tree_files(state)[PRICING_PATH])["TIERS"]]
    short = [_bind(code_quote, state, s, rules=1)["code_quote"] for s in range(5)]
    edge = [_bind(code_quote, state, s, rules=3)["code_quote"] for s in range(5)]
    assert all(q["months"] < 12 for q in short)
    assert all(q["months"] == 12 and any(q["seats"] in (lim, lim + 1) for lim in limits) for q in edge)
    assert len({(q["seats"], q["months"]) for q in short}) > 1  # the seed moves the plan


def test_code_quote_refuses_an_unknown_rules_level(state: State) -> None:
    with pytest.raises(ScenarioError):
        _bind(code_quote, state, 0, rules=4)


def test_code_quote_needs_the_company_code_base() -> None:
    with pytest.raises(ScenarioError, match="code base"):
        _bind(code_quote, State(), 0)


@pytest.mark.parametrize("rules", [1, 2, 3])
def test_code_late_fee_binds_the_fee_the_billing_rules_allow(state: State, rules: int) -> None:
    ns = load_namespace(tree_files(state)[INVOICE_PATH])
    for seed in range(6):
        f = _bind(code_late_fee, state, seed, rules=rules)["code_fee"]
        assert f["cents"] == ns["late_fee"](f["balance_cents"], f["days_late"]) > 0
        assert f["days_late"] > ns["GRACE_DAYS"]
        capped = f["cents"] == ns["LATE_FEE_CAP_CENTS"]
        assert capped == (rules == 3)
        # What finance charged by hand is above the due fee, by less than an agent's refund limit.
        excess = float(f["per_period"]) - float(f["amount"])
        assert 0 < excess <= 200
        assert len({f["amount"], f["no_grace"], f["per_period"]}) == (2 if rules == 3 else 3)


def test_overcharging_bug_stages_a_quote_bug_that_overcharges_the_drawn_plan(state: State) -> None:
    from saas_sim.domains.ide.setups_suite_billing import overcharging_bug
    from saas_sim.domains.ide.state import PROJECTION, TASK

    clean = load_namespace(tree_files(state)[PRICING_PATH])
    for seed in range(3):
        out = overcharging_bug(SetupContext(state=state, params={"depth": 0}, rng=random.Random(seed), now=NOW,
                                            ids=IdFactory()))
        after = PROJECTION.fold(state, out.events)
        assert after.value(TASK) is not None  # the hidden tests are staged
        mutant = load_namespace(tree_files(after)[PRICING_PATH])
        bug = out.bindings["bug"]
        assert bug["charged_cents"] == mutant["quote"](bug["seats"], bug["months"])
        assert bug["correct_cents"] == clean["quote"](bug["seats"], bug["months"])
        assert 500 <= bug["charged_cents"] - bug["correct_cents"] <= 20_000
        assert bug["excess"] == dollars(bug["charged_cents"] - bug["correct_cents"])
        assert out.bindings["clean_text"] == tree_files(state)[PRICING_PATH]
