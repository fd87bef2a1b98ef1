"""What the IDE's READ and WRITE tools return: listings, file slices, search hits, symbols, diffs, writes."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from saas_sim.core.paging import Page
from saas_sim.core.tools import ToolResult

__all__ = [
    "DiffFile",
    "DiffView",
    "DirEntry",
    "DirPage",
    "FileMatch",
    "FileSlice",
    "FoundFile",
    "FoundFilePage",
    "SearchHit",
    "SearchResult",
    "SymbolHit",
    "SymbolPage",
    "WriteResult",
]


class DirEntry(ToolResult):
    """One file or folder of a listing."""

    path: str = Field(description="The path from the tree root.")
    kind: Literal["file", "dir"] = Field(description="file or dir.")
    size: int | None = Field(description="A file's size in bytes; null for a folder.")
    files: int | None = Field(description="How many files a folder holds at any depth; null for a file.")


class DirPage(Page[DirEntry]):
    items: list[DirEntry] = Field(description="Files and folders, sorted by path.")


class FileSlice(ToolResult):
    """Some numbered lines of a file."""

    path: str = Field(description="The file's path.")
    total_lines: int = Field(description="How many lines the whole file has.")
    start_line: int = Field(description="The first line shown (1-based).")
    end_line: int = Field(description="The last line shown; 0 for an empty file.")
    text: str = Field(description="The lines, each as `<number><TAB><line>`; very long lines are cut.")
    next_start_line: int | None = Field(
        description="Pass as start_line to read on; null when the slice reaches the requested end.")


class FoundFile(ToolResult):
    """A file whose path matches."""

    path: str = Field(description="The file's path.")
    size: int = Field(description="Its size in bytes.")


class FoundFilePage(Page[FoundFile]):
    items: list[FoundFile] = Field(description="Matching files, sorted by path.")


class SearchHit(ToolResult):
    """One matching line."""

    line: int = Field(description="The line number (1-based).")
    text: str = Field(description="The line (cut when very long).")


class FileMatch(ToolResult):
    """The matches in one file."""

    path: str = Field(description="The file's path.")
    count: int = Field(description="How many lines of the file match.")
    hits: list[SearchHit] = Field(description="The first matching lines, in line order.")


class SearchResult(ToolResult):
    """The files that match a search, in path order."""

    files: list[FileMatch] = Field(description="The matching files shown, sorted by path (at most max_files).")
    total_files: int = Field(description="How many files match in all.")
    total_lines: int = Field(description="How many lines match in all.")
    truncated: bool = Field(description="True when more files match than are shown.")
    message: str | None = Field(description="Advice when the result was cut: narrow the query or the glob.")


class SymbolHit(ToolResult):
    """A definition of, or a reference to, a name."""

    path: str = Field(description="The file.")
    line: int = Field(description="The line (1-based).")
    column: int = Field(description="The column (0-based).")
    role: Literal["definition", "reference"] = Field(description="definition or reference.")
    kind: str = Field(description="For a definition: function, method, class, variable, import or parameter; "
                                  "for a reference: name, attribute or import.")
    qualname: str = Field(description="For a definition, its dotted name in the module (`Invoice.total`).")
    text: str = Field(description="The source line.")


class SymbolPage(Page[SymbolHit]):
    items: list[SymbolHit] = Field(description="Definitions first, then references; each by path, line, column.")


class DiffFile(ToolResult):
    """One changed path."""

    path: str = Field(description="The path.")
    change: Literal["added", "modified", "deleted", "mode"] = Field(description="added, modified, deleted or mode.")


class DiffView(ToolResult):
    """The changes of the tree against the base (the task's starting point)."""

    files: list[DiffFile] = Field(description="Every changed path, sorted.")
    diff: str = Field(description="A unified diff (a/ and b/ prefixes); cut when long.")
    truncated: bool = Field(description="True when the diff was cut; ask for one path to see all of it.")


class WriteResult(ToolResult):
    """What a write did."""

    path: str = Field(description="The path written (for a move: the new path).")
    operation: str = Field(description="edit, insert, create, delete, move or undo.")
    changed_files: list[str] = Field(description="Every path the call changed, sorted.")
    total_lines: int | None = Field(description="The file's line count afterwards; null when it no longer exists.")
    snippet: str = Field(description="Numbered lines around the change (empty for a delete or a move).")
    replacements: int = Field(default=0, description="For edit_file: how many occurrences were replaced.")
