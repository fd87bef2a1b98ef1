"""Fixtures for CRM tests: one generated smb world (seed 0), and helpers to call tools on it."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from saas_sim.core.state import State
from saas_sim.core.tools import ToolContext, ToolSpec
from saas_sim.domains.crm import DOMAIN
from saas_sim.domains.crm.state import PROJECTION
from saas_sim.errors import ToolError
from saas_sim.runtime.world import build_world, load_profiles

ROOT = Path(__file__).resolve().parents[3]
EPOCH = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SPECS: dict[str, ToolSpec] = {t.name: t for t in DOMAIN.tools}


def smb_world(seed: int = 0) -> State:
    """Builds the crm-smb world exactly as the runtime does."""
    profile = load_profiles([ROOT / "seeds"])["crm-smb"]
    return build_world(profile, seed, {"crm": DOMAIN}).state


@pytest.fixture(scope="session")
def world() -> State:
    return smb_world(0)


class Caller:
    """Calls tools on a state, keeping the state each WRITE produces."""

    def __init__(self, state: State, now: datetime = EPOCH) -> None:
        self.state = state
        self.now = now
        self.events: list[Any] = []

    def __call__(self, tool: str, /, **args: Any) -> Any:
        spec = SPECS[tool]
        ctx = ToolContext(self.state, self.now, PROJECTION, random.Random(0), spec.kind)
        result: BaseModel = spec.handler(ctx, spec.args_model.model_validate(args))
        assert isinstance(result, spec.result_model)
        self.state = ctx.state
        self.events += ctx.events
        return result

    def error(self, tool: str, /, **args: Any) -> ToolError:
        before = self.state
        with pytest.raises(ToolError) as info:
            self(tool, **args)
        assert self.state is before
        return info.value


@pytest.fixture
def crm(world: State) -> Caller:
    return Caller(world)


Finder = Callable[..., Any]
