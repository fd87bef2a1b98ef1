"""The refactor checks judge where names point (AST), not which words the text contains."""

from __future__ import annotations

import random
import re

import pytest

from saas_sim.domains.ide import checks_refactor as cr
from saas_sim.domains.ide.setups_refactor import Staged, build_move, build_rename


def _at(staged: Staged, which: str, key: str) -> str:
    spec = staged.task.details[which]
    assert isinstance(spec, dict)
    return str(spec[key])


def _rename(staged: Staged, only_package: bool = True) -> dict[str, str]:
    old, new = _at(staged, "old", "name"), _at(staged, "new", "name")
    return {p: (re.sub(rf"\b{old}\b", new, t) if p.startswith("acme/subscriptions") or not only_package else t)
            for p, t in staged.files.items()}


def _move(staged: Staged) -> dict[str, str]:
    name = _at(staged, "old", "name")
    src, dst = _at(staged, "old", "module"), _at(staged, "new", "module")
    src_mod, dst_mod = src[:-3].rsplit("/", 1)[1], dst[:-3].rsplit("/", 1)[1]
    files = dict(staged.files)
    text = files[src]
    start = text.index(f"def {name}(")
    end = text.index("\n\n\ndef ", start)
    files[dst] = '"""Moved here."""\n\n\n' + text[start:end] + "\n"
    files[src] = text[:start] + text[end + 3:]
    for path, t in list(files.items()):
        if path.startswith("acme/subscriptions/") and path not in (src, dst):
            t = t.replace(f".{src_mod} import {name}", f".{dst_mod} import {name}")
            t = t.replace(f"import {src_mod}\n", f"import {dst_mod}\n")
            t = t.replace(f"{src_mod}.{name}(", f"{dst_mod}.{name}(")
            files[path] = t
    return files


def _scores(staged: Staged, final: dict[str, str]) -> tuple[float, float, float, float]:
    d, base = staged.task.details, staged.files
    return (cr.old_name_gone(final, d)[0], cr.new_name_defined(base, final, d)[0],
            cr.call_sites_updated(final, d)[0], cr.unrelated_kept(base, final, d)[0])


@pytest.mark.parametrize("seed", range(8))
def test_a_scoped_rename_passes_every_predicate(seed: int) -> None:
    staged = build_rename(random.Random(seed))
    assert _scores(staged, _rename(staged)) == (1.0, 1.0, 1.0, 1.0)


@pytest.mark.parametrize("seed", range(8))
def test_the_untouched_base_fails_old_name_and_call_sites(seed: int) -> None:
    staged = build_rename(random.Random(seed))
    gone, _, sites, kept = _scores(staged, staged.files)
    assert (gone, sites, kept) == (0.0, 0.0, 1.0)


def test_a_blind_search_and_replace_breaks_the_unrelated_namesake() -> None:
    staged = build_rename(random.Random(1))
    score, detail = cr.unrelated_kept(staged.files, _rename(staged, only_package=False), staged.task.details)
    assert score == 0.0 and "usage_digest" in detail


def test_an_alias_left_behind_keeps_the_old_name_alive() -> None:
    staged = build_rename(random.Random(2))
    final = _rename(staged)
    d = staged.task.details
    old, new, path = _at(staged, "old", "name"), _at(staged, "new", "name"), _at(staged, "old", "module")
    final[path] += f"\n{old} = {new}  # backwards compatibility\n"
    assert cr.old_name_gone(final, d)[0] == 0.0


def test_a_missed_call_site_costs_its_share() -> None:
    staged = build_rename(random.Random(4))
    final = _rename(staged)
    d = staged.task.details
    sites = d["call_sites"]
    assert isinstance(sites, list)
    first = sites[0]
    assert isinstance(first, dict)
    final[str(first["path"])] = staged.files[str(first["path"])]
    score, detail = cr.call_sites_updated(final, d)
    assert score == pytest.approx((len(sites) - 1) / len(sites))
    assert str(first["function"]) in detail


def test_a_changed_body_is_not_a_refactor() -> None:
    staged = build_rename(random.Random(5))
    final = _rename(staged)
    path = _at(staged, "old", "module")
    new = _at(staged, "new", "name")
    text = final[path]
    at = text.index('"""\n', text.index(f"def {new}(")) + 4
    final[path] = text[:at] + "    print('side effect')\n" + text[at:]
    assert cr.new_name_defined(staged.files, final, staged.task.details)[0] == 0.0


