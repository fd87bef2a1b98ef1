"""Path-traversal setups: the buggy helper fails every paired hidden test and keeps the legitimate ones; the
oracle and the commonpath alternative pass them all; each half fix fails some in the sandbox."""

from __future__ import annotations

import random
from typing import Any

import pytest

from saas_sim.domains.ide.setups_security import SecurityParams, build_traversal, path_traversal, reference_path
from saas_sim.domains.ide.task_model import IdeTask
from tests.domains.ide.tasks import files_of, hidden_report, staged


def _outcomes(task: IdeTask, files: dict[str, str]) -> tuple[int, int]:
    """(fail-to-pass passing, pass-to-pass passing) of a tree under the grader."""
    report = hidden_report(task, files)
    return (sum(1 for t in task.fail_to_pass if report.tests.get(t) == "passed"),
            sum(1 for t in task.pass_to_pass if report.tests.get(t) == "passed"))


def _with_tail(files: dict[str, str], b: dict[str, Any], tail: str) -> dict[str, str]:
    path = b["module_path"]
    assert files[path].count(b["buggy_tail"]) == 1
    return {**files, path: files[path].replace(b["buggy_tail"], tail)}


@pytest.mark.parametrize("seed", range(3))
def test_buggy_fails_every_pair_and_oracle_and_alternative_pass_everything(seed: int) -> None:
    state, setup, task = staged(path_traversal, seed)
    files, b = files_of(state), setup.bindings
    assert _outcomes(task, files) == (0, len(task.pass_to_pass))
    for tail in (b["fixed_tail"], b["alternative_tail"]):
        assert _outcomes(task, _with_tail(files, b, tail)) == (len(task.fail_to_pass), len(task.pass_to_pass))


def test_half_fixes_leave_pairs_failing_and_rejecting_everything_passes_no_pair() -> None:
    state, setup, task = staged(path_traversal, 1, {"trickiness": 1, "pairs": 8})
    files, b = files_of(state), setup.bindings
    const, var = b["root_const"], b["decoded_var"]
    reject_all = "    raise ValueError('off')\n"
    blacklist = f"    if '..' in name or name.startswith('/'):\n        raise ValueError(name)\n{b['buggy_tail']}"
    prefix = (f"    path = posixpath.normpath(posixpath.join({const}, {var}))\n"
              f"    if not path.startswith({const}) or path == {const}:\n        raise ValueError(name)\n"
              f"    return path\n")
    assert _outcomes(task, _with_tail(files, b, reject_all))[0] == 0
    for tail in (blacklist, prefix):
        f2p, _ = _outcomes(task, _with_tail(files, b, tail))
        assert f2p < len(task.fail_to_pass)


def test_the_reference_rejects_escapes_and_keeps_dotted_and_encoded_names_inside() -> None:
    root = "/srv/acme/files"
    for bad in ("", "..", "a/..", "../x", "/etc/passwd", "%2e%2e/x", "..%2fx", "../files-private/x", "%2fetc"):
        assert reference_path(root, bad) is None, bad
    assert reference_path(root, "a/../b.txt") == "/srv/acme/files/b.txt"
    assert reference_path(root, "a..b.txt") == "/srv/acme/files/a..b.txt"
    assert reference_path(root, "a%2Fb.pdf") == "/srv/acme/files/a/b.pdf"
    assert reference_path(root, "%252e%252e%252fx") == "/srv/acme/files/%2e%2e%2fx"


@pytest.mark.parametrize("level", [0, 1, 2])
def test_every_hidden_name_is_what_its_side_of_the_pair_says(level: int) -> None:
    for seed in range(10):
        _, task, b = build_traversal(random.Random(seed), SecurityParams(trickiness=level, pairs=6))
        hostile = [str(h) for h in task.details["hostile"]]  # type: ignore[union-attr]
        assert len(hostile) == len(set(hostile)) == 6 == len(task.fail_to_pass)
        assert all(reference_path(b["store_root"], h) is None for h in hostile)
        assert reference_path(b["store_root"], b["reported_name"]) is None
        assert b["reported_name"] not in hostile


def test_trickiness_adds_encoded_and_sibling_prefix_escapes() -> None:
    def hostile(level: int) -> list[str]:
        out: list[str] = []
        for seed in range(8):
            _, task, _ = build_traversal(random.Random(seed), SecurityParams(trickiness=level))
            out += [str(h) for h in task.details["hostile"]]  # type: ignore[union-attr]
        return out

    plain, tricky = hostile(0), hostile(1)
    assert not any("%" in h for h in plain)
    assert any("%" in h for h in tricky) and any("-private/" in h or "2/" in h for h in tricky)


def test_a_seed_moves_the_code_that_the_fix_edits() -> None:
    tails = {staged(path_traversal, seed)[1].bindings["buggy_tail"] for seed in range(8)}
    paths = {staged(path_traversal, seed)[1].bindings["module_path"] for seed in range(8)}
    assert len(tails) > 3 and len(paths) > 1


def test_only_the_helper_is_in_scope_and_the_caller_is_not() -> None:
    _, setup, task = staged(path_traversal, 2)
    assert task.in_scope(setup.bindings["module_path"])
    assert not task.in_scope(setup.bindings["caller_path"]) and task.is_protected(setup.bindings["test_path"])


@pytest.mark.parametrize("seed", range(4))
def test_decoding_twice_fails_a_pair_from_trickiness_one(seed: int) -> None:
    state, setup, task = staged(path_traversal, seed, {"trickiness": 1, "pairs": 8})
    files, b = files_of(state), setup.bindings
    twice = f"    {b['decoded_var']} = unquote({b['decoded_var']})\n{b['fixed_tail']}"
    f2p, _ = _outcomes(task, _with_tail(files, b, twice))
    assert f2p < len(task.fail_to_pass)
    assert _outcomes(task, _with_tail(files, b, b["fixed_tail"]))[0] == len(task.fail_to_pass)
