"""Config checks compare meanings: resolved imports, registered markers, PEP 440 versions."""

from __future__ import annotations

import random
import re

from packaging.version import Version

from saas_sim.domains.ide.checks_config import (
    import_problems,
    marker_verdict,
    parse_pins,
    pin_problems,
    pytest_options_kept,
)
from saas_sim.domains.ide.setups_config import build_markers, build_pin, build_stale_import


def _fix_imports(files: dict[str, str], paths: list[str], old: str, new: str) -> dict[str, str]:
    old_leaf, new_leaf = old.rsplit(".", 1)[1], new.rsplit(".", 1)[1]
    out = dict(files)
    for p in paths:
        t = out[p].replace(f"from {old} import", f"from {new} import")
        t = t.replace(f"from acme.payouts import {old_leaf}\n", f"from acme.payouts.rules import {new_leaf}\n")
        t = t.replace(f"{old_leaf}.hold", f"{new_leaf}.hold").replace(f"from .{old_leaf} import",
                                                                      f"from .rules.{new_leaf} import")
        out[p] = t
    return out


def test_stale_imports_are_found_and_fixed_ones_are_not() -> None:
    for seed in range(10):
        staged = build_stale_import(random.Random(seed))
        d = staged.task.details
        paths = [str(p) for p in d["paths"]]  # type: ignore[union-attr]
        old, new = str(d["old_module"]), str(d["new_module"])
        assert all(import_problems(staged.files, p, old) for p in paths)
        fixed = _fix_imports(staged.files, paths, old, new)
        assert all(import_problems(fixed, p, old) == [] for p in paths)


def test_a_shim_at_the_old_path_still_counts_as_the_old_import() -> None:
    staged = build_stale_import(random.Random(3))
    old, new = str(staged.task.details["old_module"]), str(staged.task.details["new_module"])
    shim = {**staged.files, old.replace(".", "/") + ".py": f"from {new} import *  # noqa\n"}
    path = str(staged.task.details["paths"][0])  # type: ignore[index]
    assert any("still imports" in p for p in import_problems(shim, path, old))


def test_an_import_of_a_missing_name_is_a_problem() -> None:
    files = {"acme/__init__.py": "", "acme/a.py": "X = 1\n", "acme/b.py": "from acme.a import Y\nfrom . import a\n"}
    assert import_problems(files, "acme/b.py", "acme.old") == ["line 1: acme.a has no Y"]


def test_markers_count_when_registered_in_any_order_or_as_an_ini_string() -> None:
    staged = build_markers(random.Random(4), None)
    missing = [str(m) for m in staged.task.details["missing"]]  # type: ignore[union-attr]
    cfg = staged.files["pyproject.toml"]
    assert marker_verdict(staged.files, "pyproject.toml", missing)[0] == 0.0
    added = "".join(f'    "{m}: added",\n' for m in reversed(missing))
    fixed = {"pyproject.toml": cfg.replace("markers = [\n", "markers = [\n" + added)}
    assert marker_verdict(fixed, "pyproject.toml", missing)[0] == 1.0
    assert pytest_options_kept(staged.files, fixed, "pyproject.toml")[0] == 1.0


def test_dropping_strict_markers_or_other_options_is_caught() -> None:
    staged = build_markers(random.Random(5), None)
    cfg = staged.files["pyproject.toml"]
    loose = {"pyproject.toml": cfg.replace("-q --strict-markers", "-q")}
    assert pytest_options_kept(staged.files, loose, "pyproject.toml")[0] == 0.0
    other = {"pyproject.toml": cfg.replace('testpaths = ["tests"]', 'testpaths = ["tests", "acme"]')}
    assert pytest_options_kept(staged.files, other, "pyproject.toml")[0] == 0.0
    broken = {"pyproject.toml": cfg + "[[[\n"}
    assert marker_verdict(broken, "pyproject.toml", ["slow"])[0] == 0.0


def test_the_staged_pin_fails_and_the_answer_resolves() -> None:
    for seed in range(10):
        staged = build_pin(random.Random(seed))
        d = staged.task.details
        req, index = staged.files["requirements.txt"], staged.files["wheelhouse/INDEX.txt"]
        assert pin_problems(req, index)
        pkg, answer = str(d["package"]), str(d["answer"])
        lines = [ln if not ln.startswith(f"{pkg}==") else f"{pkg}=={answer}" for ln in req.splitlines()]
        assert pin_problems("\n".join(lines), index) == []


def test_pins_compare_as_versions_and_loose_specifiers_are_not_pins() -> None:
    pins, bad = parse_pins("Acme_Money==1.10.3.0\nacme-flags>=1.0\n# comment\n\nacme-http==2.*\n")
    assert pins["acme-money"] == Version("1.10.3")
    assert bad == ["acme-flags>=1.0", "acme-http==2.*"]


def test_unregistering_a_marker_the_tests_use_is_caught_even_as_a_rename() -> None:
    from saas_sim.domains.ide.checks_config import _pytest_options, _registered, _used_markers

    staged = build_markers(random.Random(6), None)
    cfg = staged.files["pyproject.toml"]
    kept = sorted(_registered(_pytest_options(cfg) or {}) & _used_markers(staged.files))
    assert kept, "the staged project registers markers its tests use"
    renamed = re.sub(rf'"{re.escape(kept[0])}(?=[:"])', f'"{kept[0]}x', cfg, count=1)
    assert renamed != cfg
    missing = [str(m) for m in staged.task.details["missing"]]  # type: ignore[union-attr]
    added = "".join(f'    "{m}: added",\n' for m in missing)
    fixed_but_renamed = {"pyproject.toml": renamed.replace("markers = [\n", "markers = [\n" + added)}
    score, detail = pytest_options_kept(staged.files, fixed_but_renamed, "pyproject.toml")
    assert score == 0.0 and kept[0] in detail
