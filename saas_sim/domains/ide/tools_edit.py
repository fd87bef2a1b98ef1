"""WRITE tools over the tree: edit by exact replacement, insert lines, create, delete, move, and undo.

Every write goes through `workspace.TreeWriter`, which enforces the tree's limits, and
a `.py` file whose new text does not compile is refused with the error and the lines
around it (unless its old text did not compile either: then the agent may fix it in
steps). Each change pushes one undo step on its path; `undo_edit` pops it. Changes
made before the task started (the base) cannot be undone.
"""

from __future__ import annotations

from pydantic import Field

from saas_sim.core.tool_errors import bad_args, conflict, not_found
from saas_sim.core.tools import WRITE, ToolArgs, ToolContext
from saas_sim.domains.ide.events import BlobStored, FileWritten, PathDeleted, PathMoved
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.models import DEFAULT_MODE, EXECUTABLE_MODE, FileEntry
from saas_sim.domains.ide.paths import MAX_PATH_CHARS
from saas_sim.domains.ide.state import EDITS, FILES
from saas_sim.domains.ide.tool_helpers import (
    arg_path,
    check_nesting,
    check_python,
    commit,
    number_lines,
    require_file,
    split_lines,
    text_of,
)
from saas_sim.domains.ide.views_files import WriteResult
from saas_sim.domains.ide.workspace import MAX_FILE_BYTES, TreeWriter, files_under, is_dir
from saas_sim.errors import ToolError

__all__ = ["create_file", "delete_path", "edit_file", "insert_text", "move_path", "undo_edit"]

SNIPPET_CONTEXT = 4
"""Lines shown before and after a change."""
MAX_SNIPPET_LINES = 40
"""The most lines a write's snippet shows."""
_MAX_LISTED_LINES = 10

_PATH = Field(max_length=MAX_PATH_CHARS, description="The file, from the project root (`acme/billing/invoice.py`).")


def _compiles(path: str, text: str) -> bool:
    try:
        check_python(path, text)
    except ToolError:
        return False
    return True


def _check_new_text(path: str, old: str | None, new: str, field: str) -> None:
    check_nesting(path, new, field)
    # A file that did not compile before may be repaired in several steps.
    if old is None or _compiles(path, old):
        check_python(path, new, field)


def _snippet(text: str, first_line: int, last_line: int) -> str:
    lines = split_lines(text)
    lo = max(1, first_line - SNIPPET_CONTEXT)
    hi = min(len(lines), last_line + SNIPPET_CONTEXT, lo + MAX_SNIPPET_LINES - 1)
    return number_lines(lines[lo - 1 : hi], lo) if lines else ""


def _result(writer: TreeWriter, path: str, operation: str, snippet: str, replacements: int = 0) -> WriteResult:
    changed: set[str] = set()
    for e in writer.events:
        if isinstance(e, FileWritten | PathDeleted):
            changed.add(e.path)
        elif isinstance(e, PathMoved):
            changed.update((e.src, e.dst))
        else:
            assert isinstance(e, BlobStored)
    text = writer.text(path)
    return WriteResult(path=path, operation=operation, changed_files=sorted(changed),
                       total_lines=None if text is None else len(split_lines(text)), snippet=snippet,
                       replacements=replacements)


class EditFileArgs(ToolArgs):
    path: str = _PATH
    old_str: str = Field(min_length=1, max_length=MAX_FILE_BYTES,
                         description="The exact text to replace, whitespace and indentation included. It must "
                                     "occur exactly once unless replace_all is true.")
    new_str: str = Field(max_length=MAX_FILE_BYTES, description="The text to put in its place (may be empty).")
    replace_all: bool = Field(default=False, description="Replace every occurrence instead of exactly one.")


