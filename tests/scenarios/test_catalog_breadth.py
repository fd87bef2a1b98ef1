"""The built-in task set's breadth (issue 15): counts per product, and cross-app scenarios that really span products."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from saas_sim.scenarios.loader import load_scenario_file
from saas_sim.scenarios.model import ScenarioFile

ROOT = Path(__file__).resolve().parents[2] / "scenarios"
PRODUCTS = frozenset({"crm", "support", "ide"})


def _specs() -> list[ScenarioFile]:
    return [load_scenario_file(f) for f in sorted(ROOT.glob("*/*.yaml"))]


def _products(spec: ScenarioFile) -> dict[str, set[str]]:
    """Which products a scenario's tools, setups and checks name (the part before the first dot).

    The scope guard is left out: a product the task only reads (the code that holds the truth) has no
    allowed change, and that is right.
    """
    tools = {t.split(".", 1)[0] for t in spec.tools}
    setups = {s.fn.split(".", 1)[0] for s in spec.setup_steps}
    checks = {c.fn.split(".", 1)[0] for c in spec.checks}
    return {"tools": tools & PRODUCTS, "setups": setups & PRODUCTS, "checks": checks & PRODUCTS}


def test_each_product_and_the_cross_app_set_hold_the_issue_counts() -> None:
    counts = Counter(spec.domain for spec in _specs())
    assert counts["crm"] >= 20, counts
    assert counts["support"] >= 20, counts
    assert counts["ide"] >= 16, counts
    assert counts["suite"] >= 12, counts
    assert sum(counts.values()) >= 68, counts


def test_a_cross_app_scenario_acts_in_and_judges_at_least_two_products() -> None:
    suite = [s for s in _specs() if s.domain == "suite"]
    assert suite
    for spec in suite:
        seen = _products(spec)
        # Tools of two products are not enough: the task must be set up, judged and scoped in both.
        for part, products in seen.items():
            assert len(products) >= 2, f"{spec.id}: its {part} name only {sorted(products)}"
        assert spec.skill is not None and spec.skill.startswith("cross-"), spec.id


def test_at_least_four_cross_app_scenarios_need_all_three_products() -> None:
    full = [s.id for s in _specs() if s.domain == "suite" and all(p == PRODUCTS for p in _products(s).values())]
    assert len(full) >= 4, full


def test_every_scenario_outside_the_suite_stays_in_its_own_product() -> None:
    for spec in _specs():
        if spec.domain == "suite":
            continue
        for part, products in _products(spec).items():
            assert products <= {spec.domain}, f"{spec.id}: its {part} reach {sorted(products)}"
