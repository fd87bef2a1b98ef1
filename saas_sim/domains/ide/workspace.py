"""The workspace: reading the tree out of a state, and the one way to write it (`TreeWriter`).

Tools, world generators and scenario setups all change files through
`TreeWriter` (or `write_events`), so every limit of the tree is enforced in one
place and every writer emits the same events: a `BlobStored` for content the state
does not hold yet, then `FileWritten`, `PathDeleted` or `PathMoved`.

Limits: a file holds at most `MAX_FILE_BYTES` of UTF-8 text with no NUL byte
(binary content is refused) and no unpaired surrogate; the tree holds at most
`MAX_TREE_FILES` files and `MAX_TREE_BYTES` bytes. A path is a file or a folder,
never both. A breach is a `ToolError` naming the argument, so a tool can let it
through to the agent; a generator that breaches one has a bug, and it stays loud.
"""

from __future__ import annotations

import bisect
import difflib
import hashlib
from collections.abc import Iterator

from saas_sim.core.events import Event
from saas_sim.core.state import State, Table
from saas_sim.core.tool_errors import bad_args, conflict, not_found
from saas_sim.domains.ide.events import BlobStored, FileWritten, PathDeleted, PathMoved
from saas_sim.domains.ide.models import DEFAULT_MODE, FileEntry, FileMode, Operation
from saas_sim.domains.ide.paths import is_tree_path, parent_dirs
from saas_sim.domains.ide.state import BASE, BLOBS, FILES
from saas_sim.errors import HarnessError

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_TREE_BYTES",
    "MAX_TREE_FILES",
    "TreeWriter",
    "base_files",
    "base_table",
    "blob_sha",
    "changed_paths",
    "check_text",
    "file_text",
    "is_dir",
    "tree_blobs",
    "tree_files",
    "tree_hash",
    "unified_diff",
    "write_events",
]

MAX_FILE_BYTES = 256 * 1024
"""The largest file, in UTF-8 bytes."""
MAX_TREE_FILES = 2_000
"""The most files a tree holds."""
MAX_TREE_BYTES = 16 * 1024 * 1024
"""The most bytes all files of a tree hold together."""