@kit.tool(WRITE)
def edit_file(ctx: ToolContext, args: EditFileArgs) -> WriteResult:
    """Replaces an exact piece of text in a file, and shows the lines around the change.

    `old_str` must match exactly once (read the file first to copy it); with `replace_all`, every
    occurrence is replaced. A Python file whose new text does not compile is refused.
    """
    path = arg_path(args.path)
    entry = require_file(ctx, path)
    text = text_of(ctx, entry)
    if args.old_str == args.new_str:
        raise bad_args("old_str and new_str are the same; the edit would change nothing", ["new_str"])
    count = text.count(args.old_str)
    if count == 0:
        raise bad_args(f"old_str does not occur in {path}; copy it exactly (whitespace and indentation "
                       f"included) from ide.read_file", ["old_str"], occurrences=0)
    first = text.index(args.old_str)
    if count > 1 and not args.replace_all:
        lines: list[int] = []
        at = first
        while at != -1 and len(lines) < _MAX_LISTED_LINES:
            lines.append(text.count("\n", 0, at) + 1)
            at = text.find(args.old_str, at + len(args.old_str))
        raise bad_args(f"old_str occurs {count} times in {path} (lines {lines}); include more surrounding text "
                       f"to make it unique, or set replace_all", ["old_str"], occurrences=count, lines=lines)
    new_text = text.replace(args.old_str, args.new_str) if args.replace_all else text.replace(args.old_str,
                                                                                             args.new_str, 1)
    _check_new_text(path, text, new_text, "new_str")
    writer = TreeWriter(ctx.state)
    writer.write(path, new_text, operation="edit", text_field="new_str")
    commit(ctx, writer)
    first_line = max(1, new_text.count("\n", 0, first) + 1)
    last_line = first_line + args.new_str.count("\n")
    return _result(writer, path, "edit", _snippet(new_text, first_line, last_line), replacements=count)


class InsertTextArgs(ToolArgs):
    path: str = _PATH
    line: int = Field(ge=0, description="Insert after this line number (0 inserts at the top of the file).")
    text: str = Field(min_length=1, max_length=MAX_FILE_BYTES,
                      description="The lines to insert; a final newline is added when missing.")


@kit.tool(WRITE)
def insert_text(ctx: ToolContext, args: InsertTextArgs) -> WriteResult:
    """Inserts whole lines into a file after a given line, and shows the lines around them."""
    path = arg_path(args.path)
    entry = require_file(ctx, path)
    text = text_of(ctx, entry)
    lines = split_lines(text)
    if args.line > len(lines):
        raise bad_args(f"{path} has {len(lines)} lines; line {args.line} is past its end", ["line"],
                       total_lines=len(lines))
    block = args.text if args.text.endswith(("\n", "\r")) else args.text + "\n"
    head = lines[: args.line]
    if head and not head[-1].endswith(("\n", "\r")):
        head[-1] += "\n"
    new_text = "".join([*head, block, *lines[args.line :]])
    _check_new_text(path, text, new_text, "text")
    writer = TreeWriter(ctx.state)
    writer.write(path, new_text, operation="insert", text_field="text")
    commit(ctx, writer)
    first = args.line + 1
    return _result(writer, path, "insert", _snippet(new_text, first, first + len(split_lines(block)) - 1))


class CreateFileArgs(ToolArgs):
    path: str = Field(max_length=MAX_PATH_CHARS,
                      description="The new file's path from the project root; missing folders are created.")
    content: str = Field(default="", max_length=MAX_FILE_BYTES, description="The file's whole text.")
    executable: bool = Field(default=False, description="Make the file executable (mode 755).")


@kit.tool(WRITE)
def create_file(ctx: ToolContext, args: CreateFileArgs) -> WriteResult:
    """Creates a new file with the given text. An existing path is refused: edit it instead.

    A Python file whose text does not compile is refused.
    """
    path = arg_path(args.path)
    if path in ctx.table(FILES):
        raise conflict(f"{path} already exists; use ide.edit_file to change it", ["path"])
    _check_new_text(path, None, args.content, "content")
    writer = TreeWriter(ctx.state)
    writer.write(path, args.content, operation="create", mode=EXECUTABLE_MODE if args.executable else DEFAULT_MODE)
    commit(ctx, writer)
    return _result(writer, path, "create", _snippet(args.content, 1, MAX_SNIPPET_LINES))


