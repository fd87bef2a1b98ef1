"""READ tools over the tree: list a folder, read a file, find files by name, and diff against the base."""

from __future__ import annotations

from pydantic import Field

from saas_sim.core.paging import PageArgs
from saas_sim.core.tool_errors import bad_args, not_found
from saas_sim.core.tools import READ, ToolArgs, ToolContext
from saas_sim.domains.ide.kit import kit
from saas_sim.domains.ide.paths import MAX_PATH_CHARS
from saas_sim.domains.ide.state import FILES
from saas_sim.domains.ide.tool_helpers import arg_path, glob_matches, number_lines, require_file, split_lines, text_of
from saas_sim.domains.ide.views_files import (
    DiffFile,
    DiffView,
    DirEntry,
    DirPage,
    FileSlice,
    FoundFile,
    FoundFilePage,
)
from saas_sim.domains.ide.workspace import base_table, files_under, is_dir, unified_diff

__all__ = ["MAX_DIFF_CHARS", "MAX_READ_BYTES", "MAX_READ_LINES", "diff", "find_files", "list_dir", "read_file"]

MAX_READ_LINES = 200
"""The most lines one read_file call shows."""
MAX_READ_BYTES = 16 * 1024
"""The most bytes of numbered text one read_file call shows."""
MAX_DIFF_CHARS = 16 * 1024
"""The longest diff one call shows."""
MAX_LIST_DEPTH = 4
"""How deep one list_dir call goes."""


class ListDirArgs(PageArgs):
    path: str = Field(default="", max_length=MAX_PATH_CHARS,
                      description="The folder, from the tree root (`acme/billing`); empty for the root.")
    depth: int = Field(default=1, ge=1, le=MAX_LIST_DEPTH,
                       description=f"How many levels to list (1-{MAX_LIST_DEPTH}): 1 lists only direct entries.")


@kit.tool(READ)
def list_dir(ctx: ToolContext, args: ListDirArgs) -> DirPage:
    """Lists the files and folders in a folder of the project, down to `depth` levels, sorted by path.

    Folders show how many files they hold. Paths are relative to the project root.
    """
    path = arg_path(args.path, allow_root=True)
    files = ctx.table(FILES)
    if path in files:
        raise bad_args(f"{path} is a file; use ide.read_file", ["path"])
    if not is_dir(files, path):
        raise not_found("folder", path, "path")
    prefix = f"{path}/" if path else ""
    shown_files: list[str] = []
    dir_counts: dict[str, int] = {}
    for file_path in files_under(files, path):
        parts = file_path[len(prefix):].split("/")
        if len(parts) <= args.depth:
            shown_files.append(file_path)
        for k in range(1, min(args.depth + 1, len(parts))):
            folder = prefix + "/".join(parts[:k])
            dir_counts[folder] = dir_counts.get(folder, 0) + 1

    def view(shown: str) -> DirEntry:
        if shown in dir_counts:
            return DirEntry(path=shown, kind="dir", size=None, files=dir_counts[shown])
        entry = files.get(shown)
        assert entry is not None
        return DirEntry(path=shown, kind="file", size=entry.size, files=None)

    return DirPage.of([*shown_files, *dir_counts], lambda p: (p,), args, view=view)


class ReadFileArgs(ToolArgs):
    path: str = Field(max_length=MAX_PATH_CHARS, description="The file, from the project root.")
    start_line: int = Field(default=1, ge=1, description="The first line to show (1-based).")
    end_line: int | None = Field(
        default=None, ge=1,
        description=f"The last line to show; omit to read on. At most {MAX_READ_LINES} lines are shown per call.")


