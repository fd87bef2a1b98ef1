"""Fixtures for the support desk: the support-default world (seed 0) and a tool caller."""

from __future__ import annotations

import functools
import random
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from saas_sim.core.state import State
from saas_sim.core.tools import ToolContext
from saas_sim.domains.support import DOMAIN
from saas_sim.domains.support.state import PROJECTION
from saas_sim.domains.support.tools import TOOLS, tool_by_name
from saas_sim.runtime.toolkit import Toolkit
from saas_sim.runtime.world import World, build_world, load_profiles

SEEDS = Path(__file__).resolve().parents[3] / "seeds"
TOOLKIT = Toolkit(TOOLS, ["support.*"])


@functools.cache
def support_world(seed: int = 0) -> World:
    """Builds (once per process) the support-default world for `seed`."""
    profile = load_profiles([SEEDS])["support-default"]
    return build_world(profile, seed, {"support": DOMAIN})


class Desk:
    """A support world state plus a way to call tools on it, as the runtime would."""

    def __init__(self, state: State, now: datetime) -> None:
        self.state = state
        self.now = now

    def call(self, tool: str, /, **args: Any) -> Any:
        """Validates `args` like the runtime, runs the tool and keeps the new state."""
        spec = tool_by_name(tool)
        parsed = TOOLKIT.parse_args(spec, args)
        ctx = ToolContext(self.state, self.now, PROJECTION, random.Random(0), spec.kind)
        result: BaseModel = spec.handler(ctx, parsed)
        assert isinstance(result, spec.result_model)
        self.state = ctx.state
        return result


@pytest.fixture
def world() -> World:
    return support_world(0)


@pytest.fixture
def desk(world: World) -> Desk:
    return Desk(world.state, world.profile.epoch)
