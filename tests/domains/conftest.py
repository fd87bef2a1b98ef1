"""Fixtures every domain's tests share."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from saas_sim.runtime.environment import Environment


@pytest.fixture
async def env() -> AsyncIterator[Environment]:
    """An environment on an in-memory SQLite store, closed after the test."""
    async with Environment("sqlite+aiosqlite:///:memory:") as e:
        yield e
