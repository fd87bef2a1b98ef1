from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from saas_sim.runtime.environment import Environment
from tests.runtime.notes_domain import DOMAIN

FIXTURES = Path(__file__).parent / "fixtures"
GOOD_SCENARIO = (FIXTURES / "scenarios" / "notes" / "archive-and-follow-up.yaml").read_text()


def env_with_scenario(tmp_path: Path, text: str) -> Environment:
    """Returns an environment whose only scenario file (`notes/x.yaml`) holds `text`."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "x.yaml").write_text(text)
    return Environment("sqlite+aiosqlite:///:memory:", scenario_dirs=[tmp_path], seeds_dirs=[FIXTURES / "seeds"],
                       domains=[DOMAIN], builtin=False)


def notes_env(url: str = "sqlite+aiosqlite:///:memory:", **options: Any) -> Environment:
    return Environment(
        url, scenario_dirs=[FIXTURES / "scenarios"], seeds_dirs=[FIXTURES / "seeds"], domains=[DOMAIN], builtin=False,
        **options,
    )


@pytest.fixture
async def env() -> AsyncIterator[Environment]:
    async with notes_env() as e:
        yield e
