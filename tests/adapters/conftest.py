"""Fixtures for the adapters: the notes test domain served in-process, always closed afterwards."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
from fastapi import FastAPI

from saas_sim.adapters.http import create_app
from saas_sim.runtime.environment import Environment
from tests.runtime.conftest import FIXTURES, notes_env

SCENARIO = "notes/archive-and-follow-up"


def broken_env() -> Environment:
    """The notes domain plus the scenario whose `notes.explode` tool is a harness bug."""
    from tests.runtime.notes_domain import DOMAIN

    return Environment("sqlite+aiosqlite:///:memory:", scenario_dirs=[FIXTURES / "broken"],
                       seeds_dirs=[FIXTURES / "seeds"], domains=[DOMAIN], builtin=False)


@asynccontextmanager
async def serve(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """Runs the app's lifespan and yields a client talking to it in-process (no sockets)."""
    async with app.router.lifespan_context(app), httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://saas-sim.test"
    ) as client:
        yield client


@pytest.fixture
async def env() -> AsyncIterator[Environment]:
    async with notes_env() as e:
        yield e


@pytest.fixture
async def client(env: Environment) -> AsyncIterator[httpx.AsyncClient]:
    async with serve(create_app(env)) as c:
        yield c
