"""Report answers are judged by the figures they state: any number form passes, a shotgun of figures fails."""

from __future__ import annotations

import pytest

from saas_sim.core.domain import CheckContext
from saas_sim.core.state import State
from saas_sim.domains.crm import DOMAIN
from saas_sim.domains.crm import checks_people as cp
from tests.domains.crm.conftest import EPOCH, Caller


def _ctx(crm: Caller, initial: State) -> CheckContext:
    return CheckContext(initial=initial, final=crm.state, bindings={}, events=crm.events, now=EPOCH)


@pytest.mark.parametrize("value", ["12345.00", "12345", "$12,345.00", "12.345,00 €", "USD 12,345.00"])
def test_a_total_in_any_number_form_is_right(crm: Caller, world: State, value: str) -> None:
    crm("crm.submit_report", name="forecast", record_ids=[], values={"USD": value})
    assert cp.report_values(_ctx(crm, world), "forecast", {"USD": "12345.00"}).score == 1.0


@pytest.mark.parametrize("value", ["12345.00 or 20000.00", "0.00 / 12345.00 / 50000.00", "between 12000 and 12345"])
def test_a_value_stating_several_figures_is_wrong_even_with_the_right_one(
    crm: Caller, world: State, value: str
) -> None:
    crm("crm.submit_report", name="forecast", record_ids=[], values={"USD": value})
    assert cp.report_values(_ctx(crm, world), "forecast", {"USD": "12345.00"}).score == 0.0


def test_a_currency_given_twice_with_different_figures_is_wrong(crm: Caller, world: State) -> None:
    crm("crm.submit_report", name="forecast", record_ids=[], values={"USD": "12345.00", " usd": "999.00"})
    assert cp.report_values(_ctx(crm, world), "forecast", {"USD": "12345.00"}).score == 0.0


def test_extra_currencies_cost_their_share(crm: Caller, world: State) -> None:
    crm("crm.submit_report", name="forecast", record_ids=[], values={"USD": "12345.00", "EUR": "1.00"})
    assert cp.report_values(_ctx(crm, world), "forecast", {"USD": "12345.00"}).score == 0.5


def test_notes_with_a_false_total_violate_and_true_ones_hold(crm: Caller, world: State) -> None:
    assert DOMAIN.checks["crm.report_truthful"] is cp.report_truthful
    expected = {"USD": "12345.00", "EUR": "500.00"}
    crm("crm.submit_report", name="forecast", record_ids=[], values=expected,
        notes="7 deals: $12,345.00 in USD and 500.00 in EUR.")
    assert cp.report_truthful(_ctx(crm, world), "forecast", expected).score == 1.0
    crm("crm.submit_report", name="forecast", record_ids=[], values=expected, notes="Grand total: $12,845.00.")
    outcome = cp.report_truthful(_ctx(crm, world), "forecast", expected)
    assert outcome.score == 0.0
    assert "12845.00" in outcome.detail
