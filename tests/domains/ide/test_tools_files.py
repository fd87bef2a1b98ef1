"""The READ tools over the tree: list_dir, read_file, find_files and diff."""

from __future__ import annotations

import pytest

from saas_sim.domains.ide.tools_files import MAX_READ_BYTES, MAX_READ_LINES
from tests.domains.ide.tree_fixtures import IdeRunner, world


def test_list_dir_lists_direct_entries_sorted_with_folder_counts() -> None:
    page = IdeRunner().call("ide.list_dir", limit=100)
    assert [(e.path, e.kind) for e in page.items] == [
        ("README.md", "file"), ("acme", "dir"), ("tests", "dir")]
    assert page.items[1].files == 5
    assert page.items[0].size == len(b"# acme\n\nBilling helpers.\n")


def test_list_dir_goes_down_depth_levels() -> None:
    page = IdeRunner().call("ide.list_dir", path="acme/", depth=2, limit=100)
    assert [e.path for e in page.items] == [
        "acme/__init__.py", "acme/billing", "acme/billing/__init__.py", "acme/billing/invoice.py",
        "acme/utils", "acme/utils/__init__.py", "acme/utils/money.py"]


def test_list_dir_pages_with_a_cursor() -> None:
    runner = IdeRunner()
    first = runner.call("ide.list_dir", depth=3, limit=3)
    second = runner.call("ide.list_dir", depth=3, limit=3, cursor=first.next_cursor)
    assert first.total == second.total
    assert {e.path for e in first.items}.isdisjoint(e.path for e in second.items)


def test_list_dir_of_a_file_or_a_missing_folder_is_refused() -> None:
    runner = IdeRunner()
    assert runner.error("ide.list_dir", path="README.md").code == "invalid_argument"
    err = runner.error("ide.list_dir", path="nope")
    assert err.code == "not_found"
    assert err.details["fields"] == ["path"]


def test_read_file_numbers_lines_and_reports_the_total() -> None:
    got = IdeRunner().call("ide.read_file", path="acme/utils/money.py", start_line=2, end_line=3)
    assert got.total_lines == 3
    assert got.text == "     2\t    # TODO: banker's rounding?\n     3\t    return round(value, 2)\n"
    assert got.next_start_line is None


def test_read_file_shows_at_most_200_lines_and_says_where_to_go_on() -> None:
    runner = IdeRunner(world({"big.txt": "".join(f"line {i}\n" for i in range(1, 501))}))
    got = runner.call("ide.read_file", path="big.txt")
    assert (got.start_line, got.end_line, got.total_lines) == (1, MAX_READ_LINES, 500)
    assert got.next_start_line == MAX_READ_LINES + 1


def test_read_file_caps_bytes_and_cuts_very_long_lines() -> None:
    runner = IdeRunner(world({"wide.txt": ("x" * 5000 + "\n") * 40}))
    got = runner.call("ide.read_file", path="wide.txt")
    assert len(got.text.encode()) <= MAX_READ_BYTES
    assert "more characters]" in got.text
    assert got.next_start_line == got.end_line + 1


def test_read_file_counts_lines_like_python_not_like_splitlines() -> None:
    runner = IdeRunner(world({"f.py": "a = 1\x0c\nb = '\u2028'\n"}))
    assert runner.call("ide.read_file", path="f.py").total_lines == 2


def test_read_file_of_an_empty_file() -> None:
    got = IdeRunner().call("ide.read_file", path="acme/__init__.py")
    assert (got.total_lines, got.text, got.end_line) == (0, "", 0)


@pytest.mark.parametrize(("args", "field"), [
    ({"path": "acme/utils/money.py", "start_line": 9}, "start_line"),
    ({"path": "acme/utils/money.py", "start_line": 3, "end_line": 2}, "end_line"),
    ({"path": "acme"}, "path"),
    ({"path": "../etc/passwd"}, "path"),
])
def test_read_file_refuses_bad_ranges_and_paths(args: dict[str, object], field: str) -> None:
    err = IdeRunner().error("ide.read_file", **args)
    assert err.code == "invalid_argument"
    assert err.details["fields"] == [field]


def test_find_files_matches_names_in_any_folder_and_globs_across_folders() -> None:
    runner = IdeRunner()
    assert [f.path for f in runner.call("ide.find_files", pattern="__init__.py").items] == [
        "acme/__init__.py", "acme/billing/__init__.py", "acme/utils/__init__.py"]
    assert [f.path for f in runner.call("ide.find_files", pattern="acme/*/m*.py").items] == ["acme/utils/money.py"]
    assert runner.call("ide.find_files", pattern="*.py").total == 6


def test_diff_is_empty_at_the_base_and_shows_each_kind_of_change() -> None:
    runner = IdeRunner()
    assert runner.call("ide.diff").files == []
    runner.call("ide.edit_file", path="acme/utils/money.py", old_str="round(value, 2)", new_str="round(value, 3)")
    runner.call("ide.create_file", path="acme/new.py", content="X = 1\n")
    runner.call("ide.delete_path", path="README.md")
    got = runner.call("ide.diff")
    assert [(f.path, f.change) for f in got.files] == [
        ("README.md", "deleted"), ("acme/new.py", "added"), ("acme/utils/money.py", "modified")]
    assert "--- a/acme/utils/money.py\n+++ b/acme/utils/money.py\n" in got.diff
    assert "-    return round(value, 2)\n+    return round(value, 3)\n" in got.diff
    assert "--- /dev/null\n+++ b/acme/new.py\n" in got.diff
    one = runner.call("ide.diff", path="acme/new.py")
    assert [f.path for f in one.files] == ["acme/new.py"]
    assert not got.truncated


def test_diff_of_a_long_change_is_cut_and_says_so() -> None:
    runner = IdeRunner()
    runner.call("ide.create_file", path="big.txt", content="".join(f"row {i}\n" for i in range(5000)))
    got = runner.call("ide.diff")
    assert got.truncated
    assert got.diff.endswith("ask for one path]\n")


def test_diff_and_search_read_an_empty_path_or_glob_as_the_whole_tree() -> None:
    runner = IdeRunner()
    runner.call("ide.create_file", path="x.py", content="X = 1\n")
    assert [f.path for f in runner.call("ide.diff", path="").files] == ["x.py"]
    assert runner.call("ide.search_code", query="X = 1", glob="").total_files == 1
