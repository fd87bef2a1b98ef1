"""The IDE's frozen records: files, content blobs, undo history, runs, the base tree and the submission.

The workspace is a virtual tree: `ide.files` maps a normalized POSIX path to a
`FileEntry` naming its content by sha256 (`ide.blobs`). Blobs are immutable and
content-addressed, so the world, every episode and every fork share them; an
edit adds one blob and replaces one entry.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import immutables
from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, PlainValidator

from saas_sim.core.state import Entity, Table

__all__ = [
    "DEFAULT_MODE",
    "EXECUTABLE_MODE",
    "AgentOperation",
    "BaseTree",
    "Blob",
    "EditHistory",
    "FileEntry",
    "FileMode",
    "Operation",
    "RunKind",
    "RunRecord",
    "RunStatus",
    "StagedTask",
    "Submission",
    "TestOutcome",
    "UndoStep",
]

FileMode = Literal[0o644, 0o755]
"""The only two modes a file of the tree has (no symlinks, no devices, no set-uid bits)."""

DEFAULT_MODE: FileMode = 0o644
"""The mode of an ordinary file."""
EXECUTABLE_MODE: FileMode = 0o755
"""The mode of an executable file (a script)."""

AgentOperation = Literal["edit", "insert", "create", "delete", "move"]
"""Operations of the agent's WRITE tools: each pushes one undo step on its path."""

Operation = Literal["generate", "setup", "edit", "insert", "create", "delete", "move", "undo"]
"""Why a path changed: world generation and scenario setups push no undo step, `undo` pops one."""

RunKind = Literal["tests", "python"]
RunStatus = Literal["ok", "failed", "timeout", "resource_limit"]
TestOutcome = Literal["passed", "failed", "error", "skipped"]


class FileEntry(Entity):
    """One file of the tree.

    Attributes:
        id: The normalized POSIX path relative to the tree root (`acme/billing/invoice.py`).
        blob: The sha256 hex of the file's UTF-8 text (a key of `ide.blobs`).
        mode: 0o644, or 0o755 for an executable.
        size: The text's size in UTF-8 bytes.
    """

    blob: str
    mode: FileMode = DEFAULT_MODE
    size: int = Field(ge=0)


class Blob(Entity):
    """An immutable text, keyed by the sha256 hex of its UTF-8 bytes."""

    text: str


class UndoStep(BaseModel):
    """How to revert one agent change of a path.

    Attributes:
        kind: `content`: restore `blob` and `mode` (a None blob means the path did not
            exist: undo deletes it); `move`: the file was moved here from `src`.
        blob: The content before the change, for `content`.
        mode: The mode before the change, for `content` with a blob.
        src: The path the file came from, for `move`.
        carried: For `move`, how many steps below this one came along from `src` (they go
            back with the file on undo; the steps under them are this path's own, older ones).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["content", "move"]
    blob: str | None = None
    mode: FileMode | None = None
    src: str | None = None
    carried: int = 0


class EditHistory(Entity):
    """The undo stack of one path (`id`), oldest first; only the agent's changes since the base."""

    steps: tuple[UndoStep, ...]


class RunRecord(Entity):
    """A recorded test or command run (`ide.runs`, ids `run_000001`).

    Attributes:
        kind: `tests` (run_tests) or `python` (run_python).
        tree_hash: The `workspace.tree_hash` of the tree the run saw.
        selection: The sorted test ids or targets it ran (empty for a python run).
        keyword: The `-k` expression, if any.
        profile: The hash of the runner's determinism profile.
        status: ok, failed, timeout or resource_limit.
        exit: The child's exit code (None on a timeout).
        tests: Per-test outcome by node id, read from the runner's own pipe.
        failures: The head of each failure by node id.
        output_blob: The sha256 of the capped output text (a key of `ide.blobs`).
        command_blob: For a python run, the sha256 of the code or command line it ran.
        sandbox: The isolation the run had: bwrap, unshare or rlimits.
        cost_s: The simulated seconds the run took (never wall time).
    """

    kind: RunKind
    tree_hash: str
    selection: tuple[str, ...] = ()
    keyword: str | None = None
    profile: str
    status: RunStatus
    exit: int | None = None
    tests: dict[str, TestOutcome] = Field(default_factory=dict)
    failures: dict[str, str] = Field(default_factory=dict)
    output_blob: str
    command_blob: str | None = None
    sandbox: str
    cost_s: float = Field(ge=0)


def _table_of(value: Any) -> Table[FileEntry]:
    if isinstance(value, Table):
        return value
    if isinstance(value, dict):
        entries = (FileEntry.model_validate({"id": k, **v}) for k, v in value.items())
        return Table(immutables.Map({e.id: e for e in entries}))
    raise ValueError("a base tree is a files table or a mapping of path to {blob, mode, size}")


def _dump_table(table: Table[FileEntry]) -> dict[str, dict[str, Any]]:
    return {e.id: {"blob": e.blob, "mode": e.mode, "size": e.size} for e in table}


class BaseTree(BaseModel):
    """The tree at the last `ide.BaseMarked`: what `diff` compares against and the grader restores from.

    It holds the very files table of that moment (a reference, never a copy), so marking
    the base costs O(1) whatever the repository's size. Snapshots write it out as a
    mapping of path to `{blob, mode, size}`.
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    files: Annotated[Table[FileEntry], PlainValidator(_table_of), PlainSerializer(_dump_table)]


class Submission(BaseModel):
    """The agent's submission (`ide.submission`): its summary and the tree it submitted."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    summary: str
    tree_hash: str


class StagedTask(BaseModel):
    """The hidden task (`hidden.ide.task`) as plain JSON; `task_model.load_task` validates it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: dict[str, Any]
