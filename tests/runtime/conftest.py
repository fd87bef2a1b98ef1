from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from saas_sim.runtime.environment import Environment
from tests.runtime.notes_domain import DOMAIN

FIXTURES = Path(__file__).parent / "fixtures"


def notes_env(url: str = "sqlite+aiosqlite:///:memory:") -> Environment:
    return Environment(
        url, scenario_dirs=[FIXTURES / "scenarios"], seeds_dirs=[FIXTURES / "seeds"], domains=[DOMAIN], builtin=False
    )


@pytest.fixture
async def env() -> AsyncIterator[Environment]:
    async with notes_env() as e:
        yield e
