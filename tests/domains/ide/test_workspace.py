"""The workspace: tree reads, hashes, the base, diffs, and TreeWriter's limits and batching."""

from __future__ import annotations

import subprocess
import sys

import pytest

from saas_sim.core.state import State
from saas_sim.domains.ide import workspace
from saas_sim.domains.ide.events import BaseMarked, BlobStored, FileWritten
from saas_sim.domains.ide.state import FILES, PROJECTION
from saas_sim.domains.ide.workspace import (
    MAX_FILE_BYTES,
    TreeWriter,
    base_files,
    blob_sha,
    changed_paths,
    check_text,
    file_text,
    files_under,
    is_dir,
    tree_blobs,
    tree_files,
    tree_hash,
    unified_diff,
    write_events,
)
from saas_sim.errors import HarnessError, ToolError
from tests.domains.ide.tree_fixtures import SMALL_PROJECT, world


def _write(state: State, path: str, text: str) -> State:
    return PROJECTION.fold(state, write_events(state, path, text, operation="edit"))


def test_tree_files_and_blobs_are_sorted_by_path() -> None:
    state = world({"b.py": "b\n", "a/z.py": "z\n", "a.py": "a\n"})
    assert list(tree_files(state)) == ["a.py", "a/z.py", "b.py"]
    assert tree_blobs(state)["a.py"] == blob_sha("a\n")


def test_tree_hash_covers_paths_modes_and_content_not_write_order() -> None:
    one = world({"a.py": "1\n", "b.py": "2\n"})
    other = world({"b.py": "2\n", "a.py": "1\n"})
    assert tree_hash(one) == tree_hash(other)
    assert tree_hash(_write(one, "a.py", "1 \n")) != tree_hash(one)
    writer = TreeWriter(one)
    writer.move("a.py", "c.py", operation="move")
    moved = PROJECTION.fold(one, writer.events)
    assert tree_hash(moved) != tree_hash(one)
    chmod = PROJECTION.fold(one, write_events(one, "a.py", "1\n", operation="edit", mode=0o755))
    assert tree_hash(chmod) != tree_hash(one)


def test_tree_hash_is_the_same_in_another_process_with_another_hash_seed() -> None:
    code = ("from tests.domains.ide.tree_fixtures import world; from saas_sim.domains.ide.workspace import tree_hash;"
            " print(tree_hash(world()))")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": seed, "PYTHONDONTWRITEBYTECODE": "1", "PATH": ""}).stdout
            for seed in ("1", "2")}
    assert outs == {tree_hash(world()) + "\n"}


def test_the_base_stays_while_the_tree_changes_and_the_diff_is_against_it() -> None:
    state = _write(world(), "acme/utils/money.py", "def round_cents(value):\n    return value\n")
    assert base_files(state) == SMALL_PROJECT
    assert changed_paths(world(), state) == ["acme/utils/money.py"]
    text = unified_diff(state)
    assert text.startswith("--- a/acme/utils/money.py\n+++ b/acme/utils/money.py\n")
    assert "-    # TODO: banker's rounding?\n" in text


def test_marking_the_base_costs_no_copy_of_the_tree() -> None:
    state = world({f"f{i}.py": f"x = {i}\n" for i in range(300)})
    marked = PROJECTION.apply(state, BaseMarked())
    assert unified_diff(marked) == ""
    assert changed_paths(state, marked) == []


def test_a_missing_final_newline_is_marked_in_the_diff() -> None:
    state = _write(world({"a.txt": "x\n"}), "a.txt", "y")
    assert unified_diff(state).endswith("+y\n\\ No newline at end of file\n")


def test_directories_are_implied_by_the_files_under_them() -> None:
    files = world().table(FILES)
    assert is_dir(files, "acme")
    assert is_dir(files, "acme/billing")
    assert not is_dir(files, "acme/billing/invoice.py")
    assert not is_dir(files, "acm")
    assert files_under(files, "acme/utils") == ["acme/utils/__init__.py", "acme/utils/money.py"]


def test_a_writer_batch_sees_its_own_changes_and_stores_each_blob_once() -> None:
    writer = TreeWriter(State())
    writer.write("a.py", "same\n", operation="generate")
    writer.write("b.py", "same\n", operation="generate")
    writer.write("a.py", "other\n", operation="generate")
    assert writer.text("a.py") == "other\n"
    assert [type(e) for e in writer.events] == [BlobStored, FileWritten, FileWritten, BlobStored, FileWritten]
    state = PROJECTION.fold(State(), writer.events)
    assert file_text(state, "a.py") == "other\n"
    last = writer.events[-1]
    assert isinstance(last, FileWritten)
    assert last.before_blob == blob_sha("same\n")


def test_a_writer_refuses_unnormalized_paths_as_a_bug() -> None:
    with pytest.raises(HarnessError):
        TreeWriter(State()).write("./a.py", "", operation="generate")


@pytest.mark.parametrize("text", ["a\x00b", "\udc80", "x" * (MAX_FILE_BYTES + 1), "é" * (MAX_FILE_BYTES // 2 + 1)])
def test_check_text_refuses_binary_unencodable_and_oversized_text(text: str) -> None:
    with pytest.raises(ToolError) as info:
        check_text(text, "content")
    assert info.value.details["fields"] == ["content"]


def test_check_text_returns_the_utf8_size() -> None:
    assert check_text("é") == 2


def test_a_writer_restores_a_blob_it_stored_earlier_in_the_same_batch() -> None:
    writer = TreeWriter(State())
    entry = writer.write("a.py", "new\n", operation="generate")
    writer.restore("b.py", entry.blob, 0o644, operation="generate")
    assert writer.text("b.py") == "new\n"
    with pytest.raises(HarnessError):
        writer.restore("c.py", "0" * 64, 0o644, operation="generate")


def test_the_tree_byte_cap_holds_and_deletes_make_room(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workspace, "MAX_TREE_BYTES", 10)
    state = world({"a.txt": "12345"})
    writer = TreeWriter(state)
    writer.write("b.txt", "12345", operation="create")
    with pytest.raises(ToolError) as info:
        writer.write("c.txt", "1", operation="create")
    assert info.value.code == "conflict"
    writer.delete("a.txt", operation="delete")
    writer.write("c.txt", "1", operation="create")
