"""The outage budget: its option, its validation and its deterministic backoff."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from saas_sim.core.outage import DEFAULT_OUTAGE_BUDGET_S, OutageWindow, backoff_delays, parse_outage_budget
from saas_sim.errors import StoreUnavailableError, UsageError
from tests.conftest import StoreFactory


def test_backoff_doubles_from_fifty_milliseconds_up_to_one_second_and_repeats_exactly() -> None:
    delays = list(itertools.islice(backoff_delays(), 8))
    assert delays == [0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0]
    assert delays == list(itertools.islice(backoff_delays(), 8)), "no jitter: every run waits the same"


@pytest.mark.parametrize(("value", "seconds"), [("30", 30.0), ("0", 0.0), ("2.5", 2.5), (7, 7.0), (0.25, 0.25)])
def test_an_outage_budget_is_a_finite_number_of_seconds(value: object, seconds: float) -> None:
    assert parse_outage_budget(value) == seconds


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "soon", "", True, None, [1]])
def test_a_malformed_outage_budget_is_a_usage_error(value: object) -> None:
    with pytest.raises(UsageError, match="outage_budget_s"):
        parse_outage_budget(value)


async def test_the_budget_comes_from_the_url_and_the_keyword_overrides_it(
    tmp_path: Path, open_stores: StoreFactory
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'e.db'}"
    assert (await open_stores(url)).outage_budget_s == DEFAULT_OUTAGE_BUDGET_S == 30.0
    assert (await open_stores(url + "?outage_budget_s=4")).outage_budget_s == 4.0
    assert (await open_stores(url + "?outage_budget_s=4", outage_budget_s=0.5)).outage_budget_s == 0.5
    with pytest.raises(UsageError):
        await open_stores(url + "?outage_budget_s=-3")


async def _fail_until_it_gives_up(window: OutageWindow, cause: Exception) -> None:
    while True:
        await window.retry_after(cause)


async def test_a_window_gives_up_once_its_budget_is_spent_and_chains_the_last_failure() -> None:
    window = OutageWindow(0.2, "test op")
    cause = ConnectionResetError("gone")
    with pytest.raises(StoreUnavailableError, match=r"test op failed \d+ times") as info:
        await _fail_until_it_gives_up(window, cause)
    assert info.value.__cause__ is cause
    assert window.attempts >= 3  # 0.05 + 0.1 + the 0.05 left: the last attempt lands on the budget
