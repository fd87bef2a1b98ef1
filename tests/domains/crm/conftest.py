"""Fixtures for CRM tests: one generated smb world (seed 0), and helpers to call tools on it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import BaseModel

from saas_sim.core.state import State
from saas_sim.core.tools import ToolSpec
from saas_sim.domains.crm import DOMAIN
from saas_sim.domains.crm.state import PROJECTION
from tests.domains.helpers import ToolRunner, seed_world

EPOCH = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SPECS: dict[str, ToolSpec] = {t.name: t for t in DOMAIN.tools}


def smb_world(seed: int = 0) -> State:
    """Builds the crm-smb world exactly as the runtime does."""
    return seed_world("crm-smb", seed, DOMAIN).state


@pytest.fixture(scope="session")
def world() -> State:
    return smb_world(0)


class Caller(ToolRunner):
    """Calls CRM tools on a state (`crm("crm.get_deal", deal_id=...)`), keeping the state each WRITE produces."""

    def __init__(self, state: State, now: datetime = EPOCH) -> None:
        super().__init__(state, now, PROJECTION)

    def parse(self, tool: str, args: dict[str, Any]) -> tuple[ToolSpec, BaseModel]:
        spec = SPECS[tool]
        return spec, spec.args_model.model_validate(args)

    def __call__(self, tool: str, /, **args: Any) -> Any:
        return self.call(tool, **args)


@pytest.fixture
def crm(world: State) -> Caller:
    return Caller(world)


Finder = Callable[..., Any]
