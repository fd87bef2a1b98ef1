from __future__ import annotations

from pathlib import Path

import pytest

from saas_sim.errors import ScenarioFileError, ScenarioNotFoundError
from saas_sim.runtime.environment import Environment
from saas_sim.scenarios.templating import render
from tests.runtime.conftest import FIXTURES, notes_env
from tests.runtime.notes_domain import DOMAIN

GOOD = (FIXTURES / "scenarios" / "notes" / "archive-and-follow-up.yaml").read_text()


def _env_with(tmp_path: Path, text: str) -> Environment:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "x.yaml").write_text(text)
    return Environment("sqlite+aiosqlite:///:memory:", scenario_dirs=[tmp_path], seeds_dirs=[FIXTURES / "seeds"],
                       domains=[DOMAIN], builtin=False)


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("checks:\n", "checks: []\nold_checks:\n", "checks"),
        ("world: notes-small", "world: nowhere", "world"),
        ("fn: notes.note_archived", "fn: notes.nope", "checks.0.fn"),
        ("weight: 2", "weight: -1", "checks.0.weight"),
        ("tool: notes.archive_note", "tool: notes.fly", "oracle.1.tool"),
        ("version: 1", "version: one", "version"),
    ],
)
def test_bad_scenario_file_names_path_and_field(tmp_path: Path, old: str, new: str, field: str) -> None:
    with pytest.raises(ScenarioFileError) as info:
        _env_with(tmp_path, GOOD.replace(old, new, 1))
    assert "x.yaml" in str(info.value) and repr(field) in str(info.value)


def test_scenarios_resolve_by_id_and_by_id_at_version() -> None:
    env = notes_env()
    assert env.scenario("notes/flaky-archive").ref == "notes/flaky-archive@2"
    assert env.scenario("notes/flaky-archive@2").spec.version == 2
    with pytest.raises(ScenarioNotFoundError):
        env.scenario("notes/flaky-archive@1")


def test_templates_keep_types_for_whole_values_and_interpolate_text() -> None:
    b = {"deal": {"id": "dl_000001", "n": 3, "lines": [{"sku": "A"}]}}
    assert render("{deal.n}", b) == 3
    assert render("Deal {deal.id} x{deal.n} {{literal}}", b) == "Deal dl_000001 x3 {literal}"
    assert render({"a": ["{deal.lines.0.sku}"]}, b) == {"a": ["A"]}
    with pytest.raises(Exception, match="not bound"):
        render("{deal.missing}", b)
