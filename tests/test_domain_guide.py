"""docs/adding-a-domain.md is what the domains do: the test domain follows it in order, real domains by module."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from saas_sim.domains import BUILTIN_DOMAIN_MODULES

ROOT = Path(__file__).resolve().parents[1]
GUIDE = (ROOT / "docs" / "adding-a-domain.md").read_text(encoding="utf-8")
NOTES = (ROOT / "tests" / "runtime" / "notes_domain.py").read_text(encoding="utf-8")

ROLE_MODULES = ("kit.py", "models.py", "events.py", "state.py", "generate.py", "policy.py", "data_report.py")
ROLE_PREFIXES = ("tools_", "views_", "checks_", "setups_")


def _guide_steps() -> list[str]:
    return re.findall(r"^## (\d+)\. ", GUIDE, flags=re.M)


def test_the_test_domain_has_the_guides_sections_in_its_order() -> None:
    steps = _guide_steps()
    assert steps == [str(i) for i in range(1, 11)]
    sections = re.findall(r"^# (\d+)\. ", NOTES, flags=re.M)
    assert sections == steps


def test_the_guide_names_every_module_role_it_asks_for() -> None:
    for role in (*ROLE_MODULES, *(f"{p}<" for p in ROLE_PREFIXES)):
        assert f"`{role}" in GUIDE, role


@pytest.mark.parametrize("module", BUILTIN_DOMAIN_MODULES)
def test_every_builtin_domain_has_the_guides_module_roles(module: str) -> None:
    folder = ROOT / Path(*module.split("."))
    names = {p.name for p in folder.glob("*.py")}
    missing = [m for m in ROLE_MODULES if m not in names]
    missing += [f"{p}*" for p in ROLE_PREFIXES if not any(n.startswith(p) for n in names)]
    assert not missing, f"{module} lacks {missing}"
    vague = sorted(names & {"text.py", "compose.py", "outcomes.py", "views.py", "catalog.py", "toolkit.py",
                            "common.py", "utils.py", "helpers.py"})
    assert not vague, f"{module}: module names that do not say what they hold: {vague}"