@kit.tool(READ)
def read_file(ctx: ToolContext, args: ReadFileArgs) -> FileSlice:
    """Shows numbered lines of a file, with its total line count.

    One call shows at most 200 lines and 16 KB; `next_start_line` says where to go on.
    """
    path = arg_path(args.path)
    entry = require_file(ctx, path)
    lines = split_lines(text_of(ctx, entry))
    total = len(lines)
    if args.end_line is not None and args.end_line < args.start_line:
        raise bad_args(f"end_line {args.end_line} is before start_line {args.start_line}", ["end_line"])
    if total == 0:
        if args.start_line > 1:
            raise bad_args(f"{path} is empty; it has no line {args.start_line}", ["start_line"])
        return FileSlice(path=path, total_lines=0, start_line=1, end_line=0, text="", next_start_line=None)
    if args.start_line > total:
        raise bad_args(f"{path} has {total} lines; start_line {args.start_line} is past its end", ["start_line"],
                       total_lines=total)
    wanted_end = min(total, args.end_line or total)
    end = min(wanted_end, args.start_line + MAX_READ_LINES - 1)
    shown: list[str] = []
    size = 0
    for n in range(args.start_line, end + 1):
        row = number_lines([lines[n - 1]], n)
        if shown and size + len(row.encode()) > MAX_READ_BYTES:
            break
        shown.append(row)
        size += len(row.encode())
    last = args.start_line + len(shown) - 1
    return FileSlice(path=path, total_lines=total, start_line=args.start_line, end_line=last, text="".join(shown),
                     next_start_line=last + 1 if last < wanted_end else None)


class FindFilesArgs(PageArgs):
    pattern: str = Field(
        min_length=1, max_length=200,
        description="A glob over paths: `*` matches any characters including `/`, `?` one character, "
                    "`[abc]` a set. A pattern without `/` also matches file names in any folder "
                    "(`*.py`, `conftest.py`, `acme/billing/*`).")


@kit.tool(READ)
def find_files(ctx: ToolContext, args: FindFilesArgs) -> FoundFilePage:
    """Finds files whose path matches a glob, sorted by path."""
    if "\x00" in args.pattern:
        raise bad_args("pattern contains a NUL byte", ["pattern"])
    found = [e for e in ctx.table(FILES) if glob_matches(e.id, args.pattern)]
    return FoundFilePage.of(found, lambda e: (e.id,), args, view=lambda e: FoundFile(path=e.id, size=e.size))


class DiffArgs(ToolArgs):
    path: str | None = Field(default=None, max_length=MAX_PATH_CHARS,
                             description="Only this file or folder; omit (or pass \"\") for every change.")


@kit.tool(READ)
def diff(ctx: ToolContext, args: DiffArgs) -> DiffView:
    """Shows your changes against the task's starting point, as a unified diff, and lists every changed path.

    A long diff is cut; ask for one path to see all of its changes.
    """
    path = arg_path(args.path, allow_root=True) if args.path is not None else None
    path = path or None  # "" or "." is the whole tree
    base, current = base_table(ctx.state), ctx.table(FILES)
    if path is not None and path not in base and path not in current and not is_dir(base, path) \
            and not is_dir(current, path):
        raise not_found("path", path, "path")
    changed: list[DiffFile] = []
    for p in sorted(set(base.ids()) | set(current.ids())):
        if path is not None and p != path and not p.startswith(path + "/"):
            continue
        b, a = base.get(p), current.get(p)
        if b is None and a is not None:
            changed.append(DiffFile(path=p, change="added"))
        elif a is None and b is not None:
            changed.append(DiffFile(path=p, change="deleted"))
        elif a is not None and b is not None and a.blob != b.blob:
            changed.append(DiffFile(path=p, change="modified"))
        elif a is not None and b is not None and a.mode != b.mode:
            changed.append(DiffFile(path=p, change="mode"))
    text = unified_diff(ctx.state, path) if changed else ""
    truncated = len(text) > MAX_DIFF_CHARS
    if truncated:
        text = text[:MAX_DIFF_CHARS] + "\n... [diff cut; ask for one path]\n"
    return DiffView(files=changed, diff=text, truncated=truncated)
