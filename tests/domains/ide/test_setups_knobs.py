"""The `decoys` difficulty knob: at 0 (or absent) the staged episode is today's; more adds stale attic copies."""

from __future__ import annotations

from typing import Any

import pytest

from saas_sim.core.domain import SetupFn
from saas_sim.domains.ide import setups_config, setups_flaky, setups_implement
from saas_sim.domains.ide.setup_helpers import attic_copies
from saas_sim.errors import HarnessError
from tests.domains.ide.tasks import files_of, staged

# Every setup whose scenario declares the knob, with that scenario's other params.
DECOY_SETUPS: list[tuple[SetupFn, dict[str, Any]]] = [
    (setups_config.config_stale_import, {"broken": 3}),
    (setups_flaky.flaky_order, {}),
    (setups_flaky.flaky_clock, {}),
    (setups_implement.stub_function, {"visible_examples": 2, "edge_share": 0.5}),
]
IDS = [fn.__name__ for fn, _ in DECOY_SETUPS]


@pytest.mark.parametrize(("fn", "params"), DECOY_SETUPS, ids=IDS)
def test_zero_decoys_is_the_episode_without_the_param(fn: SetupFn, params: dict[str, Any]) -> None:
    _, today, _ = staged(fn, 3, params)
    _, knob, _ = staged(fn, 3, {**params, "decoys": 0})
    assert knob.bindings == today.bindings
    assert knob.events == today.events


@pytest.mark.parametrize(("fn", "params"), DECOY_SETUPS, ids=IDS)
def test_decoys_add_stale_copies_of_the_staged_modules_and_change_nothing_else(
        fn: SetupFn, params: dict[str, Any]) -> None:
    plain, today, task = staged(fn, 3, params)
    state, hard, hard_task = staged(fn, 3, {**params, "decoys": 2})
    assert hard.bindings == today.bindings
    assert hard_task == task
    before, after = files_of(plain), files_of(state)
    added = {p: t for p, t in after.items() if p not in before}
    assert len(added) == 2
    assert all(p.startswith("attic/v") for p in added)
    # Each copy holds the text of a live module at the same path below attic/v<k>/.
    assert all(after[p.split("/", 2)[2]] == t for p, t in added.items())
    assert {p: t for p, t in after.items() if p in before} == before


def test_attic_copies_cycle_over_the_source_modules_in_path_order() -> None:
    files = {"tests/test_a.py": "t", "acme/__init__.py": "", "acme/b.py": "b", "acme/a.py": "a"}
    assert attic_copies(files, 3) == {"attic/v1/acme/a.py": "a", "attic/v1/acme/b.py": "b", "attic/v2/acme/a.py": "a"}
    assert attic_copies({"requirements.txt": "x"}, 2) == {}


def test_negative_decoys_are_refused() -> None:
    with pytest.raises(HarnessError, match="decoys"):
        staged(setups_flaky.flaky_clock, 0, {"decoys": -1})
