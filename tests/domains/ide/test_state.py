"""The IDE's reducers: files, blobs, the base, the undo stacks, runs, the task and the submission."""

from __future__ import annotations

from saas_sim.core.snapshots import decode_state, encode_state
from saas_sim.core.state import State
from saas_sim.domains.ide import events as ev
from saas_sim.domains.ide.models import RunRecord
from saas_sim.domains.ide.state import (
    BASE,
    BLOBS,
    EDITS,
    FILES,
    MAX_UNDO_STEPS,
    PROJECTION,
    RUNS,
    SCHEMA,
    SUBMISSION,
    TASK,
)
from saas_sim.domains.ide.workspace import TreeWriter, blob_sha, tree_files


def _world(files: dict[str, str]) -> State:
    writer = TreeWriter(State())
    for path, text in files.items():
        writer.write(path, text, operation="generate")
    return PROJECTION.fold(State(), [*writer.events, ev.BaseMarked()])


def _apply(state: State, fn_name: str, *args: str) -> State:
    writer = TreeWriter(state)
    getattr(writer, fn_name)(*args, operation=fn_name if fn_name != "write" else "edit")
    return PROJECTION.fold(state, writer.events)


def test_base_marked_keeps_a_reference_to_the_files_table_not_a_copy() -> None:
    state = _world({"a.py": "x = 1\n", "b/c.py": "y = 2\n"})
    base = state.value(BASE)
    assert base is not None
    assert base.files.same_as(state.table(FILES))


def test_generated_writes_push_no_undo_step_and_agent_writes_do() -> None:
    state = _world({"a.py": "x = 1\n"})
    assert len(state.table(EDITS)) == 0
    state = _apply(state, "write", "a.py", "x = 2\n")
    history = state.get(EDITS, "a.py")
    assert history is not None
    assert [s.blob for s in history.steps] == [blob_sha("x = 1\n")]


def test_same_text_in_two_files_is_stored_once() -> None:
    state = _world({"a.py": "same\n", "b.py": "same\n"})
    assert len(state.table(BLOBS)) == 1


def test_move_carries_the_undo_stack_and_records_where_the_file_came_from() -> None:
    state = _world({"a.py": "x = 1\n"})
    state = _apply(state, "write", "a.py", "x = 2\n")
    state = _apply(state, "move", "a.py", "pkg/b.py")
    assert state.get(EDITS, "a.py") is None
    history = state.get(EDITS, "pkg/b.py")
    assert history is not None
    assert [s.kind for s in history.steps] == ["content", "move"]
    assert history.steps[-1].src == "a.py"


def test_undo_stack_keeps_only_the_newest_steps() -> None:
    state = _world({"a.py": "x = 0\n"})
    for i in range(1, MAX_UNDO_STEPS + 6):
        state = _apply(state, "write", "a.py", f"x = {i}\n")
    history = state.get(EDITS, "a.py")
    assert history is not None
    assert len(history.steps) == MAX_UNDO_STEPS
    assert history.steps[0].blob == blob_sha("x = 5\n")


def test_marking_the_base_again_clears_the_undo_history() -> None:
    state = _world({"a.py": "x = 1\n"})
    state = _apply(state, "write", "a.py", "x = 2\n")
    state = PROJECTION.apply(state, ev.BaseMarked())
    assert len(state.table(EDITS)) == 0


def test_runs_task_and_submission_are_recorded() -> None:
    state = _world({"a.py": "x = 1\n"})
    run = RunRecord(id="run_000001", kind="tests", tree_hash="t", profile="p", status="ok", exit=0,
                    tests={"tests/test_a.py::test_x": "passed"}, output_blob=blob_sha(""), sandbox="rlimits",
                    cost_s=2.0)
    state = PROJECTION.fold(state, [ev.CommandRan(run=run), ev.TaskStaged(task={"family": "bugfix"}),
                                    ev.Submitted(summary="fixed", tree_hash="t")])
    assert state.get(RUNS, "run_000001") == run
    task, submission = state.value(TASK), state.value(SUBMISSION)
    assert task is not None
    assert task.task == {"family": "bugfix"}
    assert submission is not None
    assert submission.summary == "fixed"
    assert state.counters()["run"] == 1


def test_snapshot_round_trips_the_base_tree_exactly() -> None:
    state = _world({"a.py": "x = 1\n", "b/c.txt": "hello\n"})
    state = _apply(state, "write", "a.py", "x = 2\n")
    loaded = decode_state(encode_state(state), SCHEMA, verify=True)
    assert loaded.content_hash() == state.content_hash()
    base = loaded.value(BASE)
    assert base is not None
    assert base.files.ids() == ("a.py", "b/c.txt")
    assert tree_files(loaded) == {"a.py": "x = 2\n", "b/c.txt": "hello\n"}
