"""The IDE data report measures the tree it is given."""

from __future__ import annotations

from saas_sim.domains.ide.data_report import data_report
from saas_sim.domains.ide.generate import build_project
from tests.domains.ide.tree_fixtures import world


def test_counts_and_rates_of_a_small_known_tree() -> None:
    report = data_report(world({
        "a.py": "def used():\n    return 1\n\n\ndef deadOne():\n    # TODO: remove\n    return used()\n",
        "b.py": "x = 'single'\ny = \"double\"\n",
        "tests/test_a.py": "from a import used\n\n\ndef test_used():\n    assert used() == 1\n",
        "notes.txt": "hello\n",
        "broken.py": "def (:\n",
    }))
    assert report["counts"] == {"files": 5, "python_files": 4, "test_files": 1, "other_files": 1, "lines": 16,
                                "bytes": report["counts"]["bytes"]}
    assert report["todo_rate"] == round(1 / 3, 4)
    assert report["dead_function_rate"] == 0.5  # deadOne is used nowhere; used is
    assert report["camel_case_rate"] == round(1 / 3, 4)  # deadOne among used, deadOne, test_used
    assert report["mixed_quote_rate"] == round(1 / 3, 4)
    assert report["unparsed_files"] == ["broken.py"]


def test_a_generated_world_shows_its_mess() -> None:
    report = data_report(world(build_project(7, {"files": 60, "mess": 1.0}).files))
    assert report["counts"]["files"] >= 50
    assert report["counts"]["test_files"] >= 1
    assert report["unparsed_files"] == []
    for key in ("todo_rate", "dead_function_rate", "comment_line_rate"):
        assert 0 < report[key] <= 1, (key, report[key])
