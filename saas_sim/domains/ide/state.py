"""The IDE's tables, its projection (pure reducers) and its state schema.

Public tables, which tools read: `ide.files` (path -> `FileEntry`), `ide.blobs`
(sha256 -> `Blob`), `ide.edits` (path -> undo stack), `ide.runs` (recorded runs);
public values `ide.base` (the tree at the last `BaseMarked`) and `ide.submission`.
Hidden, for checks and grade runs only: `hidden.ide.task`.

Every reducer touches only the paths its event names, so a write costs
O(log files) and marking the base costs O(1): it keeps a reference to the files
table, never a copy.
"""

from __future__ import annotations

from typing import get_args

from saas_sim.core.reducers import require
from saas_sim.core.snapshots import StateSchema
from saas_sim.core.state import Projection, State, TableKey, ValueKey
from saas_sim.domains.ide import events as ev
from saas_sim.domains.ide.models import (
    AgentOperation,
    BaseTree,
    Blob,
    EditHistory,
    FileEntry,
    Operation,
    RunRecord,
    StagedTask,
    Submission,
    UndoStep,
)
from saas_sim.errors import StateError

__all__ = [
    "BASE",
    "BLOBS",
    "EDITS",
    "FILES",
    "MAX_UNDO_STEPS",
    "PROJECTION",
    "RUNS",
    "SCHEMA",
    "SUBMISSION",
    "TASK",
]

FILES = TableKey("ide.files", FileEntry)
BLOBS = TableKey("ide.blobs", Blob)
EDITS = TableKey("ide.edits", EditHistory)
RUNS = TableKey("ide.runs", RunRecord)
BASE = ValueKey("ide.base", BaseTree)
SUBMISSION = ValueKey("ide.submission", Submission)
TASK = ValueKey("hidden.ide.task", StagedTask)

SCHEMA = StateSchema(tables=[FILES, BLOBS, EDITS, RUNS], values=[BASE, SUBMISSION, TASK], version=1)

MAX_UNDO_STEPS = 50
"""Undo steps kept per path; an older step is dropped (that change can no longer be undone)."""

_AGENT_OPERATIONS: frozenset[str] = frozenset(get_args(AgentOperation))

PROJECTION = Projection("ide")


def _history(state: State, path: str, operation: Operation, step: UndoStep) -> State:
    """Pushes `step` on `path`'s undo stack for an agent operation, pops it for an undo."""
    if operation == "undo":
        current = require(state, EDITS, path)
        return _set_steps(state, path, current.steps[:-1])
    if operation not in _AGENT_OPERATIONS:
        return state
    return _set_steps(state, path, (*_steps(state, path), step))


@PROJECTION.on(ev.BlobStored)
def _blob_stored(state: State, e: ev.BlobStored) -> State:
    return state.put(BLOBS, Blob(id=e.sha, text=e.text))


@PROJECTION.on(ev.FileWritten)
def _file_written(state: State, e: ev.FileWritten) -> State:
    state = state.put(FILES, FileEntry(id=e.path, blob=e.blob, mode=e.mode, size=e.size))
    return _history(state, e.path, e.operation, UndoStep(kind="content", blob=e.before_blob, mode=e.before_mode))


@PROJECTION.on(ev.PathDeleted)
def _path_deleted(state: State, e: ev.PathDeleted) -> State:
    require(state, FILES, e.path)
    state = state.delete(FILES, e.path)
    return _history(state, e.path, e.operation, UndoStep(kind="content", blob=e.before_blob, mode=e.before_mode))


@PROJECTION.on(ev.PathMoved)
def _path_moved(state: State, e: ev.PathMoved) -> State:
    entry = require(state, FILES, e.src)
    state = state.delete(FILES, e.src).put(FILES, FileEntry(id=e.dst, blob=entry.blob, mode=entry.mode,
                                                            size=entry.size))
    # The undo steps travel with the file, on top of any steps `dst` kept from earlier changes (a file
    # deleted there before): undo moves them back and leaves those in place.
    src_steps = _steps(state, e.src)
    dst_steps = _steps(state, e.dst)
    if e.operation == "undo":
        top = src_steps[-1] if src_steps else None
        if top is None or top.kind != "move":
            raise StateError(f"undo of a move of {e.src} finds no move step on top of its history")
        keep = src_steps[: len(src_steps) - 1 - top.carried]
        carried = src_steps[len(keep) : -1]
        state = _set_steps(state, e.src, keep)
        return _set_steps(state, e.dst, (*dst_steps, *carried))
    state = _set_steps(state, e.src, ())
    if e.operation in _AGENT_OPERATIONS:
        return _set_steps(state, e.dst, (*dst_steps, *src_steps, UndoStep(kind="move", src=e.src,
                                                                          carried=len(src_steps))))
    return _set_steps(state, e.dst, (*dst_steps, *src_steps))


def _steps(state: State, path: str) -> tuple[UndoStep, ...]:
    history = state.get(EDITS, path)
    return history.steps if history else ()


def _set_steps(state: State, path: str, steps: tuple[UndoStep, ...]) -> State:
    if not steps:
        return state.delete(EDITS, path)
    if len(steps) > MAX_UNDO_STEPS:
        steps = _trimmed(steps)
    return state.put(EDITS, EditHistory(id=path, steps=steps))


def _trimmed(steps: tuple[UndoStep, ...]) -> tuple[UndoStep, ...]:
    """Drops the oldest steps beyond `MAX_UNDO_STEPS`, shrinking the `carried` counts that reached them."""
    kept = list(steps[-MAX_UNDO_STEPS:])
    for i, step in enumerate(kept):
        if step.kind == "move" and step.carried > i:
            kept[i] = step.model_copy(update={"carried": i})
    return tuple(kept)


@PROJECTION.on(ev.BaseMarked)
def _base_marked(state: State, e: ev.BaseMarked) -> State:
    for path in state.table(EDITS).ids():
        state = state.delete(EDITS, path)
    return state.set_value(BASE, BaseTree(files=state.table(FILES)))


@PROJECTION.on(ev.TaskStaged)
def _task_staged(state: State, e: ev.TaskStaged) -> State:
    return state.set_value(TASK, StagedTask(task=e.task))


@PROJECTION.on(ev.CommandRan)
def _command_ran(state: State, e: ev.CommandRan) -> State:
    return state.put(RUNS, e.run)


@PROJECTION.on(ev.Submitted)
def _submitted(state: State, e: ev.Submitted) -> State:
    return state.set_value(SUBMISSION, Submission(summary=e.summary, tree_hash=e.tree_hash))
