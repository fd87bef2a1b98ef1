"""The suite-small world (seed 0) and a setup runner, for the cross-app setups' tests."""

from __future__ import annotations

import functools
import random
from datetime import UTC, datetime
from typing import Any

from saas_sim.core.domain import Setup, SetupContext
from saas_sim.core.ids import IdFactory
from saas_sim.core.state import State
from saas_sim.runtime.world import build_world, load_profiles
from tests.domains.helpers import ROOT

EPOCH = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
"""The suite profiles' epoch: where setups start."""


@functools.cache
def suite_state() -> State:
    """Builds (once per process) the suite-small world of seed 0 with every built-in domain."""
    from saas_sim.domains import builtin_domains

    return build_world(load_profiles([ROOT / "seeds"])["suite-small"], 0, dict(builtin_domains())).state


def run_setup(fn: Any, state: State, seed: int, params: dict[str, Any]) -> Setup:
    """Runs one setup function on `state` with a seeded rng at `EPOCH`."""
    ids = IdFactory(state.counters())
    out: Setup = fn(SetupContext(state=state, params=params, rng=random.Random(seed), now=EPOCH, ids=ids))
    return out
