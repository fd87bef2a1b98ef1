"""Fixtures for the support desk: the support-default world (seed 0) and a tool caller."""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any

import pytest
from pydantic import BaseModel

from saas_sim.core.state import State
from saas_sim.core.tools import ToolSpec
from saas_sim.domains.support import DOMAIN
from saas_sim.domains.support.models import Ticket
from saas_sim.domains.support.state import PROJECTION, TICKETS, TRUTHS
from saas_sim.runtime.toolkit import Toolkit
from saas_sim.runtime.world import World
from tests.domains.helpers import ToolRunner, first, seed_world

TOOLKIT = Toolkit(DOMAIN.tools, ["support.*"])
TOOLS_BY_NAME = {spec.name: spec for spec in DOMAIN.tools}


@functools.cache
def support_world(seed: int = 0) -> World:
    """Builds (once per process) the support-default world for `seed`."""
    return seed_world("support-default", seed, DOMAIN)


class Desk(ToolRunner):
    """A support world state plus a way to call tools on it, validating arguments like the runtime."""

    def __init__(self, state: State, now: datetime) -> None:
        super().__init__(state, now, PROJECTION)

    def parse(self, tool: str, args: dict[str, Any]) -> tuple[ToolSpec, BaseModel]:
        spec = TOOLS_BY_NAME[tool]
        return spec, TOOLKIT.parse_args(spec, args)


def ticket_in(desk: Desk, status: str = "new", resolution: str | None = None) -> Ticket:
    """Returns the first ticket (by id) in `status`, not merged, with ground-truth `resolution` if given."""
    def fits(t: Ticket) -> bool:
        truth = desk.state.get(TRUTHS, t.id)
        return t.status == status and t.merged_into is None and (resolution is None or (
            truth is not None and truth.resolution == resolution))

    return first(desk.state, TICKETS, fits)


@pytest.fixture
def world() -> World:
    return support_world(0)


@pytest.fixture
def desk(world: World) -> Desk:
    return Desk(world.state, world.profile.epoch)