def test_a_docstring_naming_the_old_function_is_harmless() -> None:
    staged = build_rename(random.Random(6))
    final = _rename(staged)
    old = _at(staged, "old", "name")
    path = _at(staged, "old", "module")
    final[path] = f'"""Formerly known as {old}."""\n' + final[path]
    assert cr.old_name_gone(final, staged.task.details)[0] == 1.0


@pytest.mark.parametrize("seed", range(8))
def test_a_clean_move_passes_and_a_reexport_shim_does_not(seed: int) -> None:
    staged = build_move(random.Random(seed))
    final = _move(staged)
    assert _scores(staged, final) == (1.0, 1.0, 1.0, 1.0)
    d = staged.task.details
    name, src = _at(staged, "old", "name"), _at(staged, "old", "module")
    dst_mod = _at(staged, "new", "module")[:-3].replace("/", ".")
    final[src] += f"\nfrom {dst_mod} import {name}  # noqa: F401\n"
    assert cr.old_name_gone(final, d)[0] == 0.0


@pytest.mark.parametrize("shim", [
    "\nfrom {dst} import *  # noqa: F403\n",
    "\nfrom acme.subscriptions.compat import *  # noqa: F403\n",
    "\n\ndef __getattr__(attr):\n    from {dst} import {name} as moved\n    return moved\n",
])
@pytest.mark.parametrize("seed", range(4))
def test_a_star_import_or_module_getattr_that_hands_out_the_moved_name_is_a_reexport(seed: int, shim: str) -> None:
    staged = build_move(random.Random(seed))
    final = _move(staged)
    name, src = _at(staged, "old", "name"), _at(staged, "old", "module")
    dst = _at(staged, "new", "module")[:-3].replace("/", ".")
    final["acme/subscriptions/compat.py"] = f"from {dst} import *  # noqa: F403\n"
    final[src] += shim.format(dst=dst, name=name)
    gone, detail = cr.old_name_gone(final, staged.task.details)
    assert gone == 0.0 and ("re-exports" in detail or "__getattr__" in detail)


def test_a_star_import_of_a_module_without_the_name_is_no_reexport() -> None:
    staged = build_move(random.Random(1))
    final = _move(staged)
    src = _at(staged, "old", "module")
    final["acme/subscriptions/consts.py"] = "LIMIT = 3\n"
    final[src] += "\nfrom acme.subscriptions.consts import *  # noqa: F403\nfrom math import *  # noqa: F403\n"
    assert cr.old_name_gone(final, staged.task.details)[0] == 1.0


def test_a_long_chain_of_star_imports_is_followed_without_recursion() -> None:
    staged = build_move(random.Random(2))
    final = _move(staged)
    name, src = _at(staged, "old", "name"), _at(staged, "old", "module")
    dst = _at(staged, "new", "module")[:-3].replace("/", ".")
    n = 1500
    final.update({f"acme/chain/m{k}.py": f"from acme.chain.m{k + 1} import *  # noqa: F403\n" for k in range(n)})
    final[f"acme/chain/m{n}.py"] = f"from {dst} import *  # noqa: F403\n"
    final[src] += "\nfrom acme.chain.m0 import *  # noqa: F403\n"
    gone, detail = cr.old_name_gone(final, staged.task.details)
    assert gone == 0.0 and f"from {dst} import *" in detail and name in detail


def test_references_resolve_relative_imports_and_module_attributes() -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/a.py": "def f():\n    return 1\n",
        "pkg/b.py": "from . import a\nfrom .a import f as g\n\ndef h():\n    return a.f() + g()\n",
        "pkg/c.py": "import pkg.a\n\ndef k():\n    return pkg.a.f()\n",
        "other/a.py": "def f():\n    return 2\n",
    }
    index = cr.CodeIndex(files)
    refs = cr.references(index, cr.Target("pkg.a", "f"))
    assert refs == [("pkg/b.py", 2), ("pkg/b.py", 5), ("pkg/c.py", 4)]
    assert cr.call_count(index, "pkg/b.py", "h", cr.Target("pkg.a", "f")) == 2


def test_an_unparsable_file_is_listed_not_raised() -> None:
    index = cr.CodeIndex({"a.py": "def (:\n", "b.py": "x = 1\n"})
    assert index.unparsed == ["a.py"] and "b" in index.modules


@pytest.mark.parametrize("seed", range(6))
def test_the_builders_oracle_texts_pass_every_predicate(seed: int) -> None:
    for staged in (build_rename(random.Random(seed)), build_move(random.Random(seed), callers=3)):
        final = {**staged.files, **staged.oracle}
        assert _scores(staged, final) == (1.0, 1.0, 1.0, 1.0)
