"""The purity constraint: a pure helper's edit may add no file-system or process access."""

from __future__ import annotations

import pytest

from saas_sim.domains.ide.checks_integrity import module_stays_pure
from saas_sim.domains.ide.purity import impure_names
from saas_sim.domains.ide.setups_security import path_traversal
from tests.domains.ide.tasks import check_ctx, edit, files_of, staged

STATE, SETUP, TASK = staged(path_traversal, 0)
B = SETUP.bindings
MODULE = B["module_path"]
TEXT = files_of(STATE)[MODULE]
CONST, VAR = B["root_const"], B["decoded_var"]


def _tail(tail: str) -> str:
    return TEXT.replace(B["buggy_tail"], tail)


IMPURE = {
    "realpath": f"    path = posixpath.realpath(posixpath.join({CONST}, {VAR}))\n"
                f"    if not path.startswith({CONST} + '/'):\n        raise ValueError(name)\n    return path\n",
    "exists_probe": f"    import os.path\n    if os.path.exists({CONST}):\n        pass\n{B['fixed_tail']}",
    "from_os_import": f"    from os.path import abspath\n    return abspath({VAR})\n",
    "pathlib_resolve": f"    import pathlib\n    return str(pathlib.Path({CONST}, {VAR}).resolve())\n",
    "open_file": f"    open({CONST})\n{B['fixed_tail']}",
}


@pytest.mark.parametrize("name", sorted(IMPURE))
def test_an_edit_that_asks_the_file_system_breaks_purity(name: str) -> None:
    outcome = module_stays_pure(check_ctx(STATE, edit(STATE, {MODULE: _tail(IMPURE[name])})), path=MODULE)
    assert outcome.score == 0.0
    assert "file-system access" in outcome.detail


def test_the_oracle_and_the_commonpath_fix_stay_pure() -> None:
    for tail in (B["fixed_tail"], B["alternative_tail"]):
        assert module_stays_pure(check_ctx(STATE, edit(STATE, {MODULE: _tail(tail)})), path=MODULE).score == 1.0


def test_a_deleted_module_is_not_pure() -> None:
    assert module_stays_pure(check_ctx(STATE, edit(STATE, {MODULE: None})), path=MODULE).score == 0.0


def test_names_the_module_held_before_are_not_findings() -> None:
    assert impure_names("import os\nos.path.exists('x')\n") == {"os", "exists"}
    before = "import os\n" + TEXT
    state = edit(STATE, {MODULE: before})
    outcome = module_stays_pure(check_ctx(state, edit(state, {MODULE: before.replace(B["buggy_tail"],
                                                                                     B["fixed_tail"])})),
                                path=MODULE)
    assert outcome.score == 1.0, outcome.detail


def test_pure_string_work_and_unparsable_text_hold_no_impure_name() -> None:
    pure = "import posixpath\nfrom urllib.parse import unquote\nposixpath.normpath(unquote('a'))\n"
    assert impure_names(pure) == set()
    assert impure_names("def broken(:\n    open('x')\n") == set()
