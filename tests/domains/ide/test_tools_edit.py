"""The WRITE tools: edit, insert, create, delete, move and undo; refusals write nothing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from saas_sim.core.state import State
from saas_sim.domains.ide.events import BlobStored, FileWritten, PathDeleted, PathMoved
from saas_sim.domains.ide.state import EDITS, FILES, PROJECTION
from saas_sim.domains.ide.tool_helpers import check_python
from saas_sim.domains.ide.workspace import MAX_FILE_BYTES, MAX_TREE_FILES, file_text, tree_files, tree_hash
from saas_sim.errors import ToolError
from tests.domains.ide.tree_fixtures import SMALL_PROJECT, IdeRunner, world

MONEY = "acme/utils/money.py"


def test_edit_file_replaces_a_unique_match_and_shows_a_snippet() -> None:
    runner = IdeRunner()
    got = runner.call("ide.edit_file", path=MONEY, old_str="round(value, 2)", new_str="round(value, 4)")
    assert file_text(runner.state, MONEY) == SMALL_PROJECT[MONEY].replace("2)", "4)")
    assert got.changed_files == [MONEY]
    assert got.replacements == 1
    assert "     3\t    return round(value, 4)\n" in got.snippet
    assert [type(e) for e in runner.events] == [BlobStored, FileWritten]


def test_edit_file_refuses_an_ambiguous_match_naming_its_lines_unless_replace_all() -> None:
    runner = IdeRunner(world({"a.py": "x = 1\ny = 1\nz = 1\n"}))
    err = runner.error("ide.edit_file", path="a.py", old_str="= 1", new_str="= 2")
    assert err.details == {"fields": ["old_str"], "occurrences": 3, "lines": [1, 2, 3]}
    got = runner.call("ide.edit_file", path="a.py", old_str="= 1", new_str="= 2", replace_all=True)
    assert got.replacements == 3
    assert file_text(runner.state, "a.py") == "x = 2\ny = 2\nz = 2\n"


def test_a_python_edit_that_does_not_compile_is_refused_with_the_error_and_nearby_lines() -> None:
    runner = IdeRunner()
    err = runner.error("ide.edit_file", path=MONEY, old_str="return round(value, 2)", new_str="return round(value, 2")
    assert err.code == "invalid_argument"
    assert err.details["fields"] == ["new_str"]
    assert err.details["line"] >= 3
    assert "     3\t" in err.message


def test_compile_errors_found_after_parsing_are_refused_too() -> None:
    err = IdeRunner().error("ide.create_file", path="bad.py", content="return 1\n")
    assert "outside function" in err.message


def test_a_file_that_never_compiled_may_be_repaired_in_steps() -> None:
    runner = IdeRunner(world({"b.py": "def f(:\n    pass\n"}))
    runner.call("ide.edit_file", path="b.py", old_str="    pass", new_str="    return 1")
    runner.call("ide.edit_file", path="b.py", old_str="f(:", new_str="f():")
    err = runner.error("ide.edit_file", path="b.py", old_str="f():", new_str="f(:")
    assert err.details["fields"] == ["new_str"]


def test_insert_text_adds_whole_lines_after_a_line() -> None:
    runner = IdeRunner(world({"a.txt": "one\ntwo"}))
    runner.call("ide.insert_text", path="a.txt", line=0, text="zero")
    runner.call("ide.insert_text", path="a.txt", line=3, text="three\n")
    assert file_text(runner.state, "a.txt") == "zero\none\ntwo\nthree\n"
    err = runner.error("ide.insert_text", path="a.txt", line=9, text="x")
    assert err.details["fields"] == ["line"]


def test_create_file_makes_folders_and_refuses_an_existing_path() -> None:
    runner = IdeRunner()
    got = runner.call("ide.create_file", path="./scripts//run.sh", content="#!/bin/sh\n", executable=True)
    assert got.path == "scripts/run.sh"
    entry = runner.state.get(FILES, "scripts/run.sh")
    assert entry is not None
    assert entry.mode == 0o755
    assert runner.error("ide.create_file", path=MONEY, content="").code == "conflict"


def test_delete_and_move_work_on_folders_file_by_file() -> None:
    runner = IdeRunner()
    moved = runner.call("ide.move_path", src="acme/utils", dst="acme/common")
    assert moved.changed_files == ["acme/common/__init__.py", "acme/common/money.py", "acme/utils/__init__.py",
                                   "acme/utils/money.py"]
    deleted = runner.call("ide.delete_path", path="acme/billing")
    assert deleted.changed_files == ["acme/billing/__init__.py", "acme/billing/invoice.py"]
    assert sorted(tree_files(runner.state)) == ["README.md", "acme/__init__.py", "acme/common/__init__.py",
                                                "acme/common/money.py", "tests/test_invoice.py"]


def test_undo_reverts_each_kind_of_change_one_step_at_a_time() -> None:
    runner = IdeRunner()
    start = tree_hash(runner.state)
    runner.call("ide.edit_file", path=MONEY, old_str="2)", new_str="3)")
    runner.call("ide.edit_file", path=MONEY, old_str="3)", new_str="4)")
    runner.call("ide.move_path", src=MONEY, dst="acme/money.py")
    runner.call("ide.create_file", path="new.py", content="X = 1\n")
    runner.call("ide.delete_path", path="README.md")
    runner.call("ide.undo_edit", path="README.md")
    runner.call("ide.undo_edit", path="new.py")
    back = runner.call("ide.undo_edit", path="acme/money.py")
    assert back.path == MONEY
    runner.call("ide.undo_edit", path=MONEY)
    assert "round(value, 3)" in (file_text(runner.state, MONEY) or "")
    runner.call("ide.undo_edit", path=MONEY)
    assert tree_hash(runner.state) == start
    assert len(runner.state.table(EDITS)) == 0
    assert runner.error("ide.undo_edit", path=MONEY).code == "conflict"


def test_undo_cannot_go_past_the_base() -> None:
    err = IdeRunner().error("ide.undo_edit", path=MONEY)
    assert err.code == "conflict"
    assert err.details["fields"] == ["path"]


def test_undoing_a_move_back_onto_a_taken_path_is_a_conflict() -> None:
    runner = IdeRunner()
    runner.call("ide.move_path", src="README.md", dst="docs/README.md")
    runner.call("ide.create_file", path="README.md", content="new\n")
    err = runner.error("ide.undo_edit", path="docs/README.md")
    assert err.code == "conflict"
    assert err.details["fields"] == ["path"]


def test_the_tree_file_cap_holds() -> None:
    runner = IdeRunner(world({f"f{i:04d}.txt": "" for i in range(MAX_TREE_FILES)}))
    err = runner.error("ide.create_file", path="one-more.txt", content="")
    assert err.code == "conflict"
    assert err.details["limit"] == MAX_TREE_FILES


def test_an_edit_that_grows_a_file_past_the_size_cap_is_refused() -> None:
    runner = IdeRunner(world({"a.txt": "x" * 1000}))
    err = runner.error("ide.edit_file", path="a.txt", old_str="x", new_str="y" * 300, replace_all=True)
    assert err.details["fields"] == ["new_str"]
    assert err.details["limit"] == MAX_FILE_BYTES


# Bad input: each is a ToolError naming the field, and the state is untouched (IdeRunner.error checks it).
BAD_INPUT: list[tuple[str, dict[str, Any], str, str]] = [
    ("ide.create_file", {"path": "../escape.py"}, "invalid_argument", "path"),
    ("ide.create_file", {"path": "/etc/passwd"}, "invalid_argument", "path"),
    ("ide.create_file", {"path": "a\x00b.py"}, "invalid_argument", "path"),
    ("ide.create_file", {"path": "a\\b.py"}, "invalid_argument", "path"),
    ("ide.create_file", {"path": "a/\nb.py"}, "invalid_argument", "path"),
    ("ide.create_file", {"path": "\ud800.py"}, "invalid_argument", "path"),
    ("ide.create_file", {"path": "."}, "invalid_argument", "path"),
    ("ide.create_file", {"path": "/".join(["d"] * 30)}, "invalid_argument", "path"),
    ("ide.create_file", {"path": "x" * 200}, "invalid_argument", "path"),
    ("ide.create_file", {"path": "bin.dat", "content": "ab\x00cd"}, "invalid_argument", "content"),
    ("ide.create_file", {"path": "s.txt", "content": "\udcff"}, "invalid_argument", "content"),
    ("ide.create_file", {"path": "acme", "content": ""}, "conflict", "path"),
    ("ide.create_file", {"path": "README.md/x.py", "content": ""}, "conflict", "path"),
    ("ide.create_file", {"path": "deep.py", "content": "x = " + "(" * 300 + ")" * 300}, "invalid_argument",
     "content"),
    ("ide.create_file", {"path": "big.py", "content": "x = " + "9" * 5000}, "invalid_argument", "content"),
    ("ide.edit_file", {"path": MONEY, "old_str": "nope", "new_str": "x"}, "invalid_argument", "old_str"),
    ("ide.edit_file", {"path": MONEY, "old_str": "value", "new_str": "value"}, "invalid_argument", "new_str"),
    ("ide.edit_file", {"path": "missing.py", "old_str": "a", "new_str": "b"}, "not_found", "path"),
    ("ide.edit_file", {"path": "acme", "old_str": "a", "new_str": "b"}, "invalid_argument", "path"),
    ("ide.insert_text", {"path": MONEY, "line": 1, "text": "  return (\n"}, "invalid_argument", "text"),
    ("ide.delete_path", {"path": "nothing/here"}, "not_found", "path"),
    ("ide.delete_path", {"path": ""}, "invalid_argument", "path"),
    ("ide.move_path", {"src": MONEY, "dst": "README.md"}, "conflict", "dst"),
    ("ide.move_path", {"src": "acme", "dst": "acme/inner"}, "invalid_argument", "dst"),
    ("ide.move_path", {"src": "acme", "dst": "tests"}, "conflict", "dst"),
    ("ide.move_path", {"src": MONEY, "dst": "README.md/money.py"}, "conflict", "dst"),
    ("ide.move_path", {"src": "ghost.py", "dst": "g.py"}, "not_found", "src"),
    ("ide.move_path", {"src": MONEY, "dst": "../money.py"}, "invalid_argument", "dst"),
    ("ide.undo_edit", {"path": "../x"}, "invalid_argument", "path"),
    ("ide.read_file", {"path": "a\x00"}, "invalid_argument", "path"),
    ("ide.list_dir", {"path": "/"}, "invalid_argument", "path"),
    ("ide.search_code", {"query": "(?<=a)b", "regex": True}, "invalid_argument", "query"),
    ("ide.search_code", {"query": "a\x00"}, "invalid_argument", "query"),
    ("ide.find_files", {"pattern": "a\x00"}, "invalid_argument", "pattern"),
    ("ide.find_symbol", {"name": "1abc"}, "invalid_argument", "name"),
    ("ide.diff", {"path": "../x"}, "invalid_argument", "path"),
    ("ide.diff", {"path": "nowhere"}, "not_found", "path"),
]


@pytest.mark.parametrize(("tool", "args", "code", "field"), BAD_INPUT,
                         ids=[f"{t}-{i}" for i, (t, *_) in enumerate(BAD_INPUT)])
def test_bad_input_is_a_tool_error_naming_the_field_and_writes_nothing(
        tool: str, args: dict[str, Any], code: str, field: str) -> None:
    if tool == "ide.create_file":
        args = {"content": "", **args}
    err = IdeRunner().error(tool, **args)
    assert err.code == code
    assert err.details["fields"] == [field]


# --- edit/undo folding, as a property ----------------------------------------------------

_PATHS = st.sampled_from(["a.txt", "b.txt", "d/c.txt", "d/e/f.txt", "g.py"])
_TEXT = st.text(alphabet="xyz\n", max_size=12)
_OPS = st.lists(st.one_of(
    st.tuples(st.just("create"), _PATHS, _TEXT),
    st.tuples(st.just("edit"), _PATHS, _TEXT),
    st.tuples(st.just("delete"), _PATHS, st.just("")),
    st.tuples(st.just("move"), _PATHS, _PATHS),
    st.tuples(st.just("undo"), _PATHS, st.just("")),
), max_size=25)


def _apply(runner: IdeRunner, op: tuple[str, str, str]) -> str | None:
    """Applies one op; returns the path whose history it pushed or popped, or None if it was refused."""
    kind, path, arg = op
    try:
        if kind == "create":
            runner.call("ide.create_file", path=path, content=arg)
        elif kind == "edit":
            text = file_text(runner.state, path)
            if text is None or not text:
                return None
            runner.call("ide.edit_file", path=path, old_str=text, new_str=arg + "!")
        elif kind == "delete":
            runner.call("ide.delete_path", path=path)
        elif kind == "move":
            runner.call("ide.move_path", src=path, dst=arg)
        else:
            runner.call("ide.undo_edit", path=path)
    except ToolError:
        return None
    return path


# Data generation is cheap, but a loaded CI machine can make Hypothesis think otherwise.
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_OPS)
def test_undoing_every_change_in_reverse_gives_back_the_base_tree(ops: list[tuple[str, str, str]]) -> None:
    # Undo in the reverse order of the changes always succeeds. (Another order can refuse: after the moves
    # a->b, c->a, a->c each path's oldest move waits on the other's newer change, and says which to undo.)
    runner = IdeRunner(world({"a.txt": "a\n", "d/c.txt": "c\n", "g.py": "x = 1\n"}))
    base = tree_hash(runner.state)
    pushed: list[str] = []  # the path each accepted change pushed onto, in order
    for op in ops:
        path = _apply(runner, op)
        if path is None:
            continue
        if op[0] == "undo":
            del pushed[len(pushed) - 1 - pushed[::-1].index(path)]  # it popped that path's newest change
        else:
            pushed.append(op[2] if op[0] == "move" else path)
    while pushed:
        path = pushed.pop()
        assert _apply(runner, ("undo", path, "")) == path, (path, pushed)
    assert len(runner.state.table(EDITS)) == 0
    assert tree_hash(runner.state) == base


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_OPS)
def test_folding_the_recorded_events_rebuilds_the_same_state(ops: list[tuple[str, str, str]]) -> None:
    start = world({"a.txt": "a\n", "g.py": "x = 1\n"})
    runner = IdeRunner(start)
    for op in ops:
        _apply(runner, op)
    rebuilt: State = PROJECTION.fold(start, runner.events)
    assert rebuilt.content_hash() == runner.state.content_hash()
    assert all(isinstance(e, BlobStored | FileWritten | PathDeleted | PathMoved) for e in runner.events)


def test_code_nested_deeper_than_recursive_readers_allow_is_refused() -> None:
    # 150 chained additions compile, but a recursive ast.NodeVisitor (a check) would exceed Python's recursion limit.
    err = IdeRunner().error("ide.create_file", path="deep.py", content="x = " + "+".join(["a"] * 150) + "\n")
    assert err.details["fields"] == ["content"]
    assert "levels deep" in err.message


def test_renaming_text_into_a_python_module_must_compile() -> None:
    runner = IdeRunner()
    runner.call("ide.create_file", path="notes.txt", content="def (:\n")
    err = runner.error("ide.move_path", src="notes.txt", dst="notes.py")
    assert err.details["fields"] == ["dst"]
    runner.call("ide.move_path", src="README.md", dst="docs/README.txt")


def test_config_text_nested_deeper_than_parsers_recurse_is_refused() -> None:
    runner = IdeRunner(world({"pyproject.toml": "[tool.pytest.ini_options]\nmarkers = []\n"}))
    err = runner.error("ide.edit_file", path="pyproject.toml", old_str="markers = []",
                       new_str="markers = " + "[" * 600 + "]" * 600)
    assert err.details["fields"] == ["new_str"]
    runner.call("ide.edit_file", path="pyproject.toml", old_str="markers = []", new_str='markers = ["slow: [x]"]')


def test_the_same_broken_text_is_refused_the_same_way_each_time() -> None:
    # The compile verdict is memoized by text: the second refusal must name the same error and lines.
    errors = []
    for _ in range(2):
        with pytest.raises(ToolError) as exc:
            check_python("acme/x.py", "def f(:\n    pass\n", "new_text")
        errors.append((str(exc.value), exc.value.details))
    assert errors[0] == errors[1]
    assert "not valid Python" in errors[0][0]
    check_python("acme/x.py", "def f():\n    pass\n")  # and a good text still passes