class DeletePathArgs(ToolArgs):
    path: str = Field(max_length=MAX_PATH_CHARS, description="The file or folder to delete (a folder with "
                                                             "everything in it).")


@kit.tool(WRITE)
def delete_path(ctx: ToolContext, args: DeletePathArgs) -> WriteResult:
    """Deletes a file, or a folder with every file in it. Each deleted file can be brought back with undo_edit."""
    path = arg_path(args.path)
    files = ctx.table(FILES)
    targets = [path] if path in files else files_under(files, path)
    if not targets:
        raise not_found("path", path, "path")
    writer = TreeWriter(ctx.state)
    for target in targets:
        writer.delete(target, operation="delete")
    commit(ctx, writer)
    return _result(writer, path, "delete", "")


class MovePathArgs(ToolArgs):
    src: str = Field(max_length=MAX_PATH_CHARS, description="The file or folder to move (rename).")
    dst: str = Field(max_length=MAX_PATH_CHARS, description="Its new path; it must not exist yet.")


@kit.tool(WRITE)
def move_path(ctx: ToolContext, args: MovePathArgs) -> WriteResult:
    """Moves (renames) a file or a folder with everything in it. The new path must not exist yet.

    Imports that name the old path are not rewritten: edit them yourself.
    """
    src, dst = arg_path(args.src, "src"), arg_path(args.dst, "dst")
    files = ctx.table(FILES)
    if src == dst:
        raise bad_args("src and dst are the same path", ["dst"])
    moving = [src] if src in files else files_under(files, src)
    if not moving:
        raise not_found("path", src, "src")
    if dst.startswith(src + "/"):
        raise bad_args(f"cannot move {src} into itself ({dst})", ["dst"])
    if dst in files or is_dir(files, dst):
        raise conflict(f"{dst} already exists; choose a new path or delete it first", ["dst"])
    writer = TreeWriter(ctx.state)
    for path in moving:
        target = dst + path[len(src):]
        entry = files.get(path)
        assert entry is not None
        if target.rsplit(".", 1)[-1] != path.rsplit(".", 1)[-1]:
            # Renaming text into a module (or a config) is a write of that kind: it is checked like one.
            _check_new_text(target, None, text_of(ctx, entry), "dst")
        writer.move(path, target, operation="move")
    commit(ctx, writer)
    return _result(writer, dst, "move", "")


class UndoEditArgs(ToolArgs):
    path: str = Field(max_length=MAX_PATH_CHARS, description="The file whose last change to undo.")


@kit.tool(WRITE)
def undo_edit(ctx: ToolContext, args: UndoEditArgs) -> WriteResult:
    """Undoes the last change you made to a file: an edit, insert, create, delete or move (a moved file
    goes back to its old path). Call it again to undo earlier changes. The task's starting point cannot be undone.
    """
    path = arg_path(args.path)
    history = ctx.table(EDITS).get(path)
    if history is None or not history.steps:
        raise conflict(f"you made no change to {path} that can be undone", ["path"])
    step = history.steps[-1]
    writer = TreeWriter(ctx.state)
    current: FileEntry | None = ctx.table(FILES).get(path)
    shown = path
    if step.kind == "move":
        assert step.src is not None
        if step.src in ctx.table(EDITS):
            # Changes made at the old path after the move are newer: they must be undone first.
            raise conflict(f"{step.src} has changes made after {path} was moved away from it; undo those "
                           f"first (ide.undo_edit path={step.src})", ["path"])
        writer.move(path, step.src, operation="undo", src_field="path", dst_field="path")
        shown = step.src
    elif step.blob is None:
        if current is None:
            raise conflict(f"{path} no longer exists, so its creation cannot be undone", ["path"])
        writer.delete(path, operation="undo")
    else:
        writer.restore(path, step.blob, step.mode or DEFAULT_MODE, operation="undo")
    commit(ctx, writer)
    after = writer.text(shown)
    return _result(writer, shown, "undo", _snippet(after, 1, MAX_SNIPPET_LINES) if after else "")