def blob_sha(text: str) -> str:
    """Returns the sha256 hex of a text's UTF-8 bytes: its blob id."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_text(text: str, field: str = "content") -> int:
    """Returns the UTF-8 size of a file's text, or refuses it.

    Raises:
        ToolError: `invalid_argument` naming `field`: a NUL byte (binary content), an unpaired
            surrogate, or more than `MAX_FILE_BYTES` bytes.
    """
    if "\x00" in text:
        raise bad_args(f"{field} contains a NUL byte: binary content cannot be stored; files hold text", [field])
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        raise bad_args(f"{field} contains an unpaired surrogate and is not valid UTF-8 text", [field]) from None
    if len(data) > MAX_FILE_BYTES:
        raise bad_args(f"{field} is {len(data)} bytes; a file holds at most {MAX_FILE_BYTES}", [field],
                       limit=MAX_FILE_BYTES)
    return len(data)


# --- reading --------------------------------------------------------------------------


def _text(state: State, blob: str) -> str:
    found = state.get(BLOBS, blob)
    if found is None:
        raise HarnessError(f"blob {blob} is named by the tree but was never stored")
    return found.text


def file_text(state: State, path: str) -> str | None:
    """Returns the text of the file at `path`, or None when there is no such file."""
    entry = state.get(FILES, path)
    return None if entry is None else _text(state, entry.blob)


def tree_blobs(state: State) -> dict[str, str]:
    """Returns path -> blob sha of every file, sorted by path."""
    return {e.id: e.blob for e in state.table(FILES)}


def tree_files(state: State) -> dict[str, str]:
    """Returns path -> text of every file, sorted by path (what a sandbox run gets)."""
    return {e.id: _text(state, e.blob) for e in state.table(FILES)}


def tree_hash(state: State) -> str:
    """Returns the sha256 over the sorted `(path, mode, blob)` of every file: the tree's identity.

    Each file contributes the line `"<path>\\0<mode in octal>\\0<blob>\\n"`; an empty tree hashes
    the empty string.
    """
    h = hashlib.sha256()
    for e in state.table(FILES):
        h.update(f"{e.id}\0{e.mode:o}\0{e.blob}\n".encode())
    return h.hexdigest()


def base_table(state: State) -> Table[FileEntry]:
    """Returns the files table at the last `BaseMarked` (empty if the base was never marked)."""
    base = state.value(BASE)
    return base.files if base is not None else Table()


def base_files(state: State) -> dict[str, str]:
    """Returns path -> text of the base tree, sorted by path."""
    return {e.id: _text(state, e.blob) for e in base_table(state)}


def is_dir(files: Table[FileEntry], path: str) -> bool:
    """Whether `path` is a folder of the tree: some file lies under it. The root (`""`) always is."""
    if not path:
        return True
    ids = files.ids()
    prefix = path + "/"
    i = bisect.bisect_left(ids, prefix)
    return i < len(ids) and ids[i].startswith(prefix)


def files_under(files: Table[FileEntry], path: str) -> list[str]:
    """Returns the paths of the files under folder `path` (every file for the root), sorted."""
    ids = files.ids()
    if not path:
        return list(ids)
    prefix = path + "/"
    i = bisect.bisect_left(ids, prefix)
    j = bisect.bisect_left(ids, path + "0")  # "0" is the character right after "/"
    return list(ids[i:j])


def changed_paths(initial: State, final: State) -> list[str]:
    """Returns the paths whose content or mode differs between two states (added, changed, deleted), sorted."""
    before, after = initial.table(FILES), final.table(FILES)
    if before.same_as(after):
        return []
    out: list[str] = []
    for path in sorted(set(before.ids()) | set(after.ids())):
        b, a = before.get(path), after.get(path)
        if b is a:
            continue
        if b is None or a is None or (b.blob, b.mode) != (a.blob, a.mode):
            out.append(path)
    return out


def _lines(text: str | None) -> list[str]:
    return [] if text is None else text.splitlines(keepends=True)


def _file_diff(path: str, before: str | None, after: str | None) -> Iterator[str]:
    old = f"a/{path}" if before is not None else "/dev/null"
    new = f"b/{path}" if after is not None else "/dev/null"
    for line in difflib.unified_diff(_lines(before), _lines(after), fromfile=old, tofile=new, n=3):
        yield line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"


def unified_diff(state: State, path: str | None = None) -> str:
    """Returns the unified diff (git style, `a/` and `b/` prefixes) of the tree against the base.

    Args:
        state: The current state.
        path: Only this file, or only the files under this folder; None for the whole tree.

    Mode-only changes show as a `mode <old> -> <new>` line. Files are in path order.
    """
    base = base_table(state)
    current = state.table(FILES)
    paths = sorted(set(base.ids()) | set(current.ids()))
    if path:
        paths = [p for p in paths if p == path or p.startswith(path + "/")]
    out: list[str] = []
    for p in paths:
        b, a = base.get(p), current.get(p)
        if b is not None and a is not None and (b.blob, b.mode) == (a.blob, a.mode):
            continue
        if b is not None and a is not None and b.blob == a.blob:
            out.append(f"mode {p}: {b.mode:o} -> {a.mode:o}\n")
            continue
        out.extend(_file_diff(p, None if b is None else _text(state, b.blob), None if a is None else
                              _text(state, a.blob)))
    return "".join(out)


# --- writing --------------------------------------------------------------------------


class TreeWriter:
    """Decides the events of a batch of tree changes on top of a state, enforcing every limit.

    Several changes may be queued (a generator writes a whole project); each sees the ones
    before it. The state itself is never changed: fold `events` to apply them.

    Args:
        state: The state the changes start from.
    """

    def __init__(self, state: State) -> None:
        self._state = state
        self._files = state.table(FILES)
        self._blobs = state.table(BLOBS)
        self._new_blobs: set[str] = set()
        self._totals: tuple[int, int] | None = None
        self.events: list[Event] = []

    # views over the state plus the queued changes
    def entry(self, path: str) -> FileEntry | None:
        """Returns the file at `path` as the queued changes leave it, or None."""
        return self._files.get(path)

    def text(self, path: str) -> str | None:
        """Returns the text at `path` as the queued changes leave it, or None."""
        entry = self._files.get(path)
        return None if entry is None else self._blob_text(entry.blob)

    def _blob_text(self, blob: str) -> str:
        if blob in self._new_blobs:
            return next(e.text for e in self.events if isinstance(e, BlobStored) and e.sha == blob)
        return _text(self._state, blob)

    def files(self) -> Table[FileEntry]:
        """Returns the files table as the queued changes leave it."""
        return self._files

    def _room(self, path: str, field: str) -> None:
        if not is_tree_path(path):
            raise HarnessError(f"tree writer got a path that is not normalized: {path!r}")
        if is_dir(self._files, path):
            raise conflict(f"{path} is a folder; name a file", [field])
        for parent in parent_dirs(path):
            if parent in self._files:
                raise conflict(f"{parent} is a file, so {path} cannot be created under it", [field])

    def _totals_now(self) -> tuple[int, int]:
        if self._totals is None:
            self._totals = (len(self._files), sum(e.size for e in self._files))
        return self._totals

    def _store(self, text: str, size: int) -> str:
        sha = blob_sha(text)
        if sha not in self._blobs and sha not in self._new_blobs:
            self._new_blobs.add(sha)
            self.events.append(BlobStored(sha=sha, text=text))
        return sha

    def _account(self, added_files: int, added_bytes: int, field: str) -> None:
        count, size = self._totals_now()
        count, size = count + added_files, size + added_bytes
        if count > MAX_TREE_FILES:
            raise conflict(f"the tree holds at most {MAX_TREE_FILES} files; delete some first", [field],
                           limit=MAX_TREE_FILES)
        if size > MAX_TREE_BYTES:
            raise conflict(f"the tree holds at most {MAX_TREE_BYTES} bytes; delete or shrink files first",
                           [field], limit=MAX_TREE_BYTES)
        self._totals = (count, size)

    def write(self, path: str, text: str, *, operation: Operation, mode: FileMode | None = None,
              path_field: str = "path", text_field: str = "content") -> FileEntry:
        """Queues writing `text` to `path` (created, or replaced); returns the new entry.

        Args:
            path: A normalized tree path (`paths.normalize_path` first for agent input).
            text: The whole new text.
            operation: Why the file changes (agent operations push an undo step).
            mode: The new mode; None keeps the current one (0o644 for a new file).
            path_field: The argument named by a path error.
            text_field: The argument named by a content error.

        Raises:
            ToolError: A limit is breached, or `path` is a folder or lies under a file.
        """
        size = check_text(text, text_field)
        self._room(path, path_field)
        before = self._files.get(path)
        new_mode: FileMode = mode if mode is not None else (before.mode if before else DEFAULT_MODE)
        self._account(0 if before else 1, size - (before.size if before else 0), text_field)
        sha = self._store(text, size)
        entry = FileEntry(id=path, blob=sha, mode=new_mode, size=size)
        self.events.append(FileWritten(
            path=path, blob=sha, mode=new_mode, size=size, operation=operation,
            before_blob=before.blob if before else None, before_mode=before.mode if before else None,
        ))
        self._files = self._files.set(entry)
        return entry

    def restore(self, path: str, blob: str, mode: FileMode, *, operation: Operation,
                path_field: str = "path") -> FileEntry:
        """Queues putting a stored blob back at `path` (undo, restoring from the base).

        Raises:
            HarnessError: The blob was never stored (a bug: blobs are never removed).
        """
        return self.write(path, self._blob_text(blob), operation=operation, mode=mode, path_field=path_field)

    def delete(self, path: str, *, operation: Operation, path_field: str = "path") -> None:
        """Queues deleting the file at `path`.

        Raises:
            ToolError: `not_found` naming `path_field` when there is no such file.
        """
        before = self._files.get(path)
        if before is None:
            raise not_found("file", path, path_field)
        self._account(-1, -before.size, path_field)
        self.events.append(PathDeleted(path=path, operation=operation, before_blob=before.blob,
                                       before_mode=before.mode))
        self._files = self._files.remove(path)

    def move(self, src: str, dst: str, *, operation: Operation, src_field: str = "src",
             dst_field: str = "dst") -> FileEntry:
        """Queues moving the file at `src` to the free path `dst`; returns the moved entry.

        Raises:
            ToolError: `not_found` for a missing `src`; `conflict` when `dst` is taken,
                is a folder, or lies under a file.
        """
        entry = self._files.get(src)
        if entry is None:
            raise not_found("file", src, src_field)
        if dst in self._files:
            raise conflict(f"{dst} already exists; delete it first or choose another path", [dst_field])
        self._files = self._files.remove(src)
        try:
            self._room(dst, dst_field)
        except BaseException:
            self._files = self._files.set(entry)
            raise
        moved = FileEntry(id=dst, blob=entry.blob, mode=entry.mode, size=entry.size)
        self.events.append(PathMoved(src=src, dst=dst, operation=operation))
        self._files = self._files.set(moved)
        return moved


def write_events(state: State, path: str, text: str, *, operation: Operation,
                 mode: FileMode | None = None) -> list[Event]:
    """Returns the events that write `text` to `path` on top of `state` (see `TreeWriter.write`)."""
    writer = TreeWriter(state)
    writer.write(path, text, operation=operation, mode=mode)
    return writer.events
