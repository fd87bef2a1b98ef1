"""search_code (literal and RE2 regex) and find_symbol (the AST index)."""

from __future__ import annotations

import time

from saas_sim.domains.ide.tools_search import HITS_PER_FILE
from tests.domains.ide.tree_fixtures import IdeRunner, world


def test_search_code_counts_lines_per_file_in_path_order_ignoring_case_by_default() -> None:
    got = IdeRunner().call("ide.search_code", query="ROUND_CENTS")
    assert [(f.path, f.count) for f in got.files] == [("acme/billing/invoice.py", 2), ("acme/utils/money.py", 1)]
    assert got.files[0].hits[0].line == 2
    assert got.files[0].hits[0].text == "from acme.utils.money import round_cents"
    assert (got.total_files, got.total_lines, got.truncated) == (2, 3, False)


def test_search_code_is_literal_unless_regex_is_set() -> None:
    runner = IdeRunner()
    assert runner.call("ide.search_code", query="round(value").total_files == 1
    assert runner.call("ide.search_code", query="r.und_cents").total_files == 0
    assert runner.call("ide.search_code", query="r.und_cents", regex=True).total_files == 2


def test_search_code_anchors_match_at_line_ends_and_case_can_be_exact() -> None:
    runner = IdeRunner()
    got = runner.call("ide.search_code", query=r"^class \w+:$", regex=True)
    assert [(f.path, f.hits[0].line) for f in got.files] == [("acme/billing/invoice.py", 7)]
    assert runner.call("ide.search_code", query="invoice", case_sensitive=True, glob="*.py").total_files == 1


def test_search_code_filters_by_glob() -> None:
    got = IdeRunner().call("ide.search_code", query="round", glob="tests/*")
    assert got.total_files == 0
    assert IdeRunner().call("ide.search_code", query="acme", glob="*.md").total_files == 1


def test_search_code_above_max_files_says_to_narrow() -> None:
    runner = IdeRunner(world({f"m{i:02d}.py": "x = 1\n" for i in range(30)}))
    got = runner.call("ide.search_code", query="x", max_files=5)
    assert len(got.files) == 5
    assert got.total_files == 30
    assert got.truncated
    assert got.message is not None
    assert "Narrow" in got.message


def test_search_code_shows_the_first_hits_of_a_file_and_counts_them_all() -> None:
    runner = IdeRunner(world({"a.py": "x = 1\n" * 12}))
    got = runner.call("ide.search_code", query="x")
    assert got.files[0].count == 12
    assert [h.line for h in got.files[0].hits] == list(range(1, HITS_PER_FILE + 1))


def test_search_code_refuses_backreferences_and_multi_line_queries() -> None:
    runner = IdeRunner()
    err = runner.error("ide.search_code", query=r"(a)\1", regex=True)
    assert err.code == "invalid_argument"
    assert err.details["fields"] == ["query"]
    assert runner.error("ide.search_code", query="a\nb").details["fields"] == ["query"]


def test_a_catastrophic_pattern_runs_in_linear_time() -> None:
    runner = IdeRunner(world({"a.txt": "a" * 100_000 + "!\n"}))
    start = time.process_time()
    got = runner.call("ide.search_code", query="(a+)+$", regex=True)
    # A backtracking engine needs ~2^100000 steps here; RE2 needs one pass. The bound is loose on purpose,
    # and on this process's CPU time, not the wall clock: a host busy with other work must not fail it.
    assert time.process_time() - start < 5
    assert got.total_files == 0


def test_a_pattern_that_matches_everywhere_costs_one_search_per_line() -> None:
    runner = IdeRunner(world({"a.txt": "abc\n" * 20_000}))
    got = runner.call("ide.search_code", query="x*", regex=True)
    assert got.files[0].count == 20_000


def test_search_code_numbers_lines_after_multibyte_text_correctly() -> None:
    runner = IdeRunner(world({"a.py": "s = 'é漢字'\nt = 'needle'\n"}))
    assert runner.call("ide.search_code", query="needle").files[0].hits[0].line == 2


def test_find_symbol_lists_definitions_before_references() -> None:
    got = IdeRunner().call("ide.find_symbol", name="round_cents", limit=100)
    assert [(h.role, h.path, h.line, h.kind) for h in got.items] == [
        ("definition", "acme/billing/invoice.py", 2, "import"),
        ("definition", "acme/utils/money.py", 1, "function"),
        ("reference", "acme/billing/invoice.py", 2, "import"),
        ("reference", "acme/billing/invoice.py", 12, "name"),
    ]
    assert got.items[1].column == 4
    assert got.items[1].text == "def round_cents(value):"


def test_find_symbol_matches_dotted_names_and_filters_kinds() -> None:
    runner = IdeRunner()
    got = runner.call("ide.find_symbol", name="Invoice.total", references=False)
    assert [(h.qualname, h.kind, h.line) for h in got.items] == [("Invoice.total", "method", 11)]
    classes = runner.call("ide.find_symbol", name="Invoice", kind="class", references=False)
    assert [h.path for h in classes.items] == ["acme/billing/invoice.py"]
    refs = runner.call("ide.find_symbol", name="amount", kind="parameter")
    assert {h.kind for h in refs.items} == {"parameter", "attribute", "name"}


def test_find_symbol_skips_files_that_do_not_parse() -> None:
    runner = IdeRunner(world({"ok.py": "def f():\n    pass\n", "broken.py": "def f(:\n"}))
    got = runner.call("ide.find_symbol", name="f")
    assert [h.path for h in got.items] == ["ok.py"]


def test_find_symbol_refuses_what_is_not_a_name() -> None:
    err = IdeRunner().error("ide.find_symbol", name="a b")
    assert err.details["fields"] == ["name"]


def test_find_symbol_survives_a_deeply_nested_expression() -> None:
    runner = IdeRunner(world({"deep.py": "x = " + "+".join(["a"] * 50_000) + "\n"}))
    got = runner.call("ide.find_symbol", name="x")
    assert [h.path for h in got.items] in ([], ["deep.py"])


def test_search_code_numbers_lines_ended_by_a_lone_carriage_return_like_read_file() -> None:
    runner = IdeRunner(world({"a.txt": "one\rtwo\r\nneedle\n"}))
    assert runner.call("ide.search_code", query="needle").files[0].hits[0].line == 3
    assert runner.call("ide.read_file", path="a.txt").total_lines == 3
