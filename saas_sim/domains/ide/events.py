"""The IDE's events: immutable facts in the past tense, named `ide.<Name>`.

World generation, scenario setups and tools change the tree only through these,
and they carry content hashes (the blob of a file, the blob before a change), so
the stream's hash chain covers every byte of the tree. `BlobStored` carries the
text itself and comes before the first event that names its hash.

Every change of a path names it in `path` (or `src`/`dst`), which is what the
scope guard (runtime/scope.py) reads as the changed subject.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from saas_sim.core.events import Event, event
from saas_sim.domains.ide.models import FileMode, Operation, RunRecord

__all__ = [
    "BaseMarked",
    "BlobStored",
    "CommandRan",
    "FileWritten",
    "PathDeleted",
    "PathMoved",
    "Submitted",
    "TaskStaged",
]


@event("ide.BlobStored")
class BlobStored(Event):
    """A new content blob was stored (emitted only for a hash the state does not hold yet)."""

    # A blob is content, not a record anyone changes: the scope guard judges the FileWritten.
    subject_fields: ClassVar[tuple[str, ...]] = ()

    sha: str
    text: str


@event("ide.FileWritten")
class FileWritten(Event):
    """A file was created or its content or mode replaced.

    Attributes:
        path: The normalized path.
        blob: The sha256 of the new text (stored by an earlier `BlobStored`).
        mode: The new mode.
        size: The new text's UTF-8 size in bytes.
        operation: Why (see `models.Operation`); agent operations push an undo step.
        before_blob: The blob the path held before, or None if it did not exist.
        before_mode: The mode it had before, or None if it did not exist.
    """

    subject_fields: ClassVar[tuple[str, ...]] = ("path",)

    path: str
    blob: str
    mode: FileMode
    size: int = Field(ge=0)
    operation: Operation
    before_blob: str | None = None
    before_mode: FileMode | None = None


@event("ide.PathDeleted")
class PathDeleted(Event):
    """A file was deleted (a folder's deletion is one event per file, in path order)."""

    subject_fields: ClassVar[tuple[str, ...]] = ("path",)

    path: str
    operation: Operation
    before_blob: str
    before_mode: FileMode


@event("ide.PathMoved")
class PathMoved(Event):
    """A file was moved (renamed) from `src` to `dst`, keeping its content, mode and undo history."""

    subject_fields: ClassVar[tuple[str, ...]] = ("src", "dst")

    src: str
    dst: str
    operation: Operation


@event("ide.BaseMarked")
class BaseMarked(Event):
    """The current tree became the base: what `diff` compares against; the undo history was cleared."""

    subject_fields: ClassVar[tuple[str, ...]] = ()


@event("ide.TaskStaged")
class TaskStaged(Event):
    """The hidden task was staged (`task_model.IdeTask` as JSON; tools never see it)."""

    subject_fields: ClassVar[tuple[str, ...]] = ()

    task: dict[str, Any]


@event("ide.CommandRan")
class CommandRan(Event):
    """A test or python run finished (or timed out); its output blob was stored before it."""

    subject_fields: ClassVar[tuple[str, ...]] = ()

    run: RunRecord


@event("ide.Submitted")
class Submitted(Event):
    """The agent submitted its work with a summary."""

    subject_fields: ClassVar[tuple[str, ...]] = ()

    summary: str
    tree_hash: str
