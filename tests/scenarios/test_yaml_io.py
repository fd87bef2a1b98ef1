"""The fast YAML loader builds the very data the pure-Python one does, on every file the project ships."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from saas_sim.scenarios.yaml_io import LOADER, safe_load

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted([*ROOT.glob("scenarios/**/*.yaml"), *ROOT.glob("seeds/*.yaml")])


def test_every_scenario_and_profile_file_is_found() -> None:
    assert len(SHIPPED) > 40


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_loader_reads_each_shipped_file_as_the_pure_python_parser_does(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert safe_load(text) == yaml.load(text, Loader=yaml.SafeLoader)


def test_the_loader_is_a_safe_one() -> None:
    assert issubclass(LOADER, yaml.constructor.SafeConstructor)
    with pytest.raises(yaml.YAMLError):
        safe_load("!!python/object/apply:os.system ['true']")
