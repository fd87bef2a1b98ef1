"""The scenario loader: bad files name their path and field, ids resolve, templates keep types."""

from __future__ import annotations

from pathlib import Path

import pytest

from saas_sim.errors import ScenarioFileError, ScenarioNotFoundError
from saas_sim.scenarios.templating import render
from tests.runtime.conftest import GOOD_SCENARIO, env_with_scenario, notes_env


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
        env_with_scenario(tmp_path, GOOD_SCENARIO.replace(old, new, 1))
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


def test_a_scenario_without_a_scope_is_refused(tmp_path: Path) -> None:
    lines = [line for line in GOOD_SCENARIO.splitlines(keepends=True) if not line.startswith("scope:")]
    with pytest.raises(ScenarioFileError) as info:
        env_with_scenario(tmp_path, "".join(lines))
    assert "'scope'" in str(info.value) and "required" in str(info.value).lower()


def test_every_built_in_scenario_names_the_skill_it_teaches() -> None:
    from saas_sim.scenarios.loader import load_scenario_file

    root = Path(__file__).resolve().parents[2] / "scenarios"
    files = sorted(root.glob("*/*.yaml"))
    assert len(files) >= 40
    missing = [str(f.relative_to(root)) for f in files if load_scenario_file(f).skill is None]
    assert not missing, f"scenarios without a `skill:` group: {missing}"
